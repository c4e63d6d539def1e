"""The pictures in docs/images, drawn from the current code in headless chromium (1280 wide).

- `pr-comment.png` and `check-run.png`: what a pull request gets, from the markdown the bot
  really writes (the sticky comment after a reviewer's `/score` and `/approve`; the check run
  of the automatic first score), rendered as GitHub-flavoured markdown;
- `report-index.png`: the top of `rubricate report --demo`'s index page.

`python -m tests.docs_images` redraws them and records a digest of each one's source in
`docs/images/sources.json`; `tests/test_docs_images.py` fails when the code would draw a
different picture than the one committed (then run this again).
"""

from __future__ import annotations

import hashlib
import html
import json
import sys
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

from rubricate.bot.effects import SetCheckRun, UpsertComment
from rubricate.bot.payload import parse_event
from rubricate.cli.main import main as rubricate
from rubricate.cli.rubric_cmd import resolve_rubric
from tests.bot.conftest import AGORA_AUTO, Harness, make_report, of_type, pr_payload, snapshot

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
SOURCES = IMAGES / "sources.json"
WIDTH = 1280
GITHUB_CSS = """
body{margin:0;background:#f6f8fa;font:14px/1.5 -apple-system,'Segoe UI','DejaVu Sans',sans-serif;
color:#1f2328}
.box{max-width:880px;margin:16px auto;background:#fff;border:1px solid #d0d7de;border-radius:6px}
.head{padding:8px 16px;background:#f6f8fa;border-bottom:1px solid #d0d7de;border-radius:6px 6px 0 0;
color:#59636e}
.head b{color:#1f2328}
.body{padding:4px 16px 12px}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #d0d7de;padding:4px 10px}
th{background:#f6f8fa}
code{background:#eff1f3;padding:1px 4px;border-radius:4px;font-size:85%}
h3,h4{margin:16px 0 8px}
details{margin:8px 0}
"""


def sources() -> dict[str, str]:
    """Each picture's source: the markdown or page it shows, from the current code."""
    bot = Harness(resolve_rubric("agora-v3"))
    scores = {**AGORA_AUTO, "quality": 4}
    report = make_report(bot.rubric, scores, judge=("quality", "spec_adherence"))
    head = "a" * 40
    event = parse_event("pull_request", pr_payload("opened", head, number=bot.pr))
    opened = bot.run(event, snap=snapshot(head, "1" * 40), report=report)  # type: ignore[arg-type]
    check = of_type(opened, SetCheckRun)[-1]
    bot.say("/score spec=4 completeness=4 quality=4 verifiability=3 format=5")
    bot.say("/approve", comment_id=1002)
    sticky = of_type(bot.effects, UpsertComment)[-1]
    with tempfile.TemporaryDirectory() as out:
        assert rubricate(["report", "--demo", "--out", out]) == 0
        index = (Path(out) / "index.html").read_text(encoding="utf-8")
    return {
        "pr-comment": _github_page("rubricate[bot] commented", sticky.body),
        "check-run": _github_page(f"rubricate · {check.title}", check.summary),
        "report-index": index,
    }


def digests(found: dict[str, str]) -> dict[str, str]:
    return {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in found.items()}


def _github_page(heading: str, markdown: str) -> str:
    body = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{GITHUB_CSS}</style></head>"
        f"<body><div class='box'><div class='head'><b>{html.escape(heading)}</b></div>"
        f"<div class='body'>{body}</div></div></body></html>"
    )


def draw() -> None:
    """Redraw every picture and record its source's digest."""
    from tests.report.cdp import browser, chromium_path

    binary = chromium_path()
    if binary is None:
        sys.exit("chromium is not installed (apt-get install chromium fonts-dejavu-core)")
    found = sources()
    with tempfile.TemporaryDirectory() as folder, browser(binary) as tab:
        for name, page in found.items():
            if name == "report-index":
                with tempfile.TemporaryDirectory() as out:  # the site, style.css with it
                    assert rubricate(["report", "--demo", "--out", out]) == 0
                    tab.open((Path(out) / "index.html").as_uri(), WIDTH, 800)
                    tab.screenshot(IMAGES / f"{name}.png")
                continue
            path = Path(folder) / f"{name}.html"
            path.write_text(page, encoding="utf-8")
            tab.open(path.as_uri(), WIDTH, 800)
            height = int(tab.evaluate("document.documentElement.scrollHeight"))
            tab.open(path.as_uri(), WIDTH, min(height, 2400))
            tab.screenshot(IMAGES / f"{name}.png")
    SOURCES.write_text(json.dumps(digests(found), indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    draw()
