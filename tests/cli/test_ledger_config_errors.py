"""A bad `reputation:` section given to a ledger command with `--config` is refused with the
config file's located message and exit 2 (the section is checked without pydantic elsewhere,
so these pin that the config file still goes through the same model); a lax but valid value is
coerced as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main
from tests.ledger.factory import event

BAD = [
    (
        "{weights: {rating_score: -1}}",
        "1:38: rating_score should be greater than or equal to 0, got -1",
    ),
    (
        "{weights: {rating_scor: 1}}",
        "1:24: unknown key 'rating_scor' (did you mean 'rating_score'?)",
    ),
    (
        "{weights: {rating_score: 1e308, rubric_quality: 1e308}}",
        "1:23: weights: too large: their sum is not a finite number",
    ),
    ("{trust: {write: .inf}}", "1:29: write should be a finite number, got inf"),
    ("{trust: {writer: 1}}", "1:22: unknown key 'writer' (did you mean 'write'?)"),
    ("{trust: [1]}", "1:21: trust should be a mapping, got a list"),
    ("{sla_hours: 0}", "1:25: sla_hours should be greater than 0, got 0"),
    ("{sla_hours: -3}", "1:25: sla_hours should be greater than 0, got -3"),
    (
        "{sla_hours: ten}",
        "1:25: sla_hours should be a valid number, unable to parse string as a number, got 'ten'",
    ),
    ("{prior_jobs: .nan}", "1:26: prior_jobs should be a finite number, got nan"),
    ("{prior_jobs: -1}", "1:26: prior_jobs should be greater than or equal to 0, got -1"),
    (
        "{provisional_below: 2.5}",
        "1:33: provisional_below should be a valid integer, got a number with a fractional part,"
        " got 2.5",
    ),
    (
        "{provisional_below: -1}",
        "1:33: provisional_below should be greater than or equal to 0, got -1",
    ),
    ("{priors: 3}", "1:14: unknown key 'priors' (did you mean 'prior_jobs'?)"),
    ("5", "1:13: reputation should be a mapping, got 5"),
    ("{weights: 1}", "1:23: weights should be a mapping, got 1"),
]


def _append(tmp_path: Path, section: str, lines: str = "") -> list[str]:
    config, events, data = tmp_path / "rubricate.yml", tmp_path / "events.jsonl", tmp_path / "d"
    config.write_text(f"reputation: {section}\n")
    events.write_text(lines)
    data.mkdir()
    return ["ledger", "append", "--data", str(data), "--config", str(config), str(events)]


@pytest.mark.parametrize(("section", "message"), BAD)
def test_a_bad_reputation_section_exits_2_with_its_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, message: str
) -> None:
    assert main(_append(tmp_path, section)) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'rubricate.yml'}:{message}\n"


def test_a_lax_valid_value_is_coerced_and_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = event("rated", 1, 1, "d1", rating=4).to_line() + "\n"
    assert main(_append(tmp_path, "{provisional_below: '3', sla_hours: '12'}", line)) == 0
    assert capsys.readouterr().out.startswith("added 1, already present 0")
    recorded = json.loads((tmp_path / "d" / "reputation.json").read_text())["config"]
    assert (recorded["provisional_below"], recorded["sla_hours"]) == (3, 12.0)
