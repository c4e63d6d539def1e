"""Shared builders for the judge tests: rubrics, snapshots, reports, replies and mock servers."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.evidence.results import CheckResult, CriterionScore, ScoreReport
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.judge.calls import RawReply
from rubricate.judge.known_answer import SYSTEM as KNOWN_ANSWER_SYSTEM
from rubricate.judge.reply_schema import REPORT_KEY
from rubricate.rubric.model import Criterion, PassRule, Rubric, Scale, ScoreValue
from rubricate.rubric.scoring import check, score

BASE = "https://judge.test/v1"
KEY = "sk-test-secret-key-123"
ENV = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": BASE}
PARSER_LINE = "def parse_csv(text: str) -> list[list[str]]:"
TEST_LINE = "assert parse_csv('a,b') == [['a', 'b']]"


def criteria_of(schema: Mapping[str, Any]) -> list[str]:
    """The criterion ids a response schema asks for (its required keys but the report key)."""
    return [key for key in schema["required"] if key != REPORT_KEY]


def agora() -> Rubric:
    """The default 1-5 rubric."""
    return resolve_rubric("agora-v3")


def axes() -> Rubric:
    """The open-scale axes rubric, with a `judged_from: request` criterion."""
    return resolve_rubric("agent-run-quality")


def analytic() -> Rubric:
    """The 0-10 analytic rubric with required criteria and score ranges."""
    return resolve_rubric("code-review")


def checklist() -> Rubric:
    """A 0/1 checklist rubric built directly."""
    return Rubric(
        id="check",
        version="1",
        dialect="agentv-assertions",
        scale=Scale(min=0, max=1, kind="checklist"),
        pass_rule=PassRule(min_total=0.8),
        criteria=(
            Criterion(id="mentions-csv", outcome="Mentions CSV parsing", required=True),
            Criterion(id="has-tests", outcome="Adds tests"),
        ),
    )


def patch(*lines: str) -> str:
    """A one-hunk patch adding `lines`."""
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


def snapshot(
    *,
    body: str = "Adds a CSV parser with tests.",
    spec: str = "Write a CSV parser in src/parser.py with tests.",
    changes: Sequence[FileChange] | None = None,
    head_tree: str = "t" * 40,
) -> Snapshot:
    """A small change: a parser, its test, and a lockfile."""
    default = (
        FileChange("src/parser.py", "added", patch(PARSER_LINE, "    return []"), additions=2),
        FileChange("tests/test_parser.py", "added", patch(TEST_LINE), additions=1),
        FileChange("package-lock.json", "modified", "@@ -1 +1 @@\n-{}\n+{ }\n"),
    )
    return Snapshot(
        base_sha="a" * 40,
        head_sha="b" * 40,
        base_tree="s" * 40,
        head_tree=head_tree,
        title="Add a CSV parser",
        body=body,
        spec=spec,
        changes=tuple(default if changes is None else changes),
    )


def report(rubric: Rubric, heuristics: Mapping[str, ScoreValue]) -> ScoreReport:
    """A report with automatic scores for some criteria."""
    checked = {cid: check(rubric, cid, value) for cid, value in heuristics.items()}
    criteria = tuple(
        CriterionScore(cid, value, "auto", (f"check {cid}",)) for cid, value in checked.items()
    )
    checks = (CheckResult("inputs", "pass"),)
    return ScoreReport(rubric, "a" * 40, "b" * 40, criteria, checks, score(rubric, checked))


def entry(value: Any, quotes: Sequence[str] = (), rationale: str = "ok") -> dict[str, Any]:
    """One criterion of a reply."""
    return {"score": value, "rationale": rationale, "evidence": list(quotes)}


def reply_text(scores: Mapping[str, Any], quotes: Sequence[str] = ()) -> str:
    """A reply giving each criterion a score with the same quotes."""
    return json.dumps({cid: entry(value, quotes) for cid, value in scores.items()})


def completion(
    content: str | None, *, finish: str = "stop", refusal: str | None = None
) -> dict[str, Any]:
    """An OpenAI chat-completion body."""
    message = {"role": "assistant", "content": content, "refusal": refusal}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


Responder = Callable[[httpx2.Request, dict[str, Any]], httpx2.Response]


def known_answer_of(body: dict[str, Any]) -> str | None:
    """The answer a known-answer check asks for, or None when `body` is another call."""
    system = next((m["content"] for m in body.get("messages", []) if m["role"] == "system"), "")
    if not system.startswith(KNOWN_ANSWER_SYSTEM.split("{", 1)[0][:40]):
        return None
    return str(json.loads(system.rsplit("\n", 1)[1])["answer"])


@dataclass
class MockServer:
    """A loopback-free OpenAI-compatible server: records requests, answers with `respond`.

    It passes the known-answer check by itself (`check_reply` overrides its answer, and
    `check_respond`, when set, answers the check instead) and keeps those calls apart, in
    `checks`, so `requests` holds the judgment calls only."""

    respond: Responder
    requests: list[httpx2.Request] = field(default_factory=list)
    checks: list[httpx2.Request] = field(default_factory=list)
    check_reply: str | None = None
    check_respond: Responder | None = None

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        expected = known_answer_of(body)
        if expected is not None:
            self.checks.append(request)
            if self.check_respond is not None:
                return self.check_respond(request, body)
            reply = self.check_reply or json.dumps({"answer": expected})
            return answer(reply)
        self.requests.append(request)
        return self.respond(request, body)

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handler))

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def answer(content: str, **kwargs: Any) -> httpx2.Response:
    """A 200 completion response."""
    return httpx2.Response(200, json=completion(content, **kwargs))


def scoring_server(
    rubric: Rubric, scores: Mapping[str, Any], quotes: Sequence[str] = ()
) -> MockServer:
    """A server that gives each asked criterion its score from `scores`."""

    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        ids = criteria_of(body["response_format"]["json_schema"]["schema"])
        return answer(reply_text({cid: scores[cid] for cid in ids}, quotes))

    return MockServer(respond)


@dataclass
class FakeClient:
    """A `JudgeClient` without HTTP: `decide(messages, ids)` returns the reply text."""

    decide: Callable[[Sequence[dict[str, str]], list[str]], str]
    calls: list[list[dict[str, str]]] = field(default_factory=list)

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        schema: dict[str, Any],
        model: str,
        temperature: float,
        seed: int | None,
        *,
        max_tokens: int | None = None,
        remaining_s: float | None = None,
    ) -> RawReply:
        self.calls.append(list(messages))
        return RawReply(self.decide(messages, criteria_of(schema)), 10, 5, "stop", 1)


class NoDeadline:
    """A deadline that never runs out."""

    def remaining(self) -> float:
        return 1000.0


class Expired:
    """A deadline already past."""

    def remaining(self) -> float:
        return 0.0


@dataclass
class FakeClock:
    """A monotonic clock that only moves when something sleeps on it; records every sleep."""

    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
