"""A report reuses the last one: after new events it reads only the jobs that changed, draws
only the author pages whose content changed, and gives the very files `--full` gives."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli import report_cmd
from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore, DirectoryStore
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report import bar_chart, charts, model, workers
from rubricate.report.model import Options, build_report
from rubricate.report.reuse import STATE_PATH
from tests.ledger.factory import event, scored
from tests.ledger.gitutil import bare_remote
from tests.report.sample import (
    parses_counted,
    sample_events,
    site_files,
    with_derived_files,
    write_ledger,
)

EPOCH = "1719792000"  # 2024-07-01: the report's "now"
SHOWN = ("html", "markdown", "json")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data-branch directory with its derived files (the fold cache among them)."""
    root = write_ledger(tmp_path / "data", sample_events(60))
    (root / "ledger" / "2024-02.jsonl").open("a").write('{"kind": "nope"}\n')
    return with_derived_files(root)


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _report(data: Path, out: Path, *extra: str) -> None:
    assert main(["report", "--data", str(data), "--out", str(out), *extra]) == 0


def _append(data: Path, *events: Any) -> None:
    with DirectoryStore(str(data)) as store:
        store.append(list(events))


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    refuse = _refuse("the ledger was parsed line by line")
    monkeypatch.setattr("rubricate.cli.report_cmd.parse_in_parallel", refuse)


@pytest.mark.parametrize("fmt", SHOWN)
def test_a_report_after_new_events_equals_a_full_one(
    data: Path, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site, "--format", fmt)
    assert (site / STATE_PATH).is_file()
    _append(
        data,
        event("rated", 7, 900, "new-rating", rating=1, author="carol", actor="zed"),
        scored("first_submission", 500, 950, "new-job", [3, 3, 3, 3, 3], author="erin"),
        event("disputed", 12, 960, "new-dispute", feedback="broke it", author="carol"),
    )
    with monkeypatch.context() as patched:
        _no_parsing(patched)
        _report(data, site, "--format", fmt)
    _report(data, tmp_path / "full", "--format", fmt, "--full")
    assert site_files(site) == site_files(tmp_path / "full")
    kept = (site / STATE_PATH).read_bytes()  # what is kept does not depend on how it was made
    assert kept == (tmp_path / "full" / STATE_PATH).read_bytes()
    again = tmp_path / "again"  # a third report on the second's state changes nothing
    _report(data, again, "--format", fmt, "--full")
    _report(data, again, "--format", fmt)
    assert site_files(again) == site_files(tmp_path / "full")


def test_only_the_pages_whose_content_changed_are_written_again(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site)
    before = site_files(site)
    written: list[str] = []
    real = Path.write_text

    def spy(path: Path, *args: Any, **kwargs: Any) -> int:
        written.append(path.name)
        return real(path, *args, **kwargs)

    _append(data, event("rated", 14, 900, "one-more", rating=2, author="erin", actor="zed"))
    monkeypatch.setattr(Path, "write_text", spy)
    _report(data, site)
    after = site_files(site)
    changed = {p for p in after if before.get(p) != after[p]}
    pages = {p for p in written if p.endswith(".html") and not p.startswith(("index", "authors-"))}
    assert pages == {"erin.html"}  # the one author page drawn again
    assert "authors/erin.html" in changed
    assert {p for p in changed if p.startswith("authors/")} == {"authors/erin.html"}
    assert "index.html" in changed
    assert (
        json.loads((site / "report.json").read_text())["ledger"]["events"]
        == sum(1 for p in data.rglob("*.jsonl") if p.parent.name == "ledger" for _ in p.open()) - 1
    )  # the corrupt line


def test_an_author_page_names_nothing_global_to_the_ledger(data: Path, tmp_path: Path) -> None:
    _report(data, tmp_path / "site")
    page = (tmp_path / "site" / "authors" / "alice.html").read_text()
    assert "events)" not in page
    assert "ledger up to" not in page
    index = (tmp_path / "site" / "index.html").read_text()
    assert "events)" in index
    assert "ledger up to" in index


def test_full_reads_every_line_and_draws_every_page(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site)
    calls = parses_counted(monkeypatch)
    (site / "authors" / "alice.html").write_text("stale")
    _report(data, site)
    assert calls == []  # reused: nothing parsed…
    assert (site / "authors" / "alice.html").read_text() == "stale"  # …and no page drawn
    _report(data, site, "--full")
    assert calls == [1]
    assert (site / "authors" / "alice.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("damage", ["garbage", "other config", "gone page"])
def test_a_state_that_does_not_hold_is_not_used(
    data: Path, tmp_path: Path, damage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site)
    extra: list[str] = []
    if damage == "garbage":
        (site / STATE_PATH).write_text('{"inputs": "x", "jobs": [1]}')
    elif damage == "other config":
        config = tmp_path / "rubricate.yml"
        config.write_text("reputation:\n  weights:\n    rubric_quality: 0.9\n")
        extra = ["--config", str(config)]
    else:
        (site / "authors" / "bob-the-builder.html").unlink()
    _report(data, site, *extra)
    _report(data, tmp_path / "full", "--full", *extra)
    assert site_files(site) == site_files(tmp_path / "full")


def test_a_report_that_stops_leaves_no_state(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site)

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rubricate.report.site.write_text", broken)
    assert main(["report", "--data", str(data), "--out", str(site)]) != 0
    assert not (site / STATE_PATH).exists()


def test_source_date_epoch_is_the_reports_now(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _report(data, tmp_path / "site", "--format", "json")
    window = json.loads((tmp_path / "site" / "report.json").read_text())["window"]
    assert window["to"] == "2024-07-01T00:00:00Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    assert main(["report", "--data", str(data), "--out", str(tmp_path / "x")]) == 2
    assert "SOURCE_DATE_EPOCH='soon' is not a time in seconds" in capsys.readouterr().err


def test_estimates_drawn_from_the_same_numbers_are_not_drawn_again(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site)
    _append(data, event("disputed", 12, 960, "a-dispute", feedback="broke it", author="carol"))

    refuse = _refuse("an estimate was drawn again")
    with monkeypatch.context() as patched:  # a dispute moves no score, rating or quality
        patched.setattr("rubricate.report.stats.kappa_estimate", refuse)
        patched.setattr("rubricate.report.stats.spearman_estimate", refuse)
        _report(data, site)
    _report(data, tmp_path / "full", "--full")
    assert site_files(site) == site_files(tmp_path / "full")
    assert json.loads((site / "report.json").read_text())["calibration"]["criteria"]


def test_only_the_pages_of_authors_whose_jobs_changed_are_looked_at(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site)
    _append(data, event("rated", 14, 900, "one-more", rating=2, author="erin", actor="zed"))
    looked: list[str] = []
    real = workers.page_inputs

    def spy(report: Any, slugs: Any) -> Any:
        looked.extend(slugs)
        return real(report, slugs)

    monkeypatch.setattr(workers, "page_inputs", spy)
    _report(data, site)
    assert looked == ["erin"]
    looked.clear()
    _report(data, tmp_path / "full", "--full")
    assert sorted(looked) == ["alice", "bob-the-builder", "carol", "dependabot_bot_", "erin"]


def test_a_report_of_an_unchanged_ledger_draws_no_chart(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _report(data, tmp_path / "site")
    drawn = site_files(tmp_path / "site")
    monkeypatch.setattr(bar_chart, "render", _refuse("a chart was drawn again"))
    monkeypatch.setattr(charts, "line_chart", _refuse("a line chart was drawn again"))
    _report(data, tmp_path / "site")
    assert site_files(tmp_path / "site") == drawn


def test_a_report_that_draws_no_estimate_loads_no_numpy(data: Path, tmp_path: Path) -> None:
    _report(data, tmp_path / "site")  # draws every estimate
    abandoned = event("rated", 18, 900, "one-more", rating=2, author="dependabot[bot]")
    _append(data, abandoned)  # the weights count completed jobs only: no estimate changes
    code = (
        "import sys; from rubricate.cli.main import main; "
        f"main(['report', '--data', {str(data)!r}, '--out', {str(tmp_path / 'site')!r}]); "
        "print('numpy' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split()[-1] == "False"


def test_a_numpy_that_cannot_be_imported_is_named_where_an_estimate_is_drawn(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken" / "numpy"  # found by the check at start, fails when imported
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('built for another Python')\n")
    monkeypatch.syspath_prepend(str(broken.parent))
    for name in [n for n in sys.modules if n.split(".")[0] == "numpy"] + ["rubricate.report.stats"]:
        monkeypatch.delitem(sys.modules, name, raising=False)
    out = tmp_path / "site"
    assert main(["report", "--data", str(data), "--out", str(out), "--format", "json"]) == 2
    assert "pip install 'rubricate[report]' (numpy cannot be imported:" in capsys.readouterr().err


def _refuse(what: str) -> Callable[..., None]:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(what)

    return refuse


@pytest.mark.parametrize("shown", [("--since", "90"), ("--author", "carol")])
def test_a_narrowed_report_after_new_events_equals_a_full_one(
    data: Path, tmp_path: Path, shown: tuple[str, str]
) -> None:
    site = tmp_path / "site"
    _report(data, site, *shown, "--format", "json")
    _append(
        data,
        scored("review_scored", 12, 970, "late-score", [1, 2, 1, 2, 1], author="carol"),
        event("rated", 12, 971, "late-rating", rating=5, author="carol", actor="zed"),
    )
    _report(data, site, *shown, "--format", "json")
    _report(data, tmp_path / "full", *shown, "--format", "json", "--full")
    assert site_files(site) == site_files(tmp_path / "full")
    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.glob("ledger/*.jsonl")}
    since = float(shown[1]) if shown[0] == "--since" else None
    author = shown[1] if shown[0] == "--author" else None
    options = Options(datetime.fromtimestamp(int(EPOCH), timezone.utc), since, author)
    alone = build_report(parse_ledger(texts), ReputationConfig(), options)
    made = json.loads((site / "report.json").read_text())
    for name in ("calibration", "weights"):  # counted over the jobs shown, not every job
        assert made[name] == json.loads(json.dumps(alone[name]))
    assert made["scores"]["distributions"] == alone["scores"]["distributions"]


def test_a_report_of_a_remote_branch_after_new_events_equals_a_full_one(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(sample_events(40))
    site = tmp_path / "site"
    source = ["--remote", str(remote), "--format", "json"]
    assert main(["report", *source, "--out", str(site)]) == 0
    with DataBranchStore(str(remote)) as store:  # the changed job's file is read from the branch
        store.append([event("rated", 7, 900, "remote-rating", rating=2, author="carol")])
    assert main(["report", *source, "--out", str(site)]) == 0
    assert main(["report", *source, "--out", str(tmp_path / "full"), "--full"]) == 0
    assert site_files(site) == site_files(tmp_path / "full")


def test_ranked_is_read_from_reputation_json_and_equals_a_full_fold(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _report(data, site, "--format", "json")
    moved = event("rated", 7, 1, "earlier-author", rating=5, author="zara", actor="zed")
    _append(data, moved, event("rated", 9, 990, "later", rating=1, author="bob", actor="zed"))
    with monkeypatch.context() as patched:  # the ranked column folds no job again
        patched.setattr(model, "reputation_document", _refuse("every job was folded again"))
        _report(data, site, "--format", "json")
    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.glob("ledger/*.jsonl")}
    now = datetime.fromtimestamp(int(EPOCH), timezone.utc)
    alone = build_report(parse_ledger(texts), ReputationConfig(), Options(now))
    made = json.loads((site / "report.json").read_text())
    assert "zara" in {a["author"] for a in made["authors"]}  # job 7 changed author
    assert made["authors"] == json.loads(json.dumps(alone["authors"]))


def test_ranked_is_folded_again_under_another_config(data: Path, tmp_path: Path) -> None:
    config = tmp_path / "rubricate.yml"
    config.write_text("reputation:\n  prior_jobs: 1\n")
    _report(data, tmp_path / "site", "--format", "json", "--config", str(config))
    made = json.loads((tmp_path / "site" / "report.json").read_text())
    recorded = json.loads((data / "reputation.json").read_text())["repos"]
    assert made["config"]["prior_jobs"] == 1
    ranked = {(a["repo"], a["author"]): a["ranked"] for a in made["authors"]}
    assert ranked != {
        (r, a): e["ranked"] for r, v in recorded.items() for a, e in v["authors"].items()
    }


@pytest.mark.parametrize(
    "damage", ["cut short", "a line altered", "a row altered", "absent", "other version"]
)
def test_a_state_that_does_not_read_back_gives_a_full_build_and_says_why(
    data: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    _report(data, site, "--format", "json")
    _append(data, event("rated", 14, 900, "one-more", rating=2, author="erin", actor="zed"))
    state = site / STATE_PATH
    lines = state.read_text().split("\n")
    if damage == "cut short":  # a whole line lost: the jobs after it would be counted twice
        state.write_text("\n".join(lines[:3] + lines[4:]))
    elif damage == "a line altered":
        state.write_text("\n".join([lines[0], lines[1].replace("\t", " ", 1), *lines[2:]]))
    elif damage == "a row altered":  # still JSON, but not the row that was kept
        state.write_text("\n".join([lines[0], lines[1].replace('"pr":', '"pr":1', 1), *lines[2:]]))
    elif damage == "absent":
        state.unlink()
    else:
        state.write_text("\n".join([lines[0].replace('"inputs":"', '"inputs":"0'), *lines[1:]]))
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patched:
        made: list[int] = []  # as a first report: from every line (as the fold cache vouches)
        real = report_cmd.cached_in_parallel
        patched.setattr(
            report_cmd, "cached_in_parallel", lambda *a, **k: made.append(1) or real(*a, **k)
        )
        patched.setattr("rubricate.report.refresh.refreshed", _refuse("the state was used"))
        _report(data, site, "--format", "json")
    assert made
    note = {
        "cut short": "does not read back",
        "a line altered": "does not read back",
        "a row altered": "does not read back",
        "absent": "",
        "other version": "another rubricate version, config or ledger key",
    }[damage]
    told = capsys.readouterr().err
    if damage == "absent":  # as a first report: nothing to say
        assert "reading the whole ledger" not in told
    else:
        assert note in told
        assert "reading the whole ledger" in told
    _report(data, tmp_path / "full", "--format", "json", "--full")
    assert site_files(site) == site_files(tmp_path / "full")
