"""The judge over a real socket: a loopback OpenAI-compatible server and the SDK's own transport."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from rubricate.config import JudgeConfig
from rubricate.judge.service import judge_report

from .helpers import (
    PARSER_LINE,
    agora,
    completion,
    criteria_of,
    known_answer_of,
    reply_text,
    report,
    snapshot,
)


class _Handler(BaseHTTPRequestHandler):
    bodies: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(
            body | {"_path": self.path, "_auth": self.headers["Authorization"]}
        )
        ids = criteria_of(body["response_format"]["json_schema"]["schema"])
        expected = known_answer_of(body)
        if expected is not None:
            content = json.dumps({"answer": expected})
        else:
            content = reply_text(dict.fromkeys(ids, 4), [PARSER_LINE])
        data = json.dumps(completion(content)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    handler = type("Handler", (_Handler,), {"bodies": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler.bodies
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_judge_over_loopback(server: tuple[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    base_url, bodies = server
    env = {"OPENAI_API_KEY": "sk-loop", "OPENAI_BASE_URL": base_url}
    result = judge_report(
        report(agora(), {}), snapshot(), JudgeConfig(model="local-model"), mode="openai",
        model=None, env=env, cache_dir=str(tmp_path),
    )  # fmt: skip
    # the judgment, then the known-answer check
    assert [b["_path"] for b in bodies] == ["/v1/chat/completions"] * 2
    assert known_answer_of(bodies[1]) is not None
    assert bodies[0]["_auth"] == "Bearer sk-loop"
    assert bodies[0]["model"] == "local-model"
    assert result.scores() == dict.fromkeys(agora().ids, 4.0)
    assert (result.judge or {})["tokens_in"] == 200
