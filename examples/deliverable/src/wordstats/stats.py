"""Count the words of a text and report the most frequent ones as JSON."""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from datetime import date
from pathlib import Path

WORD = re.compile(r"[a-z']+")


def count_words(text: str) -> Counter[str]:
    """Lower-case word counts of a text."""
    return Counter(WORD.findall(text.lower()))


def top_words(text: str, limit: int = 10) -> list[dict[str, object]]:
    """The most frequent words, most frequent first, ties in alphabetical order."""
    ranked = sorted(count_words(text).items(), key=lambda item: (-item[1], item[0]))
    return [{"word": word, "count": count} for word, count in ranked[:limit]]


def report(source: str, text: str, generated: date) -> dict[str, object]:
    """The result document of one text (see schemas/result.schema.json)."""
    return {
        "source": source,
        "generated": generated.isoformat(),
        "total_words": sum(count_words(text).values()),
        "top": top_words(text, 5),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the report of a text file."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path)
    parser.add_argument("--date", type=date.fromisoformat, default=date.today())
    args = parser.parse_args(argv)
    text = args.path.read_text(encoding="utf-8")
    print(json.dumps(report(args.path.as_posix(), text, args.date), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
