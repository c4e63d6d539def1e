"""`rubricate catch-up` end to end: real git remotes, a mocked REST API checked against OpenAPI."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import responses

from rubricate.bot.record import Stamp, new_event
from rubricate.cli.main import main
from rubricate.gitio.run import run_git
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.event import Event
from tests.action.contract import load_openapi, validate_calls
from tests.action.fake_github import API, issue, pull

REPO = "example-org/widgets"
NOW = datetime.now(timezone.utc).replace(microsecond=0)
CONFIG = "data_branch: scores\nreputation:\n  sla_hours: 48\n"


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def make_repo(tmp: Path, config: str | None) -> Path:
    """A bare repository whose default branch holds the config file."""
    work = tmp / "work"
    run_git(["init", "--quiet", "--initial-branch", "main", str(work)])
    (work / "README.md").write_text("widgets\n", encoding="utf-8")
    if config is not None:
        (work / ".github").mkdir()
        (work / ".github" / "rubricate.yml").write_text(config, encoding="utf-8")
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    run_git(["add", "-A"], work)
    run_git([*identity, "commit", "--quiet", "-m", "base"], work)
    bare = tmp / "repo.git"
    run_git(["clone", "--quiet", "--bare", str(work), str(bare)])
    return bare


def seed_event(kind: Any, pr: int, at: datetime, **fields: Any) -> Event:
    stamp = Stamp(REPO, pr, "agent", 1, "a" * 40, "t" * 40, at, "bot", "bot", f"seed:{kind}:{pr}")
    return new_event(kind, stamp, **fields)


def closed_pull(
    number: int, *, closed: datetime, merged: bool, body: str = "", updated: datetime | None = None
) -> dict[str, Any]:
    data = pull(REPO, number, author="agent", head_sha="a" * 40, base_sha="b" * 40)
    data.update(
        state="closed",
        body=body,
        created_at=iso(closed - timedelta(days=1)),
        updated_at=iso(updated or closed),
        closed_at=iso(closed),
        merged_at=iso(closed) if merged else None,
        merged=merged,
    )
    return data


@pytest.fixture(scope="module")
def openapi() -> Any:
    return load_openapi()


@pytest.fixture
def github(openapi: Any) -> Iterator[responses.RequestsMock]:
    pulls = [
        closed_pull(2, closed=days_ago(1), merged=False),
        closed_pull(1, closed=days_ago(2), merged=True),
        closed_pull(3, closed=days_ago(3), merged=True, body="Closes #9"),
        closed_pull(4, closed=days_ago(4), merged=False),
        closed_pull(5, closed=days_ago(45), merged=True, updated=days_ago(40)),
    ]
    due = iso(days_ago(5))
    api, repo = re.escape(API) + "(?::443)?", re.escape(REPO)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.get(re.compile(rf"{api}/repos/{repo}/pulls\?.*state=closed.*"), json=pulls)
        spec = issue(REPO, 9, "Spec", "Do it", due_on=due)
        rsps.get(re.compile(rf"{api}/repos/{repo}/issues/9$"), json=spec)
        yield rsps
        if openapi is not None:
            assert validate_calls(openapi, list(rsps.calls)) == len(rsps.calls)


@pytest.fixture
def remotes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    repo = make_repo(tmp_path, CONFIG)
    data = tmp_path / "data.git"
    run_git(["init", "--quiet", "--bare", str(data)])
    seeded = [
        seed_event("first_submission", 1, days_ago(10), scores={"quality": 3.0}, source="auto"),
        seed_event("first_submission", 2, days_ago(9), scores={"quality": 2.0}, source="auto"),
    ]
    DataBranchStore(str(data), "scores").append(seeded)
    for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "INPUT_DATA-BRANCH", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_catch_up_test_token")
    monkeypatch.setenv("RUBRICATE_REPO_REMOTE", str(repo))
    monkeypatch.setenv("RUBRICATE_DATA_REMOTE", str(data))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return repo, data


def ledger(data: Path) -> list[Event]:
    return list(DataBranchStore(str(data), "scores").read().events)


def test_catch_up_records_what_the_ledger_misses_once(
    github: responses.RequestsMock, remotes: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, data = remotes
    assert main(["catch-up", "--since", "30"]) == 0
    added = {(e.pr, e.kind): e for e in ledger(data) if e.delivery == "catch-up"}
    assert set(added) == {(1, "final_approval"), (2, "abandoned"), (3, "final_approval")}
    assert added[(1, "final_approval")].gate == "bypassed"
    assert added[(1, "final_approval")].scores == {"quality": 3.0}
    assert added[(1, "final_approval")].at == days_ago(2)
    assert added[(2, "abandoned")].at == days_ago(1)
    assert added[(3, "final_approval")].deadline == days_ago(5), "the linked issue's milestone"
    assert added[(1, "final_approval")].deadline == days_ago(3) + timedelta(hours=48), "the SLA"
    log = capsys.readouterr().err
    assert "3 missing from the ledger" in log
    assert "ghs_catch_up" not in log  # outside Actions: redacted, and no `::add-mask::`

    assert main(["catch-up", "--since", "30"]) == 0
    assert len(ledger(data)) == 5
    assert "0 missing from the ledger" in capsys.readouterr().err


def test_a_dry_run_prints_the_plan_and_writes_nothing(
    github: responses.RequestsMock, remotes: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, data = remotes
    assert main(["catch-up", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(json.loads(line)["pr"] for line in lines) == [1, 2, 3]
    assert len(ledger(data)) == 2


def test_a_bad_config_on_the_default_branch_is_reported_with_its_location(
    tmp_path: Path,
    remotes: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    broken = make_repo(tmp_path / "broken", "data_brnch: x\n")
    monkeypatch.setenv("RUBRICATE_REPO_REMOTE", str(broken))
    assert main(["catch-up"]) == 2
    assert ".github/rubricate.yml:1:1: unknown key 'data_brnch'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["catch-up", "--since", "0"], "DAYS must be in"),
        (["catch-up", "--since", "soon"], "not a number of days"),
    ],
)
def test_bad_arguments_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_repository_is_required(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    assert main(["catch-up"]) == 2
    assert "set GITHUB_REPOSITORY or pass --repo" in capsys.readouterr().err


def test_with_a_ledger_key_catch_up_signs_its_events_and_trusts_only_signed_ones(
    github: responses.RequestsMock,
    remotes: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = b"k" * 32
    data = tmp_path / "signed.git"
    run_git(["init", "--quiet", "--bare", str(data)])
    seeded = [
        seed_event("first_submission", 1, days_ago(10), scores={"quality": 3.0}, source="auto"),
        seed_event("first_submission", 2, days_ago(9), scores={"quality": 2.0}, source="auto"),
    ]
    DataBranchStore(str(data), "scores", key=key).append(seeded)
    # written without the key (by hand, or a run without it): says PR 2 was recorded already
    DataBranchStore(str(data), "scores").append([seed_event("abandoned", 2, days_ago(1))])
    monkeypatch.setenv("RUBRICATE_DATA_REMOTE", str(data))
    monkeypatch.setenv("RUBRICATE_LEDGER_KEY", key.decode())
    assert main(["catch-up", "--since", "30"]) == 0
    signed = DataBranchStore(str(data), "scores", key=key).read().events
    added = {(e.pr, e.kind) for e in signed if e.delivery == "catch-up"}
    assert added == {(1, "final_approval"), (2, "abandoned"), (3, "final_approval")}
