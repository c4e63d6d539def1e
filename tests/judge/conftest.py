"""Fixtures for the judge tests: a loopback server that trickles its reply."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .helpers import completion

DRIP_BYTES = 16
DRIP_PAUSE_S = 0.05
DRIP_LIMIT_S = 20.0


class _DripHandler(BaseHTTPRequestHandler):
    """Answers a valid completion, a few bytes at a time, each well within a read timeout."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        data = json.dumps(completion("{}")).encode() + b" " * 4096
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        stop = time.monotonic() + DRIP_LIMIT_S
        try:
            for start in range(0, len(data), DRIP_BYTES):
                if time.monotonic() > stop:
                    return
                self.wfile.write(data[start : start + DRIP_BYTES])
                self.wfile.flush()
                time.sleep(DRIP_PAUSE_S)
        except OSError:  # the client gave up and closed the connection
            return

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def drip_server() -> Iterator[str]:
    """The base URL of a loopback OpenAI-compatible server that trickles its reply."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _DripHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
