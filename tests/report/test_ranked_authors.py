"""The report shows how sure each reputation is: `ranked` (the authors tables sort by it),
provisional authors marked, and each component's n and 95% interval; all as reputation.json has
them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.ledger.backends import DirectoryStore
from rubricate.report.pages import INDEX_AUTHORS
from tests.report.sample import sample_events, write_ledger

pytest.importorskip("pygal")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    assert main(["report", "--demo", "--out", str(out)]) == 0
    assert main(["report", "--demo", "--out", str(out), "--format", "json"]) == 0
    assert main(["report", "--demo", "--out", str(out), "--format", "markdown"]) == 0
    return out


def _authors(demo: Path) -> list[dict[str, Any]]:
    report = json.loads((demo / "report.json").read_text(encoding="utf-8"))
    authors: list[dict[str, Any]] = report["authors"]
    return authors


def _ranked_order(authors: list[dict[str, Any]]) -> list[str]:
    ordered = sorted(authors, key=lambda a: (a["ranked"] is None, -(a["ranked"] or 0)))
    return [a["author"] for a in ordered]


def test_the_index_lists_the_top_ranked_authors_and_marks_the_provisional(demo: Path) -> None:
    authors = _authors(demo)
    assert _ranked_order(authors) != [a["author"] for a in sorted(authors, key=_by_reputation)]
    index = (demo / "index.html").read_text(encoding="utf-8")
    table = index[index.index('id="reputation"') : index.index('id="scores"')]
    listed = re.findall(r'<a href="authors/[^"]+">([^<]+)</a>', table)
    assert listed == _ranked_order(authors)[:INDEX_AUTHORS]
    assert 'aria-sort=descending><a href="authors-by-ranked.html">ranked</a>' in table
    every = (demo / "authors-by-ranked.html").read_text(encoding="utf-8")
    assert re.findall(r'<a href="authors/[^"]+">([^<]+)</a>', every) == _ranked_order(authors)
    provisional = {a["author"] for a in authors if a["provisional"]}
    assert 0 < len(provisional) < len(authors)
    marked = set(re.findall(r'">([^<]+)</a>&nbsp;<span class="muted" title="provisional">', every))
    assert marked == provisional
    entry = next(a for a in authors if a["components"]["rating_score"]["interval"])
    low, high = entry["components"]["rating_score"]["interval"]
    assert f'title="n={entry["components"]["rating_score"]["n"]} · 95% interval ' in every
    assert f"{low:.2f}–{high:.2f}" in every


def _by_reputation(entry: dict[str, Any]) -> tuple[bool, float]:
    return (entry["reputation"] is None, -(entry["reputation"] or 0))


def test_an_authors_page_shows_each_components_interval(demo: Path) -> None:
    entry = next(a for a in _authors(demo) if a["provisional"])
    page = (demo / "authors" / f"{entry['slug']}.html").read_text(encoding="utf-8")
    part = entry["components"]["completion_rate"]
    low, high = part["interval"]
    assert f"completion rate (n={part['n']}, 95% interval {low:.2f}–{high:.2f})" in page
    assert "provisional" in page


def test_the_markdown_summary_sorts_by_ranked(demo: Path) -> None:
    text = (demo / "report.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "demo/" in line]
    ranked = [float(row.split(" | ")[2]) for row in rows]
    assert ranked == sorted(ranked, reverse=True)
    assert any(row.split(" | ")[0].endswith(" \\*") for row in rows)


def test_ranked_is_reputation_jsons_own(tmp_path: Path) -> None:
    data = write_ledger(tmp_path / "data", sample_events(60))
    with DirectoryStore(str(data)) as store:
        store.rebuild()
    recorded = json.loads((data / "reputation.json").read_text(encoding="utf-8"))["repos"]
    assert main(["report", "--data", str(data), "--out", str(tmp_path), "--format", "json"]) == 0
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["authors"]
    for entry in report["authors"]:
        mine = recorded[entry["repo"]]["authors"][entry["author"]]
        assert entry["ranked"] == mine["ranked"]
        assert entry["provisional"] == mine["provisional"]
        assert entry["components"] == mine["components"]
