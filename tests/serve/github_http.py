"""The fake GitHub (`tests.action.fake_github`) served over HTTP on a loopback port, so worker
*processes* can talk to it and be killed in the middle of a request.

`FakeGitHub` registers its routes on a `responses` mock; `Routes` takes the same registrations,
and `GitHubServer` answers real HTTP requests with them (the URL seen by the routes stays
`https://api.github.com/…`, and links in answers point back at the server). A test can hold a
request: `hold("POST /repos/…/comments")` lets the next matching request do its work, then keeps
its answer until released, so the test can kill the worker that sent it at that very point.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import requests
import responses

from tests.action.fake_github import API, Reply, _json

Callback = Callable[[requests.PreparedRequest], Reply]


@dataclass
class Hold:
    """One held request: `reached` is set once it did its work; its answer waits for
    `release()` (at most `timeout` seconds)."""

    pattern: re.Pattern[str]
    before: bool = False
    """Hold before doing the request's work instead of after."""
    timeout: float = 60.0
    reached: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        """Let the held answer go."""
        self.released.set()

    def wait(self, timeout: float = 60.0) -> None:
        """Wait until the request arrived; fail the test when it never did."""
        assert self.reached.wait(timeout), f"no request matched {self.pattern.pattern}"


@dataclass
class Routes:
    """What `responses.RequestsMock` offers `FakeGitHub`: callbacks by method and URL, and the
    calls made."""

    routes: list[tuple[str, re.Pattern[str], Callback]] = field(default_factory=list)
    calls: list[responses.Call] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def add_callback(self, method: str, url: re.Pattern[str], callback: Callback) -> None:
        """Answer `method` requests whose URL matches `url` with `callback`."""
        self.routes.append((method, url, callback))

    def add(self, method: str, url: re.Pattern[str], json: Any = None, status: int = 200) -> None:
        """Answer with a fixed JSON body."""
        self.add_callback(method, url, lambda _request: _json(status, json))

    def answer(self, request: requests.PreparedRequest) -> Reply:
        """The first matching route's answer (404 when none matches), recorded."""
        url = str(request.url)
        with self.lock:
            for method, pattern, callback in self.routes:
                if method == request.method and pattern.match(url):
                    reply = callback(request)
                    break
            else:
                reply = _json(404, {"message": "Not Found"})
            status, headers, text = reply
            response = requests.Response()
            response.status_code = status
            response.headers.update(headers)
            response._content = text.encode()
            self.calls.append(responses.Call(request, response))  # type: ignore[call-arg]
        return reply


class GitHubServer:
    """`Routes` answered over HTTP on 127.0.0.1."""

    def __init__(self, routes: Routes) -> None:
        self.routes = routes
        self.holds: list[Hold] = []
        self._every_hold: list[Hold] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                server.handle(self, body)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def hold(self, key: str, *, before: bool = False) -> Hold:
        """Hold the next request whose `METHOD /path` matches the regular expression `key`."""
        held = Hold(re.compile(key), before=before)
        self.holds.append(held)
        self._every_hold.append(held)
        return held

    def _held(self, key: str, before: bool) -> Hold | None:
        with self.routes.lock:
            for held in self.holds:
                if held.before == before and held.pattern.fullmatch(key):
                    self.holds.remove(held)
                    return held
        return None

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes | None) -> None:
        """Answer one HTTP request through the routes."""
        headers = {k: v for k, v in handler.headers.items() if k.lower() != "host"}
        request = requests.Request(
            handler.command, API + handler.path, data=body, headers=headers
        ).prepare()
        key = f"{handler.command} {urlsplit(handler.path).path}"
        early = self._held(key, before=True)
        if early is not None:
            early.reached.set()
            early.released.wait(early.timeout)
        status, reply_headers, text = self.routes.answer(request)
        late = self._held(key, before=False)
        if late is not None:
            late.reached.set()
            late.released.wait(late.timeout)
        data = text.replace(API, self.url).encode()
        try:
            handler.send_response(status)
            for name, value in reply_headers.items():
                handler.send_header(name, value.replace(API, self.url))
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:  # the client was killed while its answer was held
            pass

    def start(self) -> None:
        """Serve in a thread."""
        self._thread.start()

    def stop(self) -> None:
        """Release every hold and stop serving."""
        for held in self._every_hold:
            held.release()
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def serving(routes: Routes) -> Iterator[GitHubServer]:
    """A started `GitHubServer`, stopped afterwards."""
    server = GitHubServer(routes)
    server.start()
    try:
        yield server
    finally:
        server.stop()
