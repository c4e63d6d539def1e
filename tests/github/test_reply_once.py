"""A comment is posted once: a POST whose answer is lost is never sent again, and is found by
its hidden marker (a re-run of the Action finding an earlier reply: tests/action).

Two of these run on a real loopback HTTP server (the real PyGithub client and urllib3's retries):
the server creates the comment, then answers too late, or drops the connection.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
import responses

from rubricate.errors import AnswerLost
from rubricate.github.adapter import GitHubAdapter, connect
from tests.action.fake_github import FakeGitHub, user
from tests.action.payloads import REPO
from tests.action.scenario import PR, TOKEN

API = "https://api.github.com"
COMMENTS = f"POST /repos/{REPO}/issues/{PR}/comments"
SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"


def test_a_comment_without_a_marker_gets_one_and_is_never_posted_twice(
    fake_github: FakeGitHub,
) -> None:
    fake_github.lost_answers[COMMENTS] = 1
    fake_github.bot_login = "b"
    adapter = GitHubAdapter(connect(TOKEN, API, retries=3, pace=False), REPO, bot_login="b")
    created = adapter.create_comment(PR, "hello")
    [comment] = fake_github.comments_on(PR)
    assert comment["id"] == created
    assert re.search(r"<!-- rubricate:post [0-9a-f]{32} -->", comment["body"])
    assert fake_github.call_lines().count(COMMENTS) == 1


def test_a_lost_answer_whose_comment_is_not_listed_fails_without_a_second_post() -> None:
    with responses.RequestsMock() as rsps:
        url = re.compile(rf"{re.escape(API)}(?::443)?/repos/{REPO}/issues/{PR}/comments")
        rsps.add(responses.POST, url, body=requests.exceptions.ReadTimeout("lost"))
        rsps.add(responses.GET, url, json=[])
        adapter = GitHubAdapter(connect(TOKEN, API, retries=0, pace=False), REPO, bot_login="b")
        with pytest.raises(AnswerLost, match="not posted again"):
            adapter.create_comment(PR, "hi\n<!-- m -->", "<!-- m -->")
        assert [c.request.method for c in rsps.calls] == ["POST", "GET"]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    comments: list[dict[str, Any]]
    posts: int
    how: str


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *_args: Any) -> None:
        return None

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(size))["body"]
        comment = {"id": 500 + len(self.server.comments), "body": body, "user": user("b")}
        self.server.comments.append(comment)
        self.server.posts += 1
        if self.server.how == "drop":
            self.connection.close()  # acted, then the connection is gone
            return
        time.sleep(2)  # acted, then answers after the client gave up (timeout 1 s)
        self._send(201, comment)

    def do_GET(self) -> None:
        self._send(200, self.server.comments)

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass


@pytest.fixture
def server() -> Iterator[_Server]:
    running = _Server(("127.0.0.1", 0), _Handler)
    running.comments, running.posts = [], 0
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()


@pytest.mark.parametrize("how", ["late", "drop"])
def test_a_post_acted_on_but_unanswered_is_found_on_a_real_socket(
    server: _Server, how: str
) -> None:
    server.how = how
    api = f"http://127.0.0.1:{server.server_address[1]}"
    client = connect(TOKEN, api, timeout=1, retries=3, pace=False)
    adapter = GitHubAdapter(client, REPO, bot_login="b")
    created = adapter.create_comment(PR, "hello")
    assert server.posts == 1
    assert [c["id"] for c in server.comments] == [created]
