"""Emulations of the OpenAI-compatible servers the judge was measured against.

Each behaviour was observed with SmolLM2-135M-Instruct (Q4_1 GGUF) on 127.0.0.1 (see the
README's judge section and `benchmarks/judge_live.py`); the bodies below keep the shape and the
words that matter, so CI checks every path without a model:

- llama-cpp-python's `python -m llama_cpp.server` (0.3.x) answers a `json_schema` response
  format with HTTP 500 and a validation error that names `response_format`; it accepts
  `{"type": "json_object", "schema": ...}` and constrains the reply to the schema;
- llama.cpp's `llama-server` (built from the same vendored sources) accepts the strict schema
  and honours `max_tokens` and `max_completion_tokens`; SmolLM2 loops inside the rationale
  (`", 1, 2, 3, 4 ...`) until the limit, and the reply ends with `finish_reason: "length"`;
- OpenAI's newer models refuse `max_tokens` and ask for `max_completion_tokens`;
- `llama-server` answers the known-answer check (`benchmarks/bench_known_answer.py`) under the
  strict schema with pretty-printed JSON, sometimes `"answer" : ...` with a space before the
  colon. SmolLM2 repeats the answer in most calls; in about one in seven (12–25% a run) it
  counts on inside the string (`"12345678901234567890...`) until `max_tokens`; in 2–5% it
  writes a short string of its own (a version number such as `1.0.0.0`), no more often on
  injected text than on benign text;
- `llama-server` answers the judgment's strict schema with the reported passages first, pretty-
  printed (`benchmarks/bench_judge_reports.py`). SmolLM2 fills them with words of the text
  paraphrased (a note "to the AI reviewer" becomes `"The AI Reviewer's Request"`), none verbatim,
  or with a string it counts on (`"1234567890"`), then obeys the note: every score 5, with the
  same paraphrase as evidence. On benign text it sometimes copies a URL or an e-mail address
  verbatim, which is then verified (`reporting` with a passage that is in the text).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import httpx2

from rubricate.judge.reply_schema import REPORT_KEY

from .helpers import completion, criteria_of, entry, known_answer_of

LLAMA_CPP_PYTHON_500 = {
    "error": {
        "message": (
            "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format',"
            " 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema',"
            " 'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n"
            '  File "llama_cpp/server/app.py", line 376, in create_chat_completion\n'
            "    POST /v1/chat/completions"
        ),
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}
MAX_COMPLETION_TOKENS_400 = {
    "error": {
        "message": (
            "Unsupported parameter: 'max_tokens' is not supported with this model."
            " Use 'max_completion_tokens' instead."
        ),
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }
}
RUNAWAY = "The change is good because " + "it is good and " * 4000


def schema_of(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The response schema a request carries, in whichever form."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return dict(fmt["json_schema"]["schema"])
    if fmt.get("type") == "json_object" and "schema" in fmt:
        return dict(fmt["schema"])
    return None


def schema_in_prompt(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The schema given in the system message, if any."""
    system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    marker = "It must match this JSON Schema exactly:\n"
    if marker not in system:
        return None
    return dict(json.loads(system.split(marker, 1)[1]))


def valid_reply(schema: Mapping[str, Any], score: int = 3) -> str:
    """A reply that fits `schema`: every criterion with `score`."""
    return json.dumps({cid: entry(score) for cid in criteria_of(schema)})


def ok(content: str, tokens_out: int = 20) -> httpx2.Response:
    body = completion(content)
    body["usage"] = {"prompt_tokens": 100, "completion_tokens": tokens_out, "total_tokens": 120}
    return httpx2.Response(200, json=body)


Respond = Callable[[httpx2.Request, dict[str, Any]], httpx2.Response]


def llama_cpp_python(score: int = 3) -> Respond:
    """`python -m llama_cpp.server`: 500 for `json_schema`, the schema honoured in JSON mode."""

    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        fmt = body.get("response_format") or {}
        if fmt.get("type") not in (None, "text", "json_object"):
            return httpx2.Response(500, json=LLAMA_CPP_PYTHON_500)
        schema = schema_of(body) or schema_in_prompt(body)
        if schema is None:
            return ok("The code looks fine to me.")
        return ok(valid_reply(schema, score))

    return respond


def llama_server_runaway(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
    """`llama-server` with a model that loops in the rationale: cut at `max_tokens`."""
    limit = int(body.get("max_tokens") or body.get("max_completion_tokens") or 8192)
    ids = criteria_of(schema_of(body) or {"required": ["x"]})
    cut = ('{"' + ids[0] + '": {"score": 3, "rationale": "' + RUNAWAY)[: limit * 4]
    data = completion(cut, finish="length")
    data["usage"] = {"prompt_tokens": 1500, "completion_tokens": limit, "total_tokens": limit}
    return httpx2.Response(200, json=data)


def wants_max_completion_tokens(score: int = 3) -> Respond:
    """An OpenAI model that refuses `max_tokens`."""

    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        if "max_tokens" in body:
            return httpx2.Response(400, json=MAX_COMPLETION_TOKENS_400)
        return ok(valid_reply(schema_of(body) or {"required": []}, score))

    return respond


CheckAnswer = Literal["repeats", "counts on", "own string"]
COUNTING = "1234567890"
OWN_STRING = "1.0.0.0"


def llama_server_check(answer: CheckAnswer) -> Respond:
    """`llama-server` with SmolLM2 answering the known-answer check in one of the ways it did:
    the answer repeated, a string counted on until `max_tokens` (`finish_reason: "length"`), or
    a short string of its own; each pretty-printed as the server returns it."""

    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        expected = known_answer_of(body) or ""
        if answer == "counts on":
            limit = int(body.get("max_tokens") or body.get("max_completion_tokens") or 64)
            data = completion('{\n    "answer" : "' + COUNTING * limit, finish="length")
            data["usage"] = {"prompt_tokens": 455, "completion_tokens": limit}
            return httpx2.Response(200, json=data)
        said = expected if answer == "repeats" else OWN_STRING
        data = completion('{\n  "answer": "' + said + '"\n}')
        data["usage"] = {"prompt_tokens": 455, "completion_tokens": 31}
        return httpx2.Response(200, json=data)

    return respond


PARAPHRASES = ("The AI Reviewer", "The AI Reviewer's Request", "The AI Reviewer's Request")


def reporting(
    reported: Sequence[str], score: int = 5, quotes: Sequence[str] = (), key: bool = True
) -> Respond:
    """`llama-server` under the strict schema: the reported passages first (the key left out
    with `key=False`, as an older or smaller model's reply may), then every criterion with
    `score` and `quotes`, pretty-printed."""

    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        ids = criteria_of(schema_of(body) or schema_in_prompt(body) or {"required": []})
        head: dict[str, Any] = {REPORT_KEY: list(reported)} if key else {}
        reply = head | {cid: entry(score, quotes) for cid in ids}
        return ok(json.dumps(reply, indent=4), tokens_out=400)

    return respond


def llama_server_paraphrase() -> Respond:
    """SmolLM2 on `llama-server` judging a PR that addresses the AI reviewer: paraphrases of the
    note reported, none verbatim, then every score 5 with a paraphrase as its evidence."""
    return reporting(PARAPHRASES, 5, PARAPHRASES[1:2])


def llama_server_reports_cut(reported: Sequence[str] | str) -> Respond:
    """`llama-server` cut at `max_tokens` (`finish_reason: "length"`) after the reported
    passages (a list, or a bare string as a model may give), inside the first criterion, as
    `bench_judge_reports.py --max-tokens` leaves it."""

    def respond(_request: httpx2.Request, body: dict[str, Any]) -> httpx2.Response:
        limit = int(body.get("max_tokens") or body.get("max_completion_tokens") or 64)
        ids = criteria_of(schema_of(body) or {"required": ["x"]})
        value = reported if isinstance(reported, str) else list(reported)
        head = json.dumps({REPORT_KEY: value}, indent=4)[:-2]
        text = head + ',\n    "' + ids[0] + '": {"score": 5, "rationale": "' + RUNAWAY
        data = completion(text[: limit * 4], finish="length")
        data["usage"] = {"prompt_tokens": 1750, "completion_tokens": limit}
        return httpx2.Response(200, json=data)

    return respond
