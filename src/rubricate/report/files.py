"""Write the report's data files: `report.json` and the markdown summary `report.md` (shell:
writes files). The HTML site is written by `site`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubricate.report.kept_json import canonical, rows_for_writing
from rubricate.report.markdown import report_markdown


def write_markdown(report: Mapping[str, Any], out: Path) -> Path:
    """`report.md`, compact enough for `$GITHUB_STEP_SUMMARY`."""
    out.mkdir(parents=True, exist_ok=True)
    return write_text(out / "report.md", report_markdown(report))


def write_json(report: Mapping[str, Any], path: Path) -> Path:
    """Every number the pages show, as canonical JSON (the parts the last report kept written
    as the text they were kept as)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scores = report.get("scores")
    if scores is not None:
        rows = rows_for_writing(scores["jobs"])
        report = {**report, "scores": {**scores, "jobs": rows}}
    return write_text(path, canonical(report) + "\n")


def write_text(path: Path, text: str) -> Path:
    """`text` as UTF-8 at `path`."""
    path.write_text(text, encoding="utf-8")
    return path
