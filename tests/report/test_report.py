"""`rubricate report`: formats, filters, empty and corrupt ledgers, accessibility markup."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.reputation import compute_reputation
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.calibration import MIN_PAIRS
from rubricate.report.model import Options, build_report
from tests.report.conftest import NOW
from tests.report.sample import sample_events


def _run(*args: str) -> int:
    return main(["report", *args])


def test_html_site_is_self_contained_and_accessible(data: Path, tmp_path: Path) -> None:
    assert _run("--data", str(data), "--out", str(tmp_path)) == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    pages = [index, *(p.read_text(encoding="utf-8") for p in (tmp_path / "authors").glob("*.html"))]
    assert len(pages) == 6
    for page in pages:
        assert "<script" not in page
        assert "Content-Security-Policy" in page
        assert 'style.css">' in page
        assert not re.search(r"<style|style=", page)  # no inline CSS: the policy forbids it
        # nothing is loaded from outside (a link to a pull request loads nothing)
        assert not re.search(r'(src="|<link[^>]*href=")(https?:)?//', page)
        links = re.findall(r'<a href="(https?:)?//([^"]*)"', page)
        assert all(re.fullmatch(r"github\.com/o/r/pull/\d+", url) for _, url in links)
        svgs = re.findall(r"<svg.*?</svg>", page, re.S)
        assert svgs
        for svg in svgs:
            assert 'role="img"' in svg
            assert "<title " in svg
            assert "<desc " in svg
        assert page.count("<figure") == page.count("Data table")
    assert "ledger/2024-04.jsonl:" in index
    assert "corrupt line" in index
    assert "authors/dependabot_bot_.html" in index
    assert (tmp_path / "authors-by-reputation.html").exists()
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["ledger"]["corrupt_lines"] == 1


def test_pages_are_reproducible(data: Path, tmp_path: Path) -> None:
    parsed = parse_ledger(
        {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    )
    from rubricate.report.pages import index_html

    first = build_report(parsed, ReputationConfig(), Options(now=NOW))
    again = build_report(parsed, ReputationConfig(), Options(now=NOW))
    assert index_html(first) == index_html(again)


def test_json_holds_the_numbers_and_reputation_matches(data: Path, tmp_path: Path) -> None:
    assert _run("--data", str(data), "--out", str(tmp_path), "--format", "json") == 0
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    events = sample_events()
    expected = compute_reputation(events, ReputationConfig())["repos"]["o/r"]["authors"]
    for entry in report["authors"]:
        assert entry["reputation"] == expected[entry["author"]]["reputation"]
        assert entry["series"][-1]["reputation"] == entry["reputation"]
    kappa = report["calibration"]["criteria"]["quality"]["judge"]
    assert kappa["status"] == "ok"
    assert kappa["n"] >= MIN_PAIRS
    assert kappa["kappa_low"] <= kappa["kappa"] <= kappa["kappa_high"]
    assert report["calibration"]["criteria"]["quality"]["heuristic"]["status"] == (
        "insufficient data"
    )
    assert report["calibration"]["criteria"]["verifiability"]["heuristic"]["status"] == "ok"
    assert report["weights"]["reached"]
    assert report["weights"]["jobs"] >= 50
    audit = report["audit"]
    assert audit["overrides"][0]["reason"].startswith("the failing check")
    assert audit["bypassed"]
    assert audit["disputes"]


def test_markdown_is_compact_with_a_mermaid_chart(data: Path, tmp_path: Path) -> None:
    assert _run("--data", str(data), "--out", str(tmp_path), "--format", "markdown") == 0
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "```mermaid\nxychart-beta" in text
    assert "| criterion | vs reviewer |" in text
    assert len(text) < 20_000


def test_author_and_since_narrow_the_report(data: Path) -> None:
    parsed = parse_ledger(
        {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    )
    only = build_report(parsed, ReputationConfig(), Options(now=NOW, author="carol"))
    assert {a["author"] for a in only["authors"]} == {"carol"}
    assert {j["author"] for j in only["scores"]["jobs"]} == {"carol"}
    recent = build_report(parsed, ReputationConfig(), Options(now=NOW, since_days=40))
    full = build_report(parsed, ReputationConfig(), Options(now=NOW))
    assert 0 < len(recent["scores"]["jobs"]) < len(full["scores"]["jobs"])
    for a, b in zip(recent["authors"], full["authors"], strict=True):
        assert a["reputation"] == b["reputation"]  # reputation always comes from the whole ledger
        assert len(a["series"]) < len(b["series"])


def test_empty_ledger_says_there_is_no_data(tmp_path: Path) -> None:
    (tmp_path / "data" / "ledger").mkdir(parents=True)
    for fmt in ("html", "markdown", "json"):
        assert _run("--data", str(tmp_path / "data"), "--out", str(tmp_path), "--format", fmt) == 0
    assert "No data yet" in (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "No data yet" in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "report.json").read_text())["authors"] == []


def test_corrupt_line_is_reported_as_ledger_verify_does(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("--data", str(data), "--out", str(tmp_path), "--format", "json") == 0
    err = capsys.readouterr().err
    assert re.search(r"ledger/2024-04\.jsonl:\d+: .*corrupt line \(kept aside", err)


def test_remote_data_branch(tmp_path: Path) -> None:
    from rubricate.ledger.backends import DataBranchStore

    remote = tmp_path / "remote.git"
    import subprocess

    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with DataBranchStore(str(remote)) as store:
        store.append(sample_events(12))
    assert _run("--remote", str(remote), "--out", str(tmp_path / "site")) == 0
    assert (tmp_path / "site" / "authors" / "alice.html").exists()


@pytest.mark.parametrize("days", ["-3", "0", "nan", "inf", "lots"])
def test_bad_since_is_refused(data: Path, days: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _run("--data", str(data), "--since", days)
    assert "number of days" in capsys.readouterr().err


def test_a_window_longer_than_the_calendar_is_all_time(data: Path, tmp_path: Path) -> None:
    args = ("--data", str(data), "--format", "json", "--out")
    assert _run(*args, str(tmp_path / "all")) == 0
    assert _run(*args, str(tmp_path / "long"), "--since", "1e12") == 0
    every = json.loads((tmp_path / "all" / "report.json").read_text())
    longest = json.loads((tmp_path / "long" / "report.json").read_text())
    assert longest["window"]["from"] is None
    assert longest["authors"] == every["authors"]


def test_a_busy_authors_page_lists_the_drawn_points_and_the_latest_jobs(data: Path) -> None:
    from rubricate.report.author_page import MAX_JOBS, author_section
    from rubricate.report.charts import MAX_POINTS

    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    report = build_report(parse_ledger(texts), ReputationConfig(), Options(now=NOW))
    entry = report["authors"][0]
    mine = [j for j in report["scores"]["jobs"] if j["author"] == entry["author"]]
    busy = {**entry, "series": [entry["series"][-1]] * (MAX_POINTS * 3)}  # a bot's many jobs
    jobs = [{**mine[0], "pr": pr} for pr in range(1, MAX_JOBS + 42)]
    html = author_section(busy, jobs)
    assert f"The {MAX_POINTS:,} drawn of {MAX_POINTS * 3:,}; report.json has every one." in html
    assert f"The {MAX_JOBS:,} most recent of {MAX_JOBS + 41:,};" in html
    assert f"<td class=text>#{MAX_JOBS + 41}</td>" in html
    assert "<td class=text>#41</td>" not in html  # older than the latest MAX_JOBS
    assert html.count("<tr>") == 2 + MAX_POINTS + MAX_JOBS  # two header rows
    small = author_section(entry, mine)
    assert "report.json has every one" not in small


def test_a_reputation_is_drawn_from_three_points_on(data: Path) -> None:
    from rubricate.report.author_page import MIN_CHART_POINTS, author_section

    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    report = build_report(parse_ledger(texts), ReputationConfig(), Options(now=NOW))
    entry = report["authors"][0]
    few = author_section({**entry, "series": entry["series"][: MIN_CHART_POINTS - 1]}, [])
    assert "<svg" not in few
    assert "<h3>Reputation over time</h3>" in few
    assert few.count("<tr>") == MIN_CHART_POINTS  # the header and each point
    enough = author_section({**entry, "series": entry["series"][:MIN_CHART_POINTS]}, [])
    assert '<figure class="chart">' in enough
    assert f"({MIN_CHART_POINTS} points)" in enough


def test_components_with_the_same_values_are_told_apart_by_their_dashes() -> None:
    """On most real pages timeliness and dispute penalty are both 1.00 all along: one line drawn
    over the other. Each component has a dash pattern of its own, so both stay visible (and
    colour is not the only way to tell the lines apart)."""
    from rubricate.ledger.reputation import COMPONENTS
    from rubricate.report import chart_styles, charts

    components = {name: {"value": 1.0} for name in COMPONENTS}
    points = [
        {"at": f"2024-0{m}-01T00:00:00Z", "reputation": 0.9, "components": components}
        for m in (1, 2, 3)
    ]
    chart_styles.STYLES.clear()
    svg = charts.reputation_over_time("dash-test", points, "test")
    scope = re.search(r'class="[^"]*\b(c[0-9a-f]{10})\b', svg)
    assert scope is not None
    rules = re.findall(
        rf"\.{scope.group(1)} \.series\.serie-(\d+)\{{([^}}]*)\}}", chart_styles.stylesheet()
    )
    dashes = {n: re.search(r"dasharray:([^;]+)", css) for n, css in rules}
    patterns = [m.group(1) for m in dashes.values() if m is not None]
    assert len(patterns) == len(COMPONENTS) == len(set(patterns))


def test_a_line_charts_legend_shows_each_line_and_a_bar_charts_its_colour() -> None:
    """Dashes tell lines apart only if the legend shows them: each entry of a line chart's
    legend is a stretch of its line, in the classes of the line itself."""
    import xml.etree.ElementTree as ET

    from rubricate.ledger.reputation import COMPONENTS
    from rubricate.report import charts

    components = {name: {"value": 0.5} for name in COMPONENTS}
    points = [
        {"at": f"2024-0{m}-01T00:00:00Z", "reputation": 0.9, "components": components}
        for m in (1, 2, 3)
    ]
    line = ET.fromstring(charts.reputation_over_time("legend-test", points, "test"))
    legends = [g for g in line.iter() if "legend" in g.get("class", "").split()]
    assert len(legends) == 1 + len(COMPONENTS)
    for legend in legends:
        assert not [e for e in legend.iter() if e.tag.endswith("rect")]
        swatch = next(g for g in legend if g.tag.endswith("g"))
        kinds = swatch.get("class", "").split()
        serie = next(c for c in kinds if c.startswith("serie-"))
        assert {"series", serie.replace("serie-", "color-")} <= set(kinds)
        path = next(e for e in swatch if e.tag.endswith("path"))
        assert re.fullmatch(rf"M[\d.]+ [\d.]+ h{charts.SWATCH_WIDTH}", path.get("d", ""))
    bars = charts.grouped_bars(
        "bars-test", "t", "d", ["a", "b"], {"x": [1, 2], "y": [2, 1]}, x_title="x", y_title="y"
    )
    squares = [
        e
        for g in ET.fromstring(bars).iter()
        if "legend" in g.get("class", "").split()
        for e in g
        if e.tag.endswith("rect")
    ]
    assert len(squares) == 2


def test_an_output_folder_that_cannot_be_made_is_refused_before_any_work(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    assert _run("--data", str(data), "--out", str(tmp_path / "file")) == 2
    assert "cannot be made a folder (a file is there)" in capsys.readouterr().err
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "authors").write_text("", encoding="utf-8")
    assert _run("--data", str(data), "--out", str(tmp_path / "site")) == 2
    assert "site/authors cannot be made a folder" in capsys.readouterr().err


def test_a_write_that_fails_is_a_failed_run(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "report.json").mkdir()  # where the report's JSON goes
    assert _run("--data", str(data), "--out", str(tmp_path), "--format", "json") == 1
    err = capsys.readouterr().err
    assert f"writing the report to {tmp_path}/ failed: is a directory, not a file" in err


def test_a_missing_data_branch_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    assert _run("--remote", str(remote), "--branch", "nope", "--out", str(tmp_path / "o")) == 2
    assert "no branch 'nope'" in capsys.readouterr().err


def test_an_author_is_found_whatever_the_case_and_an_unknown_one_is_refused(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--data", str(data), "--format", "json", "--out")
    assert _run(*args, str(tmp_path / "a"), "--author", "alice") == 0
    assert _run(*args, str(tmp_path / "b"), "--author", "ALICE") == 0
    lower, upper = (json.loads((tmp_path / d / "report.json").read_text()) for d in "ab")
    assert lower["authors"]
    assert lower["authors"] == upper["authors"]
    assert lower["scores"]["jobs"] == upper["scores"]["jobs"]
    assert _run(*args, str(tmp_path / "c"), "--author", "alcie") == 2
    err = capsys.readouterr().err
    assert "--author 'alcie': no job of theirs in the ledger (did you mean 'alice'?)" in err
    assert not (tmp_path / "c" / "report.json").exists()
