"""`rubricate rubric score` says when a score lies between a criterion's anchored levels."""

from __future__ import annotations

import json

import pytest

from rubricate.cli.main import main


def test_a_score_between_anchors_is_scored_as_given_with_a_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rubric", "score", "agora-v3", "spec=3.5", "quality=4", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["criteria"][0] == {"id": "spec_adherence", "score": 3.5, "passed": True}
    assert err == (
        "note: spec_adherence=3.5 lies between the anchors 3 (Acceptable) and 4 (Meets spec): "
        "it is scored as given (the anchors are 1, 2, 3, 4, 5)\n"
    )


def test_whole_levels_and_unanchored_rubrics_get_no_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rubric", "score", "agora-v3", "spec=3", "quality=5"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["rubric", "score", "code-review", "correctness=7"]) == 0
    assert capsys.readouterr().err == ""
