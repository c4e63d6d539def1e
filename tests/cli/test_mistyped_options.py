"""A mistyped option gets the usage of the command it was given to, and the closest option."""

from __future__ import annotations

import pytest

from rubricate.cli.main import main


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "usage", "hint"),
    [
        (["score", "--bse", "main"], "rubricate score", "--bse main (did you mean '--base'?)"),
        (["rubric", "score", "--jsn", "agora-v3"], "rubricate rubric score", "'--json'"),
        (["report", "--data", "x", "--formt=json"], "rubricate report", "'--format'"),
    ],
)
def test_a_mistyped_option_gets_its_commands_usage_and_the_closest_option(
    argv: list[str], usage: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error(argv, capsys)
    assert err.startswith(f"usage: {usage} ")
    assert "unrecognized arguments: " in err
    assert hint in err


def test_an_option_with_no_close_match_gets_the_usage_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _error(["validate", "x.yml", "--zzzzzz"], capsys)
    assert err.startswith("usage: rubricate validate ")
    assert err.rstrip().endswith("unrecognized arguments: --zzzzzz")
