"""The PostgreSQL ledger under real concurrent writers: processes inserting overlapping events
for the same jobs and authors at once (the same event from several of them, a job that changes
author, two repositories of one organisation) leave every event once, every job's facts and
every author's tally equal to a full fold, and never deadlock."""

from __future__ import annotations

import multiprocessing
import random
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from rubricate.ledger.event import Event
from rubricate.ledger.fold import JobFacts, fold_job
from rubricate.ledger.pg_facts import FACT_COLUMNS, facts_from_row
from rubricate.ledger.pg_store import PostgresStore
from rubricate.ledger.reputation import LedgerCounts, Totals, reputation_document
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.tally import Tally
from tests.ledger.conftest import TEMPLATE
from tests.ledger.factory import completed_job, event
from tests.ledger.pg_writers import append_batches

psycopg = pytest.importorskip("psycopg")

REPO_ROOT = Path(__file__).resolve().parents[2]
BOUND = 240
"""Seconds every writer must finish in: longer means a deadlock or a lock never released."""
_names = iter(range(1, 1000))


def _database(pg_server: Any, label: str) -> str:
    """A new migrated database copied from the template."""
    name = f"rubricate_race_{label}_{next(_names)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    url: str = pg_server.url(name)
    return url


def _events() -> list[Event]:
    """Jobs of three authors in two repositories of the organisation o, completed, rated,
    disputed or abandoned, and a late event that gives o/a's job 3 to another author."""
    events: list[Event] = []
    for repo in ("o/a", "o/b"):
        for pr in range(1, 13):
            author = f"agent{pr % 3}"
            if pr % 4 == 0:
                events.append(event("first_submission", pr, pr, f"s{pr}", repo=repo, author=author))
                events.append(event("abandoned", pr, pr + 40, f"x{pr}", repo=repo, author=author))
                continue
            first, final = (
                [1 + (pr + i) % 5 for i in range(5)],
                [1 + (pr * i) % 5 for i in range(5)],
            )
            events += completed_job(pr, first, final, hours=pr, repo=repo, author=author)
            rating = 1 + pr % 5
            events.append(
                event("rated", pr, pr + 20, f"r{pr}", rating=rating, repo=repo, author=author)
            )
            if pr % 5 == 0:
                events.append(
                    event(
                        "disputed",
                        pr,
                        pr + 30,
                        f"d{pr}",
                        actor_role="maintain",
                        repo=repo,
                        author=author,
                    )
                )
    events.append(event("rated", 3, -5, "late", rating=4, repo="o/a", author="mover"))
    return events


def _batches(events: list[Event], seed: int) -> list[list[str]]:
    """All the events in a writer's own order, cut into batches of 1 to 25."""
    rng = random.Random(seed)
    lines = [e.to_line() for e in events]
    rng.shuffle(lines)
    batches = []
    while lines:
        size = rng.randint(1, 25)
        batches.append(lines[:size])
        lines = lines[size:]
    return batches


def _alive(process: Any) -> bool:
    return process.poll() is None if isinstance(process, subprocess.Popen) else process.is_alive()


def _wait(processes: list[Any], deadline: float) -> None:
    """Wait for every process until `deadline`; kill them all and fail when one is left."""
    while any(_alive(p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    if any(_alive(p) for p in processes):
        for process in processes:
            process.kill()
        pytest.fail(f"a writer still runs after {BOUND} s: a deadlock or a lock never released")


def _terms(totals: Totals) -> tuple[Any, ...]:
    return totals.counts, totals.tallies, totals.sums


def _check_against_a_full_fold(url: str, events: list[Event]) -> None:
    """Every event once; each job's facts and each author's tally as a full fold gives them."""
    by_id = {e.id: e for e in events}
    with PostgresStore(url) as store:
        rows = store.conn.execute("SELECT id, line FROM rubricate_events").fetchall()
        assert len(rows) == len(by_id), "an event was inserted twice or lost"
        assert {i for i, _ in rows} == set(by_id)
        jobs: dict[tuple[str, int], list[Event]] = defaultdict(list)
        for _, line in rows:
            stored = Event.model_validate_json(line)
            jobs[(stored.repo, stored.pr)].append(stored)
        folded = {key: fold_job(job).facts for key, job in jobs.items()}
        cursor = store.conn.cursor(binary=True)
        cursor.execute(f"SELECT {FACT_COLUMNS} FROM rubricate_jobs")
        kept = {(f.repo, f.pr): f for f in map(facts_from_row, cursor)}
        assert kept == folded, "a job's facts are not the fold of its events"
        authors: dict[tuple[str, str], list[JobFacts]] = defaultdict(list)
        for facts in folded.values():
            authors[(facts.repo, facts.author)].append(facts)
        tallies = {
            (repo, author): Tally.from_json(text)
            for repo, author, text in store.conn.execute(
                "SELECT repo, author, tally FROM rubricate_authors"
            )
        }
        configs = (ReputationConfig(), ReputationConfig.model_validate({"sla_hours": 20}))
        for key, tally in tallies.items():
            full = Tally.of(authors.get(key, []))
            assert (tally.counts, tally.events) == (full.counts, full.events), key
            for config in configs:
                assert _terms(tally.totals(config)) == _terms(full.totals(config)), (key, config)
        assert {k for k, t in tallies.items() if sum(t.counts.values())} == set(authors)
        newest = max(e.at for e in by_id.values())
        counts = LedgerCounts(len(rows), 0, 0, newest)
        assert store.reputation() == reputation_document(
            list(folded.values()), ReputationConfig(), counts
        )


@pytest.mark.slow
def test_racing_writers_leave_tallies_equal_to_a_full_fold(pg_server: Any, tmp_path: Path) -> None:
    url = _database(pg_server, "many")
    events = _events()
    context = multiprocessing.get_context("spawn")
    start, errors = context.Barrier(4), context.Queue()
    writers: list[Any] = [
        context.Process(target=append_batches, args=(url, _batches(events, seed), start, errors))
        for seed in range(4)
    ]
    for seed in (10, 11):  # and two `rubricate ledger import` processes, batch after batch
        files = []
        for number, batch in enumerate(_batches(events, seed)[:8]):
            path = tmp_path / f"w{seed}-{number}.jsonl"
            path.write_text("".join(line + "\n" for line in batch), encoding="utf-8")
            files.append(str(path))
        script = (
            "import sys\nfrom rubricate.cli.main import main\n"
            "for f in sys.argv[2:]:\n"
            "    assert main(['ledger', 'import', '--database-url', sys.argv[1], f]) == 0\n"
        )
        writers.append(
            subprocess.Popen(
                [sys.executable, "-c", script, url, *files],
                cwd=REPO_ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        )
    for writer in writers:
        if not isinstance(writer, subprocess.Popen):
            writer.start()
    _wait(writers, time.monotonic() + BOUND)
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    for writer in writers:
        if isinstance(writer, subprocess.Popen):
            if writer.returncode:
                failures.append(writer.stderr.read().decode() if writer.stderr else "")
        elif writer.exitcode:
            failures.append(f"writer exited {writer.exitcode}")
    assert not failures, "\n".join(failures)
    _check_against_a_full_fold(url, events)
    with PostgresStore(url) as store:  # the late event gave o/a's job 3 to another author
        row = store.conn.execute("SELECT author FROM rubricate_jobs WHERE repo = 'o/a' AND pr = 3")
        assert row.fetchone() == ("mover",)


def test_writers_inserting_the_same_events_in_opposite_orders_do_not_deadlock(
    pg_server: Any,
) -> None:
    """Both writers are held at the same event until each has inserted half its batch, the
    one from the first id up and the other from the last id down; then both go on."""
    url = _database(pg_server, "orders")
    events = sorted(_events(), key=lambda e: e.id)
    middle = events[len(events) // 2]
    lines = [e.to_line() for e in events]
    context = multiprocessing.get_context("spawn")
    start, errors = context.Barrier(2), context.Queue()
    writers = [
        context.Process(target=append_batches, args=(url, [batch], start, errors))
        for batch in (lines, lines[::-1])
    ]
    with PostgresStore(url) as holder, PostgresStore(url) as watch, holder.conn.transaction():
        holder.append([middle])  # uncommitted: both writers wait for it
        for writer in writers:
            writer.start()
        deadline = time.monotonic() + BOUND
        while _waiting(watch) < 2:  # (another connection: one transaction sees its first look)
            assert time.monotonic() < deadline, "the writers never reached the held event"
            assert all(w.is_alive() for w in writers), errors.get(timeout=5)
            time.sleep(0.05)
        raise psycopg.Rollback
    _wait(writers, time.monotonic() + BOUND)
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    assert not failures, "\n".join(failures)
    assert all(w.exitcode == 0 for w in writers)
    _check_against_a_full_fold(url, events)


def _waiting(store: PostgresStore) -> int:
    """How many connections to the database wait for a lock."""
    row = store.conn.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    ).fetchone()
    return int(row[0]) if row else 0


def test_a_write_of_many_jobs_holds_one_lock_not_one_per_job(pg_server: Any) -> None:
    """PostgreSQL's lock table holds about 64 locks per connection: an import of 100,000
    events (20,000 jobs) taking a lock per job failed with "out of shared memory"."""
    url = _database(pg_server, "locks")
    events = [
        e for pr in range(1, 301) for e in completed_job(pr, [3] * 5, [4] * 5, author=f"a{pr % 7}")
    ]
    with PostgresStore(url) as store, store.conn.transaction():
        assert store.append(events).added == len(events)
        row = store.conn.execute(
            "SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'"
        ).fetchone()
        assert row is not None
        assert row[0] == 1
    _check_against_a_full_fold(url, events)
    with PostgresStore(url) as store, store.conn.transaction():  # a few jobs: one lock each
        store.append([event("rated", 1, 50, "again", rating=5, author="a1")])
        held = store.conn.execute(
            "SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'"
        ).fetchone()
        assert held is not None
        assert held[0] == 2  # the ledger's lock, shared, and the job's
