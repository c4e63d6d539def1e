"""A whole PR life on real git repositories and the fake GitHub, driven through `run_action`.

One bare repository stands in for both the repository remote and the data-branch remote. Each
step writes its webhook payload, runs the action in process, and records the REST calls it made.
"""

from __future__ import annotations

import io
import json
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from rubricate.action.main import run_action
from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import settings_from_env
from rubricate.github.adapter import connect
from tests.action.fake_github import FakeGitHub, issue
from tests.action.payloads import REPO, issue_comment_event, pull_request_event, review_event

TOKEN = "ghs_scenarioToken0123456789"
AUTHOR, WRITER, MAINTAINER = "alice", "bob", "mia"
PR = 7
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
CEILINGS = {"pr": 4, "comment": 4, "merge": 2}
REPORT_V1 = '{"widgets": ["a", "b"], "total": "two"}\n'
REPORT_V2 = '{"widgets": ["a", "b"], "total": 2}\n'
TEST_FILE = "def test_total():\n    assert 2 == 2\n"
OVERRIDE = "/override the schema gap is tracked in #13 and ships next sprint"
CONFIG = """\
rubric: agora-v3
deliverables:
  - glob: "out/*.json"
    schema: schemas/report.schema.json
    required: true
"""
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["widgets", "total"],
    "properties": {
        "widgets": {"type": "array", "items": {"type": "string"}},
        "total": {"type": "integer"},
    },
}
SPEC = (
    "Count the widgets.\n\n- [ ] Write `out/report.json` valid against the schema\n- [ ] Add tests"
)


def fast_client(token: str | None, api_url: str) -> Any:
    """The real PyGithub client without retries or request pacing (the server is a fake)."""
    return connect(token, api_url, retries=0, pace=False)


def git(cwd: Path, *args: str, committer: tuple[str, str] = ("Alice", "alice@example.com")) -> str:
    """Run git with a fixed identity (Alice, unless another committer is given); return stdout."""
    env = {
        "GIT_AUTHOR_NAME": "Alice",
        "GIT_AUTHOR_EMAIL": "alice@example.com",
        "GIT_COMMITTER_NAME": committer[0],
        "GIT_COMMITTER_EMAIL": committer[1],
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@dataclass
class Step:
    """What one event did: exit code, REST calls, dry-run output and log."""

    name: str
    code: int
    calls: list[str]
    stdout: str
    log: str


@dataclass
class Scenario:
    """The repositories, the fake GitHub, and the clock of one PR's life."""

    root: Path
    fake: FakeGitHub
    steps: list[Step] = field(default_factory=list)
    clock: datetime = START
    heads: list[str] = field(default_factory=list)
    base_sha: str = ""

    def __post_init__(self) -> None:
        self.remote = self.root / "remote.git"
        self.work = self.root / "work"
        git(self.root, "init", "--quiet", "--bare", "-b", "main", str(self.remote))
        git(self.root, "init", "--quiet", "-b", "main", str(self.work))
        self._write(".github/rubricate.yml", CONFIG)
        self._write("schemas/report.schema.json", json.dumps(SCHEMA, indent=2))
        self._write("README.md", "# widgets\n")
        self.base_sha = self._commit("Add the config and the schema")
        git(self.work, "push", "--quiet", str(self.remote), "main")
        git(self.work, "checkout", "--quiet", "-b", "feature")
        self.fake.roles.update({WRITER: "write", MAINTAINER: "maintain", AUTHOR: "read"})
        self.fake.issues[(REPO, 12)] = issue(
            REPO, 12, "Count the widgets", SPEC, "2026-03-20T00:00:00Z"
        )

    def _write(self, path: str, text: str) -> None:
        target = self.work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def _commit(self, message: str) -> str:
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", message)
        return git(self.work, "rev-parse", "HEAD")

    def push(self, files: dict[str, str], message: str) -> str:
        """Commit files on the PR branch and push it (and `refs/pull/N/head`, like GitHub)."""
        for path, text in files.items():
            self._write(path, text)
        self._commit(message)
        return self.push_head()

    def break_config(self, *, push: bool) -> str:
        """Commit a config with a typo (`judge.modle`) on main, pushed or not; the PR branch
        starts again from it. Returns the new base commit."""
        git(self.work, "checkout", "--quiet", "main")
        (self.work / ".github/rubricate.yml").write_text("rubric: agora-v3\njudge:\n  modle: x\n")
        git(self.work, "commit", "--quiet", "-am", "Break the config")
        if push:
            git(self.work, "push", "--quiet", str(self.remote), "main")
        base = git(self.work, "rev-parse", "HEAD")
        git(self.work, "checkout", "--quiet", "-B", "feature")
        return base

    def push_head(self) -> str:
        """Push the PR branch as it is to `refs/pull/N/head`; it is the PR's new head."""
        sha = git(self.work, "rev-parse", "HEAD")
        git(
            self.work,
            "push",
            "--quiet",
            "--force",
            str(self.remote),
            f"feature:refs/pull/{PR}/head",
        )
        self.heads.append(sha)
        return sha

    def tick(self) -> datetime:
        """The next event time (GitHub's own clock, never the wall clock)."""
        self.clock += timedelta(minutes=10)
        return self.clock

    def pr_event(self, action: str, **extra: Any) -> Step:
        """Deliver a pull_request(_target) event for the current head."""
        payload = self.pr_payload(action, **extra)
        return self.deliver(f"pull_request {action}", "pull_request_target", payload)

    def pr_payload(self, action: str, **extra: Any) -> dict[str, Any]:
        """A pull_request payload for the current head, at the next tick."""
        return pull_request_event(
            action,
            number=PR,
            author=AUTHOR,
            head_sha=self.heads[-1],
            base_sha=self.base_sha,
            created=START,
            at=self.tick(),
            body="Closes #12",
            **extra,
        )

    def comment(
        self, actor: str, body: str, *, comment_id: int | None = None, number: int = PR
    ) -> Step:
        """A new comment on the PR (a replay when `comment_id` names an earlier one)."""
        payload = self.comment_payload(actor, body, comment_id=comment_id, number=number)
        return self.deliver(f"comment {body.splitlines()[0]}", "issue_comment", payload)

    def comment_payload(
        self, actor: str, body: str, *, comment_id: int | None = None, number: int = PR
    ) -> dict[str, Any]:
        """An issue_comment payload for a new comment (or the one `comment_id` names)."""
        if comment_id is None:
            comment_id = self.fake.add_comment(number, body, actor)["id"]
        return issue_comment_event(
            comment_id=comment_id,
            body=body,
            actor=actor,
            number=number,
            pr_author=AUTHOR,
            at=self.tick(),
        )

    def review_payload(self, actor: str, body: str, review_id: int = 77) -> dict[str, Any]:
        """A `pull_request_review` payload of a review submitted on the current head, now."""
        return review_event(
            review_id=review_id,
            body=body,
            actor=actor,
            number=PR,
            pr_author=AUTHOR,
            head_sha=self.heads[-1],
            base_sha=self.base_sha,
            at=self.tick(),
        )

    def deliver(
        self, name: str, event_name: str, payload: dict[str, Any], *, dry_run: bool = False
    ) -> Step:
        """Run `rubricate action` in process for one payload."""
        path = self.root / f"event-{len(self.steps)}.json"
        path.write_text(json.dumps(payload))
        env = self.env(event_name, path)
        settings = settings_from_env(env, dry_run=dry_run)
        log, out = io.StringIO(), io.StringIO()
        runtime = ActionsRuntime(
            stream=log, output_path=env["GITHUB_OUTPUT"], summary_path=env["GITHUB_STEP_SUMMARY"]
        )
        before = len(self.fake.calls)
        code = run_action(
            settings, runtime=runtime, stdout=out, now=self.clock, connect=fast_client
        )
        step = Step(name, code, self.fake.call_lines(before), out.getvalue(), log.getvalue())
        self.steps.append(step)
        return step

    def env(self, event_name: str, path: Path) -> dict[str, str]:
        """The environment a workflow run would give the action."""
        return {
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": "https://api.github.com",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_OUTPUT": str(self.root / "github_output"),
            "GITHUB_STEP_SUMMARY": str(self.root / "step_summary.md"),
            "INPUT_GITHUB-TOKEN": TOKEN,
            "RUBRICATE_REPO_REMOTE": str(self.remote),
            "RUBRICATE_DATA_REMOTE": str(self.remote),
        }

    def data_file(self, path: str) -> bytes | None:
        """One file of the data branch as the remote holds it."""
        shown = subprocess.run(
            ["git", "--git-dir", str(self.remote), "show", f"rubricate-data:{path}"],
            capture_output=True,
        )
        return shown.stdout if shown.returncode == 0 else None

    def ledger_events(self) -> list[dict[str, Any]]:
        """Every event line on the data branch."""
        names = git(
            self.root,
            "--git-dir",
            str(self.remote),
            "ls-tree",
            "-r",
            "--name-only",
            "rubricate-data",
        )
        lines: list[dict[str, Any]] = []
        for name in sorted(names.splitlines()):
            if name.startswith("ledger/") and name.endswith(".jsonl"):
                data = self.data_file(name) or b""
                lines += [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        return lines


def pr_life(scenario: Scenario) -> dict[str, Step]:
    """open, /score, push, /revise, push, failing /approve, /override (short, then valid), merge."""
    scenario.push(
        {"out/report.json": REPORT_V1, "tests/test_report.py": TEST_FILE}, "Add the report"
    )
    steps = {"opened": scenario.pr_event("opened")}
    steps["score"] = scenario.comment(
        WRITER, "/score spec=4 comp=4 qual=3 ver=3 format=2 -- first look"
    )
    scenario.push({"out/report.json": REPORT_V2}, "Fix the total")
    steps["push v2"] = scenario.pr_event("synchronize")
    steps["revise"] = scenario.comment(
        WRITER, "/revise please document the report format in the README"
    )
    scenario.push({"README.md": "# widgets\n\nout/report.json lists the widgets.\n"}, "Document")
    steps["push v3"] = scenario.pr_event("synchronize")
    steps["approve"] = scenario.comment(WRITER, "/approve spec=3 comp=2 qual=2 ver=2 format=2")
    steps["short override"] = scenario.comment(MAINTAINER, "/override too short")
    steps["override"] = scenario.comment(MAINTAINER, OVERRIDE)
    steps["merge"] = scenario.pr_event("closed", merged=True, merged_by=MAINTAINER)
    return steps


def ceiling(step: Step) -> int:
    """The REST-call ceiling of a step's event kind."""
    if "closed" in step.name:
        return CEILINGS["merge"]
    return CEILINGS["pr" if step.name.startswith("pull_request") else "comment"]
