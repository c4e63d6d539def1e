"""What writing to the PostgreSQL ledger costs: `rubricate ledger import --database-url` of N
events, and single appends as a worker makes them, with each author's tally kept.

Run: `python benchmarks/pg_write.py --server-url postgresql://USER@HOST:PORT/postgres
[--events 100000,1000000] [--singles 40] [--before-src DIR]` against a local server where USER may
create databases. For each size it writes the ledger benchmark's events (five a job, up to 500
authors, organisation `o`) to a JSONL file, creates a fresh database, migrates it and times the
import command as users run it (a new process); then it appends `--singles` events one at a time
through the store API (half to existing jobs, half opening new ones). With `--before-src` (the
`src` folder of another checkout, e.g. `git archive a508b14~1 src`, the last one without
tallies), the same import is also run with that code, on a database its own `db migrate` made.

Prints one JSON object: wall seconds, events a second, the CPU seconds of the Python process and
of PostgreSQL (for an import, every server process's, read from /proc: the backends, and those
that exited, as counted by their parent; for single appends, the appending connection's own
server process), the import process's peak resident memory, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_ledger import _event, job_events

from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore

TICK = os.sysconf("SC_CLK_TCK")


def server_cpu(conn: Any) -> Callable[[], float | None]:
    """A reader of PostgreSQL's CPU seconds so far (None when the server is not on this host)."""
    row = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'"
    ).fetchone()
    try:
        parent = int(_stat(int(row[0]))[1]) if row else None
    except OSError:
        parent = None

    def read() -> float | None:
        if parent is None:
            return None
        total = 0
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                fields = _stat(int(entry.name))
            except OSError:
                continue  # gone meanwhile
            if int(entry.name) == parent:
                total += sum(int(f) for f in fields[11:15])  # its own time and its children's
            elif int(fields[1]) == parent:
                total += int(fields[11]) + int(fields[12])
        return total / TICK

    return read


def backend_cpu(conn: Any) -> Callable[[], float | None]:
    """A reader of the CPU seconds of this connection's own server process (None when the
    server is not on this host)."""
    row = conn.execute("SELECT pg_backend_pid()").fetchone()

    def read() -> float | None:
        try:
            fields = _stat(int(row[0]))
        except (OSError, TypeError):
            return None
        return (int(fields[11]) + int(fields[12])) / TICK

    return read


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (fields[1] is the parent's pid)."""
    text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    return text[text.rindex(")") + 2 :].split()


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def write_events(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for job in job_events(count):
            out.writelines(event.to_line() + "\n" for event in job)


def database(server: str, name: str) -> str:
    """A new empty database on the server (made again when it exists)."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def cli(src: Path | None, *argv: str) -> subprocess.CompletedProcess[str]:
    return measured_cli(src, *argv)[0]


def measured_cli(src: Path | None, *argv: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """The command's result and its peak resident memory in MB (its own, from `wait4`)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    command = [sys.executable, "-m", "rubricate", *argv]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(command, child.returncode, out.read(), err.read())
    return done, usage.ru_maxrss / 1024


def timed_import(url: str, stream: Path, events: int, src: Path | None) -> dict[str, Any]:
    """Migrate with that code, then time its import of the stream."""
    made = cli(src, "db", "migrate", "--database-url", url)
    if made.returncode:
        return {"error": made.stderr.strip().splitlines()[-1:]}
    with _conn(url) as conn:
        pg = server_cpu(conn)
        pg_before, cpu_before, started = pg(), children_cpu(), time.perf_counter()
        done, peak = measured_cli(src, "ledger", "import", "--database-url", url, str(stream))
        wall = time.perf_counter() - started
        pg_after = pg()
    result: dict[str, Any] = {
        "wall_seconds": round(wall, 2),
        "python_peak_rss_mb": round(peak),
        "python_cpu_seconds": round(children_cpu() - cpu_before, 2),
        "postgres_cpu_seconds": None
        if pg_before is None or pg_after is None
        else round(pg_after - pg_before, 2),
    }
    if done.returncode:
        lines = done.stderr.strip().splitlines()
        result["error"] = lines[-1] if lines else f"exit {done.returncode}"
    else:
        result["events_per_second"] = round(events / wall)
        result["said"] = done.stdout.strip()
    return result


def _conn(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def singles(url: str, count: int, jobs: int) -> dict[str, Any]:
    """Append `count` events one at a time: half rate an existing job, half open a new one."""
    walls, cpus = [], []
    with PostgresStore(url) as store:
        pg = backend_cpu(store.conn)
        pg_before = pg()
        for n in range(count):
            pr = 1 + (n * 7919) % jobs if n % 2 == 0 else jobs + 1 + n
            kind = "rated" if n % 2 == 0 else "first_submission"
            extra: dict[str, Any] = (
                {"rating": 4} if kind == "rated" else {"source": "auto", "scores": {"quality": 4.0}}
            )
            common = {"repo": "o/r", "pr": pr, "author": f"agent-{pr % 500}", "head_sha": "0" * 40}
            fields = {**common, **extra}
            event = Event.model_validate(_event(kind, _at(n), f"single-{os.getpid()}-{n}", fields))
            started, cpu = time.perf_counter(), time.process_time()
            added = store.append([event]).added
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu)
            assert added == 1
        pg_after = pg()
    walls.sort()
    cpus.sort()
    return {
        "appends": count,
        "wall_ms_median": round(1000 * walls[len(walls) // 2], 2),
        "wall_ms_max": round(1000 * walls[-1], 2),
        "python_cpu_ms_median": round(1000 * cpus[len(cpus) // 2], 2),
        "backend_cpu_ms_each": None
        if pg_before is None or pg_after is None
        else round(1000 * (pg_after - pg_before) / count, 2),
    }


def _at(n: int) -> datetime:
    return datetime(2025, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-url", required=True, help="a database URL on the server")
    parser.add_argument("--events", default="100000", help="comma-separated sizes")
    parser.add_argument("--singles", type=int, default=40)
    parser.add_argument("--before-src", type=Path, help="another checkout's src folder")
    args = parser.parse_args()
    results: dict[str, Any] = {"sizes": {}}
    with tempfile.TemporaryDirectory(prefix="rubricate-pg-write-") as tmp:
        for size in (int(s) for s in args.events.split(",")):
            stream = Path(tmp) / f"{size}.jsonl"
            write_events(stream, size)
            row: dict[str, Any] = {}
            url = database(args.server_url, f"rubricate_bench_write_{size}")
            row["import"] = timed_import(url, stream, size, None)
            if "error" not in row["import"] and args.singles:
                row["single_append"] = singles(url, args.singles, max(1, size // 5))
            if args.before_src is not None:
                before = database(args.server_url, f"rubricate_bench_write_{size}_before")
                row["import_before"] = timed_import(before, stream, size, args.before_src)
            results["sizes"][str(size)] = row
            print(json.dumps({size: row}), file=sys.stderr)
    results["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
