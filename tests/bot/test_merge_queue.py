"""The status of a merge queue group: every entry must hold its PR's approved change."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rubricate.bot.effects import SetStatus
from rubricate.bot.events import MergeGroupEvent
from rubricate.bot.jobstate import JobState
from rubricate.bot.merge_queue import group_status, heads_to_check
from rubricate.bot.queue_entries import Entry, GroupEntries

from .conftest import AGORA_AUTO, AGORA_PASS, REPO, Harness

HEAD, START, MIDDLE, END = "a" * 40, "b" * 40, "c" * 40, "d" * 40
EVENT = MergeGroupEvent(REPO, END, START, "main", 7, MIDDLE)


def _approved(bot: Harness) -> Harness:
    bot.open(head=HEAD, scores=AGORA_AUTO)
    bot.say("/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items()))
    return bot


def _status(
    grouped: GroupEntries, bot: Harness, trees: dict[tuple[str, str], str | None]
) -> SetStatus:
    [status] = [
        e for e in group_status(EVENT, grouped, {7: bot.job}, trees) if isinstance(e, SetStatus)
    ]
    return status


def test_an_entry_holding_the_approved_change_is_green(bot: Harness) -> None:
    _approved(bot)
    entry = Entry(7, START, END, "t" * 40, (END,))
    assert heads_to_check(entry, bot.job) == (HEAD,)
    status = _status(GroupEntries((entry,)), bot, {(START, HEAD): "t" * 40})
    assert (status.state, status.description) == ("success", "merge queue: #7 approved")


def test_the_same_pr_twice_fails_on_the_entry_that_is_not_its_change(bot: Harness) -> None:
    _approved(bot)
    first = Entry(7, START, MIDDLE, "s" * 40, (MIDDLE,), how="its squash commit")
    second = Entry(7, MIDDLE, END, "t" * 40, (END,))
    status = _status(GroupEntries((first, second)), bot, {(START, HEAD): "s" * 40})
    assert status.state == "failure"
    assert status.description == (
        f"merge queue: #7: commit {END[:12]} (its queue branch) "
        "does not hold the approved change v1"
    )


def test_a_merge_commit_whose_head_is_not_approved_checks_no_tree(bot: Harness) -> None:
    _approved(bot)
    entry = Entry(7, START, END, "t" * 40, (END,), head="e" * 40)
    assert heads_to_check(entry, bot.job) == ()
    status = _status(GroupEntries((entry,)), bot, {})
    assert "#7: head eeeeeee is not the current change (v1)" in status.description


def test_a_group_without_entries_or_with_a_problem_fails(bot: Harness) -> None:
    _approved(bot)
    assert _status(GroupEntries(()), bot, {}).state == "failure"
    why = "commit 0123 names no PR"
    entry = Entry(7, START, END, "t" * 40, (END,))
    status = _status(GroupEntries((entry,), problem=why), bot, {(START, HEAD): "t" * 40})
    assert (status.state, status.description) == ("failure", f"merge queue: {why}")


def _with_change(bot: Harness) -> JobState:
    job = _approved(bot).job
    versions = tuple(replace(v, change_id="diff-raw-sha256:1") for v in job.versions)
    return replace(job, versions=versions)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (None, f"head {HEAD[:12]} could not be fetched: its change cannot be checked"),
        (
            "diff-raw-sha256:2",
            f"head {HEAD[:12]} changes this base otherwise than the approved change v1",
        ),
    ],
)
def test_a_head_not_fetched_is_told_apart_from_another_change(
    bot: Harness, change: str | None, why: str
) -> None:
    job = _with_change(bot)
    entry = Entry(7, START, END, "t" * 40, (END,))
    grouped = GroupEntries((entry,))
    effects = group_status(EVENT, grouped, {7: job}, {(START, HEAD): "t" * 40}, {HEAD: change})
    [status] = [e for e in effects if isinstance(e, SetStatus)]
    assert status.state == "failure"
    assert why in status.description
    green = group_status(
        EVENT, grouped, {7: job}, {(START, HEAD): "t" * 40}, {HEAD: "diff-raw-sha256:1"}
    )
    assert [e.state for e in green if isinstance(e, SetStatus)] == ["success"]
