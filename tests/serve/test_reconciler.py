"""The reconciler catches up the jobs the ledger holds open for PRs GitHub has closed (the
fake GitHub, real repositories and PostgreSQL)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from rubricate.ledger.pg_store import PostgresStore
from rubricate.serve.handle import handle_delivery
from rubricate.serve.reconciler import Reconciled, reconcile
from tests.action.fake_github import pull
from tests.action.payloads import REPO
from tests.action.scenario import AUTHOR, CONFIG, PR, REPORT_V1, REPORT_V2, TEST_FILE, git
from tests.ledger.factory import event
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
    before = len(opened.scenario.fake.calls)
    assert reconcile(opened.ctx) == [Reconciled(REPO, [], 0)]  # no open job left: nothing added
    assert f"GET /repos/{REPO}/pulls/{PR}" not in opened.scenario.fake.call_lines(before)


def test_a_merged_pr_gets_its_final_approval(opened: WorkerSetup) -> None:
    close(opened, merged=True)
    [done] = reconcile(opened.ctx)
    assert done == Reconciled(REPO, [PR], 1)
    assert kinds(opened) == ["first_submission", "final_approval"]
    [(gate,)] = rows(opened, "SELECT line::jsonb->>'gate' FROM rubricate_events WHERE seq > 1")
    assert gate == "bypassed"  # nobody approved the version


def test_a_merged_pr_without_a_due_date_gets_the_configured_sla(opened: WorkerSetup) -> None:
    world = opened.scenario
    git(world.work, "checkout", "--quiet", "main")  # the default branch's config sets an SLA
    (world.work / ".github/rubricate.yml").write_text(CONFIG + "reputation:\n  sla_hours: 48\n")
    git(world.work, "commit", "--quiet", "-am", "Set an SLA")
    git(world.work, "push", "--quiet", str(world.remote), "main")
    git(world.work, "checkout", "--quiet", "feature")
    world.fake.pulls[PR]["body"] = "No linked issue"  # so no milestone's due date either
    close(opened, merged=True)
    assert reconcile(opened.ctx) == [Reconciled(REPO, [PR], 1)]
    [(deadline,)] = rows(
        opened, "SELECT line::jsonb->>'deadline' FROM rubricate_events WHERE seq > 1"
    )
    assert deadline == "2026-03-03T09:00:00Z"  # created 2026-03-01T09:00:00Z, plus 48 hours


def _guids(world: WorkerSetup) -> list[tuple[str, str, str]]:
    return rows(
        world,
        "SELECT guid, action, state FROM rubricate_deliveries WHERE guid LIKE 'reconcile:%'"
        " ORDER BY guid",
    )


def test_a_head_the_ledger_never_saw_is_run_again_once(opened: WorkerSetup) -> None:
    world = opened.scenario
    head = world.push({"out/report.json": REPORT_V2}, "Fix the total")  # its delivery was lost
    at = (world.clock + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    world.fake.pulls[PR]["head"]["sha"] = head
    world.fake.pulls[PR]["updated_at"] = at
    assert reconcile(opened.ctx) == [Reconciled(REPO, [], 0, [PR])]
    assert reconcile(opened.ctx) == [Reconciled(REPO, [], 0)]  # queued already: once
    [(guid, action, state)] = _guids(opened)
    assert (guid, action, state) == (f"reconcile:{REPO}#{PR}@{head}", "synchronize", "queued")
    assert handle_delivery(opened.ctx, guid, now=world.clock) == "handled"
    assert kinds(opened) == ["first_submission", "review_scored"]
    [(recorded, version)] = rows(
        opened,
        "SELECT line::jsonb->>'head_sha', line::jsonb->>'version' FROM rubricate_events"
        " WHERE seq > 1",
    )
    assert (recorded, version) == (head, "2")  # the new change is a new version, scored
    assert reconcile(opened.ctx) == [Reconciled(REPO, [], 0)]  # the head is recorded now


def test_an_open_pr_the_ledger_never_saw_is_opened_unless_a_draft(worker_env: WorkerSetup) -> None:
    world = worker_env
    head = world.scenario.push(
        {"out/report.json": REPORT_V1, "tests/test_report.py": TEST_FILE}, "Add the report"
    )
    older = event("abandoned", 99, -24 * 60, "x99", repo=REPO, author="someone")  # February
    with PostgresStore(world.db_url) as store:
        store.append([older])
        store.conn.execute(  # the installation that delivers for the repository
            "INSERT INTO rubricate_deliveries (guid, event, installation, repo, pr, state, body)"
            " VALUES ('g-old', 'pull_request', 77, %s, 99, 'handled', %s)",
            (REPO, json.dumps({}).encode()),
        )
    world.scenario.fake.pulls[PR] = pull(
        REPO, PR, author=AUTHOR, head_sha=head, base_sha=world.scenario.base_sha
    )
    world.scenario.fake.pulls[PR]["draft"] = True
    assert reconcile(world.ctx) == [Reconciled(REPO, [], 0)]  # a draft is not scored
    world.scenario.fake.pulls[PR]["draft"] = False
    assert reconcile(world.ctx) == [Reconciled(REPO, [], 0, [PR])]
    [(guid, action, _)] = _guids(world)
    assert action == "opened"
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    assert kinds(world) == ["abandoned", "first_submission"]
