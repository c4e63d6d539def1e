"""The data-branch store against real bare repositories."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from rubricate.errors import DataBranchError, LedgerError
from rubricate.gitio.workspace import GitWorkspace, auth_env
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.event import Event
from rubricate.ledger.paths import job_paths
from rubricate.ledger.store import RetryPolicy, job_file_events
from rubricate.ledger.verify import verify_files
from rubricate.redaction import redact_url as redact
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import (
    BRANCH,
    assert_derived_match_recompute,
    bare_remote,
    branch_files,
    commit_count,
    commit_files,
    git,
)

NO_WAIT = RetryPolicy(base_delay=0.0)


def read_job(store: DataBranchStore, repo: str, pr: int) -> tuple[Event, ...]:
    """One job's events from its job file, read the way the action reads them."""
    paths = job_paths(repo, pr)
    return job_file_events(store.read_files(lambda p: p in paths), repo, pr)


def _store(remote: Path, **kwargs: object) -> DataBranchStore:
    return DataBranchStore(str(remote), retry=NO_WAIT, **kwargs)  # type: ignore[arg-type]


def test_a_missing_branch_is_created_as_an_orphan(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with _store(remote) as store:
        assert store.read().events == ()
        assert store.read_file("reputation.json") is None
        result = store.append(completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    assert (result.added, result.present, result.attempts) == (2, 0, 1)
    assert git("rev-list", "--parents", BRANCH, cwd=remote) == result.commit
    author = git("log", "-1", "--format=%an <%ae>", BRANCH, cwd=remote)
    assert author == "rubricate-bot <rubricate-bot@users.noreply.github.com>"
    assert_derived_match_recompute(branch_files(remote))


def test_a_replay_of_the_same_events_makes_no_commit(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    events = completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5])
    with _store(remote) as store:
        store.append(events)
        replay = store.append(events)
    assert (replay.added, replay.present, replay.commit) == (0, 2, None)
    assert commit_count(remote) == 1


def test_appends_grow_the_ledger_and_keep_every_event_once(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    first = completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5])
    second = [*completed_job(2, [3, 3, 3, 3, 3], [4, 4, 4, 4, 4], author="bob"), first[0]]
    with _store(remote, workdir=str(tmp_path / "work")) as store:
        store.append(first)
        result = store.append(second)
        assert (result.added, result.present) == (2, 1)
        assert [e.kind for e in read_job(store, "o/r", 2)] == ["first_submission", "final_approval"]
        assert read_job(store, "o/r", 99) == ()
    files = branch_files(remote)
    assert files["ledger/2024-03.jsonl"].count(b"\n") == 4
    assert_derived_match_recompute(files)


def test_a_corrupt_line_on_the_branch_is_kept_reported_and_skipped(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    good = event("first_submission", 1, 0, "a")
    shard = (good.to_line() + "\n{oops\n").encode()
    commit_files(remote, {"ledger/2024-03.jsonl": shard}, tmp_path / "hand")
    with _store(remote) as store:
        result = store.append([event("abandoned", 1, 2, "b")])
        assert result.added == 1
        parsed = store.read()
    assert [str(p)[:24] for p in parsed.corrupt] == ["ledger/2024-03.jsonl:2: "]
    files = branch_files(remote)
    assert b"{oops" in files["ledger/2024-03.jsonl"]
    assert json.loads(files["reputation.json"])["ledger"]["corrupt_lines"] == 1
    report = verify_files(files)
    assert not report.clean
    assert report.problems[0].startswith("ledger/2024-03.jsonl:2: not JSON")
    assert not report.stale
    assert_derived_match_recompute(files)


def test_a_push_rejected_midway_is_retried_from_the_new_tip(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with _store(remote) as setup:
        setup.append(completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    rival = completed_job(2, [3, 3, 3, 3, 3], [3, 3, 3, 3, 3], author="bob")
    with _store(remote) as store:
        workspace = store.backend._ws()  # type: ignore[attr-defined]
        push = workspace.push
        raced: list[bool] = []

        def push_after_a_rival(commit: str, base: str | None) -> bool:
            if not raced:
                raced.append(True)
                with _store(remote) as other:
                    other.append(rival)
            return push(commit, base)

        workspace.push = push_after_a_rival  # type: ignore[method-assign]
        result = store.append([event("rated", 1, 20, "r", rating=5)])
    assert (result.added, result.attempts) == (1, 2)
    assert commit_count(remote) == 3
    files = branch_files(remote)
    assert files["ledger/2024-03.jsonl"].count(b"\n") == 5
    assert_derived_match_recompute(files)


def test_a_branch_that_keeps_moving_fails_loudly(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    sleeps: list[float] = []
    policy = RetryPolicy(attempts=3, base_delay=0.5, sleep=sleeps.append, jitter=lambda: 0.5)
    with DataBranchStore(str(remote), retry=policy) as store:
        workspace = store.backend._ws()  # type: ignore[attr-defined]
        push = workspace.push
        counter = iter(range(100))

        def always_beaten(commit: str, base: str | None) -> bool:
            with _store(remote) as other:
                other.append([event("first_submission", 100 + next(counter), 0, "x")])
            return push(commit, base)

        workspace.push = always_beaten  # type: ignore[method-assign]
        with pytest.raises(DataBranchError, match="gave up after 3 attempts") as caught:
            store.append([event("first_submission", 1, 0, "a")])
    assert caught.value.exit_code == 1
    assert sleeps == [0.5, 1.0]
    assert b'"pr":1,' not in branch_files(remote)["ledger/2024-03.jsonl"]


def test_the_default_retry_is_eight_jittered_exponential_attempts() -> None:
    policy = RetryPolicy(jitter=lambda: 1.0)
    assert policy.attempts == 8
    delays = [policy.delay(n) for n in range(1, 8)]
    assert delays == sorted(delays)
    assert delays[0] == pytest.approx(0.75)  # base 0.5 s, times 0.5 + jitter
    assert max(delays) <= policy.max_delay * 1.5
    low = RetryPolicy(jitter=lambda: 0.0).delay(3)
    assert low == pytest.approx(1.0)


def test_extra_files_share_the_commit_and_stay_out_of_the_derived_files(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with _store(remote) as store:
        store.append([event("first_submission", 1, 0, "a")])
        written = store.write_extra("views/1.json", b'{"sticky": 42}\n')
        same = store.write_extra("views/1.json", b'{"sticky": 42}\n')
        assert store.read_file("views/1.json") == b'{"sticky": 42}\n'
        with pytest.raises(LedgerError, match="derived"):
            store.write_extra("reputation.json", b"{}")
        with pytest.raises(LedgerError, match="safe relative path"):
            store.write_extra("../x", b"{}")
    assert written.commit is not None
    assert same.commit is None
    files = branch_files(remote)
    assert verify_files(files).clean
    with _store(remote) as store:
        store.append([event("abandoned", 1, 5, "b")])
    assert branch_files(remote)["views/1.json"] == b'{"sticky": 42}\n'


def test_a_tampered_derived_file_is_healed_by_the_next_append(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with _store(remote) as store:
        store.append(completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    commit_files(remote, {"jobs/1.json": b"{}\n", "badges/ghost.json": b"{}"}, tmp_path / "hand")
    assert verify_files(branch_files(remote)).stale
    with _store(remote) as store:
        store.append([event("rated", 1, 30, "r", rating=2)])
    files = branch_files(remote)
    assert "badges/ghost.json" not in files
    assert_derived_match_recompute(files)


def test_tokens_go_through_the_environment_only(tmp_path: Path) -> None:
    env = auth_env("https://github.com/o/r.git", "s3cret", {"GIT_CONFIG_COUNT": "2"})
    assert env["GIT_CONFIG_COUNT"] == "3"
    assert env["GIT_CONFIG_KEY_2"] == "http.https://github.com/.extraheader"
    header = base64.b64encode(b"x-access-token:s3cret").decode()
    assert env["GIT_CONFIG_VALUE_2"] == f"AUTHORIZATION: basic {header}"
    assert auth_env("/local/path", "s3cret", {}) == {}
    workspace = GitWorkspace(tmp_path / "ws", "https://github.com/o/r.git", BRANCH, "s3cret")
    config = (tmp_path / "ws" / "config").read_text()
    assert "s3cret" not in config
    assert header not in config
    assert workspace.env["GIT_CONFIG_VALUE_0"].endswith(header)


def test_credentials_are_redacted_from_errors(tmp_path: Path) -> None:
    url = "https://user:hunter2@example.invalid/o/r.git"
    assert "hunter2" not in redact(f"fatal: cannot reach {url}", url, "ghp_x1234567")
    assert redact("the token ghp_x1234567 leaked", url, "ghp_x1234567") == "the token *** leaked"
    missing = str(tmp_path / "missing.git")
    store = DataBranchStore(missing, token="ghp_x1234567", retry=NO_WAIT)
    with store, pytest.raises(DataBranchError, match="data branch") as caught:
        store.append([event("first_submission", 1, 0, "a")])
    assert "ghp_x1234567" not in str(caught.value)


def test_a_url_carrying_a_secret_is_never_written_to_the_repository(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    secret_url = f"file://ghp_secret@{remote}"
    workspace = GitWorkspace(tmp_path / "ws", secret_url, BRANCH, None)
    assert not workspace.partial
    plain = GitWorkspace(tmp_path / "ws2", str(remote), BRANCH, None)
    assert plain.partial
    with _store(remote, workdir=str(tmp_path / "ws2")) as store:
        store.append([event("first_submission", 1, 0, "a")])
    assert "ghp_secret" not in (tmp_path / "ws" / "config").read_text()


def test_an_extra_given_as_a_function_is_rebuilt_from_each_new_tip(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with _store(remote) as setup:
        setup.write_extra("views/1.json", b"rival-0\n")
    seen: list[bytes | None] = []

    def merged(current: bytes | None) -> bytes:
        seen.append(current)
        return (current or b"") + b"mine\n"

    with _store(remote) as store:
        workspace = store.backend._ws()  # type: ignore[attr-defined]
        push = workspace.push

        def push_after_a_rival(commit: str, base: str | None) -> bool:
            if len(seen) == 1:
                with _store(remote) as other:
                    other.write_extra("views/1.json", b"rival-0\nrival-1\n")
            return push(commit, base)

        workspace.push = push_after_a_rival  # type: ignore[method-assign]
        result = store.append([event("first_submission", 1, 0, "a")], {"views/1.json": merged})
    assert (result.added, result.attempts) == (1, 2)
    assert seen == [b"rival-0\n", b"rival-0\nrival-1\n"]
    assert branch_files(remote)["views/1.json"] == b"rival-0\nrival-1\nmine\n"
    with _store(remote) as store:
        unchanged = store.write_extra("views/1.json", lambda current: None)
        created = store.write_extra(
            "views/2.json", lambda current: b"new" if current is None else b""
        )
    assert unchanged.commit is None
    assert created.commit is not None
    assert branch_files(remote)["views/2.json"] == b"new"


def test_a_rebuild_commits_only_when_a_derived_file_is_stale(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with _store(remote) as store:
        store.append(completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
        assert store.rebuild().commit is None
    commit_files(remote, {"jobs/1.json": b"{}\n", "badges/ghost.json": b"{}"}, tmp_path / "hand")
    with _store(remote) as store:
        result = store.rebuild()
    assert (result.added, result.commit is not None) == (0, True)
    assert git("log", "-1", "--format=%s", BRANCH, cwd=remote) == "Rebuild the derived files"
    files = branch_files(remote)
    assert "badges/ghost.json" not in files
    assert verify_files(files).clean
    assert_derived_match_recompute(files)


def test_the_same_id_twice_in_a_batch_counts_once(tmp_path: Path) -> None:
    one = event("abandoned", 1, 0, "x")
    other_job = event("abandoned", 2, 0, "y").model_copy(update={"id": one.id})
    with _store(bare_remote(tmp_path)) as store:
        result = store.append([one, other_job, one])
    assert (result.added, result.present) == (1, 2)
