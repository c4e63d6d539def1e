"""The worker on real repositories, PostgreSQL and the fake GitHub: the Action's core, the
events stored once, the views published once, and the crash cases it must survive."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from rubricate.bot.effects import SetStatus
from rubricate.errors import Busy, ExecutionError, GitHubError, RateLimited
from rubricate.github.adapter import GitHubAdapter
from rubricate.ledger.pg_schema import connect
from rubricate.serve import handle as handle_module
from rubricate.serve import outbox
from rubricate.serve.budget import record
from rubricate.serve.handle import handle_delivery
from rubricate.serve.ledger_files import LedgerFiles
from rubricate.serve.publish import publish_pr
from rubricate.serve.queue import hold_pr
from tests.action.payloads import REPO
from tests.action.scenario import MAINTAINER, PR, WRITER, Scenario, git
from tests.action.test_attack_config import LOW, _lenient_release
from tests.serve.conftest import INSTALLATION, WorkerSetup
from tests.serve.world import comment_delivery, deliver, event_ids, pr_delivery, rows


def publish_jobs(world: WorkerSetup) -> list[tuple[str, str]]:
    return [
        (lock, queueing)
        for lock, queueing in rows(
            world,
            "SELECT lock, queueing_lock FROM procrastinate_jobs"
            " WHERE task_name = 'rubricate.publish' AND status = 'todo'",
        )
    ]


def test_an_opened_pr_is_recorded_then_published(world: WorkerSetup) -> None:
    guid = pr_delivery(world, "g-open")
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    kinds = [k for (k,) in rows(world, "SELECT line::jsonb->>'kind' FROM rubricate_events")]
    assert kinds == ["first_submission"]
    assert rows(world, "SELECT repo, pr, state FROM rubricate_jobs") == [(REPO, PR, "open")]
    assert publish_jobs(world) == [(f"{REPO}#{PR}", f"publish:{REPO}#{PR}")]
    fake = world.scenario.fake
    assert fake.comments_on(PR) == []  # nothing on GitHub before the publish job
    assert publish_pr(world.ctx, REPO, PR) > 0
    [sticky] = fake.comments_on(PR)
    assert sticky["user"]["login"] == fake.bot_login
    assert [s["context"] for s in fake.statuses] == ["rubricate/approval"]
    assert len(fake.check_runs) == 1
    calls = len(fake.calls)
    assert publish_pr(world.ctx, REPO, PR) == 0  # nothing pending: no request
    assert len(fake.calls) == calls


def test_a_delivery_handled_twice_inserts_and_publishes_once(world: WorkerSetup) -> None:
    """The job's acknowledgement is lost after its commit (the worker was killed): the retry
    finds the delivery handled and does nothing."""
    guid = pr_delivery(world, "g-twice")
    handle_delivery(world.ctx, guid, now=world.scenario.clock)
    ids = event_ids(world)
    outbox = rows(world, "SELECT count(*) FROM rubricate_outbox")
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    assert event_ids(world) == ids
    assert rows(world, "SELECT count(*) FROM rubricate_outbox") == outbox


def test_a_worker_killed_before_its_commit_leaves_nothing_and_the_retry_lands_once(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    guid = pr_delivery(world, "g-kill")

    def killed(*_args: object, **_kwargs: object) -> bool:
        raise SystemExit("kill -9 between the insert and the publish job")

    monkeypatch.setattr("rubricate.serve.handle.defer", killed)
    with pytest.raises(SystemExit):
        handle_delivery(world.ctx, guid, now=world.scenario.clock)
    assert event_ids(world) == []
    assert rows(world, "SELECT state FROM rubricate_deliveries") == [("queued",)]
    monkeypatch.undo()
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    assert len(event_ids(world)) == 1
    publish_pr(world.ctx, REPO, PR)
    assert len(world.scenario.fake.comments_on(PR)) == 1


def publish_killed_after_writes(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch, guid: str
) -> None:
    """Handle a PR delivery, then publish it and die after GitHub's writes, before the commit."""
    handle_delivery(world.ctx, pr_delivery(world, guid), now=world.scenario.clock)

    def killed(*_args: object) -> None:
        raise SystemExit("kill -9 after GitHub's writes")

    monkeypatch.setattr("rubricate.serve.outbox.mark_published", killed)
    with pytest.raises(SystemExit):
        publish_pr(world.ctx, REPO, PR)
    monkeypatch.undo()


def test_a_publish_killed_before_its_commit_posts_no_second_comment(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish_killed_after_writes(world, monkeypatch, "g-pub")
    publish_pr(world.ctx, REPO, PR)
    assert len(world.scenario.fake.comments_on(PR)) == 1
    assert rows(world, "SELECT count(*) FROM rubricate_outbox WHERE published_at IS NULL") == [(0,)]


def test_a_publish_killed_after_creating_its_check_run_creates_no_second_one(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish_killed_after_writes(world, monkeypatch, "g-check")
    fake = world.scenario.fake
    [first] = fake.check_runs
    publish_pr(world.ctx, REPO, PR)
    assert list(fake.check_runs) == [first]  # found by name and external id, not created again
    assert fake.check_runs[first]["external_id"]


def test_a_command_is_recorded_once_and_answered(world: WorkerSetup) -> None:
    handle_delivery(world.ctx, pr_delivery(world, "g-1"), now=world.scenario.clock)
    publish_pr(world.ctx, REPO, PR)
    body = "/score spec=4 comp=4 qual=3 ver=3 format=2 -- first look"
    guid = comment_delivery(world, "g-2", WRITER, body)
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    sql = "SELECT line::jsonb->>'kind' FROM rubricate_events ORDER BY seq"
    kinds = [k for (k,) in rows(world, sql)]
    assert kinds[0] == "first_submission"
    assert "review_scored" in kinds[1:]
    publish_pr(world.ctx, REPO, PR)
    fake = world.scenario.fake
    assert [content for _, content in fake.reactions] == ["+1"]
    assert len([c for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login]) == 1
    ids = event_ids(world)
    [(stored,)] = rows(world, "SELECT body FROM rubricate_deliveries WHERE guid = 'g-2'")
    deliver(world, "g-2-again", "issue_comment", json.loads(bytes(stored)))
    assert handle_delivery(world.ctx, "g-2-again", now=world.scenario.clock) == "handled"
    assert event_ids(world) == ids  # the same comment under another GUID: natural-key ids


def test_a_bad_config_fails_the_head_and_is_not_retried(world: WorkerSetup) -> None:
    scenario = world.scenario
    _break_main_config(scenario)
    guid = pr_delivery(world, "g-bad")
    assert handle_delivery(world.ctx, guid, now=scenario.clock) == "failed"
    [(state, reason)] = rows(world, "SELECT state, reason FROM rubricate_deliveries")
    assert state == "failed"
    assert "rubric" in reason
    assert event_ids(world) == []
    publish_pr(world.ctx, REPO, PR)
    [check] = scenario.fake.check_runs.values()
    assert check["conclusion"] == "failure"
    assert check["head_sha"] == scenario.heads[-1]


def test_a_failed_retarget_sets_the_heads_gate_to_failure(world: WorkerSetup) -> None:
    """A green given under the old base's rules does not stand when the retarget's run fails
    on the new base's config: the head's gate is set to failure, as the Action's run does."""
    sc = world.scenario
    opened = deliver(world, "g-o", "pull_request", sc.pr_payload("opened"))
    assert handle_delivery(world.ctx, opened, now=sc.clock) == "handled"
    approve = comment_delivery(world, "g-a", WRITER, "/approve spec=5 comp=5 qual=5 ver=5 format=5")
    assert handle_delivery(world.ctx, approve, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "success"
    _break_main_config(sc)
    payload = sc.pr_payload("edited")
    payload["changes"] = {"base": {"ref": {"from": "release-1"}, "sha": {"from": "0" * 40}}}
    edited = deliver(world, "g-e", "pull_request", payload)
    assert handle_delivery(world.ctx, edited, now=sc.clock) == "failed"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "failure"


def test_a_retarget_whose_job_fails_takes_the_green_down_until_it_is_evaluated(
    worker_env: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Approved under a lenient base's rules, retargeted to main, and the retarget's job fails
    on something other than a config error (a read that fails) and is retried: the old base's
    green is down before the retry, and the retry that succeeds sets the new version's gate."""
    world, sc = worker_env, worker_env.scenario
    main, release = _lenient_release(sc)
    opened = deliver(world, "g-o", "pull_request", _on_base(sc, "opened", "release-1", release))
    assert handle_delivery(world.ctx, opened, now=sc.clock) == "handled"
    assert handle_delivery(world.ctx, comment_delivery(world, "g-a", WRITER, LOW)) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "success"
    payload = _on_base(sc, "edited", "main", main)
    payload["changes"] = {"base": {"ref": {"from": "release-1"}, "sha": {"from": release}}}
    edited = deliver(world, "g-e", "pull_request", payload)
    real = handle_module.gather

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise ExecutionError("git fetch failed: the remote hung up")

    monkeypatch.setattr(handle_module, "gather", failing)
    for _ in range(2):
        with pytest.raises(ExecutionError):
            handle_delivery(world.ctx, edited, now=sc.clock)
        publish_pr(world.ctx, REPO, PR)
        assert _gate(world) == "pending"
    assert len(rows(world, "SELECT seq FROM rubricate_outbox WHERE delivery = 'g-e'")) == 1
    monkeypatch.setattr(handle_module, "gather", real)
    assert handle_delivery(world.ctx, edited, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "pending"
    assert sc.fake.statuses[-1]["description"].startswith("Waiting for a reviewer's /approve of v2")


def test_an_old_retarget_delivered_again_leaves_the_approved_heads_green(
    worker_env: WorkerSetup,
) -> None:
    """The Action's stale re-run, in `rubricate serve`: approved on release-1, moved to main,
    back to release-1 and approved again; the first retarget delivered again (another guid) is
    lowered first, then found stale, and its job sets the head's gate as the ledger has it."""
    world, sc = worker_env, worker_env.scenario
    main, release = _lenient_release(sc)
    opened = deliver(world, "g-o", "pull_request", _on_base(sc, "opened", "release-1", release))
    assert handle_delivery(world.ctx, opened, now=sc.clock) == "handled"
    assert handle_delivery(world.ctx, comment_delivery(world, "g-a", WRITER, LOW)) == "handled"
    away = _on_base(sc, "edited", "main", main)
    away["changes"] = {"base": {"ref": {"from": "release-1"}, "sha": {"from": release}}}
    assert handle_delivery(world.ctx, deliver(world, "g-e1", "pull_request", away)) == "handled"
    back = _on_base(sc, "edited", "release-1", release)
    back["changes"] = {"base": {"ref": {"from": "main"}, "sha": {"from": main}}}
    assert handle_delivery(world.ctx, deliver(world, "g-e2", "pull_request", back)) == "handled"
    assert handle_delivery(world.ctx, comment_delivery(world, "g-a2", WRITER, LOW)) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "success"
    again = deliver(world, "g-e1-again", "pull_request", away)
    assert handle_delivery(world.ctx, again, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "success"


def _on_base(sc: Scenario, action: str, base: str, base_sha: str) -> dict[str, Any]:
    """A pull_request payload of the current head into `base`."""
    payload = sc.pr_payload(action)
    payload["pull_request"]["base"].update(ref=base, sha=base_sha)
    return payload


def test_a_dismissed_approving_review_takes_the_green_down(world: WorkerSetup) -> None:
    """The same rule as the Action's: the dismissal's job lowers the gate before it runs, and
    withdraws the review's approval."""
    sc = world.scenario
    assert handle_delivery(world.ctx, pr_delivery(world, "g-o"), now=sc.clock) == "handled"
    submitted = sc.review_payload(WRITER, "/approve spec=5 comp=5 qual=5 ver=5 format=5")
    review = deliver(world, "g-r", "pull_request_review", json.loads(json.dumps(submitted)))
    assert handle_delivery(world.ctx, review, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "success"
    guid = deliver(world, "g-d", "pull_request_review", _dismissed(submitted))
    assert handle_delivery(world.ctx, guid, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "pending"
    kinds = [k for (k,) in rows(world, "SELECT line::jsonb->>'kind' FROM rubricate_events")]
    assert kinds.count("revision_requested") == 1


def _dismissed(submitted: dict[str, Any]) -> dict[str, Any]:
    """The `dismissed` payload of a submitted review, by a maintainer."""
    dismissed = json.loads(json.dumps(submitted))
    dismissed.update(action="dismissed", sender={"login": MAINTAINER, "type": "User"})
    dismissed["review"]["state"] = "dismissed"
    return dismissed


def test_a_review_dismissed_before_its_job_ran_never_approves(world: WorkerSetup) -> None:
    sc = world.scenario
    assert handle_delivery(world.ctx, pr_delivery(world, "g-o"), now=sc.clock) == "handled"
    submitted = sc.review_payload(WRITER, "/approve spec=5 comp=5 qual=5 ver=5 format=5")
    guid = deliver(world, "g-d", "pull_request_review", _dismissed(submitted))
    assert handle_delivery(world.ctx, guid, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    late = deliver(world, "g-r", "pull_request_review", submitted)
    assert handle_delivery(world.ctx, late, now=sc.clock) == "handled"
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "pending"
    kinds = [k for (k,) in rows(world, "SELECT line::jsonb->>'kind' FROM rubricate_events")]
    assert "approved" not in kinds


def _break_main_config(scenario: Scenario) -> None:
    """Commit a config on main that fails to load, and make main the PR's base."""
    git(scenario.work, "checkout", "--quiet", "main")
    (scenario.work / ".github" / "rubricate.yml").write_text("rubric: [not, a, name]\n")
    git(scenario.work, "commit", "--quiet", "-am", "Break the config")
    git(scenario.work, "push", "--quiet", str(scenario.remote), "main")
    scenario.base_sha = git(scenario.work, "rev-parse", "HEAD")
    git(scenario.work, "checkout", "--quiet", "feature")


def _gate(world: WorkerSetup) -> str:
    sc = world.scenario
    states = [s["state"] for s in sc.fake.statuses if s["sha"] == sc.heads[-1]]
    return states[-1] if states else "none"


def test_a_blocked_installation_is_put_back_without_a_request(world: WorkerSetup) -> None:
    scenario = world.scenario
    until = scenario.clock + timedelta(days=9999)
    with connect(world.db_url) as conn:
        record(conn, INSTALLATION, scenario.clock, until=until)
    guid = pr_delivery(world, "g-blocked")
    calls = len(scenario.fake.calls)
    with pytest.raises(RateLimited) as raised:
        handle_delivery(world.ctx, guid, now=scenario.clock)
    assert raised.value.until == until
    assert len(scenario.fake.calls) == calls
    assert rows(world, "SELECT state FROM rubricate_deliveries") == [("queued",)]


def test_a_rate_limit_while_publishing_stops_the_job_and_keeps_its_views(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = world.scenario
    handle_delivery(world.ctx, pr_delivery(world, "g-rl"), now=scenario.clock)
    until = datetime.now(timezone.utc) + timedelta(minutes=5)
    posted: list[str] = []

    def limited(self: object, pr: int, body: str, marker: str = "") -> int:
        posted.append(body)
        raise RateLimited(until)

    monkeypatch.setattr("rubricate.github.adapter.GitHubAdapter.create_comment", limited)
    with pytest.raises(RateLimited):
        publish_pr(world.ctx, REPO, PR)
    assert len(posted) == 1  # the sticky comment; nothing after it was sent
    assert scenario.fake.statuses == []
    assert scenario.fake.check_runs == {}
    [(blocked,)] = rows(world, "SELECT blocked_until FROM rubricate_budgets")
    assert blocked == until
    assert rows(world, "SELECT count(*) FROM rubricate_outbox WHERE published_at IS NULL") == [(1,)]


def test_a_delivery_committed_meanwhile_by_another_run_is_left_to_it(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job put back as stalled while its first worker still runs: whichever commits second
    rolls back and inserts nothing."""
    guid = pr_delivery(world, "g-race")
    real_run_core = handle_module.run_core

    def other_run_commits_first(*args: object) -> object:
        done = real_run_core(*args)  # type: ignore[arg-type]
        with connect(world.db_url) as conn:
            conn.execute(
                "UPDATE rubricate_deliveries SET state = 'handled' WHERE guid = %s", (guid,)
            )
        return done

    monkeypatch.setattr(handle_module, "run_core", other_run_commits_first)
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    assert event_ids(world) == []
    assert rows(world, "SELECT count(*) FROM rubricate_outbox") == [(0,)]
    assert publish_jobs(world) == []


def release_now(conn: Any) -> None:
    """Release the session's advisory locks: a closed connection's go only when its server
    process has noticed, which may be after the test's next step."""
    conn.execute("SELECT pg_advisory_unlock_all()")


def test_a_pr_another_job_holds_is_put_back(world: WorkerSetup) -> None:
    guid = pr_delivery(world, "g-busy")
    with connect(world.db_url) as other:
        hold_pr(other, REPO, PR)
        with pytest.raises(Busy):
            handle_delivery(world.ctx, guid, now=world.scenario.clock)
        assert rows(world, "SELECT state FROM rubricate_deliveries") == [("queued",)]
        release_now(other)
    handle_delivery(world.ctx, guid, now=world.scenario.clock)
    with connect(world.db_url) as other:
        hold_pr(other, REPO, PR)
        with pytest.raises(Busy):
            publish_pr(world.ctx, REPO, PR)
        release_now(other)
    assert world.scenario.fake.comments_on(PR) == []
    assert publish_pr(world.ctx, REPO, PR) > 0


def test_a_publish_runs_before_the_prs_next_delivery(world: WorkerSetup) -> None:
    """Under a backlog the views of what was handled go out first."""
    first = pr_delivery(world, "g-first")
    comment_delivery(world, "g-next", WRITER, "/score spec=4 comp=4 qual=3 ver=3 format=2 -- ok")
    handle_delivery(world.ctx, first, now=world.scenario.clock)  # queued after g-next's job
    with connect(world.db_url) as conn:
        conn.execute(
            "UPDATE procrastinate_jobs SET status = 'succeeded' WHERE args->>'guid' = 'g-first'"
        )
        fetched = conn.execute(
            "SELECT task_name FROM procrastinate_fetch_job_v2(ARRAY['rubricate'], NULL)"
        ).fetchone()
    assert fetched == ("rubricate.publish",)


def test_a_commands_job_is_read_once_from_the_database(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    handle_delivery(world.ctx, pr_delivery(world, "g-1"), now=world.scenario.clock)
    reads: list[object] = []
    original = LedgerFiles.read_files

    def counted(self: LedgerFiles, wanted: Any) -> dict[str, bytes]:
        reads.append(wanted)
        return original(self, wanted)

    monkeypatch.setattr(LedgerFiles, "read_files", counted)
    guid = comment_delivery(world, "g-2", WRITER, "/score spec=4 comp=4 qual=3 ver=3 format=2")
    assert handle_delivery(world.ctx, guid, now=world.scenario.clock) == "handled"
    assert len(reads) == 1  # located and gathered on the one read


def _leave(world: WorkerSetup, guid: str, effect: SetStatus) -> None:
    """An outbox row for the PR holding one status, as a handled delivery leaves it."""
    with connect(world.db_url) as conn, conn.transaction():
        outbox.put(conn, (REPO, PR, INSTALLATION, guid), [effect])


def _green_sent_then_gate_back(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch, how: str
) -> dict[str, Any]:
    """The PR's gate published (not green), then a green whose publish sets it on GitHub and
    dies before recording it (`how`: killed before its commit, or GitHub's answer lost), then
    the gate back where it was before the retry: the first status, as GitHub had it."""
    fake = world.scenario.fake
    guid = pr_delivery(world, "g-open")
    handle_delivery(world.ctx, guid, now=world.scenario.clock)
    publish_pr(world.ctx, REPO, PR)
    [first] = fake.statuses
    assert first["state"] != "success"
    _leave(world, guid, SetStatus(sha=first["sha"], state="success", description="approved"))
    if how == "killed":

        def killed(*_args: object) -> None:
            raise SystemExit("killed after GitHub's writes, before the commit")

        monkeypatch.setattr(outbox, "mark_published", killed)
    else:
        real = GitHubAdapter.set_status

        def lost(self: GitHubAdapter, *args: Any) -> None:
            real(self, *args)
            raise GitHubError("POST statuses: 502 Bad Gateway")

        monkeypatch.setattr(GitHubAdapter, "set_status", lost)
    with pytest.raises((SystemExit, ExecutionError)):
        publish_pr(world.ctx, REPO, PR)
    monkeypatch.undo()
    assert fake.statuses[-1]["state"] == "success"
    back = SetStatus(sha=first["sha"], state=first["state"], description=first["description"])
    _leave(world, guid, back)
    return first


@pytest.mark.parametrize(("how", "again"), [("killed", True), ("killed", False), ("lost", True)])
def test_a_green_an_unfinished_publish_sent_is_taken_down_by_the_next(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch, how: str, again: bool
) -> None:
    first = _green_sent_then_gate_back(world, monkeypatch, how)
    publish_pr(world.ctx, REPO, PR, again=again)  # again=False: a waiting twin of the publish
    assert world.scenario.fake.statuses[-1]["state"] == first["state"]
    writes = len(world.scenario.fake.statuses)
    publish_pr(world.ctx, REPO, PR)  # nothing left: no write
    assert len(world.scenario.fake.statuses) == writes
