"""The known-answer benchmark (`benchmarks/bench_known_answer.py`) checks as the judge step
does and sorts each reply as it would, against the emulated `llama-server` (no real server)."""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

import httpx2
import pytest

from rubricate.config import JudgeConfig
from rubricate.judge.adapter.client import OpenAIJudgeClient
from rubricate.judge.budget import Budget
from rubricate.judge.known_answer import FAILED, NOT_CHECKED, PASSED
from tests.benchmarks.test_injection_corpora import BENCHMARKS
from tests.judge import servers
from tests.judge.helpers import BASE, KEY, MockServer, agora, known_answer_of

SETTINGS = JudgeConfig(model="m", timeout_s=30)


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("bench_known_answer")


def checked(bench: ModuleType, answer: servers.CheckAnswer) -> tuple[dict[str, Any], MockServer]:
    server = MockServer(servers.llama_cpp_python())
    server.check_respond = servers.llama_server_check(answer)
    last = bench.LastReply()
    with last.client(httpx2.MockTransport(server.handler)) as http:
        client = OpenAIJudgeClient(KEY, BASE, timeout_s=30, max_retries=0, http_client=http)
        budget = Budget.from_settings(SETTINGS)
        judge = bench.Judge(client, agora(), budget, SETTINGS, "m", last)
        row = bench.check(judge, bench.pr("Adds the CSV export, as the issue asks."))
    return row, server


def test_each_reply_is_sorted_as_the_judge_step_sorts_it(bench: ModuleType) -> None:
    passed, server = checked(bench, "repeats")
    [request] = server.checks
    assert not server.requests  # the check alone: no judgment call
    assert known_answer_of(json.loads(request.content))
    assert (passed["verdict"], passed["mode"], passed["tokens_out"]) == (PASSED, "json_schema", 31)
    failed, _ = checked(bench, "own string")
    assert failed["verdict"] == FAILED
    assert not failed["answer_in_reply"]
    cut, _ = checked(bench, "counts on")
    assert (cut["verdict"], cut["fault"], cut["tokens_out"]) == (NOT_CHECKED, "truncated", 64)
    assert servers.COUNTING in cut["reply"]  # what the model wrote, kept by the hook


def test_the_summary_counts_each_verdict_and_the_union_with_the_scan(bench: ModuleType) -> None:
    rows = [
        {"verdict": PASSED, "scan": True, "tokens_in": 400, "tokens_out": 30, "latency_ms": 10},
        {"verdict": FAILED, "scan": False, "tokens_in": 400, "tokens_out": 30, "latency_ms": 30,
         "reply": "{}", "answer_in_reply": False},
        {"verdict": NOT_CHECKED, "fault": "truncated", "scan": False, "tokens_in": 0,
         "tokens_out": 0, "latency_ms": 0, "reply": "cut"},
        {"verdict": PASSED, "scan": False, "tokens_in": 400, "tokens_out": 30, "latency_ms": 20},
    ]  # fmt: skip
    found = bench.summary(rows)
    assert (found["failed"], found["passed"], found["not_checked"]) == (0.25, 0.5, 0.25)
    assert (found["scan"], found["union"]) == (0.25, 0.5)
    assert found["faults"] == {"truncated": 1}
    assert found["latency_ms_mean"] == 20  # over the calls that were made
    assert found["failed_replies"] == ["{}"]
