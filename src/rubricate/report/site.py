"""Write the report: a static site, a markdown summary or JSON (shell: writes files).

Pages are made and written one at a time, so the site is never held in memory as a whole.
Progress goes to `progress` (the CLI passes stderr when it is a terminal).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Progress = Callable[[str], None]


def write_site(report: Mapping[str, Any], out: Path, progress: Progress) -> list[Path]:
    """`index.html`, the sorted author tables, one page per author, and `report.json`."""
    from rubricate.report.pages import author_pages, index_page, sort_pages

    (out / "authors").mkdir(parents=True, exist_ok=True)
    written = [_write(out / "index.html", index_page(report))]
    progress("index.html")
    written += [_write(out / name, text) for name, text in sort_pages(report)]
    total = len({a["slug"] for a in report["authors"]})
    for done, (name, text) in enumerate(author_pages(report), start=1):
        written.append(_write(out / "authors" / name, text))
        if done == total or done % 25 == 0:
            progress(f"author pages {done}/{total}")
    written.append(write_json(report, out / "report.json"))
    return written


def write_markdown(report: Mapping[str, Any], out: Path) -> Path:
    """`report.md`, compact enough for `$GITHUB_STEP_SUMMARY`."""
    from rubricate.report.markdown import report_markdown

    out.mkdir(parents=True, exist_ok=True)
    return _write(out / "report.md", report_markdown(report))


def write_json(report: Mapping[str, Any], path: Path) -> Path:
    """Every number the pages show, as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=1, sort_keys=True, allow_nan=False)
        handle.write("\n")
    return path


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
