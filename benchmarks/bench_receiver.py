"""The receiver alone: `rubricate serve` (no worker) + PostgreSQL under signed deliveries at
fixed rates, posted from this process; prints JSON.

    python benchmarks/bench_receiver.py --payloads ../shared/github/webhooks
        [--rates 1000,2000] [--seconds 60] [--fsync] [--burners N]

The bodies are real webhook payloads (`--payloads`: a folder with GitHub's `pull_request.opened`
and `issue_comment` examples), given a PR number, head commit and installation per delivery:
~10% repeats of earlier deliveries, and of the rest 40% `opened`/`synchronize` (queued), 40%
`labeled` (stored as skipped) and 20% PR comments (queued). Each post opens its own connection,
as GitHub's deliveries do, at its scheduled time (an open loop: a slow answer does not delay the
next post). Per rate it reports the acknowledgement latency (p50/p95/p99/max, ms), the statuses,
the CPU per delivery of the receiver process and of PostgreSQL (postmaster and backends), this
process's CPU, the load average, and whether every acknowledged delivery is stored once with one
job for each queued one. It starts a throw-away PostgreSQL as the tests do (fsync off unless
`--fsync`). `--burners N` runs N processes that only spin during each rate,
as workers competing for the cores would.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proc_cpu import cpu_of, postmaster, tree_cpu
from serve_faults import app_key
from tests.ledger.pg_server import Server, bin_dir, free_port, start
from tests.serve.processes import kill, start_receiver, stop

from rubricate.ledger.pg_schema import connect, migrate
from rubricate.serve.queue import migrate_queue
from rubricate.serve.signature import sign

SECRET = b"bench-receiver secret"
PRS = 40
INSTALLATIONS = 4


@contextmanager
def local_server(fsync: bool) -> Iterator[Server]:
    """A throw-away PostgreSQL of this run's own, as the tests start it (fsync on if asked)."""
    found = bin_dir()
    if found is None:
        raise SystemExit("no PostgreSQL binaries: install postgresql")
    server = start(found)
    try:
        if fsync:  # started again with the tests' options but fsync on
            data, log = str(server.root / "data"), str(server.root / "log")
            options = server.options.replace("fsync=off", "fsync=on")
            server.run("pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "restart")
        yield server
    finally:
        server.stop()


Post = tuple[float, str, str, bytes]
"""(seconds from the start, GUID, event, body)."""


def plan(folder: Path, rate: int, seconds: float, seed: int) -> list[Post]:
    """Every post of one run at `rate` a minute, with its body signed later."""
    opened = json.loads((folder / "pull_request.opened.json").read_text())
    comment = json.loads((folder / "issue_comment.created.pull_request.json").read_text())
    rng = random.Random(seed)
    sent: list[Post] = []
    seen: set[int] = set()
    for n in range(int(rate * seconds / 60)):
        at = n * 60.0 / rate
        if sent and rng.random() < 0.1:
            _, guid, event, body = rng.choice(sent)
            sent.append((at, guid, event, body))
            continue
        number = 1 + rng.randrange(PRS)
        roll = rng.random()
        if roll < 0.2:
            event, payload = "issue_comment", copy.deepcopy(comment)
            payload["issue"]["number"] = number
        else:
            event, payload = "pull_request", copy.deepcopy(opened)
            if roll < 0.6:
                action = "labeled"
            else:
                action = "synchronize" if number in seen else "opened"
                seen.add(number)
            payload["action"] = action
            payload["number"] = payload["pull_request"]["number"] = number
            payload["pull_request"]["head"]["sha"] = f"{n:040x}"
        payload["installation"]["id"] = 100 + number % INSTALLATIONS
        sent.append((at, str(uuid.uuid4()), event, json.dumps(payload).encode()))
    return sent


def post(port: int, guid: str, event: str, body: bytes, signature: str) -> tuple[int, float]:
    """One delivery on its own connection: the status and the milliseconds to the answer."""
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": guid,
        "X-Hub-Signature-256": signature,
        "User-Agent": "GitHub-Hookshot/bench",
    }
    began = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", "/webhook", body=body, headers=headers)
        answer = conn.getresponse()
        answer.read()
        status = answer.status
    except OSError:
        status = 0
    finally:
        conn.close()
    return status, (time.perf_counter() - began) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def run_rate(
    port: int, receiver: int, server: Server, posts: list[Post], threads: int
) -> dict[str, Any]:
    """Post `posts` on schedule; latencies, CPU and load."""
    signed = [(at, guid, event, body, sign(SECRET, body)) for at, guid, event, body in posts]
    pg = postmaster(server.root / "data")
    before = (cpu_of(receiver), tree_cpu(pg), _own_cpu())
    results: list[tuple[str, int, float, float]] = []
    lock = threading.Lock()
    began = time.perf_counter()

    def one(item: tuple[float, str, str, bytes, str]) -> None:
        at, guid, event, body, signature = item
        late = max(0.0, time.perf_counter() - began - at)
        if late == 0.0:
            time.sleep(at - (time.perf_counter() - began) if at > 0 else 0)
        status, ms = post(port, guid, event, body, signature)
        with lock:
            results.append((guid, status, ms, late * 1000))

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, signed))
    elapsed = time.perf_counter() - began
    after = (cpu_of(receiver), tree_cpu(pg), _own_cpu())
    latencies = [ms for _, _, ms, _ in results]
    statuses: dict[str, int] = {}
    for _, status, _, _ in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    count = len(results)
    return {
        "posted": count,
        "seconds": round(elapsed, 1),
        "statuses": statuses,
        "ack_ms": {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(percentile(latencies, 0.95), 1),
            "p99": round(percentile(latencies, 0.99), 1),
            "max": round(max(latencies), 1),
        },
        "posts_started_late_ms_max": round(max(late for *_, late in results), 1),
        "receiver_cpu_ms_per_delivery": round((after[0] - before[0]) * 1000 / count, 2),
        "postgresql_cpu_ms_per_delivery": round((after[1] - before[1]) * 1000 / count, 2),
        "load_generator_cpu_ms_per_delivery": round((after[2] - before[2]) * 1000 / count, 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "acknowledged": sorted(g for g, s, _, _ in results if s in (200, 202)),
    }


@contextmanager
def burning(count: int) -> Iterator[None]:
    """`count` processes using all the CPU they are given, while the block runs."""
    spin = "import time\nwhile True: sum(range(10000))"
    burners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(count)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait(timeout=30)


def check(url: str, acknowledged: set[str]) -> dict[str, int]:
    """Whether every acknowledged delivery is stored once, with one job when queued."""
    with connect(url) as conn:
        stored = dict(conn.execute("SELECT guid, state FROM rubricate_deliveries").fetchall())
        jobs = dict(
            conn.execute(
                "SELECT args->>'guid', count(*) FROM procrastinate_jobs"
                " WHERE task_name = 'rubricate.handle' GROUP BY 1"
            ).fetchall()
        )
    queued = {g for g, state in stored.items() if state == "queued"}
    return {
        "acknowledged_lost": len(acknowledged - set(stored)),
        "queued_without_exactly_one_job": sum(1 for g in queued if jobs.get(g) != 1),
        "jobs_for_unqueued": sum(1 for g in jobs if g not in queued),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--payloads", type=Path, required=True)
    parser.add_argument("--rates", default="1000,2000", help="deliveries a minute, comma-separated")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long each rate runs")
    parser.add_argument("--threads", type=int, default=64, help="posts in flight at most")
    parser.add_argument("--fsync", action="store_true", help="a local server with fsync on")
    parser.add_argument("--burners", type=int, default=0, help="spinning processes beside")
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    report: dict[str, Any] = {"fsync": args.fsync, "burners": args.burners, "runs": {}}
    with local_server(args.fsync) as server:
        url = server.url()
        with connect(url) as conn:
            migrate(conn)
            migrate_queue(conn)
        with tempfile.TemporaryDirectory(prefix="bench-receiver-") as tmp:
            folder = Path(tmp)
            (folder / "secret").write_bytes(SECRET + b"\n")
            port = free_port()
            receiver = start_receiver(
                [
                    *("--database-url", url, "--app-id", "4242"),
                    *("--private-key-file", str(app_key(folder))),
                    *("--webhook-secret-file", str(folder / "secret")),
                ],
                port,
                dict(os.environ),
            )
            acknowledged: set[str] = set()
            try:
                for n, rate in enumerate(int(r) for r in args.rates.split(",")):
                    posts = plan(args.payloads, rate, args.seconds, args.seed + n)
                    with burning(args.burners):
                        result = run_rate(port, receiver.pid, server, posts, args.threads)
                    acknowledged |= set(result.pop("acknowledged"))
                    report["runs"][str(rate)] = result
            finally:
                stop(receiver) if receiver.poll() is None else kill(receiver)
        report["check"] = check(url, acknowledged)
    print(json.dumps(report, indent=2))
    held = not any(report["check"].values())
    answered = all(set(r["statuses"]) <= {"200", "202"} for r in report["runs"].values())
    return 0 if held and answered else 1


if __name__ == "__main__":
    raise SystemExit(main())
