"""The openai adapter against a mock transport: the request sent, and every fault mapped."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from rubricate.judge.adapter.client import JudgeCallError, OpenAIJudgeClient

from .helpers import BASE, KEY, FakeClock, MockServer, answer, completion

SCHEMA = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "data"}]
FAST_RETRY = {"retry-after-ms": "1"}


def _client(server: MockServer, max_retries: int = 2) -> OpenAIJudgeClient:
    return OpenAIJudgeClient(
        KEY, BASE, timeout_s=30, max_retries=max_retries, http_client=server.client()
    )


def _call(server: MockServer, max_retries: int = 2, **kwargs: Any) -> Any:
    return _client(server, max_retries).complete(MESSAGES, SCHEMA, "judge-model", 0.0, 7, **kwargs)


def _fails(server: MockServer, kind: str, max_retries: int = 2) -> JudgeCallError:
    with pytest.raises(JudgeCallError) as caught:
        _call(server, max_retries)
    assert caught.value.kind == kind
    return caught.value


def test_request_sent_is_a_strict_structured_chat_completion() -> None:
    server = MockServer(lambda _r, _b: answer('{"ok": 1}'))
    reply = _call(server)
    [request] = server.requests
    body = json.loads(request.content)
    assert str(request.url) == f"{BASE}/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "judge-model"
    assert body["messages"] == MESSAGES
    assert (body["temperature"], body["seed"]) == (0.0, 7)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "rubricate_judgment", "strict": True, "schema": SCHEMA},
    }
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ('{"ok": 1}', 100, 20)
    assert reply.finish_reason == "stop"
    assert reply.latency_ms >= 0


def test_seed_is_left_out_when_not_set() -> None:
    server = MockServer(lambda _r, _b: answer("{}"))
    _client(server).complete(MESSAGES, SCHEMA, "m", 0.2, None)
    assert "seed" not in server.bodies()[0]


def test_429_then_success_is_retried() -> None:
    def respond(_request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        if len(server.requests) == 1:
            return httpx2.Response(
                429, json={"error": {"message": "slow down"}}, headers=FAST_RETRY
            )
        return answer("{}")

    server = MockServer(respond)
    assert _call(server).text == "{}"
    assert len(server.requests) == 2


def test_persistent_5xx_stops_after_bounded_retries() -> None:
    server = MockServer(lambda _r, _b: httpx2.Response(503, json={"error": {}}, headers=FAST_RETRY))
    error = _fails(server, "server", max_retries=2)
    assert len(server.requests) == 3
    assert "HTTP 503" in str(error)


def test_persistent_429_is_a_rate_limit_error() -> None:
    server = MockServer(lambda _r, _b: httpx2.Response(429, json={"error": {}}, headers=FAST_RETRY))
    _fails(server, "rate_limit", max_retries=1)
    assert len(server.requests) == 2


def test_timeout_is_mapped() -> None:
    def respond(request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out", request=request)

    server = MockServer(respond)
    _fails(server, "timeout", max_retries=0)
    assert len(server.requests) == 1


def test_remaining_time_bounds_the_request_timeout_and_retries() -> None:
    server = MockServer(lambda _r, _b: httpx2.Response(503, json={"error": {}}, headers=FAST_RETRY))
    with pytest.raises(JudgeCallError):
        _call(server, max_retries=2, remaining_s=1.5)
    assert len(server.requests) == 1 + 2
    timeouts = [r.extensions["timeout"]["read"] for r in server.requests]
    assert all(t <= 1.5 for t in timeouts)


def test_no_retry_without_time_left_for_it() -> None:
    clock = FakeClock()

    def respond(_request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        clock.now += 1.0  # each attempt takes a second
        return httpx2.Response(503, json={"error": {}}, headers=FAST_RETRY)

    server = MockServer(respond)
    client = OpenAIJudgeClient(
        KEY, BASE, timeout_s=30, max_retries=5, http_client=server.client(),
        sleep=clock.sleep, clock=clock,
    )  # fmt: skip
    with pytest.raises(JudgeCallError, match="no time left for a retry") as caught:
        client.complete(MESSAGES, SCHEMA, "m", 0.0, None, remaining_s=2.5)
    assert caught.value.kind == "server"
    assert len(server.requests) == 2


def test_truncated_reply_is_mapped() -> None:
    server = MockServer(lambda _r, _b: answer('{"half": ', finish="length"))
    assert "cut off" in str(_fails(server, "truncated"))


@pytest.mark.parametrize(
    "body",
    [
        completion(None, refusal="I can't help with that."),
        completion("{}", finish="content_filter"),
    ],
    ids=["refusal", "content-filter"],
)
def test_refusals_are_mapped(body: dict[str, Any]) -> None:
    server = MockServer(lambda _r, _b: httpx2.Response(200, json=body))
    _fails(server, "refusal")


@pytest.mark.parametrize(
    "response",
    [
        httpx2.Response(200, text="<html>gateway</html>", headers={"content-type": "text/html"}),
        httpx2.Response(200, json={**completion("{}"), "choices": []}),
        httpx2.Response(200, json=completion("  ")),
    ],
    ids=["html", "no-choices", "empty"],
)
def test_malformed_responses_are_mapped(response: httpx2.Response) -> None:
    server = MockServer(lambda _r, _b: response)
    _fails(server, "malformed")


def test_auth_error_never_echoes_the_key() -> None:
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
    server = MockServer(lambda _r, _b: httpx2.Response(401, json=echo))
    error = _fails(server, "auth")
    assert KEY not in str(error)
    assert "***" in str(error)


def test_bad_request_is_an_http_error() -> None:
    server = MockServer(
        lambda _r, _b: httpx2.Response(400, json={"error": {"message": "bad schema"}})
    )
    assert "HTTP 400" in str(_fails(server, "http"))


def test_connection_failure_is_mapped() -> None:
    def respond(request: httpx2.Request, _body: dict[str, Any]) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    _fails(MockServer(respond), "connection", max_retries=0)
