"""`rubricate serve`, `rubricate worker` and `rubricate db migrate` from the command line: clear
errors for bad input, and a receiver process killed with SIGKILL loses no acknowledged delivery."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

from rubricate.cli.main import main
from rubricate.ledger.pg_schema import connect
from rubricate.serve.signature import sign
from tests.ledger.pg_server import Server, free_port
from tests.serve.conftest import SECRET


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_bytes(SECRET + b"\n")
    return path


def serve_args(url: str, key: Path, secret: Path, *extra: str) -> list[str]:
    return [
        "serve",
        "--database-url",
        url,
        "--app-id",
        "4242",
        "--private-key-file",
        str(key),
        "--webhook-secret-file",
        str(secret),
        *extra,
    ]


def test_bad_files_are_clear_errors(
    tmp_path: Path,
    db_url: str,
    app_key: Path,
    secret_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(serve_args(db_url, app_key, tmp_path / "none")) == 2
    assert "--webhook-secret-file" in capsys.readouterr().err
    not_pem = tmp_path / "key.pem"
    not_pem.write_text("hello\n")
    assert main(serve_args(db_url, not_pem, secret_file)) == 2
    assert "not a PEM private key" in capsys.readouterr().err
    broken = tmp_path / "broken.pem"
    broken.write_text("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")
    assert main(serve_args(db_url, broken, secret_file)) == 2
    assert "cannot sign with it" in capsys.readouterr().err
    args = serve_args(db_url, app_key, secret_file)
    args[args.index("4242")] = "my-app"
    assert main(args) == 2
    assert "App id must be a number" in capsys.readouterr().err


def test_an_unreachable_or_unmigrated_database_is_a_clear_error(
    pg_server: Server, app_key: Path, secret_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = f"postgresql://postgres@127.0.0.1:{free_port()}/none"
    assert main(serve_args(closed, app_key, secret_file)) == 2
    assert "cannot reach the database" in capsys.readouterr().err
    with connect(pg_server.url()) as conn:
        conn.execute("CREATE DATABASE rubricate_bare")
    assert main(serve_args(pg_server.url("rubricate_bare"), app_key, secret_file)) == 2
    assert "rubricate db migrate" in capsys.readouterr().err
    assert main(["db", "migrate", "--database-url", pg_server.url("rubricate_bare")]) == 0
    assert "job queue created" in capsys.readouterr().out
    assert main(["db", "migrate", "--database-url", pg_server.url("rubricate_bare")]) == 0
    assert "job queue present" in capsys.readouterr().out


def test_the_worker_needs_the_app_and_a_positive_concurrency(
    db_url: str,
    app_key: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("RUBRICATE_APP_ID", raising=False)
    assert main(["worker", "--database-url", db_url]) == 2
    assert "RUBRICATE_APP_ID" in capsys.readouterr().err
    monkeypatch.setenv("RUBRICATE_APP_ID", "4242")
    monkeypatch.setenv("RUBRICATE_APP_PRIVATE_KEY_FILE", str(app_key))
    assert main(["worker", "--database-url", db_url, "--concurrency", "0"]) == 2
    assert "--concurrency" in capsys.readouterr().err
    assert main(["worker", "--database-url", db_url, "--stalled-after", "0.5"]) == 2
    assert "--stalled-after must be 1 to 3600 seconds" in capsys.readouterr().err
    for nice in ("-1", "20"):
        assert main(["worker", "--database-url", db_url, "--nice", nice]) == 2
        assert f"--nice must be 0 to 19, not {nice}" in capsys.readouterr().err


def test_a_worker_runs_as_many_steps_lower_in_priority_as_asked(db_url: str, app_key: Path) -> None:
    env = {
        **os.environ,
        "RUBRICATE_APP_ID": "4242",
        "RUBRICATE_APP_PRIVATE_KEY_FILE": str(app_key),
        "GITHUB_API_URL": "http://127.0.0.1:9",  # the sweeper's call fails at once, locally
    }
    args = ["worker", "--database-url", db_url, "--nice", "5"]
    process = subprocess.Popen(
        [sys.executable, "-m", "rubricate", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        for _ in range(600):  # bounded: 60 s at most, until the worker is registered
            with connect(db_url) as conn:
                found = conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone()
            if found != (0,) or process.poll() is not None:
                break
            time.sleep(0.1)
        assert found == (1,)
        expected = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == expected
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)


def _start(args: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "rubricate", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    for _ in range(300):  # bounded: 30 s at most
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).ok:
                return process
        except requests.RequestException:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("rubricate serve did not start")


def test_a_receiver_killed_loses_no_acknowledged_delivery(
    db_url: str, app_key: Path, secret_file: Path
) -> None:
    port = free_port()
    args = serve_args(db_url, app_key, secret_file, "--port", str(port))
    acknowledged: list[str] = []
    payload = {"zen": "Design for failure.", "hook_id": 1}
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "ping",
        "X-Hub-Signature-256": sign(SECRET, body),
    }
    for _round in range(2):
        process = _start(args, port)
        try:
            for _ in range(20):
                guid = str(uuid.uuid4())
                answer = requests.post(
                    f"http://127.0.0.1:{port}/webhook",
                    data=body,
                    headers={**headers, "X-GitHub-Delivery": guid},
                    timeout=30,
                )
                if answer.status_code == 202:
                    acknowledged.append(guid)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
    with connect(db_url) as conn:
        stored = {g for (g,) in conn.execute("SELECT guid FROM rubricate_deliveries")}
    assert len(acknowledged) == 40
    assert set(acknowledged) <= stored
    process = _start(args, port)
    try:
        again = requests.post(
            f"http://127.0.0.1:{port}/webhook",
            data=body,
            headers={**headers, "X-GitHub-Delivery": acknowledged[0]},
            timeout=30,
        )
        assert again.status_code == 200
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)


def test_serve_with_a_worker_starts_and_stops_on_sigterm(
    db_url: str, app_key: Path, secret_file: Path
) -> None:
    port = free_port()
    process = _start(
        serve_args(db_url, app_key, secret_file, "--port", str(port), "--with-worker"), port
    )
    try:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    with connect(db_url) as conn:
        workers = conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone()
    assert workers == (0,)  # the worker said goodbye: nothing left looking stalled
