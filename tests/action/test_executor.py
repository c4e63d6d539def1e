"""The effect executor through the real PyGithub adapter: sticky, check run, status, reactions."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from rubricate.action.executor import ExecutionError, Executor, print_effects
from rubricate.action.runtime import ActionsRuntime
from rubricate.bot.effects import (
    Annotate,
    Annotation,
    AppendEvents,
    Log,
    PostComment,
    React,
    SetCheckRun,
    SetOutputs,
    SetStatus,
    UpsertComment,
)
from rubricate.bot.view_state import ViewState, encode_views
from rubricate.errors import RateLimited
from rubricate.github.adapter import GitHubAdapter, connect
from rubricate.ledger.event import Event
from rubricate.ledger.trust import natural_key
from tests.action.fake_github import FakeGitHub

MARKER = "<!-- rubricate:sticky -->"
SHA = "a" * 40
TOKEN = "ghs_secrettoken123"


class RecordingLedger:
    """A ledger sink that records what it was given, and when relative to API calls."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.appended: list[list[Event]] = []
        self.calls_before: list[int] = []

    def append(self, events: Sequence[Event]) -> Any:
        self.calls_before.append(len(self.fake.calls))
        self.appended.append(list(events))
        return None


def _event(delivery: str) -> Event:
    return Event(
        id=natural_key("rated", "octo/widgets", 7, 1, delivery),
        kind="rated",
        repo="octo/widgets",
        pr=7,
        author="alice",
        actor="bob",
        at=datetime(2026, 3, 2, tzinfo=timezone.utc),
        rating=4,
        delivery=delivery,
    )


def _executor(
    fake: FakeGitHub,
    views: ViewState | None = None,
    stream: io.StringIO | None = None,
    views_trusted: bool = False,
    **kw: Any,
) -> tuple[Executor, RecordingLedger]:
    adapter = GitHubAdapter(
        connect(TOKEN, "https://api.github.com", retries=0, pace=False),
        fake.repo,
        bot_login=fake.bot_login,
    )
    ledger = RecordingLedger(fake)
    runtime = ActionsRuntime(stream=stream or io.StringIO(), secrets=[TOKEN], **kw)
    views = views or ViewState(pr=7)
    return Executor(adapter, ledger, runtime, views, views_trusted=views_trusted), ledger


def _sticky(body: str, comment_id: int | None = None) -> UpsertComment:
    return UpsertComment(pr=7, body=f"{MARKER}\n{body}", marker=MARKER, comment_id=comment_id)


def test_sticky_is_created_then_edited_then_left_alone(fake_github: FakeGitHub) -> None:
    fake_github.add_comment(7, "a human comment", "carol")
    fake_github.add_comment(7, f"{MARKER} forged by a human", "mallory")
    executor, _ = _executor(fake_github)
    views = executor.apply([_sticky("score 3.0")]).views
    assert fake_github.call_lines() == [
        "GET /repos/octo/widgets/issues/7/comments",
        "POST /repos/octo/widgets/issues/7/comments",
    ]
    assert views.sticky is not None
    ours = fake_github.comments[views.sticky.id]
    assert ours["user"]["login"] == "github-actions[bot]"

    start = len(fake_github.calls)
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_sticky("score 3.5")]).views
    assert fake_github.call_lines(start) == [
        f"PATCH /repos/octo/widgets/issues/comments/{ours['id']}"
    ]
    assert ours["body"].endswith("score 3.5")

    start = len(fake_github.calls)
    executor, _ = _executor(fake_github, views)
    executor.apply([_sticky("score 3.5")])
    assert fake_github.call_lines(start) == []
    assert len(fake_github.comments_on(7)) == 3


def test_sticky_found_by_marker_and_author_is_edited_only_when_text_changes(
    fake_github: FakeGitHub,
) -> None:
    mine = fake_github.add_comment(7, f"{MARKER}\nscore 2.0", "github-actions[bot]")
    executor, _ = _executor(fake_github)
    views = executor.apply([_sticky("score 2.0")]).views
    assert fake_github.call_lines() == ["GET /repos/octo/widgets/issues/7/comments"]
    assert views.sticky is not None
    assert views.sticky.id == mine["id"]
    assert fake_github.comment_edits == []


def test_sticky_with_a_known_id_is_fetched_not_listed(fake_github: FakeGitHub) -> None:
    mine = fake_github.add_comment(7, f"{MARKER}\nold", "github-actions[bot]")
    executor, _ = _executor(fake_github)
    executor.apply([_sticky("new", comment_id=mine["id"])])
    assert fake_github.call_lines() == [
        f"GET /repos/octo/widgets/issues/comments/{mine['id']}",
        f"PATCH /repos/octo/widgets/issues/comments/{mine['id']}",
    ]


def test_a_deleted_sticky_is_recreated(fake_github: FakeGitHub) -> None:
    executor, _ = _executor(fake_github)
    views = executor.apply([_sticky("v1")]).views
    assert views.sticky is not None
    del fake_github.comments[views.sticky.id]
    executor, _ = _executor(fake_github, views)
    views2 = executor.apply([_sticky("v2")]).views
    assert views2.sticky is not None
    assert views2.sticky.id != views.sticky.id
    assert [c["body"] for c in fake_github.comments_on(7)] == [f"{MARKER}\nv2"]


def test_sticky_search_pages_through_long_threads(fake_github: FakeGitHub) -> None:
    for n in range(45):
        fake_github.add_comment(7, f"chatter {n}", "carol")
    mine = fake_github.add_comment(7, f"{MARKER}\nold", "github-actions[bot]")
    executor, _ = _executor(fake_github)
    views = executor.apply([_sticky("new")]).views
    assert views.sticky is not None
    assert views.sticky.id == mine["id"]
    assert fake_github.call_lines().count("GET /repos/octo/widgets/issues/7/comments") == 2


def _check(
    n_annotations: int, summary: str = "all good", conclusion: str = "neutral"
) -> SetCheckRun:
    notes = tuple(
        Annotation(path=f"out/{i}.json", line=i, message=f"bad {i}") for i in range(n_annotations)
    )
    return SetCheckRun(
        head_sha=SHA,
        title="3.5 / 5",
        summary=summary,
        conclusion=conclusion,
        annotations=notes,  # type: ignore[arg-type]
    )


def test_annotations_go_fifty_per_request(fake_github: FakeGitHub) -> None:
    executor, _ = _executor(fake_github)
    views = executor.apply([_check(120)]).views
    assert fake_github.call_lines() == [
        "POST /repos/octo/widgets/check-runs",
        *[f"PATCH /repos/octo/widgets/check-runs/{views.checks[SHA].id}"] * 2,
    ]
    sizes = [
        len(json.loads(c.request.body)["output"].get("annotations", [])) for c in fake_github.calls
    ]
    assert sizes == [50, 50, 20]
    assert len(fake_github.annotations[views.checks[SHA].id]) == 120


class StopsAtUpdate:
    """The adapter, with its `stop`-th check-run update refused by a rate limit."""

    def __init__(self, api: GitHubAdapter, stop: int) -> None:
        self._api = api
        self._stop = stop
        self._updates = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)

    def update_check_run(self, *args: Any) -> bool:
        self._updates += 1
        if self._updates == self._stop:
            raise RateLimited(datetime(2026, 3, 2, tzinfo=timezone.utc))
        return self._api.update_check_run(*args)


def test_a_check_run_stopped_between_batches_goes_on_without_sending_any_twice(
    fake_github: FakeGitHub,
) -> None:
    executor, _ = _executor(fake_github)
    api = StopsAtUpdate(executor._api, stop=2)  # type: ignore[arg-type]
    stopped = Executor(api, None, ActionsRuntime(stream=io.StringIO()), ViewState(pr=7))  # type: ignore[arg-type]
    result = stopped.apply([_check(180)])
    assert result.errors
    check_id = result.views.checks[SHA].id
    assert result.views.checks[SHA].unsent == 2
    assert len(fake_github.annotations[check_id]) == 100
    start = len(fake_github.calls)
    executor, _ = _executor(fake_github, result.views)
    views = executor.apply([_check(180)]).views
    assert fake_github.call_lines(start) == [f"PATCH /repos/octo/widgets/check-runs/{check_id}"] * 2
    assert len(fake_github.annotations[check_id]) == 180
    assert views.checks[SHA].id == check_id
    assert views.checks[SHA].unsent is None
    assert b"unsent" not in encode_views(views)


def _stopped_at_batch_three(fake_github: FakeGitHub) -> ViewState:
    """A run of 180 annotations (four batches) stopped before its third batch."""
    executor, _ = _executor(fake_github)
    api = StopsAtUpdate(executor._api, stop=2)  # type: ignore[arg-type]
    stopped = Executor(api, None, ActionsRuntime(stream=io.StringIO()), ViewState(pr=7))  # type: ignore[arg-type]
    views = stopped.apply([_check(180)]).views
    assert views.checks[SHA].unsent == 2
    return views


def test_a_stopped_run_keeps_its_unsent_batches_through_an_update_without_annotations(
    fake_github: FakeGitHub,
) -> None:
    views = _stopped_at_batch_three(fake_github)
    check_id = views.checks[SHA].id
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(0, summary="after a command", conclusion="success")]).views
    assert views.checks[SHA].unsent == 2
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(180, summary="after a command", conclusion="success")]).views
    assert views.checks[SHA].id == check_id
    assert views.checks[SHA].unsent is None
    assert len(fake_github.annotations[check_id]) == 180


def test_a_stopped_run_that_is_gone_is_made_anew(fake_github: FakeGitHub) -> None:
    views = _stopped_at_batch_three(fake_github)
    gone = views.checks[SHA].id
    del fake_github.check_runs[gone]
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(180)]).views
    assert views.checks[SHA].id != gone
    assert views.checks[SHA].unsent is None
    assert len(fake_github.annotations[views.checks[SHA].id]) == 180


def test_a_stopped_run_whose_batches_cannot_be_told_apart_is_made_anew(
    fake_github: FakeGitHub,
) -> None:
    views = _stopped_at_batch_three(fake_github)
    first = views.checks[SHA].id
    views.checks[SHA] = views.checks[SHA].model_copy(update={"unsent": 9})  # batches resized
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(180)]).views
    assert views.checks[SHA].id != first
    assert len(fake_github.annotations[views.checks[SHA].id]) == 180


def test_check_run_is_updated_in_place_without_repeating_annotations(
    fake_github: FakeGitHub,
) -> None:
    executor, _ = _executor(fake_github)
    views = executor.apply([_check(3)]).views
    check_id = views.checks[SHA].id
    start = len(fake_github.calls)
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(3, summary="approved", conclusion="success")]).views
    assert fake_github.call_lines(start) == [f"PATCH /repos/octo/widgets/check-runs/{check_id}"]
    assert len(fake_github.annotations[check_id]) == 3
    assert fake_github.check_runs[check_id]["conclusion"] == "success"
    start = len(fake_github.calls)
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(3, summary="approved", conclusion="success")]).views
    assert fake_github.call_lines(start) == []
    start = len(fake_github.calls)
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(0, summary="after a command", conclusion="success")]).views
    assert fake_github.call_lines(start) == [f"PATCH /repos/octo/widgets/check-runs/{check_id}"]
    assert len(fake_github.annotations[check_id]) == 3


def test_new_annotations_on_the_same_head_start_a_new_check_run(fake_github: FakeGitHub) -> None:
    executor, _ = _executor(fake_github)
    views = executor.apply([_check(3)]).views
    first = views.checks[SHA].id
    executor, _ = _executor(fake_github, views)
    views = executor.apply([_check(4)]).views
    assert views.checks[SHA].id != first
    assert len(fake_github.annotations[views.checks[SHA].id]) == 4


def test_check_summary_is_cut_under_the_limit(fake_github: FakeGitHub) -> None:
    executor, _ = _executor(fake_github)
    executor.apply([_check(0, summary="x" * 70_000)])
    summary = next(iter(fake_github.check_runs.values()))["output"]["summary"]
    assert len(summary) <= 65_535
    assert "cut to fit" in summary


@pytest.mark.parametrize("state", ["pending", "success", "failure", "error"])
def test_a_green_is_set_once_and_a_gate_that_is_not_green_once_per_run(
    fake_github: FakeGitHub, state: str
) -> None:
    """The view state's word skips a green set before, never a gate that is not green: an older
    signed view state put back on the data branch must not keep a green up."""
    effect = SetStatus(sha=SHA, state=state, description="d" * 200)  # type: ignore[arg-type]
    executor, _ = _executor(fake_github)
    views = executor.apply([effect, effect]).views
    executor, _ = _executor(fake_github, views)
    executor.apply([effect])
    runs = 1 if state == "success" else 2
    assert [(s["state"], s["context"], len(s["description"])) for s in fake_github.statuses] == [
        (state, "rubricate/approval", 140)
    ] * runs


def test_a_trusted_view_state_skips_a_gate_that_is_not_green_too(fake_github: FakeGitHub) -> None:
    """`rubricate serve` keeps its view state in its own database: its word is taken for every
    status, so a PR's pending gate is not written again on each of its runs."""
    effect = SetStatus(sha=SHA, state="pending", description="waiting for a reviewer")
    views = ViewState(pr=7)
    for _ in range(2):
        executor, _ = _executor(fake_github, views, views_trusted=True)
        views = executor.apply([effect, effect]).views
    assert [s["state"] for s in fake_github.statuses] == ["pending"]


def test_ledger_first_then_views_in_order(fake_github: FakeGitHub) -> None:
    comment = fake_github.add_comment(7, "/score spec=4", "bob")
    executor, ledger = _executor(fake_github)
    executor.apply(
        [
            React(comment_id=comment["id"], content="eyes"),
            AppendEvents(events=(_event("comment:1#0"),)),
            React(comment_id=comment["id"], content="+1"),
            AppendEvents(events=(_event("comment:1#1"),)),
            React(comment_id=77, content="+1", target="review"),
        ]
    )
    assert ledger.calls_before == [0]
    assert [len(batch) for batch in ledger.appended] == [2]
    assert fake_github.reactions == [(comment["id"], "eyes"), (comment["id"], "+1")]


def test_secrets_never_reach_the_ledger(fake_github: FakeGitHub) -> None:
    leaky = _event("comment:9#0").model_copy(update={"feedback": f"token is {TOKEN}"})
    executor, ledger = _executor(fake_github)
    executor.apply([AppendEvents(events=(leaky,))])
    stored = ledger.appended[0][0]
    assert stored.feedback == "token is ***"
    assert stored.id == leaky.id


def test_failed_views_are_all_reported_after_the_others_ran(fake_github: FakeGitHub) -> None:
    fake_github.failures["POST /repos/octo/widgets/check-runs"] = 1
    stream = io.StringIO()
    executor, _ = _executor(fake_github, stream=stream)
    outcome = executor.apply(
        [_check(0), SetStatus(sha=SHA, state="pending", description="waiting")]
    )
    assert len(fake_github.statuses) == 1
    assert outcome.errors
    assert "check-runs failed (502)" in outcome.errors[0]
    with pytest.raises(ExecutionError, match="SetCheckRun"):
        outcome.raise_errors()
    assert "::error::SetCheckRun failed" in stream.getvalue()
    assert TOKEN not in stream.getvalue()


def test_replies_outputs_annotations_and_logs(fake_github: FakeGitHub, tmp_path: Path) -> None:
    output, summary = tmp_path / "out", tmp_path / "summary.md"
    stream = io.StringIO()
    executor, _ = _executor(
        fake_github, stream=stream, output_path=str(output), summary_path=str(summary)
    )
    executor.apply(
        [
            PostComment(pr=7, body=f"> /score nope=3\nunknown criterion (token {TOKEN})"),
            SetOutputs(outputs={"verdict": "fail", "gate": "pending"}, summary="## Report\nline 2"),
            Annotate(message="bad json", level="error", path="out/a.json", line=3),
            Log(message="done", extra={"n": 1}),
        ]
    )
    reply = fake_github.comments_on(7)[0]["body"]
    assert TOKEN not in reply
    assert "***" in reply
    text = output.read_text()
    assert "verdict<<ghadelimiter_" in text
    assert "\nfail\n" in text
    assert summary.read_text() == "## Report\nline 2\n"
    log = stream.getvalue()
    assert "::error file=out/a.json,line=3::bad json" in log
    assert 'done {"n": 1}' in log


def test_dry_run_prints_json_lines_without_secrets() -> None:
    stream = io.StringIO()
    runtime = ActionsRuntime(stream=io.StringIO(), secrets=[TOKEN])
    print_effects(
        [
            PostComment(pr=7, body=f"t={TOKEN}"),
            SetStatus(sha=SHA, state="pending", description="d"),
        ],
        stream,
        runtime,
    )
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["effect"] for line in lines] == ["PostComment", "SetStatus"]
    assert TOKEN not in stream.getvalue()
