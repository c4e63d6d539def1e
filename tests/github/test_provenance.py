"""`ledger verify --provenance` with GitHub's word on each hand-made commit (the fake GitHub,
checked against the OpenAPI description, and a real bare repository)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import requests
import responses

from github import GithubException
from rubricate.cli.main import main
from rubricate.errors import GitHubError
from rubricate.github.client import api_call
from rubricate.ledger.backends import DataBranchStore
from tests.action.fake_github import FakeGitHub
from tests.ledger.factory import completed_job, scored
from tests.ledger.gitutil import bare_remote, branch_files, commit_files, git


def _hand_commit(tmp_path: Path, added: bytes) -> tuple[Path, str]:
    """A data branch whose last commit, by hand, adds a line to a shard: the remote, and the
    hand commit's sha."""
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
    [shard] = [p for p in branch_files(remote) if p.startswith("ledger/")]
    text = branch_files(remote)[shard] + added + b"\n"
    commit_files(remote, {shard: text}, tmp_path / "work", "add an approval")
    return remote, git("rev-parse", "HEAD", cwd=tmp_path / "work")


def _provenance_env(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    """A token, and the repository GitHub is asked about."""
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/widgets")
    monkeypatch.delenv("RUBRICATE_DATA_TOKEN", raising=False)


def test_provenance_asks_github_whether_a_hand_commit_is_verified(
    tmp_path: Path,
    fake_github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    forged = scored("approved", 1, 5, "comment:99#0", [5] * 5, actor="mallory")
    remote, hand = _hand_commit(tmp_path, forged.to_line().encode())
    _provenance_env(monkeypatch, "ghs_provenanceToken0123456789")
    assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 1
    out = capsys.readouterr().out
    assert f"{hand[:12]} by " in out
    assert "(GitHub: not verified, unsigned)" in out
    assert "  + approved o/r#1 v1 by mallory" in out
    assert fake_github.call_lines() == [f"GET /repos/octo/widgets/commits/{hand}"]
    fake_github.signed_commits[hand] = "valid"
    assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 1
    assert "(GitHub: verified, valid)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "token", ["ghs_provenanceToken0123456789", "a-token-of-no-known-shape-42"], ids=["ghs", "any"]
)
def test_a_token_the_api_echoes_in_an_error_body_is_never_printed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str,
) -> None:
    remote, _ = _hand_commit(tmp_path, b"")

    def echo(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        said = request.headers.get("Authorization", "")
        return 401, {}, json.dumps({"message": f"Bad credentials: {said}", "status": "401"})

    _provenance_env(monkeypatch, token)
    with responses.RequestsMock() as rsps:
        rsps.add_callback("GET", re.compile(r"https://api\.github\.com(?::443)?/.*"), callback=echo)
        assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 1
    captured = capsys.readouterr()
    assert "failed (401): Bad credentials: " in captured.err
    assert token not in captured.out + captured.err
    assert token[:12] not in captured.out + captured.err


def test_an_api_error_never_quotes_a_github_token() -> None:
    echoed = {"message": "Bad credentials: token ghs_16C7e42F292c6912E7710c838347Ae178B4a"}

    def call() -> None:
        raise GithubException(401, echoed, None)

    with pytest.raises(GitHubError) as caught:
        api_call("GET /repos/octo/widgets/commits/abc", call)
    assert str(caught.value).endswith("failed (401): Bad credentials: token ***")


def test_a_token_in_the_signature_reason_github_gives_is_masked(
    tmp_path: Path,
    fake_github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    token = "a-token-of-no-known-shape-42"
    remote, hand = _hand_commit(tmp_path, b"")
    fake_github.signed_commits[hand] = f"unknown_key for {token} and ghs_{'x1' * 15}"
    _provenance_env(monkeypatch, token)
    assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 1
    out = capsys.readouterr().out
    assert "(GitHub: not verified, unknown_key for *** and ***)" in out
