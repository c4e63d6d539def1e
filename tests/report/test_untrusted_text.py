"""Text from the ledger (criterion ids, reasons, feedback) cannot break the report's pages,
its markdown summary or its charts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.event import CriterionRef, RubricRef, ScaleRef
from rubricate.report.text import TEXT_LIMIT
from tests.ledger.factory import completed_job, event
from tests.report.sample import write_ledger

BRACED = RubricRef(
    id="braced",
    version="1",
    scale=ScaleRef(min=1, max=5),
    criteria={"a{b}": CriterionRef(weight=0.5), "{0} }{": CriterionRef(weight=0.5)},
)
REASON = (
    "see [the log](https://evil.example/x) ![pixel](https://evil.example/p.png) "
    "<img src=x> @maintainers\r| injected | row |\n" + "x" * 2_000_000
)


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    events = []
    for pr in range(1, 4):
        events += completed_job(
            pr, {"a{b}": 3, "{0} }{": 4}, {"a{b}": 4, "{0} }{": 5}, rubric=BRACED
        )
    override = {"gate": "overridden", "override": {"reason": REASON}}
    events.append(event("final_approval", 9, 50, "o9", **override))
    events.append(event("disputed", 9, 60, "d9", feedback=REASON))
    return write_ledger(tmp_path / "data", events)


@pytest.mark.parametrize("fmt", ["html", "markdown", "json"])
def test_braces_in_a_criterion_id_do_not_break_the_charts(
    ledger: Path, tmp_path: Path, fmt: str
) -> None:
    assert main(["report", "--data", str(ledger), "--out", str(tmp_path), "--format", fmt]) == 0


def test_chart_ids_are_safe_and_distinct(ledger: Path, tmp_path: Path) -> None:
    assert main(["report", "--data", str(ledger), "--out", str(tmp_path)]) == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'<svg[^>]* id="([^"]*)"', index)
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids)


def test_a_long_reason_is_cut_with_a_note_in_the_pages(ledger: Path, tmp_path: Path) -> None:
    assert main(["report", "--data", str(ledger), "--out", str(tmp_path)]) == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert len(index) < 200_000
    assert index.count("more characters in report.json") == 2  # the override and the dispute
    assert "<img src=x>" not in index
    assert "x" * (TEXT_LIMIT + 1) not in index


def test_the_summary_neutralises_links_images_and_line_breaks(ledger: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["report", "--data", str(ledger), "--out", str(out), "--format", "markdown"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert len(text) < 20_000
    assert re.search(r"more characters in report\\?\.json", text)
    assert "\r" not in text
    assert "](" not in text  # no link or image: its brackets are escaped
    assert "<img" not in text
    assert "https://" not in text  # no bare autolink
    assert "@maintainers" not in text  # no mention
    row = next(line for line in text.splitlines() if "see \\[the log" in line)
    assert row.count(" | ") == 4  # the reason's `|` and line break stay inside its cell
    assert re.search(r"\| \S+injected", row) is None


def test_the_summary_stays_under_githubs_limit_with_a_note(tmp_path: Path) -> None:
    from rubricate.report.markdown import MARKDOWN_LIMIT

    criteria = {f"criterion-{i:04d}-" + "y" * 400: CriterionRef(weight=1.0) for i in range(1500)}
    many = RubricRef(id="many", version="1", scale=ScaleRef(min=1, max=5), criteria=criteria)
    first = dict.fromkeys(criteria, 3)
    events = completed_job(1, first, first, rubric=many)
    data = write_ledger(tmp_path / "data", events)
    out = tmp_path / "out"
    assert main(["report", "--data", str(data), "--out", str(out), "--format", "markdown"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert len(text) < MARKDOWN_LIMIT
    assert "truncated: the full report is longer than" in text
    assert "report.json has every number" in text
