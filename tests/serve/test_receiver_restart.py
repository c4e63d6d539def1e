"""The receiver's connections after PostgreSQL crashed and restarted: every pooled connection is
broken, and the first delivery after the restart is still stored and answered 202, not 503
(a broken connection is dropped and the delivery runs again on another)."""

from __future__ import annotations

import time

import pytest
import requests

from rubricate.ledger.pg_schema import connect
from tests.ledger.pg_server import Server
from tests.serve.conftest import running_receiver
from tests.serve.test_receiver import jobs, opened, post, stored

pytest.importorskip("procrastinate")


def test_the_first_delivery_after_a_database_restart_is_stored(own_server: Server) -> None:
    with running_receiver(own_server.url(), min_size=4) as receiver:
        receiver.pool.wait(timeout=30)  # four connections open, all to be broken by the crash
        assert post(receiver, opened(1)).status_code == 202
        own_server.crash_restart()
        for _ in range(100):  # bounded: the server accepts connections again within 10 s
            try:
                connect(own_server.url()).close()
                break
            except Exception:
                time.sleep(0.1)
        first = post(receiver, opened(2), guid="after-the-restart")
        assert first.status_code == 202, first.text
        assert post(receiver, opened(2), guid="after-the-restart").status_code == 200
        assert requests.get(f"{receiver.url}/healthz", timeout=30).status_code == 200
        assert [g for g, *_ in stored(receiver)][-1] == "after-the-restart"
        assert [args["guid"] for _, _, args in jobs(receiver)].count("after-the-restart") == 1
