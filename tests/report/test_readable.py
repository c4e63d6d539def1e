"""The report as a maintainer reads it: one colour per source, no empty slots, a short authors
table on the index, and author pages that list the newest job first with links."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.report import chart_styles, charts, sections
from rubricate.report.author_page import author_section
from rubricate.report.pages import INDEX_AUTHORS


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    assert main(["report", "--demo", "--out", str(out), "--format", "json"]) == 0
    return out


def _report(demo: Path) -> dict[str, Any]:
    import json

    report: dict[str, Any] = json.loads((demo / "report.json").read_text(encoding="utf-8"))
    return report


def test_each_source_has_one_colour_in_every_chart(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[tuple[list[str], list[str]]] = []

    def spy(real: Any) -> Any:
        def draw(*args: Any, **kwargs: Any) -> str:
            names = [re.sub(r" .*", "", name) for name in args[4]]  # "judge (n=3)", "judge vs …"
            drawn.append((names, list(kwargs.get("colours") or [])))
            return str(real(*args, **kwargs))

        return draw

    monkeypatch.setattr(charts, "grouped_bars", spy(charts.grouped_bars))
    monkeypatch.setattr(charts, "intervals", spy(charts.intervals))
    report = _report(demo)
    sections.scores(report)
    sections.calibration(report)
    by_source = [(n, c) for names, colours in drawn for n, c in zip(names, colours, strict=False)]
    assert {n for n, _ in by_source} == {"heuristic", "judge", "reviewer"}
    for name, colour in by_source:
        assert colour == charts.SOURCE_COLOURS[name], name


def test_a_source_with_no_score_leaves_no_empty_slot(demo: Path) -> None:
    report = _report(demo)
    criterion, by_source = next(iter(report["scores"]["distributions"].items()))
    no_judge = {**by_source, "judge": {}}
    html = sections.scores(
        {**report, "scores": {**report["scores"], "distributions": {criterion: no_judge}}}
    )
    assert "judge (n=0)" not in html
    assert "reviewer (n=" in html


def test_colours_reach_the_charts_css() -> None:
    chart_styles.STYLES.clear()
    charts.grouped_bars(
        "c", "t", "d", ["1"], {"a": [1.0]}, x_title="x", y_title="y", colours=["#123456"]
    )
    assert "#123456" in chart_styles.stylesheet()


def test_the_index_lists_the_top_authors_and_links_to_them_all(tmp_path: Path) -> None:
    assert main(["report", "--demo", "--out", str(tmp_path)]) == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    reputation = index[index.index('id="reputation"') : index.index('id="scores"')]
    assert reputation.count('href="authors/') == INDEX_AUTHORS
    assert '<a href="authors-by-ranked.html">all 72 authors</a>' in reputation
    every = (tmp_path / "authors-by-reputation.html").read_text(encoding="utf-8")
    assert every.count('href="authors/') == 72


def _entry(demo: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    report = _report(demo)
    entry = max(report["authors"], key=lambda a: a["jobs"]["completed"])
    jobs = [j for j in report["scores"]["jobs"] if j["author"] == entry["author"]]
    return entry, jobs


def test_an_authors_jobs_are_newest_first_with_links_and_hours(demo: Path) -> None:
    entry, jobs = _entry(demo)
    html = author_section(entry, jobs, "https://github.example")
    listed = html[html.index("<h3>Jobs, newest first</h3>") :]
    prs = [int(n) for n in re.findall(r'/pull/(\d+)">#\d+</a>', listed)]
    assert len(prs) == len(jobs) > 10
    assert prs == sorted(prs, reverse=True)
    assert f'href="https://github.example/demo/widgets/pull/{prs[0]}">#{prs[0]}</a>' in listed
    hours = [j["hours_to_approval"] for j in jobs if j["hours_to_approval"] is not None]
    assert re.search(r"<td>\d[\d,]*\.\d</td><td class=text>(passed|overridden|bypassed)", listed)
    assert not re.search(r"<td>\d+\.\d{3}</td><td class=text>(passed|overridden|bypassed)", listed)
    assert hours


def test_without_a_server_the_numbers_are_plain(demo: Path) -> None:
    entry, jobs = _entry(demo)
    assert "/pull/" not in author_section(entry, jobs)
