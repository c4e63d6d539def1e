"""The judge step over a fake client: phases, retries, deadline, budget errors, usage."""

from __future__ import annotations

from collections.abc import Sequence

from rubricate.judge.budget import Budget
from rubricate.judge.reply_schema import REPORT_KEY
from rubricate.judge.runner import CallSettings, run_judge

from .helpers import (
    PARSER_LINE,
    Expired,
    FakeClient,
    NoDeadline,
    agora,
    axes,
    reply_text,
    snapshot,
)

CALL = CallSettings("fake-model", 0.0, 1)


def _markers() -> object:
    counter = iter(range(100))
    return lambda: f"{next(counter):016x}"


def _run(client: FakeClient, rubric=None, deadline=None, budget=None):  # type: ignore[no-untyped-def]
    return run_judge(
        client, rubric or agora(), snapshot(), budget or Budget(), CALL,
        deadline or NoDeadline(), _markers(),  # type: ignore[arg-type]
    )  # fmt: skip


def test_request_criteria_are_judged_first_in_their_own_call() -> None:
    rubric = axes()
    client = FakeClient(lambda _m, ids: reply_text(dict.fromkeys(ids, 50)))
    run = _run(client, rubric)
    assert len(client.calls) == 2
    first_user = client.calls[0][1]["content"]
    assert "task_complexity" in first_user
    assert PARSER_LINE not in first_user
    assert run.judgments[0].id == "task_complexity"
    assert run.ok
    assert run.usage.calls == 2
    assert run.usage.tokens_in == 20


def test_invalid_then_valid_reply_is_accepted() -> None:
    replies = iter([reply_text({"quality": 5}), None])

    def decide(_messages: Sequence[dict[str, str]], ids: list[str]) -> str:
        return next(replies) or reply_text(dict.fromkeys(ids, 4), [PARSER_LINE])

    client = FakeClient(decide)
    run = _run(client)
    assert run.ok
    assert len(client.calls) == 2
    retry = client.calls[1]
    assert retry[2] == {"role": "assistant", "content": reply_text({"quality": 5})}
    assert "criterion 'spec_adherence' is missing" in retry[3]["content"]
    assert f'"{REPORT_KEY}" first, then each of these criterion ids' in retry[3]["content"]
    assert all(j.verified == (PARSER_LINE,) for j in run.judgments)


def test_invalid_twice_makes_the_phase_not_assessed() -> None:
    client = FakeClient(lambda _m, _ids: "{}")
    run = _run(client)
    assert len(client.calls) == 2
    assert run.not_assessed == agora().ids
    assert run.judgments == ()
    assert "invalid twice" in run.errors[0]


def test_one_failed_phase_keeps_the_other() -> None:
    rubric = axes()

    def decide(_messages: Sequence[dict[str, str]], ids: list[str]) -> str:
        return reply_text(dict.fromkeys(ids, 50)) if ids == ["task_complexity"] else "nope"

    run = _run(FakeClient(decide), rubric)
    assert [j.id for j in run.judgments] == ["task_complexity"]
    assert "task_complexity" not in run.not_assessed
    assert len(run.not_assessed) == len(rubric.ids) - 1


def test_expired_deadline_makes_no_call() -> None:
    client = FakeClient(lambda _m, ids: reply_text(dict.fromkeys(ids, 3)))
    run = _run(client, deadline=Expired())
    assert client.calls == []
    assert run.not_assessed == agora().ids
    assert "ran out of time" in run.errors[0]


def test_rubric_over_budget_is_not_assessed_without_a_call() -> None:
    client = FakeClient(lambda _m, ids: reply_text(dict.fromkeys(ids, 3)))
    run = _run(client, budget=Budget(max_input_tokens=100))
    assert client.calls == []
    assert "judge.max_input_tokens" in run.errors[0]


def test_shown_files_are_recorded() -> None:
    client = FakeClient(lambda _m, ids: reply_text(dict.fromkeys(ids, 3)))
    run = _run(client)
    assert run.shown.files_seen == ("src/parser.py", "tests/test_parser.py")
    assert [i.path for i in run.shown.files_left_out] == ["package-lock.json"]
    assert run.shown.tokens_estimate > 0
