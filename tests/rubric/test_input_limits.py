"""Input validation that keeps its promises: size caps, exit codes, messages, one value grammar."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.bot.commands import parse_value as bot_value
from rubricate.cli.main import main
from rubricate.errors import ScoreError
from rubricate.rubric.score_args import read_value


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_large_rubric_is_refused_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.yml"
    path.write_text("criteria:\n" + "  - {id: a, outcome: x}\n" * 200_000)
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 2
    assert out.startswith(f"{path}:1:1: file is too large: ")
    assert "--max-bytes" in out


def test_max_bytes_lowers_the_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.yml"
    path.write_text("criteria:\n  - {id: clarity, outcome: The text is clear to read}\n")
    assert run(capsys, "validate", "--max-bytes", "10", str(path))[0] == 2


def test_a_rubric_without_criteria_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yml"
    path.write_text("description: a rubric\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 2
    assert "no criteria: the file has none of the rubric keys `criteria:`" in out
    assert "did you mean" not in out


def test_an_id_rule_says_ascii(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.yml"
    path.write_text('criteria:\n  - {id: "qualité", outcome: The code reads clearly, weight: 1}\n')
    _, out, _ = run(capsys, "validate", str(path))
    assert "should be an ASCII slug" in out


@pytest.mark.parametrize(
    ("text", "value"),
    [("4", 4.0), ("4.5", 4.5), (".5", 0.5), ("-1", -1.0), ("TRUE", True), ("no", False)],
)
def test_one_grammar_for_the_cli_and_the_bot(text: str, value: object) -> None:
    assert read_value(text) == value
    assert bot_value(text) == value


@pytest.mark.parametrize("text", ["\u0664", "1e3", "nan", "inf", "4,5", "0x10", "", "½"])
def test_both_refuse_what_is_not_a_number(text: str) -> None:
    with pytest.raises(ScoreError):
        read_value(text)
    assert isinstance(bot_value(text), str)
