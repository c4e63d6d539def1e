"""`serve_load.py --rate N --minutes M`: signed deliveries at a fixed rate against `rubricate
serve` + worker processes + a throw-away PostgreSQL + the fake GitHub with GitHub's rate limits,
with worker kills, receiver kills and PostgreSQL crash-restarts on a schedule.

The deliveries: ~10% repeats of earlier ones, about half of the rest ignorable (`labeled`, on PRs
numbered from 1000, so any API call about them shows), the others `opened`/`synchronize` on
`--prs` PRs, each with its own head commit in a local repository, spread over `--installations`
App installations (GitHub's limits hold per installation). A post that is not answered 200/202
(the receiver is down, or the database) is posted again a second later, as GitHub's redelivery
would. The JSON says what held: lost deliveries, duplicates, calls repeated or made inside a
`retry-after` window, latencies, and the time to drain after the last fault.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

from proc_cpu import Sampler, postmaster
from serve_figures import percentiles, put_back, slow_by_bucket, top_statements, track_statements
from tests.action.fake_github import FakeGitHub, Limits
from tests.action.payloads import issue_comment_event, pull_request_event, review_event
from tests.action.scenario import AUTHOR, START, WRITER, Scenario, git
from tests.ledger.pg_server import Server, bin_dir, free_port, start
from tests.serve.github_http import Routes, serving
from tests.serve.processes import (
    Workers,
    add_app_routes,
    kill,
    post_until_acknowledged,
    start_receiver,
    stop,
    unfinished,
    worker_env,
)

from rubricate.ledger.pg_schema import connect, migrate
from rubricate.serve.queue import migrate_queue

SECRET = b"serve-load secret"
IGNORABLE_FROM = 1000
"""PR numbers of ignorable deliveries start here."""


def app_key(folder: Path) -> Path:
    """A fresh RSA private key in PEM, as GitHub hands an App."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = folder / "app.pem"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    return path


def push_heads(scenario: Scenario, prs: int) -> dict[int, str]:
    """One head commit per PR, pushed to `refs/pull/N/head`."""
    heads: dict[int, str] = {}
    for number in range(1, prs + 1):
        report = scenario.work / "out" / "report.json"
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(f'{{"widgets": ["a", "b"], "total": 2, "pr": {number}}}\n')
        git(scenario.work, "add", "-A")
        git(scenario.work, "commit", "--quiet", "-m", f"PR {number}")
        heads[number] = git(scenario.work, "rev-parse", "HEAD")
        refspec = f"HEAD:refs/pull/{number}/head"
        git(scenario.work, "push", "--quiet", "--force", str(scenario.remote), refspec)
    return heads


def plan(args: argparse.Namespace, scenario: Scenario, heads: dict[int, str]) -> list[Any]:
    """(seconds from the start, guid, event, payload) for every post."""
    rng = random.Random(args.seed)
    total = int(args.rate * args.minutes)
    sent: list[tuple[float, str, str, dict[str, Any]]] = []
    opened: set[int] = set()
    for n in range(total):
        at = n * 60.0 / args.rate
        if sent and rng.random() < args.duplicates:
            _, guid, event, payload = rng.choice(sent)
            sent.append((at, guid, event, payload))
            continue
        if rng.random() < 0.5:
            number, action = IGNORABLE_FROM + rng.randrange(100), "labeled"
            head = heads[1]
        else:
            number = rng.randrange(1, args.prs + 1)
            if number in opened and args.comments and rng.random() < args.comments:
                sent.append((at, str(uuid.uuid4()), *_command(n, number, scenario, heads, args)))
                continue
            action = "synchronize" if number in opened else "opened"
            opened.add(number)
            head = heads[number]
        payload = pull_request_event(
            action,
            number=number,
            author=AUTHOR,
            head_sha=head,
            base_sha=scenario.base_sha,
            created=START,
            at=START + timedelta(seconds=n),
            body="Closes #12",
        )
        payload["installation"] = {"id": 100 + number % args.installations}
        sent.append((at, str(uuid.uuid4()), "pull_request", payload))
    return sent


COMMANDS = (
    "/score spec=4 comp=4 qual=3 ver=3 format=2 -- looked at the report",
    "/approve spec=3 comp=2 qual=2 ver=2 format=2",
)


def _command(
    n: int, number: int, scenario: Scenario, heads: dict[int, str], args: argparse.Namespace
) -> tuple[str, dict[str, Any]]:
    """A maintainer's command on an opened PR: a `/score` or `/approve` comment, or a review
    whose body scores (event, payload)."""
    at = START + timedelta(seconds=n)
    body = COMMANDS[n % 2]
    if n % 3 == 2:
        payload = review_event(
            review_id=n + 1,
            body=COMMANDS[0],
            actor=WRITER,
            number=number,
            pr_author=AUTHOR,
            head_sha=heads[number],
            base_sha=scenario.base_sha,
            at=at,
        )
        event = "pull_request_review"
    else:
        payload = issue_comment_event(
            comment_id=n + 1, body=body, actor=WRITER, number=number, pr_author=AUTHOR, at=at
        )
        event = "issue_comment"
    payload["installation"] = {"id": 100 + number % args.installations}
    return event, payload


class Faults:
    """Worker kills, receiver kills and PostgreSQL crash-restarts at their times."""

    def __init__(self, args: argparse.Namespace, duration: float) -> None:
        times: list[tuple[float, str]] = []
        for kind, count in (
            ("worker", args.worker_kills),
            ("receiver", args.receiver_kills),
            ("postgresql", args.pg_restarts),
        ):
            offset = {"worker": 0.0, "receiver": 0.13, "postgresql": 0.27}[kind]
            for k in range(count):
                times.append((duration * ((k + 1) / (count + 1) + offset / (count + 1)), kind))
        self.schedule = sorted(times)
        self.done: list[tuple[float, str, float]] = []
        """Each fault done: when it ended (seconds into the run), its kind, how long it took."""
        self.windows: list[tuple[float, float]] = []
        """Each fault's start and end, in seconds since the epoch (the database's clock)."""


def run_faults(args: argparse.Namespace) -> dict[str, Any]:
    """Run the whole load with its faults; the report."""
    binaries = bin_dir()
    if binaries is None:
        raise SystemExit("no PostgreSQL binaries: install postgresql")
    load_before = os.getloadavg()
    began_cpu = _cpu()
    with tempfile.TemporaryDirectory(prefix="rubricate-load-") as tmp:
        folder = Path(tmp)
        server = start(binaries)
        try:
            with connect(server.url()) as conn:
                migrate(conn)
                migrate_queue(conn)
            if args.pg_statements:
                track_statements(server)
            report = _run(args, folder, server)
            if args.pg_statements:
                report["postgresql_top_statements"] = top_statements(server.url())
            return report | {
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "cpu_seconds_user_sys_with_children": round(_cpu() - began_cpu, 1),
            }
        finally:
            if args.keep_logs:
                _keep_logs(folder / "logs", server.root / "log", Path(args.keep_logs))
            server.stop()


def workers_ready(url: str, count: int, timeout: float = 60.0) -> float:
    """Wait until `count` workers have registered with the queue, as a running service's have
    before its deliveries come (a killed worker's restart is still measured under load); the
    seconds it took."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        with connect(url) as conn:
            row = conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone()
        if row and row[0] >= count:
            break
        time.sleep(0.1)
    return round(time.monotonic() - began, 1)


def _keep_logs(workers: Path, postgresql: Path, into: Path) -> None:
    """Copy the workers' logs and PostgreSQL's into `into` (the run's folder goes at its end)."""
    into.mkdir(parents=True, exist_ok=True)
    if workers.is_dir():
        shutil.copytree(workers, into / "workers", dirs_exist_ok=True)
    if postgresql.is_file():
        shutil.copy(postgresql, into / "postgresql.log")


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _run(args: argparse.Namespace, folder: Path, server: Server) -> dict[str, Any]:
    routes = Routes()
    limits = Limits(per_minute=args.writes_per_minute, per_hour=args.requests_per_hour)
    fake = FakeGitHub(routes, limits=limits)  # type: ignore[arg-type]
    add_app_routes(routes)
    (folder / "repos").mkdir()
    scenario = Scenario(folder / "repos", fake)
    heads = push_heads(scenario, args.prs)
    posts = plan(args, scenario, heads)
    key = app_key(folder)
    secret = folder / "secret"
    secret.write_bytes(SECRET + b"\n")
    url = server.url()
    duration = args.minutes * 60.0
    faults = Faults(args, duration)
    acked: dict[str, float] = {}
    lock = threading.Lock()
    with serving(routes) as github:
        env = worker_env(github, fake, key, scenario.remote)
        logs = folder / "logs"
        logs.mkdir()
        workers = Workers(url, env, logs, stalled_after=args.stalled_after, nice=args.worker_nice)
        running = [workers.start(args.worker_concurrency, f"w{n}") for n in range(args.workers)]
        port = free_port()
        receiver_args = ["--database-url", url, "--app-id", "4242"]
        receiver_args += ["--private-key-file", str(key), "--webhook-secret-file", str(secret)]
        receiver = start_receiver(receiver_args, port, env)
        base = f"http://127.0.0.1:{port}"
        ready_in = workers_ready(url, args.workers)

        def one(guid: str, event: str, payload: dict[str, Any]) -> None:
            try:
                tries, ms = post_until_acknowledged(base, SECRET, guid, event, payload, 300)
            except AssertionError:
                return
            with lock:
                acked.setdefault(guid, ms)
                redelivered[guid] = redelivered.get(guid, 0) + tries - 1

        redelivered: dict[str, int] = {}
        processes = {"receiver": [receiver]}

        def roles() -> dict[str, list[int]]:
            try:
                pg = [postmaster(server.root / "data")]
            except (OSError, ValueError):  # between a crash and the restart
                pg = []
            workers_now = [p.pid for p in running]
            return {"receiver": [processes["receiver"][0].pid], "workers": workers_now} | {
                "postgresql": pg
            }

        sampler = Sampler(roles).__enter__()
        own_began = _own_cpu()
        t0, t0_wall = time.monotonic(), time.time()

        def inject() -> None:
            for victim, (at, kind) in enumerate(faults.schedule):
                delay = t0 + at - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                began, began_wall = time.monotonic(), time.time()
                if kind == "worker":
                    slot = victim % len(running)
                    kill(running[slot])
                    running[slot] = workers.start(args.worker_concurrency, f"w{victim}")
                elif kind == "receiver":
                    kill(processes["receiver"][0])
                    processes["receiver"][0] = start_receiver(receiver_args, port, env)
                else:
                    server.crash_restart()
                ended = time.monotonic()
                faults.done.append((ended - t0, kind, ended - began))
                faults.windows.append((began_wall, time.time()))

        injector = threading.Thread(target=inject, daemon=True)
        injector.start()
        with ThreadPoolExecutor(args.senders) as pool:
            for at, guid, event, payload in posts:
                delay = t0 + at - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                pool.submit(one, guid, event, payload)
        sent_at = time.monotonic() - t0
        injector.join()
        receiver = processes["receiver"][0]
        last_fault = max([t for t, _, _ in faults.done], default=0.0)
        deadline = time.monotonic() + args.drain_timeout
        left = unfinished(url)
        while any(left.values()) and time.monotonic() < deadline:
            time.sleep(1)
            left = unfinished(url)
        drained_at = time.monotonic() - t0
        sampler.__exit__()
        own = _own_cpu() - own_began
        for process in [receiver, *running]:
            stop(process)
    cpu = sampler.seconds() | {"load_generator_and_fake_github": round(own, 1)}
    return _report(args, url, posts, acked, routes, limits, fake, faults.windows, t0_wall) | {
        "cpu_seconds_by_process": cpu,
        "cpu_ms_per_delivery_posted": {
            role: round(1000 * seconds / max(1, len(posts)), 1) for role, seconds in cpu.items()
        },
        "seconds_until_workers_ready": ready_in,
        "posts_again_after_no_answer": sum(redelivered.values()),
        "sent_seconds": round(sent_at, 1),
        "faults": [[round(t, 1), kind, round(took, 2)] for t, kind, took in faults.done],
        "left_at_the_end": left,
        "jobs_put_back_because_their_worker_was": put_back(logs),
        "seconds_to_drain_after_last_fault": round(drained_at - last_fault, 1)
        if not any(left.values())
        else None,
        "seconds_to_drain_after_last_delivery": round(drained_at - sent_at, 1)
        if not any(left.values())
        else None,
    }


def _report(
    args: argparse.Namespace,
    url: str,
    posts: list[Any],
    acked: dict[str, float],
    routes: Routes,
    limits: Limits,
    fake: FakeGitHub,
    windows: list[tuple[float, float]],
    began: float,
) -> dict[str, Any]:
    with connect(url) as conn:
        states = dict(conn.execute("SELECT guid, state FROM rubricate_deliveries").fetchall())
        total, distinct = conn.execute(
            "SELECT count(*), count(DISTINCT id) FROM rubricate_events"
        ).fetchone() or (0, 0)
        skipped_jobs = conn.execute(
            "SELECT count(*) FROM procrastinate_jobs j JOIN rubricate_deliveries d"
            " ON d.guid = j.args->>'guid' WHERE d.state = 'skipped'"
        ).fetchone()
        spans = [
            (float(received), float(published))
            for received, published in conn.execute(
                "SELECT extract(epoch FROM d.received_at), extract(epoch FROM o.published_at)"
                " FROM rubricate_outbox o JOIN rubricate_deliveries d ON d.guid = o.delivery"
                " WHERE o.published_at IS NOT NULL"
            )
        ]
    published = [end - start for start, end in spans]
    untouched = [
        end - start
        for start, end in spans
        if not any(began <= end and start <= ended for began, ended in windows)
    ]
    writes = [
        c
        for c in routes.calls
        if c.request.method != "GET" and "/app/" not in str(c.request.url)  # not tokens
    ]
    seen: set[tuple[str, str, bytes]] = set()
    repeated = 0
    for call in writes:
        body = call.request.body or b""
        key = (str(call.request.method), str(call.request.url), bytes(body) if body else b"")
        repeated += key in seen
        seen.add(key)
    ignorable_calls = sum(
        1
        for c in routes.calls
        for n in range(IGNORABLE_FROM, IGNORABLE_FROM + 100)
        if f"/issues/{n}/" in str(c.request.url) or f"/pulls/{n}" in str(c.request.url)
    )
    comments: dict[int, int] = {}
    for comment in fake.comments.values():
        if comment["user"]["login"] == fake.bot_login:
            comments[comment["_pr"]] = comments.get(comment["_pr"], 0) + 1
    runs = [(r["head_sha"], r["name"], r.get("external_id")) for r in fake.check_runs.values()]
    lost = [g for g in acked if g not in states]
    unprocessed = [g for g in acked if states.get(g) == "queued"]
    return {
        "rate_per_minute": args.rate,
        "minutes": args.minutes,
        "workers": args.workers,
        "worker_concurrency": args.worker_concurrency,
        "installations": args.installations,
        "posted": len(posts),
        "distinct": len({guid for _, guid, _, _ in posts}),
        "acknowledged": len(acked),
        "lost": len(lost),
        "acknowledged_never_processed": len(unprocessed),
        "states": {s: list(states.values()).count(s) for s in sorted(set(states.values()))},
        "duplicate_ledger_events": total - distinct,
        "duplicate_comments": sum(n - 1 for n in comments.values()),
        "duplicate_check_runs": len(runs) - len(set(runs)),
        "github_requests": len(routes.calls),
        "github_writes": len(writes),
        "repeated_github_calls_percent": round(100 * repeated / max(1, len(writes)), 2),
        "rate_limited_answers": limits.refused,
        "requests_inside_retry_after": limits.inside_retry_after,
        "api_calls_for_ignorable_events": ignorable_calls,
        "jobs_for_ignorable_events": skipped_jobs[0] if skipped_jobs else 0,
        "ack_ms": percentiles(list(acked.values())),
        "received_to_published_s": percentiles(published),
        "received_to_published_s_no_fault_while_in_flight": percentiles(untouched),
        "published_with_a_fault_while_in_flight": len(published) - len(untouched),
        "over_1s_to_publish_by_received_second": slow_by_bucket(spans, began),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the fixed-rate run with faults."""
    parser.add_argument("--rate", type=float, help="deliveries a minute (turns this mode on)")
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--worker-concurrency", type=int, default=4)
    parser.add_argument("--worker-kills", type=int, default=0)
    parser.add_argument("--receiver-kills", type=int, default=0)
    parser.add_argument("--pg-restarts", type=int, default=0)
    add_mix_arguments(parser)
    parser.add_argument("--senders", type=int, default=32, help="threads posting deliveries")
    parser.add_argument("--stalled-after", type=float, default=10.0)
    parser.add_argument(
        "--worker-nice", type=int, default=0, help="workers' --nice (lower CPU priority)"
    )
    parser.add_argument("--writes-per-minute", type=int, default=80)
    parser.add_argument("--requests-per-hour", type=int, default=5000)
    parser.add_argument("--drain-timeout", type=float, default=300.0)
    parser.add_argument(
        "--pg-statements", action="store_true", help="report PostgreSQL's costliest statements"
    )
    parser.add_argument(
        "--keep-logs", metavar="DIR", help="copy the workers' and PostgreSQL's logs into DIR"
    )


def add_mix_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the deliveries' mix (`plan`) beside serve_load's --duplicates and --seed."""
    parser.add_argument("--prs", type=int, default=40, help="PRs the PR events go to")
    parser.add_argument("--installations", type=int, default=4, help="App installations")
    parser.add_argument(
        "--comments",
        type=float,
        default=0.0,
        help="share of PR events on an opened PR sent as a maintainer's /score or /approve"
        " comment or scoring review instead",
    )
