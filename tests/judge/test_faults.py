"""Every judge fault ends as `not assessed`, never a crash, a pass or a zero, and leaves
the report's scores and verdict (so the exit code) exactly as they were without the judge."""

from __future__ import annotations

import contextlib
import json
import math
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.config import JudgeConfig
from rubricate.errors import ReplyError
from rubricate.evidence.results import ScoreReport
from rubricate.judge.adapter.client import JudgeCallError, OpenAIJudgeClient
from rubricate.judge.reply import parse_reply
from rubricate.judge.service import judge_report

from .helpers import (
    BASE,
    ENV,
    KEY,
    FakeClock,
    MockServer,
    agora,
    answer,
    completion,
    entry,
    report,
    snapshot,
)

HEURISTICS = {"spec_adherence": 3, "completeness": 4, "verifiability": 4, "format_correctness": 5}
IDS = agora().ids
MESSAGES = [{"role": "user", "content": "data"}]


def _judged(server: MockServer, tmp_path: Path, **config: Any) -> tuple[ScoreReport, ScoreReport]:
    base = report(agora(), HEURISTICS)
    result = judge_report(
        base, snapshot(), JudgeConfig(**config), mode="openai", model=None, env=ENV,
        cache_dir=str(tmp_path), http_client=server.client(),
    )  # fmt: skip
    return base, result


def assert_unchanged_and_not_assessed(base: ScoreReport, result: ScoreReport, reason: str) -> None:
    """Judge criteria not assessed; heuristics, total and verdict as without the judge."""
    judge = result.judge or {}
    assert judge["not_assessed"] == list(IDS)
    assert any(reason in error for error in judge["errors"]), judge["errors"]
    assert result.scores() == base.scores()
    assert result.result == base.result
    assert result.result.verdict == "incomplete"
    assert "quality" in result.not_scored
    assert next(c for c in result.checks if c.id == "judge").status == "error"


def _body(mutate: Any) -> httpx2.Response:
    data = completion(json.dumps({cid: entry(3) for cid in IDS}))
    mutate(data)
    text = json.dumps(data).replace('"INFINITE"', "1e400")
    return httpx2.Response(200, content=text, headers={"content-type": "application/json"})


SHAPES = {
    "usage-not-a-number": lambda d: d["usage"].update(prompt_tokens="lots"),
    "usage-infinite": lambda d: d["usage"].update(prompt_tokens="INFINITE"),
    "choices-an-object": lambda d: d.update(choices={"0": d["choices"][0]}),
    "choice-null": lambda d: d.update(choices=[None]),
    "message-null": lambda d: d["choices"][0].update(message=None),
    "content-a-number": lambda d: d["choices"][0]["message"].update(content=5),
}


@pytest.mark.parametrize("mutate", SHAPES.values(), ids=SHAPES.keys())
def test_odd_completion_shapes_are_malformed_not_a_crash(mutate: Any, tmp_path: Path) -> None:
    server = MockServer(lambda _r, _b: _body(mutate))
    base, result = _judged(server, tmp_path)
    assert_unchanged_and_not_assessed(base, result, "(malformed)")


def _reply_with(text: str) -> MockServer:
    return MockServer(lambda _r, _b: answer(text))


VALID = json.dumps({cid: entry(3) for cid in IDS})
BAD_REPLIES = {
    "huge-integer": VALID.replace('"score": 3', '"score": 1' + "0" * 400, 1),
    "nan": VALID.replace('"score": 3', '"score": NaN', 1),
    "infinity": VALID.replace('"score": 3', '"score": Infinity', 1),
    "repeated-score-key": VALID.replace('"score": 3', '"score": 1, "score": 5', 1),
    "repeated-id": VALID[:-1] + f', "quality": {json.dumps(entry(5))}}}',
    "deep-nesting": "[" * 100_000,
    "score-a-string": VALID.replace('"score": 3', '"score": "5"', 1),
    "score-a-bool": VALID.replace('"score": 3', '"score": true', 1),
    "evidence-not-strings": VALID.replace('"evidence": []', '"evidence": [{"q": 1}]', 1),
}


@pytest.mark.parametrize("text", BAD_REPLIES.values(), ids=BAD_REPLIES.keys())
def test_schema_violations_are_rejected_never_crash(text: str, tmp_path: Path) -> None:
    with pytest.raises(ReplyError):
        parse_reply(text, agora(), IDS)
    server = _reply_with(text)
    base, result = _judged(server, tmp_path)
    assert len(server.requests) == 2
    assert_unchanged_and_not_assessed(base, result, "invalid twice")


def test_a_repeated_key_inside_a_criterion_is_named() -> None:
    with pytest.raises(ReplyError, match="'spec_adherence' repeats the key\\(s\\) \"score\""):
        parse_reply(BAD_REPLIES["repeated-score-key"], agora(), IDS)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from([*IDS, "x"]), JSON | st.fixed_dictionaries(
    {"score": JSON, "rationale": JSON, "evidence": JSON})))  # fmt: skip
def test_any_json_reply_is_accepted_or_rejected_never_raises(reply: dict[str, Any]) -> None:
    with contextlib.suppress(ReplyError):
        parse_reply(json.dumps(reply), agora(), IDS)


@pytest.mark.parametrize("retry_after", [1, 30, 59, 100, 119, 120, 500])
def test_retry_after_never_overruns_the_deadline(
    retry_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    start = clock.now
    monkeypatch.setattr(time, "sleep", clock.sleep)  # records any sleep, ours or the SDK's
    attempts: list[tuple[float, float]] = []

    def respond(request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        attempts.append((clock.now - start, request.extensions["timeout"]["read"]))
        clock.now += 2.0  # each attempt takes two seconds
        return httpx2.Response(429, json={"error": {}}, headers={"retry-after": str(retry_after)})

    client = OpenAIJudgeClient(
        KEY, BASE, timeout_s=30, max_retries=2, http_client=MockServer(respond).client(),
        sleep=clock.sleep, clock=clock,
    )  # fmt: skip
    with pytest.raises(JudgeCallError) as caught:
        client.complete(MESSAGES, {}, "m", 0.0, None, remaining_s=120)
    assert caught.value.kind == "rate_limit"
    assert 1 <= len(attempts) <= 3
    assert all(started + timeout <= 120 for started, timeout in attempts), attempts
    assert clock.now - start <= 120


def test_a_reply_trickled_past_the_timeout_is_abandoned(drip_server: str) -> None:
    client = OpenAIJudgeClient(KEY, drip_server, timeout_s=0.3, max_retries=0)
    with pytest.raises(JudgeCallError) as caught:
        client.complete(MESSAGES, {}, "m", 0.0, None, remaining_s=5)
    assert caught.value.kind == "timeout"


def test_a_trickling_server_leaves_the_criteria_not_assessed(
    drip_server: str, tmp_path: Path
) -> None:
    base = report(agora(), HEURISTICS)
    result = judge_report(
        base, snapshot(), JudgeConfig(timeout_s=0.3), mode="openai", model=None,
        env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": drip_server}, cache_dir=str(tmp_path),
    )  # fmt: skip
    assert_unchanged_and_not_assessed(base, result, "(timeout)")
    assert not list(tmp_path.rglob("*.json"))


def test_infinite_retry_after_is_not_retried() -> None:
    headers = {"retry-after": "1e999"}
    server = MockServer(lambda _r, _b: httpx2.Response(503, json={"error": {}}, headers=headers))
    client = OpenAIJudgeClient(KEY, BASE, timeout_s=30, max_retries=2, http_client=server.client())
    with pytest.raises(JudgeCallError):
        client.complete(MESSAGES, {}, "m", 0.0, None, remaining_s=math.inf)
    assert len(server.requests) == 1


def test_sdk_finish_reason_errors_are_mapped() -> None:
    import openai
    from openai.types.chat import ChatCompletion

    from rubricate.judge.adapter.faults import classify

    cut = ChatCompletion.model_validate(completion('{"a": ', finish="length"))
    assert classify(openai.LengthFinishReasonError(completion=cut)).kind == "truncated"
    assert classify(openai.ContentFilterFinishReasonError()).kind == "refusal"
