"""`POST /webhook` on a loopback port: stored and queued in one transaction before the answer,
duplicates answered 200, and nothing stored for a bad signature, a body too big or a bad request."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
import requests

from rubricate.ledger.pg_schema import connect
from rubricate.serve.signature import sign
from tests.action.contract import SHARED
from tests.action.payloads import REPO, issue_comment_event, pull_request_event
from tests.ledger.pg_server import free_port
from tests.serve.conftest import SECRET, Receiver, running_receiver

AT = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
WEBHOOKS = SHARED / "github" / "webhooks"


def opened(number: int = 7) -> dict[str, Any]:
    payload = pull_request_event(
        "opened",
        number=number,
        author="alice",
        head_sha="a" * 40,
        base_sha="b" * 40,
        created=AT,
        at=AT,
    )
    payload["installation"] = {"id": 77}
    return payload


def post(
    receiver: Receiver,
    payload: dict[str, Any] | bytes,
    *,
    event: str = "pull_request",
    guid: str | None = None,
    secret: bytes = SECRET,
    headers: dict[str, str] | None = None,
) -> requests.Response:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    sent = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": guid or str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(secret, body),
    }
    sent.update(headers or {})
    return requests.post(f"{receiver.url}/webhook", data=body, headers=sent, timeout=30)


def stored(receiver: Receiver) -> list[tuple[str, str, str | None, int | None]]:
    with connect(receiver.db_url) as conn:
        rows = conn.execute(
            "SELECT guid, state, repo, pr FROM rubricate_deliveries ORDER BY received_at"
        ).fetchall()
    return [(g, s, r, p) for g, s, r, p in rows]


def jobs(receiver: Receiver) -> list[tuple[str, str | None, dict[str, Any]]]:
    with connect(receiver.db_url) as conn:
        rows = conn.execute(
            "SELECT task_name, lock, args FROM procrastinate_jobs ORDER BY id"
        ).fetchall()
    return [(t, lock, args) for t, lock, args in rows]


def test_a_delivery_is_stored_and_queued_with_its_prs_lock(receiver: Receiver) -> None:
    answer = post(receiver, opened(), guid="d-1")
    assert answer.status_code == 202
    assert answer.json() == {"delivery": "d-1", "state": "queued", "duplicate": False}
    assert stored(receiver) == [("d-1", "queued", REPO, 7)]
    assert jobs(receiver) == [("rubricate.handle", f"{REPO}#7", {"guid": "d-1"})]


def test_a_duplicate_delivery_is_answered_200_and_writes_nothing(receiver: Receiver) -> None:
    assert post(receiver, opened(), guid="d-2").status_code == 202
    again = post(receiver, opened(), guid="d-2")
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert len(stored(receiver)) == 1
    assert len(jobs(receiver)) == 1


def test_a_bad_signature_is_refused_and_nothing_is_stored(receiver: Receiver) -> None:
    assert post(receiver, opened(), secret=b"not the secret").status_code == 401
    missing = post(receiver, opened(), headers={"X-Hub-Signature-256": ""})
    assert missing.status_code == 401
    assert stored(receiver) == []
    assert jobs(receiver) == []


def test_the_rotated_secret_passes_too(receiver: Receiver) -> None:
    assert post(receiver, opened(), secret=b"an older secret").status_code == 202


def test_a_body_too_big_is_refused_and_nothing_is_stored(receiver: Receiver) -> None:
    payload = opened()
    payload["pull_request"]["body"] = "x" * (64 * 1024)
    assert post(receiver, payload).status_code == 413
    chunks = (b"{" if i == 0 else b" " * 1024 for i in range(100))  # no Content-Length
    streamed = requests.post(
        f"{receiver.url}/webhook",
        data=chunks,
        headers={"Content-Type": "application/json", "X-GitHub-Event": "ping"},
        timeout=30,
    )
    assert streamed.status_code == 413
    assert stored(receiver) == []


def test_a_body_that_is_not_json_by_its_content_type_is_refused(receiver: Receiver) -> None:
    form = post(receiver, opened(), headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    assert stored(receiver) == []


@pytest.mark.parametrize("missing", ["X-GitHub-Event", "X-GitHub-Delivery"])
def test_the_event_and_delivery_headers_are_required(receiver: Receiver, missing: str) -> None:
    assert post(receiver, opened(), headers={missing: ""}).status_code == 400
    assert stored(receiver) == []


def test_an_ignorable_event_is_stored_as_skipped_without_a_job(receiver: Receiver) -> None:
    labeled = opened()
    labeled["action"] = "labeled"
    assert post(receiver, labeled, guid="d-label").status_code == 202
    ping = {"zen": "Keep it logically awesome.", "hook_id": 1}
    assert post(receiver, ping, event="ping", guid="d-ping").status_code == 202
    plain = issue_comment_event(
        comment_id=5, body="/approve", actor="bob", number=3, pr_author="alice", at=AT
    )
    del plain["issue"]["pull_request"]
    assert post(receiver, plain, event="issue_comment", guid="d-plain").status_code == 202
    states = {guid: state for guid, state, _, _ in stored(receiver)}
    assert states == {"d-label": "skipped", "d-ping": "skipped", "d-plain": "skipped"}
    assert jobs(receiver) == []


def test_a_payload_the_bot_cannot_read_is_stored_as_rejected(receiver: Receiver) -> None:
    assert post(receiver, b"[1, 2]", guid="d-list").status_code == 202
    no_installation = opened()
    del no_installation["installation"]
    assert post(receiver, no_installation, guid="d-noinst").status_code == 202
    states = {guid: state for guid, state, _, _ in stored(receiver)}
    assert states == {"d-list": "rejected", "d-noinst": "rejected"}
    assert jobs(receiver) == []


def test_healthz_and_metrics(receiver: Receiver) -> None:
    assert requests.get(f"{receiver.url}/healthz", timeout=30).text == "ok\n"
    post(receiver, opened(), guid="d-m")
    text = requests.get(f"{receiver.url}/metrics", timeout=30).text
    assert 'rubricate_queue_jobs{status="todo"} 1' in text
    assert 'rubricate_deliveries{state="queued"} 1' in text
    assert "rubricate_queue_oldest_seconds " in text


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("pull_request.opened.json", "pull_request"),
        ("pull_request.synchronize.json", "pull_request"),
        ("pull_request.closed.merged.json", "pull_request"),
        ("issue_comment.created.pull_request.json", "issue_comment"),
    ],
)
def test_real_deliveries_are_classified_as_the_action_would(
    receiver: Receiver, name: str, event: str
) -> None:
    path = WEBHOOKS / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    body = path.read_bytes()
    payload = json.loads(body)
    assert post(receiver, body, event=event, guid="real").status_code == 202
    [(_, state, repo, pr)] = stored(receiver)
    from rubricate.bot.events import Ignored
    from rubricate.bot.payload import parse_event

    parsed = parse_event(event, payload)
    if isinstance(parsed, Ignored):
        assert state == "skipped"
    else:
        assert state == ("queued" if "installation" in payload else "rejected")
        assert repo == payload["repository"]["full_name"]
        assert pr == parsed.number  # type: ignore[union-attr]


def test_a_database_down_is_answered_503_so_github_counts_a_failure() -> None:
    closed = f"postgresql://rubricate@127.0.0.1:{free_port()}/nothing?connect_timeout=1"
    with running_receiver(closed, pool_timeout=1.0) as down:
        answer = post(down, opened())
        assert answer.status_code == 503
        assert "nothing was stored" in answer.json()["error"]
        assert requests.get(f"{down.url}/healthz", timeout=30).status_code == 503
        assert requests.get(f"{down.url}/metrics", timeout=30).status_code == 503
