"""The webhook receiver: a Starlette app with `POST /webhook`, `GET /healthz`, `GET /metrics`
(shell: HTTP and PostgreSQL).

`POST /webhook` answers only after the delivery and its job are committed: 202 when stored, 200
for a delivery already stored, 401 for a missing or wrong signature, 413 past the size limit, 415
for a body that is not JSON, 400 without the `X-GitHub-Event` or `X-GitHub-Delivery` header, 503
when the database cannot be reached (GitHub then shows the delivery as failed, and the sweeper
asks for it again). Nothing is stored before the signature is checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from rubricate.serve.intake import classify, store
from rubricate.serve.metrics import metrics_text
from rubricate.serve.signature import verify

MAX_BODY = 25 * 1024 * 1024
"""GitHub caps a webhook payload at 25 MB."""
_GUID = re.compile(r"^[A-Za-z0-9-]{1,64}$")
_EVENT = re.compile(r"^[a-z_]{1,64}$")


def create_app(
    pool: ConnectionPool[Any], secrets: Sequence[bytes], *, max_body: int = MAX_BODY
) -> Starlette:
    """The receiver, storing into the databases of `pool`, checking against `secrets`."""

    async def webhook(request: Request) -> Response:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return _error(415, "the webhook's content type must be application/json")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_body:
            return _error(413, f"the body is over {max_body} bytes")
        try:
            body = await _read(request, max_body)
        except ClientDisconnect:
            return _error(400, "the client went away")
        if body is None:
            return _error(413, f"the body is over {max_body} bytes")
        if not verify(secrets, body, request.headers.get("x-hub-signature-256")):
            return _error(401, "missing or wrong X-Hub-Signature-256")
        event = request.headers.get("x-github-event", "")
        guid = request.headers.get("x-github-delivery", "")
        if not _EVENT.match(event) or not _GUID.match(guid):
            return _error(400, "X-GitHub-Event and X-GitHub-Delivery are required")
        delivery = classify(guid, event, body)
        try:
            new = await run_in_pool(pool, lambda conn: store(conn, delivery))
        except _DOWN:
            return _error(503, "the database cannot be reached; nothing was stored")
        answer = {"delivery": guid, "state": delivery.state, "duplicate": not new}
        return JSONResponse(answer, status_code=202 if new else 200)

    async def healthz(_request: Request) -> Response:
        try:
            await run_in_pool(pool, lambda conn: conn.execute("SELECT 1").fetchone())
        except _DOWN:
            return PlainTextResponse("database unreachable\n", status_code=503)
        return PlainTextResponse("ok\n")

    async def metrics(_request: Request) -> Response:
        try:
            text = await run_in_pool(pool, metrics_text)
        except _DOWN:
            return PlainTextResponse("database unreachable\n", status_code=503)
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4")

    return Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
        ]
    )


async def _read(request: Request, limit: int) -> bytes | None:
    """The body, or None once it passes `limit` bytes (the rest is not read)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


_DOWN = (psycopg.OperationalError, PoolTimeout)
"""What a pooled connection raises when PostgreSQL cannot be reached."""


async def run_in_pool(pool: ConnectionPool[Any], work: Any) -> Any:
    """Run `work(conn)` on a pooled connection, in a thread.

    Connections are not checked before use (a round trip per delivery): a connection that turns
    out broken (PostgreSQL restarted since it was opened) is dropped by the pool and `work` runs
    again on another, at most once per connection the pool can hold, so a restart costs no
    delivery a failure. `work` must be safe to run again: a delivery whose commit was lost with
    the connection is found stored by the second run (200, a duplicate)."""

    def call() -> Any:
        for _ in range(pool.max_size):
            with pool.connection() as conn:
                try:
                    return work(conn)
                except psycopg.OperationalError:
                    if not conn.broken:
                        raise
        with pool.connection() as conn:
            return work(conn)

    return await run_in_threadpool(call)


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)
