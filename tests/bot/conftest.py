"""Fixtures for the bot core: rubrics, payloads, reports, and a small in-memory bot harness."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from rubricate.bot.effects import AppendEvents, Effect
from rubricate.bot.events import BotEvent, HandlerContext
from rubricate.bot.handlers import handle
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.payload import parse_event
from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import Config
from rubricate.evidence.results import CheckResult, CriterionScore, Finding, ScoreReport
from rubricate.evidence.snapshot import Snapshot
from rubricate.ledger.event import Event
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import score

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED_WEBHOOKS = Path(__file__).resolve().parents[2] / ".." / "shared" / "github" / "webhooks"
REPO = "acme/widgets"
NOW = datetime(2024, 3, 9, tzinfo=timezone.utc)
AUTHOR = "agent-smith"
WRITER = "reviewer-rae"
MAINTAINER = "maintainer-mia"


def load_fixture(name: str) -> dict[str, Any]:
    """One of the project's own minimal webhook payloads."""
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


@pytest.fixture(scope="session")
def agora() -> Rubric:
    """The default Agora v3 rubric (1-5, pass at 3.5 with no score below 2)."""
    return resolve_rubric("agora-v3")


def make_report(
    rubric: Rubric,
    scores: Mapping[str, ScoreValue],
    *,
    judge: Sequence[str] = (),
    findings: Sequence[Finding] = (),
) -> ScoreReport:
    """An automatic report with these scores (ids in `judge` come from the judge)."""
    criteria = tuple(
        CriterionScore(cid, value, "judge" if cid in judge else "auto", (f"evidence for {cid}",))
        for cid, value in scores.items()
    )
    checks = (
        CheckResult(
            "format", "fail" if findings else "pass", tuple(findings), "format_correctness"
        ),
    )
    return ScoreReport(rubric, "b" * 40, "a" * 40, criteria, checks, score(rubric, dict(scores)))


def snapshot(head: str, tree: str) -> Snapshot:
    """A snapshot of a head commit with its tree."""
    return Snapshot(base_sha="b" * 40, head_sha=head, base_tree="e" * 40, head_tree=tree, repo=REPO)


def pr_payload(
    action: str,
    head: str,
    *,
    at: str = "2024-03-01T10:00:00Z",
    merged: bool = False,
    draft: bool = False,
    body: str = "",
    number: int = 7,
    title: str = "Add widget report",
) -> dict[str, Any]:
    """A pull_request payload with this action, head and time."""
    payload = copy.deepcopy(load_fixture("pull_request.opened.json"))
    payload["action"] = action
    pr = payload["pull_request"]
    pr.update(number=number, draft=draft, updated_at=at, body=body, title=title)
    pr["head"]["sha"] = head
    if action == "opened":
        pr["created_at"] = at
    if action == "closed":
        pr.update(state="closed", closed_at=at, merged=merged, merged_at=at if merged else None)
        pr["merged_by"] = {"login": MAINTAINER, "type": "User"} if merged else None
    return payload


def comment_payload(
    body: str,
    *,
    actor: str = WRITER,
    comment_id: int = 1001,
    at: str = "2024-03-01T12:00:00Z",
    merged: bool = False,
    state: str = "open",
) -> dict[str, Any]:
    """An issue_comment.created payload on PR #7."""
    payload = copy.deepcopy(load_fixture("issue_comment.created.json"))
    payload["comment"].update(id=comment_id, body=body, created_at=at)
    payload["comment"]["user"] = {
        "login": actor,
        "type": "Bot" if actor.endswith("[bot]") else "User",
    }
    payload["issue"]["state"] = state
    payload["issue"]["pull_request"]["merged_at"] = at if merged else None
    return payload


@dataclass
class Harness:
    """The pure core driven like the shell drives it, with a list as the ledger."""

    rubric: Rubric
    config: Config = field(default_factory=Config)
    ledger: list[Event] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    pr: int = 7

    @property
    def job(self) -> JobState:
        return job_state(self.ledger, REPO, self.pr)

    def run(
        self,
        event: BotEvent,
        *,
        snap: Snapshot | None = None,
        role: str = "none",
        report: ScoreReport | None = None,
        **extra: Any,
    ) -> list[Effect]:
        ctx = HandlerContext(
            repo=REPO,
            config=self.config,
            rubric=self.rubric,
            now=NOW,
            actor_role=role,
            report=report,
            **extra,
        )
        self.effects = handle(event, snap, self.job, ctx)
        known = {e.id for e in self.ledger}
        for effect in self.effects:
            if isinstance(effect, AppendEvents):
                self.ledger += [e for e in effect.events if e.id not in known]
        return self.effects

    def open(
        self,
        head: str = "a" * 40,
        tree: str = "1" * 40,
        scores: Mapping[str, ScoreValue] | None = None,
        action: str = "opened",
        at: str = "2024-03-01T10:00:00Z",
    ) -> list[Effect]:
        report = make_report(self.rubric, scores or {})
        event = parse_event("pull_request", pr_payload(action, head, at=at, number=self.pr))
        assert not hasattr(event, "reason")
        return self.run(event, snap=snapshot(head, tree), report=report)  # type: ignore[arg-type]

    def push(
        self,
        head: str,
        tree: str,
        at: str = "2024-03-02T10:00:00Z",
        scores: Mapping[str, ScoreValue] | None = None,
    ) -> list[Effect]:
        return self.open(head, tree, scores, action="synchronize", at=at)

    def say(
        self,
        body: str,
        *,
        actor: str = WRITER,
        role: str = "write",
        comment_id: int = 1001,
        at: str = "2024-03-01T12:00:00Z",
        merged: bool = False,
        state: str = "open",
    ) -> list[Effect]:
        payload = comment_payload(
            body, actor=actor, comment_id=comment_id, at=at, merged=merged, state=state
        )
        event = parse_event("issue_comment", payload)
        return self.run(event, role=role)  # type: ignore[arg-type]

    def close(
        self,
        *,
        merged: bool,
        head: str = "a" * 40,
        at: str = "2024-03-05T12:00:00Z",
        body: str = "",
        title: str = "Add widget report",
        **extra: Any,
    ) -> list[Effect]:
        payload = pr_payload(
            "closed", head, at=at, merged=merged, body=body, number=self.pr, title=title
        )
        event = parse_event("pull_request", payload)
        return self.run(event, **extra)  # type: ignore[arg-type]


def of_type(effects: Sequence[Effect], kind: type) -> list[Any]:
    """The effects of one type, in order."""
    return [e for e in effects if isinstance(e, kind)]


def kinds(effects: Sequence[Effect]) -> list[str]:
    """The kinds of the events appended by these effects."""
    return [e.kind for a in of_type(effects, AppendEvents) for e in a.events]


AGORA_PASS = {
    "spec_adherence": 4,
    "completeness": 4,
    "quality": 4,
    "verifiability": 4,
    "format_correctness": 5,
}
AGORA_AUTO = {"spec_adherence": 3, "completeness": 4, "verifiability": 3, "format_correctness": 5}


@pytest.fixture
def bot(agora: Rubric) -> Harness:
    """A harness on the Agora rubric with the default config."""
    return Harness(agora)
