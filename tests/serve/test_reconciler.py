"""The reconciler catches up the jobs the ledger holds open for PRs GitHub has closed (the
fake GitHub, real repositories and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from rubricate.serve.handle import handle_delivery
from rubricate.serve.reconciler import Reconciled, reconcile
from tests.action.fake_github import pull
from tests.action.payloads import REPO
from tests.action.scenario import AUTHOR, PR, REPORT_V1, TEST_FILE
from tests.serve.conftest import WorkerSetup
from tests.serve.world import pr_delivery, rows


@pytest.fixture
def opened(worker_env: WorkerSetup) -> WorkerSetup:
    """The PR opened and recorded; GitHub lists it as the PR it is."""
    world = worker_env
    world.scenario.push(
        {"out/report.json": REPORT_V1, "tests/test_report.py": TEST_FILE}, "Add the report"
    )
    guid = pr_delivery(world, "g-open")
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    head = world.scenario.heads[-1]
    world.scenario.fake.pulls[PR] = pull(
        REPO, PR, author=AUTHOR, head_sha=head, base_sha=world.scenario.base_sha
    )
    return world


def kinds(world: WorkerSetup) -> list[str]:
    return [
        k for (k,) in rows(world, "SELECT line::jsonb->>'kind' FROM rubricate_events ORDER BY seq")
    ]


def close(world: WorkerSetup, *, merged: bool) -> None:
    at = (world.scenario.clock + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    world.scenario.fake.pulls[PR].update(
        state="closed", closed_at=at, updated_at=at, merged_at=at if merged else None, merged=merged
    )


def test_an_open_pr_is_left_alone(opened: WorkerSetup) -> None:
    assert reconcile(opened.ctx) == [Reconciled(REPO, [], 0)]
    assert kinds(opened) == ["first_submission"]


def test_a_pr_closed_without_its_delivery_is_caught_up_once(opened: WorkerSetup) -> None:
    close(opened, merged=False)  # the `closed` delivery never reached the receiver
    assert reconcile(opened.ctx) == [Reconciled(REPO, [PR], 1)]
    assert kinds(opened) == ["first_submission", "abandoned"]
    assert rows(opened, "SELECT state FROM rubricate_jobs") == [("abandoned",)]
    assert reconcile(opened.ctx) == []  # no open job left: no request, nothing added


def test_a_merged_pr_gets_its_final_approval(opened: WorkerSetup) -> None:
    close(opened, merged=True)
    [done] = reconcile(opened.ctx)
    assert done == Reconciled(REPO, [PR], 1)
    assert kinds(opened) == ["first_submission", "final_approval"]
    [(gate,)] = rows(opened, "SELECT line::jsonb->>'gate' FROM rubricate_events WHERE seq > 1")
    assert gate == "bypassed"  # nobody approved the version
