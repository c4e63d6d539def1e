"""The graders hand-off end to end: a `workflow_run` of the graders, its artifact, the ledger.

Real git repositories, the real PyGithub adapter and data-branch store; the artifact endpoints
and the signed download URL are served by `responses`. Every exchange with the REST API is
validated against GitHub's OpenAPI description (the signed download host is not the API).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
import responses

from tests.action.contract import validate_calls
from tests.action.fake_github import NOW, FakeGitHub, pull
from tests.action.payloads import REPO
from tests.action.scenario import AUTHOR, PR, Scenario, Step, git
from tests.action.workflow_files import ROOT, load
from tests.bot.handoff_files import (
    artifact_zip,
    grader_check,
    pull_json,
    report_json,
    workflow_run_payload,
)

RUN_ID = 30_433_642
BLOB = "https://productionresultssa3.blob.core.windows.net"
CONFIG = """\
rubric: agora-v3
graders:
  - id: tests
    run: pytest -q
    criterion: quality
  - id: lint
    run: ruff check .
    criterion: verif
"""
FINDING = {"path": "tests/test_report.py", "line": 2, "message": "slow test", "severity": "warning"}
CHECKS = [grader_check("tests", 0.9, findings=[FINDING]), grader_check("lint", 1.0)]


@dataclass
class Artifacts:
    """The artifact endpoints of one repository, and the signed URL the zip is served from."""

    rsps: responses.RequestsMock
    zips: dict[int, bytes] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)
    digests: dict[int, str] = field(default_factory=dict)
    downloads: int = 0

    def __post_init__(self) -> None:
        api = r"https://api\.github\.com(?::443)?/repos/octo/widgets/actions"
        self.rsps.add_callback(
            "GET", re.compile(rf"{api}/runs/(\d+)/artifacts(\?.*)?$"), callback=self._list
        )
        self.rsps.add_callback(
            "GET", re.compile(rf"{api}/artifacts/(\d+)/zip$"), callback=self._redirect
        )
        self.rsps.add_callback("GET", re.compile(rf"{BLOB}/.*"), callback=self._blob)

    def _list(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        run_id = int(re.findall(r"/runs/(\d+)/", str(request.url))[0])
        assert "name=rubricate-graders" in str(request.url)
        found = [self._artifact(run_id)] if run_id in self.zips else []
        body = {"total_count": len(found), "artifacts": found}
        return 200, {"Content-Type": "application/json"}, json.dumps(body)

    def _artifact(self, run_id: int) -> dict[str, Any]:
        url = f"https://api.github.com/repos/{REPO}/actions/artifacts/{run_id}"
        size = self.sizes.get(run_id, len(self.zips[run_id]))
        return {
            "id": run_id,
            "node_id": f"MDg6QXJ0aWZhY3Q{run_id}",
            "name": "rubricate-graders",
            "size_in_bytes": size,
            "url": url,
            "archive_download_url": f"{url}/zip",
            "expired": False,
            "created_at": NOW,
            "expires_at": "2026-03-07T10:00:00Z",
            "updated_at": NOW,
            "digest": self.digests.get(run_id, f"sha256:{sha256(self.zips[run_id]).hexdigest()}"),
            "workflow_run": {"id": run_id, "head_sha": "0" * 40},
        }

    def _redirect(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        artifact_id = re.findall(r"/artifacts/(\d+)/zip", str(request.url))[0]
        location = f"{BLOB}/actions-results/{artifact_id}.zip?sig=s3cret&se=2026-03-02"
        return 302, {"Location": location}, ""

    def _blob(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], bytes]:
        assert "Authorization" not in request.headers, "the token must not leave GitHub"
        self.downloads += 1
        artifact_id = int(re.findall(r"/(\d+)\.zip", str(request.url))[0])
        return 200, {"Content-Type": "application/zip"}, self.zips[artifact_id]


@pytest.fixture
def world(tmp_path: Path, openapi: Any) -> Iterator[tuple[Scenario, Artifacts]]:
    """An open PR whose base config names two graders, and the artifact endpoints."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        scenario = Scenario(tmp_path, FakeGitHub(rsps))
        artifacts = Artifacts(rsps)
        git(scenario.work, "checkout", "--quiet", "main")
        (scenario.work / ".github/rubricate.yml").write_text(CONFIG)
        git(scenario.work, "commit", "--quiet", "-am", "Configure graders")
        scenario.base_sha = git(scenario.work, "rev-parse", "HEAD")
        git(scenario.work, "push", "--quiet", str(scenario.remote), "main")
        git(scenario.work, "checkout", "--quiet", "-B", "feature")
        scenario.push({"tests/test_report.py": "def test_total():\n    assert 2 == 2\n"}, "Tests")
        assert scenario.pr_event("opened").code == 0
        head = scenario.heads[-1]
        scenario.fake.pulls[PR] = pull(
            REPO, PR, author=AUTHOR, head_sha=head, base_sha=scenario.base_sha
        )
        yield scenario, artifacts
        if openapi is not None:
            api_calls = [c for c in rsps.calls if urlsplit(c.request.url).hostname != BLOB[8:]]
            validate_calls(openapi, api_calls)


def graders_run(scenario: Scenario, run_id: int = RUN_ID, **extra: Any) -> Step:
    """Deliver the completed graders run of the PR's head."""
    payload = workflow_run_payload(
        head_sha=scenario.heads[-1], run_id=run_id, repo=REPO, at=_stamp(scenario), **extra
    )
    return scenario.deliver(f"graders run {run_id}", "workflow_run", payload)


def _stamp(scenario: Scenario) -> str:
    return scenario.tick().strftime("%Y-%m-%dT%H:%M:%SZ")


def handoff(scenario: Scenario, pr: int = PR, head: str | None = None) -> bytes:
    head = head or scenario.heads[-1]
    return artifact_zip(pull_json(pr, head, scenario.base_sha), report_json(CHECKS))


def graders_events(scenario: Scenario) -> list[dict[str, Any]]:
    return [e for e in scenario.ledger_events() if str(e.get("delivery")).startswith("graders:")]


def test_a_valid_artifact_records_one_event_and_updates_the_views(
    world: tuple[Scenario, Artifacts],
) -> None:
    scenario, artifacts = world
    artifacts.zips[RUN_ID] = handoff(scenario)
    statuses = len(scenario.fake.statuses)
    step = graders_run(scenario)
    assert step.code == 0, step.log
    [event] = graders_events(scenario)
    assert (event["kind"], event["source"], event["version"]) == ("review_scored", "auto", 1)
    assert event["delivery"] == f"graders:{RUN_ID}"
    assert event["scores"]["quality"] == 4
    assert all(e["untrusted"] for e in event["evidence"] if e.get("run_id") == RUN_ID)
    assert step.calls[:4] == [
        f"GET /repos/{REPO}/actions/runs/{RUN_ID}/artifacts",
        f"GET /repos/{REPO}/actions/artifacts/{RUN_ID}/zip",
        f"GET /actions-results/{RUN_ID}.zip",
        f"GET /repos/{REPO}/pulls/{PR}",
    ]
    assert not any("/statuses/" in line for line in step.calls), "the gate is never touched"
    assert len(scenario.fake.statuses) == statuses
    fake = scenario.fake
    sticky = next(c for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login)
    assert "unprivileged graders run" in sticky["body"]
    run = list(fake.check_runs.values())[-1]
    assert run["output"]["title"].startswith("v1 automatic score with untrusted graders")
    notes = fake.annotations[run["id"]]
    assert any(n["title"] == "grader:tests (untrusted graders run)" for n in notes)
    assert "s3cret" not in step.log


def test_a_replayed_run_writes_nothing_new(world: tuple[Scenario, Artifacts]) -> None:
    scenario, artifacts = world
    artifacts.zips[RUN_ID] = handoff(scenario)
    assert graders_run(scenario).code == 0
    ledger = scenario.ledger_events()
    again = graders_run(scenario)
    assert again.code == 0, again.log
    assert scenario.ledger_events() == ledger
    assert "already recorded" in again.log
    writes = [line for line in again.calls if line.split()[0] in ("POST", "PATCH")]
    assert writes == []


def test_a_forged_pull_json_naming_another_pr_is_ignored(
    world: tuple[Scenario, Artifacts],
) -> None:
    scenario, artifacts = world
    scenario.fake.pulls[9] = pull(REPO, 9, author="bob", head_sha="9" * 40, base_sha="8" * 40)
    artifacts.zips[RUN_ID] = handoff(scenario, pr=9)
    ledger = scenario.ledger_events()
    step = graders_run(scenario)
    assert step.code == 0
    assert "PR #9 is now at 999999999999" in step.log
    assert scenario.ledger_events() == ledger
    assert not any(line.split()[0] in ("POST", "PATCH") for line in step.calls)


def test_a_pull_json_naming_another_head_is_refused(world: tuple[Scenario, Artifacts]) -> None:
    scenario, artifacts = world
    artifacts.zips[RUN_ID] = handoff(scenario, head="f" * 40)
    step = graders_run(scenario)
    assert step.code == 0
    assert "::warning::rubricate: graders run" in step.log
    assert "not the run's head" in step.log
    assert not graders_events(scenario)
    assert f"GET /repos/{REPO}/pulls/{PR}" not in step.calls


def test_a_zip_over_the_cap_is_refused_with_a_clear_log(
    world: tuple[Scenario, Artifacts],
) -> None:
    scenario, artifacts = world
    big = handoff(scenario) + b"\0" * (5 * 2**20)
    artifacts.zips[RUN_ID] = big
    artifacts.sizes[RUN_ID] = 1024
    step = graders_run(scenario)
    assert step.code == 0
    assert f"artifact {RUN_ID} refused: the artifact is over the cap of 5242880 bytes" in step.log
    assert not graders_events(scenario)
    artifacts.sizes[RUN_ID] = len(big)
    step = graders_run(scenario, run_id=RUN_ID)
    assert f"the artifact is {len(big)} bytes, over 5242880" in step.log
    assert artifacts.downloads == 1, "a listed size over the cap is not downloaded"


def test_a_download_that_does_not_match_the_digest_is_refused(
    world: tuple[Scenario, Artifacts],
) -> None:
    scenario, artifacts = world
    artifacts.zips[RUN_ID] = handoff(scenario)
    artifacts.digests[RUN_ID] = "sha256:" + "0" * 64
    step = graders_run(scenario)
    assert step.code == 0
    assert "does not match its digest" in step.log
    assert not graders_events(scenario)


def test_a_zip_bomb_is_refused(world: tuple[Scenario, Artifacts]) -> None:
    scenario, artifacts = world
    bomb = artifact_zip(
        pull_json(PR, scenario.heads[-1]), report_json(CHECKS), extra={"x": b"\0" * (8 * 2**20)}
    )
    artifacts.zips[RUN_ID] = bomb
    step = graders_run(scenario)
    assert step.code == 0
    assert "unpacks to 8" in step.log
    assert not graders_events(scenario)


def test_a_run_without_the_artifact_is_ignored(world: tuple[Scenario, Artifacts]) -> None:
    scenario, _ = world
    step = graders_run(scenario, conclusion="cancelled")
    assert step.code == 0
    assert "(cancelled): the rubricate-graders artifact is missing" in step.log
    assert not graders_events(scenario)


def test_the_template_hands_graders_results_to_a_job_of_their_own() -> None:
    data = load(ROOT / "examples" / "workflows" / "rubricate.yml")
    assert data["on"]["workflow_run"] == {
        "workflows": ["rubricate graders"],
        "types": ["completed"],
    }
    job = data["jobs"]["graders"]
    assert "github.event.workflow_run.event == 'pull_request'" in job["if"]
    assert job["permissions"] == {
        "actions": "read",
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
        "checks": "write",
    }
    assert "actions" not in data["jobs"]["rubricate"]["permissions"]
    assert "workflow_run" not in data["jobs"]["rubricate"]["if"]
    uses = [step.get("uses", "") for step in job["steps"]]
    assert not any(u.startswith(("actions/checkout", "actions/download-artifact")) for u in uses)
