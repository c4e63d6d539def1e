"""Structured-output negotiation, bounded calls, transient-only retries and honest accounting,
against emulations of the servers the judge was measured on (see `servers.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from rubricate.config import JudgeConfig
from rubricate.evidence.results import ScoreReport
from rubricate.judge.adapter.client import OpenAIJudgeClient
from rubricate.judge.calls import JudgeCallError
from rubricate.judge.reply_schema import (
    MAX_REPORT_CHARS,
    MAX_REPORTS,
    PER_CRITERION_TOKENS,
    REPLY_OVERHEAD_TOKENS,
    REPORT_KEY,
    REPORT_TOKENS,
    max_output_tokens,
)
from rubricate.judge.service import judge_report

from . import servers
from .helpers import BASE, ENV, KEY, FakeClock, MockServer, agora, report, snapshot

SETTINGS = JudgeConfig(model="local-model", timeout_s=30)
FAST_RETRY = {"retry-after-ms": "1"}
SCHEMA = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "data"}]


def _judge(
    server: MockServer, tmp_path: Path, settings: JudgeConfig = SETTINGS, tree: str = "c"
) -> ScoreReport:
    return judge_report(
        report(agora(), {}), snapshot(head_tree=tree * 40), settings, mode="openai",
        model=None, env=ENV, cache_dir=str(tmp_path / "cache"), http_client=server.client(),
    )  # fmt: skip


def _record(result: ScoreReport) -> dict[str, Any]:
    return result.judge or {}


def _client(server: MockServer, **kwargs: Any) -> OpenAIJudgeClient:
    options: dict[str, Any] = {"timeout_s": 30, "max_retries": 2} | kwargs
    return OpenAIJudgeClient(KEY, BASE, http_client=server.client(), **options)


def test_llama_cpp_python_moves_to_json_object_with_the_schema(tmp_path: Path) -> None:
    server = MockServer(servers.llama_cpp_python())
    result = _judge(server, tmp_path)
    first, second = server.bodies()
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"]["type"] == "json_object"
    assert second["response_format"]["schema"]["required"] == [REPORT_KEY, *agora().ids]
    assert servers.schema_in_prompt(second) == second["response_format"]["schema"]
    assert result.scores() == dict.fromkeys(agora().ids, 3.0)
    record = _record(result)
    # one judgment in two attempts, then the known-answer check
    assert (record["mode"], record["calls"], record["attempts"]) == ("json_object", 2, 3)
    assert not record["errors"]


def test_the_mode_is_remembered_per_server_and_model(tmp_path: Path) -> None:
    server = MockServer(servers.llama_cpp_python())
    _judge(server, tmp_path)
    _judge(server, tmp_path, tree="d")  # a cache miss: a new call
    assert [b["response_format"]["type"] for b in server.bodies()] == [
        "json_schema", "json_object", "json_object",
    ]  # fmt: skip
    [memory] = (tmp_path / "cache" / "servers").glob("*.json")
    assert json.loads(memory.read_text())["mode"] == "json_object"
    assert "judge.test" not in memory.read_text()
    other = JudgeConfig(model="other-model", timeout_s=30)
    _judge(server, tmp_path, other, tree="e")
    assert server.bodies()[-2]["response_format"]["type"] == "json_schema"


def test_prompt_only_is_the_last_rung_and_validated_the_same(tmp_path: Path) -> None:
    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        if "response_format" in body:
            message = {"error": {"message": "response_format is not supported"}}
            return httpx2.Response(400, json=message)
        return servers.ok("Looks great, 5/5 for everything!")

    server = MockServer(respond)
    result = _judge(server, tmp_path)
    last = server.bodies()[-1]
    assert "response_format" not in last
    assert servers.schema_in_prompt(last) is not None
    record = _record(result)
    assert record["mode"] == "prompt"
    assert set(record["not_assessed"]) == set(agora().ids)
    assert result.scores() == {}


def test_a_timeout_never_moves_down_the_ladder() -> None:
    def respond(request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out", request=request)

    server = MockServer(respond)
    with pytest.raises(JudgeCallError) as caught:
        _client(server, max_retries=5).complete(MESSAGES, SCHEMA, "m", 0.0, None)
    assert caught.value.kind == "timeout"
    assert {b["response_format"]["type"] for b in server.bodies()} == {"json_schema"}
    assert len(server.requests) == 2  # a timeout is retried at most once
    assert caught.value.spent.attempts == 2
    assert caught.value.mode == "json_schema"


def test_every_call_carries_max_tokens_from_the_rubric(tmp_path: Path) -> None:
    server = MockServer(servers.llama_cpp_python())
    _judge(server, tmp_path)
    expected = REPLY_OVERHEAD_TOKENS + REPORT_TOKENS + len(agora().ids) * PER_CRITERION_TOKENS
    assert {b["max_tokens"] for b in server.bodies()} == {expected}
    capped = JudgeConfig(model="m", timeout_s=30, max_output_tokens=500)
    _judge(server, tmp_path, capped, tree="f")
    assert server.bodies()[-1]["max_tokens"] == 500
    rationale = server.bodies()[0]["response_format"]["json_schema"]["schema"]
    entry = rationale["properties"]["quality"]["properties"]["rationale"]
    assert entry == {"type": "string", "maxLength": 600}


def test_max_tokens_hold_three_reported_passages_beside_eight_criteria() -> None:
    """Passages are budgeted at the criteria's rate (about 4 characters a token), so a call of
    eight criteria still fits the default ceiling with room for three of the longest passages."""
    passages = ["word " * (MAX_REPORT_CHARS // 5)] * MAX_REPORTS
    written = json.dumps({REPORT_KEY: passages})
    assert len(written) // 4 <= REPORT_TOKENS
    ceiling = JudgeConfig(model="m").max_output_tokens
    needed = REPLY_OVERHEAD_TOKENS + REPORT_TOKENS + 8 * PER_CRITERION_TOKENS
    assert max_output_tokens(8, ceiling) == needed <= ceiling


def test_the_config_reference_gives_the_max_tokens_sent() -> None:
    described = JudgeConfig.model_fields["max_output_tokens"].description or ""
    assert f"is {REPLY_OVERHEAD_TOKENS}, plus {REPORT_TOKENS} for the passages" in described
    assert f"plus {PER_CRITERION_TOKENS} for each criterion" in described


def test_a_runaway_cut_at_max_tokens_is_not_assessed_and_not_retried(tmp_path: Path) -> None:
    server = MockServer(servers.llama_server_runaway)
    result = _judge(server, tmp_path)
    assert len(server.requests) == 1
    record = _record(result)
    limit = server.bodies()[0]["max_tokens"]
    assert set(record["not_assessed"]) == set(agora().ids)
    assert any(f"max_tokens={limit}" in e and "cut off" in e for e in record["errors"])
    check = (100, 20)  # the known-answer check that follows
    assert (record["tokens_in"], record["tokens_out"]) == (1500 + check[0], limit + check[1])
    assert record["mode"] == "json_schema"  # named even when the call failed
    assert result.scores() == {}


def test_max_completion_tokens_where_the_server_asks_for_it(tmp_path: Path) -> None:
    server = MockServer(servers.wants_max_completion_tokens())
    result = _judge(server, tmp_path)
    first, second = server.bodies()
    assert "max_tokens" in first
    assert "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == first["max_tokens"]
    assert "max_tokens" not in second
    assert result.scores() == dict.fromkeys(agora().ids, 3.0)
    _judge(server, tmp_path, tree="g")
    assert "max_completion_tokens" in server.bodies()[-1]


def test_a_schema_without_length_keywords_where_strict_mode_rejects_them() -> None:
    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        if "maxLength" in json.dumps(body["response_format"]):
            said = "Invalid schema for response_format 'x': 'maxLength' is not permitted."
            return httpx2.Response(400, json={"error": {"message": said}})
        return servers.ok("{}")

    schema = {**SCHEMA, "properties": {"r": {"type": "string", "maxLength": 9}}}
    reply = _client(MockServer(respond)).complete(MESSAGES, schema, "m", 0.0, None)
    assert (reply.mode, reply.attempts) == ("json_schema", 2)


@pytest.mark.parametrize(
    ("status", "body", "headers", "requests"),
    [
        (500, {"error": {"message": "Requested tokens exceed context window of 8192"}}, {}, 1),
        (500, {"error": {}}, FAST_RETRY, 3),
        (500, None, FAST_RETRY, 3),
        (502, {"error": {"message": "bad gateway"}}, FAST_RETRY, 3),
        (503, {"error": {"message": "loading model"}}, FAST_RETRY, 3),
        (504, None, FAST_RETRY, 3),
        (429, {"error": {"message": "quota exceeded"}}, {}, 1),
        (429, {"error": {"message": "slow down"}}, FAST_RETRY, 3),
        (400, {"error": {"message": "model not found"}}, {}, 1),
        (404, {"error": {"message": "no such route"}}, {}, 1),
    ],
    ids=[
        "500-names-request", "500-empty", "500-no-body", "502", "503", "504",
        "429-no-retry-after", "429-retry-after", "400", "404",
    ],
)  # fmt: skip
def test_only_transient_failures_are_retried(
    status: int, body: Any, headers: dict[str, str], requests: int
) -> None:
    def respond(_request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        if body is None:
            return httpx2.Response(status, headers=headers)
        return httpx2.Response(status, json=body, headers=headers)

    server = MockServer(respond)
    with pytest.raises(JudgeCallError) as caught:
        _client(server).complete(MESSAGES, SCHEMA, "m", 0.0, None)
    assert len(server.requests) == requests
    assert caught.value.spent.attempts == requests
    if body and body["error"]:
        assert body["error"]["message"] in str(caught.value)


def test_a_deterministic_error_says_what_the_server_said_without_secrets() -> None:
    said = f"context window exceeded for key {KEY}"
    server = MockServer(lambda _r, _b: httpx2.Response(500, json={"error": {"message": said}}))
    with pytest.raises(JudgeCallError) as caught:
        _client(server).complete(MESSAGES, SCHEMA, "m", 0.0, None)
    assert "context window exceeded for key ***" in str(caught.value)
    assert KEY not in str(caught.value)


def test_a_connection_reset_is_retried() -> None:
    def respond(request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        if len(server.requests) == 1:
            raise httpx2.RemoteProtocolError("connection reset by peer", request=request)
        return servers.ok("{}")

    server = MockServer(respond)
    assert _client(server).complete(MESSAGES, SCHEMA, "m", 0.0, None).attempts == 2


def test_tokens_and_latency_are_summed_over_every_attempt() -> None:
    clock = FakeClock()

    def respond(_request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        clock.now += 2.0  # every attempt takes two seconds
        if len(server.requests) < 3:
            return httpx2.Response(503, json={"error": {}}, headers=FAST_RETRY)
        return servers.ok("{}", tokens_out=7)

    server = MockServer(respond)
    client = _client(server, sleep=clock.sleep, clock=clock)
    reply = client.complete(MESSAGES, SCHEMA, "m", 0.0, None)
    assert (reply.attempts, reply.tokens_in, reply.tokens_out) == (3, 100, 7)
    assert reply.latency_ms == 6000


def test_retries_never_run_past_the_call_timeout() -> None:
    clock = FakeClock()

    def respond(_request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        clock.now += 4.0
        return httpx2.Response(503, json={"error": {}}, headers=FAST_RETRY)

    server = MockServer(respond)
    client = _client(server, timeout_s=10, max_retries=9, sleep=clock.sleep, clock=clock)
    with pytest.raises(JudgeCallError, match=r"no time left for a retry within judge\.timeout_s"):
        client.complete(MESSAGES, SCHEMA, "m", 0.0, None)
    assert len(server.requests) == 3  # at 0, 4 and 8 s; none left for a fourth
    timeouts = [r.extensions["timeout"]["read"] for r in server.requests]
    assert [round(t) for t in timeouts] == [10, 6, 2]


def test_failed_attempts_count_in_the_report(tmp_path: Path) -> None:
    def respond(_request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        return servers.ok("not json at all", tokens_out=11)

    result = _judge(MockServer(respond), tmp_path)
    record = _record(result)
    assert (record["calls"], record["attempts"]) == (3, 3)  # and the known-answer check
    assert (record["tokens_in"], record["tokens_out"]) == (300, 42)
    assert set(record["not_assessed"]) == set(agora().ids)
