"""Reply validation: every id exactly once, no unknown ids, scores from the allowed enum."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rubricate.errors import ReplyError
from rubricate.judge.reply import parse_reply
from rubricate.judge.reply_schema import MAX_REPORT_CHARS, REPORT_KEY
from rubricate.rubric.model import Criterion

from .helpers import agora, analytic, axes, checklist, entry, reply_text

IDS = agora().ids


def _problems(text: str, rubric=None, ids=IDS) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    with pytest.raises(ReplyError) as caught:
        parse_reply(text, rubric or agora(), ids)
    return caught.value.problems


def test_valid_reply_gives_one_judgment_per_id_in_order() -> None:
    text = reply_text(dict.fromkeys(IDS, 4), quotes=["a quote"])
    judgment = parse_reply(text, agora(), IDS)
    assert [j.id for j in judgment.criteria] == list(IDS)
    assert all(j.score == 4.0 and j.evidence == ("a quote",) for j in judgment.criteria)


def _with_reports(*values: object) -> str:
    scores = reply_text(dict.fromkeys(IDS, 4))[1:]
    keys = "".join(f"{json.dumps(REPORT_KEY)}: {json.dumps(v)}, " for v in values)
    return "{" + keys + scores


@pytest.mark.parametrize(
    ("values", "reported", "dropped", "malformed"),
    [
        ((), (), 0, 0),  # the field missing: an older or smaller model
        ((None,), (), 0, 0),  # null: none
        ((["a note to you"],), ("a note to you",), 0, 0),
        ((["one", "two", "three", "four", "five"],), ("one", "two", "three"), 2, 0),
        ((["x" * (MAX_REPORT_CHARS + 1), "short"],), ("short",), 1, 0),
        ((["", "  ", None, "kept"],), ("kept",), 0, 0),
        ((["a", 3, {"q": 1}, True],), ("a",), 0, 3),
        (("none",), (), 0, 1),  # a bare string: not the list the schema asks for
        (({},), (), 0, 1),
        ((7,), (), 0, 1),
        ((["first"], ["again"]), ("first",), 0, 1),
        ((None, ["again"]), (), 0, 1),
    ],
)
def test_reported_passages_never_invalidate_a_reply(
    values: tuple[object, ...], reported: tuple[str, ...], dropped: int, malformed: int
) -> None:
    judgment = parse_reply(_with_reports(*values), agora(), IDS)
    assert (judgment.reported, judgment.dropped, judgment.malformed) == (
        reported, dropped, malformed,
    )  # fmt: skip
    assert [j.score for j in judgment.criteria] == [4.0] * len(IDS)


@pytest.mark.parametrize(
    "key", ["addressed_to_reviewer", "_addressed_to_reviewers", "_Addressed_To_Reviewer", "_"]
)
def test_a_misspelled_report_key_is_counted_as_malformed_never_a_problem(key: str) -> None:
    scores = reply_text(dict.fromkeys(IDS, 4))[1:]
    judgment = parse_reply("{" + json.dumps(key) + ': ["a note to you"], ' + scores, agora(), IDS)
    assert (judgment.reported, judgment.dropped, judgment.malformed) == ((), 0, 1)
    assert [j.score for j in judgment.criteria] == [4.0] * len(IDS)


def test_a_criterion_named_as_the_report_key_without_its_underscore_is_a_criterion() -> None:
    name = REPORT_KEY.lstrip("_")
    rubric = agora().model_copy(
        update={"criteria": (*agora().criteria, Criterion(id=name, outcome="odd"))}
    )
    ids = (*IDS, name)
    judgment = parse_reply(reply_text(dict.fromkeys(ids, 3)), rubric, ids)
    assert [j.id for j in judgment.criteria] == list(ids)
    assert judgment.malformed == 0
    problems = _problems(reply_text(dict.fromkeys(IDS, 3)), rubric, ids)
    assert problems == (f"criterion {name!r} is missing",)


def test_missing_ids_are_listed() -> None:
    text = reply_text(dict.fromkeys(IDS[:3], 3))
    problems = _problems(text)
    assert problems == tuple(f"criterion {cid!r} is missing" for cid in IDS[3:])


def test_repeated_and_unknown_ids_are_listed() -> None:
    parts = [f'"{cid}": {json.dumps(entry(3))}' for cid in IDS]
    text = (
        "{"
        + ", ".join(
            [*parts, f'"quality": {json.dumps(entry(5))}', f'"bonus": {json.dumps(entry(5))}']
        )
        + "}"
    )
    problems = _problems(text)
    assert any("'quality'" not in p and '"quality" appears more than once' in p for p in problems)
    assert any('unknown criterion "bonus"' in p for p in problems)


def test_out_of_enum_scores_are_listed_with_the_allowed_values() -> None:
    scores = dict.fromkeys(IDS, 3) | {"quality": 7, "completeness": 3.5, "verifiability": "5"}
    problems = _problems(reply_text(scores))
    assert "criterion 'quality': score 7 is not one of 1, 2, 3, 4, 5" in problems
    assert "criterion 'completeness': score 3.5 is not one of 1, 2, 3, 4, 5" in problems
    assert any("'verifiability': score \"5\" is not a number" in p for p in problems)


def test_every_problem_is_reported_at_once() -> None:
    scores = dict.fromkeys(IDS[1:], 3) | {"quality": 0, "extra": 1}
    problems = _problems(reply_text(scores))
    assert len(problems) == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object, not list"),
        ('{"spec_adherence": 5}', "must be an object with score"),
    ],
)
def test_malformed_replies(text: str, expected: str) -> None:
    assert any(expected in p for p in _problems(text))


def test_wrong_field_types_are_listed() -> None:
    bad = {cid: {"score": 3, "rationale": 1, "evidence": "x"} for cid in IDS}
    problems = _problems(json.dumps(bad))
    assert f"criterion {IDS[0]!r}: rationale must be a string" in problems
    assert f"criterion {IDS[0]!r}: evidence must be a list of strings" in problems


def test_missing_score_and_extra_keys() -> None:
    bad = {cid: {"rationale": "r", "evidence": [], "confidence": 1} for cid in IDS}
    problems = _problems(json.dumps(bad))
    assert f"criterion {IDS[0]!r}: score is missing" in problems
    assert any("unexpected keys" in p for p in problems)


def test_null_only_for_nullable_criteria() -> None:
    rubric = axes()
    ids = [cid for cid in rubric.ids if cid != "task_complexity"]
    scores = dict.fromkeys(ids, 50) | {"self_extension": None}
    judgment = parse_reply(reply_text(scores), rubric, ids)
    assert judgment.by_id()["self_extension"].score is None
    problems = _problems(reply_text(scores | {"goal_completion": None}), rubric, ids)
    assert any("'goal_completion': score null is not a number" in p for p in problems)


def test_checklist_scores_become_booleans() -> None:
    rubric = checklist()
    judgment = parse_reply(reply_text({"mentions-csv": 1, "has-tests": 0}), rubric, rubric.ids)
    assert [j.score for j in judgment.criteria] == [True, False]
    assert _problems(reply_text({"mentions-csv": True, "has-tests": 0}), rubric, rubric.ids)


def test_analytic_scores_must_be_range_lower_bounds() -> None:
    rubric = analytic()
    scores = dict.fromkeys(rubric.ids, 10) | {"correctness": 5}
    assert parse_reply(reply_text(scores), rubric, rubric.ids)
    problems = _problems(reply_text(scores | {"correctness": 6}), rubric, rubric.ids)
    assert "criterion 'correctness': score 6 is not one of 0, 3, 5, 7, 10" in problems


def test_long_rationale_and_many_quotes_break_the_schema() -> None:
    bad = {cid: entry(3, ["q" * 1000] * 50, rationale="r" * 5000) for cid in IDS}
    with pytest.raises(ReplyError) as caught:
        parse_reply(json.dumps(bad), agora(), IDS)
    assert "rationale has 5000 characters, more than 600" in str(caught.value)
    assert "at most 8 quotes of at most 400 characters" in str(caught.value)


def test_open_scale_replies_above_the_top_anchor_are_valid() -> None:
    ids = axes().ids
    good = {cid: entry(130) for cid in ids}
    assert {c.score for c in parse_reply(json.dumps(good), axes(), ids).criteria} == {130.0}
    with pytest.raises(ReplyError, match="a whole number from 0 to 150"):
        parse_reply(json.dumps({cid: entry(151) for cid in ids}), axes(), ids)
    assert parse_reply(json.dumps({cid: entry(151) for cid in ids}), axes(), ids, 200)


@given(st.text(max_size=200))
def test_arbitrary_text_never_crashes(text: str) -> None:
    problems: tuple[str, ...] = ()
    try:
        judgment = parse_reply(text, agora(), IDS)
    except ReplyError as exc:
        problems = exc.problems
    else:
        assert [j.id for j in judgment.criteria] == list(IDS)
    assert problems or text.strip().startswith("{")
