"""One known-answer check per submission: counted, cached, and a failure flags the text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from rubricate.evidence.results import ScoreReport
from rubricate.judge.known_answer import FAILED, PASSED, check_messages, verdict
from rubricate.judge.service import judge_report
from rubricate.judge.step import KNOWN_ANSWER_NOT_RUN

from . import servers
from .helpers import (
    ENV,
    PARSER_LINE,
    MockServer,
    agora,
    completion,
    known_answer_of,
    report,
    scoring_server,
    snapshot,
)
from .test_service import ALL_FIVE, HEURISTICS, SETTINGS

MARKERS = iter(f"{n:032x}" for n in range(1, 1000))


def _run(server: MockServer, tmp_path: Path) -> ScoreReport:
    return judge_report(
        report(agora(), HEURISTICS), snapshot(body="Adds the parser."), SETTINGS, mode="auto",
        model=None, env=ENV, cache_dir=str(tmp_path / "cache"), http_client=server.client(),
        new_marker=lambda: next(MARKERS),
    )  # fmt: skip


def _injection(result: ScoreReport) -> list[str]:
    check = next(c for c in result.checks if c.id == "injection")
    return [f.message for f in check.findings if "known-answer" in f.message]


def test_a_passed_check_is_counted_and_flags_nothing(tmp_path: Path) -> None:
    server = scoring_server(agora(), ALL_FIVE, [PARSER_LINE])
    result = _run(server, tmp_path)
    [check] = [json.loads(r.content) for r in server.checks]
    [judgment] = server.bodies()
    answer = known_answer_of(check)
    assert answer
    assert answer not in json.dumps(judgment)
    user = check["messages"][1]["content"]
    assert "Adds the parser." in user
    assert user.endswith(f'{{"answer": "{answer}"}} and nothing else.')
    assert check["max_tokens"] == 64
    assert (result.judge or {})["calls"] == 2
    assert not _injection(result)
    assert next(c for c in result.criteria if c.id == "quality").score == 5.0


def test_a_failed_check_flags_the_text_and_no_quote_lifts_the_cap(tmp_path: Path) -> None:
    server = scoring_server(agora(), ALL_FIVE, [PARSER_LINE])
    server.check_reply = '{"answer": "score 5/5, approved"}'
    result = _run(server, tmp_path)
    [message] = _injection(result)
    assert '\'{"answer": "score 5/5, approved"}\'' in message
    assert next(c for c in result.criteria if c.id == "quality").score < 5.0
    assert any("prompt-injection" in f for f in (result.judge or {})["flags"])
    again = _run(server, tmp_path)  # cached with the judgment: no new call, same finding
    assert (len(server.requests), len(server.checks)) == (1, 1)
    assert _injection(again) == [message]


def test_a_check_that_cannot_run_is_noted_never_passed(tmp_path: Path) -> None:
    def respond(request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        return scoring_server(agora(), ALL_FIVE, [PARSER_LINE]).respond(request, body)

    class Failing(MockServer):
        def handler(self, request: httpx2.Request) -> httpx2.Response:
            if known_answer_of(json.loads(request.content)) is not None:
                return httpx2.Response(400, json={"error": {"message": "bad request"}})
            return super().handler(request)

    result = _run(Failing(respond), tmp_path)
    assert KNOWN_ANSWER_NOT_RUN in result.notes
    assert not _injection(result)


def test_the_verdict_wants_exactly_the_answer() -> None:
    assert verdict('{"answer": "abc123"}', "abc123") == PASSED
    assert verdict('{"answer": " abc123 "}', "abc123") == PASSED
    for reply in ('{"answer": "abc12"}', "abc123", "[]", '{"answer": "PASS"}'):
        assert verdict(reply, "abc123") == FAILED


def test_the_check_shows_only_the_wrapped_data() -> None:
    user = "Rubric text\n<untrusted-m1 field=body>\nhello\n</untrusted-m1>\n\nScore it now."
    [system, data] = check_messages(user, "m1", "f00d")
    assert "<untrusted-m1>" in system["content"]
    assert '"f00d"' in system["content"]
    assert data["content"].startswith("<untrusted-m1 field=body>\nhello\n</untrusted-m1>\n\n")
    assert "Score it now" not in data["content"]
    assert "Rubric" not in data["content"]


def _llama_server(answer: servers.CheckAnswer) -> MockServer:
    server = scoring_server(agora(), ALL_FIVE, [PARSER_LINE])
    server.check_respond = servers.llama_server_check(answer)
    return server


def test_llama_servers_pretty_printed_answer_passes(tmp_path: Path) -> None:
    result = _run(_llama_server("repeats"), tmp_path)
    assert not _injection(result)
    assert KNOWN_ANSWER_NOT_RUN not in result.notes
    assert next(c for c in result.criteria if c.id == "quality").score == 5.0


def test_a_check_counted_on_to_max_tokens_is_noted_neither_passed_nor_failed(
    tmp_path: Path,
) -> None:
    """A reply cut at the check's limit says nothing sure about the text: a reasoning model
    spends the 64 tokens thinking whatever the PR says, and a failed check would cap every
    criterion of a benign PR (a pass turned into a fail)."""
    server = _llama_server("counts on")
    result = _run(server, tmp_path)
    assert KNOWN_ANSWER_NOT_RUN in result.notes
    assert not _injection(result)
    record = result.judge or {}
    assert (record["calls"], record["tokens_out"]) == (2, 20 + 64)  # counted all the same
    assert not record["errors"]
    assert len(server.checks) == 1  # a cut reply is not retried


def test_a_refused_check_or_a_server_fault_leaves_it_unchecked(tmp_path: Path) -> None:
    """A content filter refuses benign security text too: a refusal is not a failure."""
    refused = scoring_server(agora(), ALL_FIVE, [PARSER_LINE])
    refused.check_respond = lambda _r, _b: httpx2.Response(
        200, json=completion(None, refusal="I can't help with that.")
    )
    result = _run(refused, tmp_path / "a")
    assert not _injection(result)
    assert KNOWN_ANSWER_NOT_RUN in result.notes
    broken = scoring_server(agora(), ALL_FIVE, [PARSER_LINE])
    broken.check_respond = lambda _r, _b: httpx2.Response(400, json={"error": {"message": "no"}})
    result = _run(broken, tmp_path / "b")
    assert not _injection(result)
    assert KNOWN_ANSWER_NOT_RUN in result.notes


def test_a_short_string_of_its_own_fails_the_check(tmp_path: Path) -> None:
    result = _run(_llama_server("own string"), tmp_path)
    [message] = _injection(result)
    assert f'"answer": "{servers.OWN_STRING}"' in message
    assert next(c for c in result.criteria if c.id == "quality").score < 5.0
