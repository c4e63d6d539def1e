"""Where `rubricate report` reads a ledger from: a folder that holds none is refused, `--demo`
draws a made-up one, and the command says which extra it needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.codec import parse_ledger
from rubricate.report.demo import demo_events, demo_shards


@pytest.mark.parametrize("folder", ["missing", "empty"])
def test_a_data_folder_without_a_ledger_is_refused(
    folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    out = tmp_path / "out"
    assert main(["report", "--data", str(tmp_path / folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not a checkout of the data branch" in err
    assert not (out / "index.html").exists()


def test_the_demo_ledger_is_large_varied_and_the_same_for_a_seed() -> None:
    events = demo_events()
    assert len(events) >= 2_000
    assert len({e.author for e in events}) >= 70
    assert {e.kind for e in events} >= {"final_approval", "abandoned", "disputed", "rated"}
    assert {e.gate for e in events} >= {"passed", "overridden", "bypassed"}
    assert demo_shards(1) == demo_shards(1) != demo_shards(2)
    parsed = parse_ledger(demo_shards(1))
    assert not parsed.corrupt
    assert len(parsed.events) == len(events)


def test_demo_draws_the_report(tmp_path: Path) -> None:
    assert main(["report", "--demo", "--out", str(tmp_path), "--format", "json"]) == 0
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["ledger"]["events"] == len(demo_events())
    assert len(report["authors"]) == 72
    assert report["calibration"]["criteria"]


def test_demo_and_data_are_exclusive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--demo", "--data", str(tmp_path)])
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize(("fmt", "missing"), [("html", "pygal"), ("json", "numpy")])
def test_without_the_report_extra_the_install_command_is_named(
    fmt: str,
    missing: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # `import` of it fails as if not installed
    assert main(["report", "--demo", "--out", str(tmp_path), "--format", fmt]) == 2
    err = capsys.readouterr().err
    assert f"pip install 'rubricate[report]' ({missing} is missing)" in err
