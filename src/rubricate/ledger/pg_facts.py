"""The PostgreSQL ledger's derived rows: each job's facts (`rubricate_jobs`) and each author's
tally (`rubricate_authors`), kept in the transaction that inserts their events (shell).

A job's new facts replace its old ones, and its author's tally takes the old facts away and adds
the new ones, so a write costs what it changed, not the author's whole history. A tally is counted
again from the author's jobs when it is new, or when a job changed hands (an earlier event with
another author arrived late). Jobs are locked (`lock_jobs`, before their events are read) and
authors' rows too, each set in one order, so concurrent writers take turns without deadlocks.
A write of many chunks (an import) keeps its tallies in memory and stores each once at the end:
updated once a chunk, an author's row would leave a version per chunk that every later read walks
(none can be pruned before the commit). A write of more than `MANY_JOBS` jobs takes one
ledger-wide lock instead of a lock per job:
PostgreSQL's lock table holds about 64 locks per connection, and an import of 100,000 events
would otherwise need 20,000 of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from rubricate.ledger.fold import JobFacts
from rubricate.ledger.tally import Tally

if TYPE_CHECKING:
    import psycopg

JobKey = tuple[str, int]
AuthorKey = tuple[str, str]
FACT_NAMES = tuple(field.name for field in fields(JobFacts))
FACT_COLUMNS = ", ".join(FACT_NAMES)
_RATINGS = FACT_NAMES.index("ratings")


def owner_of(repo: str) -> str:
    """The organisation (or user) a repository `OWNER/NAME` belongs to."""
    return repo.split("/", 1)[0]


MANY_JOBS = 64
"""Above this many jobs, a write locks the whole ledger rather than each job."""
LEDGER_LOCK = (24_2401, 0)
"""The ledger-wide advisory lock (two keys: apart from the jobs' one-key locks and from
`rubricate serve`'s PR locks): every writer holds it shared, a write of many jobs alone."""


def lock_ledger(conn: psycopg.Connection[Any]) -> None:
    """Take the ledger-wide lock, alone, for the rest of the transaction."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", LEDGER_LOCK)


def lock_jobs(conn: psycopg.Connection[Any], jobs: Sequence[JobKey]) -> None:
    """Take each job's lock for the rest of the transaction (`jobs` sorted), or the ledger's
    when there are more than `MANY_JOBS`."""
    if len(jobs) > MANY_JOBS:
        lock_ledger(conn)
        return
    conn.execute("SELECT pg_advisory_xact_lock_shared(%s, %s)", LEDGER_LOCK)
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(k.repo || '#' || k.pr, 0))"
        " FROM unnest(%s::text[], %s::integer[]) WITH ORDINALITY AS k(repo, pr, n) ORDER BY n",
        _columns(jobs),
    ).fetchall()


def write_facts(
    conn: psycopg.Connection[Any],
    facts: Sequence[JobFacts],
    held: dict[AuthorKey, Tally] | None = None,
) -> None:
    """Upsert the jobs' facts and bring their authors' tallies up to date: in their rows, or,
    given `held`, in it (tallies this transaction has locked and not stored yet;
    `store_tallies` writes them)."""
    if not facts:
        return
    ordered = sorted(facts, key=lambda f: (f.repo, f.pr))
    old = _read_jobs(conn, [(f.repo, f.pr) for f in ordered])
    with conn.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO rubricate_jobs (owner, {FACT_COLUMNS})"
            f" VALUES (%s, {', '.join(['%s'] * len(FACT_NAMES))})"
            " ON CONFLICT (repo, pr) DO UPDATE SET"
            f" {', '.join(f'{c} = excluded.{c}' for c in FACT_NAMES[2:])}",
            [(owner_of(f.repo), *facts_row(f)) for f in ordered],
        )
    _update_tallies(conn, old, ordered, held)


def _update_tallies(
    conn: psycopg.Connection[Any],
    old: Mapping[JobKey, JobFacts],
    new: Sequence[JobFacts],
    held: dict[AuthorKey, Tally] | None,
) -> None:
    moved = {
        (gone.repo, gone.author)
        for f in new
        if (gone := old.get((f.repo, f.pr))) is not None and gone.author != f.author
    }
    wanted = {(f.repo, f.author) for f in new} | moved
    kept = held if held is not None else {}
    tallies: dict[AuthorKey, Tally | None] = {k: kept[k] for k in wanted if k in kept}
    tallies.update(_lock_tallies(conn, wanted - kept.keys()))
    recount = moved | {key for key, tally in tallies.items() if tally is None}
    for f in new:
        tally = tallies[(f.repo, f.author)]
        if (f.repo, f.author) in recount or tally is None:
            continue
        before = old.get((f.repo, f.pr))
        if before is not None and before.author == f.author:
            tally.remove(before)
        tally.add(f)
    counted = _count(conn, recount)
    updated = {**{k: t for k, t in tallies.items() if t is not None}, **counted}
    if held is None:
        store_tallies(conn, updated)
    else:
        held.update(updated)


def lock_authors(
    conn: psycopg.Connection[Any], jobs: Sequence[JobKey], authors: set[AuthorKey]
) -> None:
    """Lock these authors' rows and those of the jobs' present authors, in one order."""
    present = conn.execute(
        "SELECT j.repo, j.author FROM rubricate_jobs j"
        " JOIN unnest(%s::text[], %s::integer[]) AS k(repo, pr)"
        " ON j.repo = k.repo AND j.pr = k.pr",
        _columns(jobs),
    ).fetchall()
    _lock_tallies(conn, authors | {(repo, author) for repo, author in present})


def fill_tallies(conn: psycopg.Connection[Any]) -> None:
    """Every author's tally, counted from the jobs there are (migration 3's `then` step)."""
    authors = {(r, a) for r, a in conn.execute("SELECT DISTINCT repo, author FROM rubricate_jobs")}
    _lock_tallies(conn, authors)
    store_tallies(conn, _count(conn, authors))


def _lock_tallies(
    conn: psycopg.Connection[Any], authors: set[AuthorKey]
) -> dict[AuthorKey, Tally | None]:
    """Each author's row, made when missing and locked; its tally (None: to be counted)."""
    keys = sorted(authors)
    if not keys:
        return {}
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO rubricate_authors (repo, author, owner, tally) VALUES (%s, %s, %s, '')"
            " ON CONFLICT (repo, author) DO NOTHING",
            [(repo, author, owner_of(repo)) for repo, author in keys],
        )
    rows = conn.execute(
        "SELECT a.repo, a.author, a.tally FROM rubricate_authors a"
        " JOIN unnest(%s::text[], %s::text[]) AS k(repo, author)"
        " ON a.repo = k.repo AND a.author = k.author ORDER BY a.repo, a.author FOR UPDATE OF a",
        _columns(keys),
    ).fetchall()
    return {(repo, author): Tally.from_json(text) if text else None for repo, author, text in rows}


def _count(conn: psycopg.Connection[Any], authors: set[AuthorKey]) -> dict[AuthorKey, Tally]:
    """The tallies of these authors, counted from all their jobs."""
    keys = sorted(authors)
    if not keys:
        return {}
    found: dict[AuthorKey, list[JobFacts]] = {key: [] for key in keys}
    cursor = conn.cursor(binary=True)
    cursor.execute(
        f"SELECT {', '.join(f'j.{c}' for c in FACT_NAMES)} FROM rubricate_jobs j"
        " JOIN unnest(%s::text[], %s::text[]) AS k(repo, author)"
        " ON j.repo = k.repo AND j.author = k.author",
        _columns(keys),
    )
    for row in cursor:
        facts = facts_from_row(row)
        found[(facts.repo, facts.author)].append(facts)
    return {key: Tally.of(jobs) for key, jobs in found.items()}


def store_tallies(conn: psycopg.Connection[Any], tallies: Mapping[AuthorKey, Tally]) -> None:
    """Write these tallies into their authors' rows (locked by this transaction)."""
    with conn.cursor() as cursor:
        cursor.executemany(
            "UPDATE rubricate_authors SET tally = %s WHERE repo = %s AND author = %s",
            [(tally.to_json(), *key) for key, tally in sorted(tallies.items())],
        )


def _read_jobs(conn: psycopg.Connection[Any], jobs: Sequence[JobKey]) -> dict[JobKey, JobFacts]:
    cursor = conn.cursor(binary=True)
    cursor.execute(
        f"SELECT {', '.join(f'j.{c}' for c in FACT_NAMES)} FROM rubricate_jobs j"
        " JOIN unnest(%s::text[], %s::integer[]) AS k(repo, pr)"
        " ON j.repo = k.repo AND j.pr = k.pr",
        _columns(jobs),
    )
    return {(f.repo, f.pr): f for f in map(facts_from_row, cursor)}


def _columns(keys: Iterable[tuple[Any, Any]]) -> list[list[Any]]:
    listed = list(keys)
    return [[k[0] for k in listed], [k[1] for k in listed]]


def facts_row(facts: JobFacts) -> tuple[Any, ...]:
    """A job's facts as the columns of `rubricate_jobs` hold them (ratings as JSON)."""
    row = [getattr(facts, name) for name in FACT_NAMES]  # (astuple would deep-copy each field)
    row[_RATINGS] = json.dumps([list(r) for r in facts.ratings])
    return tuple(row)


def facts_from_row(row: Sequence[Any]) -> JobFacts:
    """The inverse of `facts_row`."""
    values = dict(zip(FACT_NAMES, row, strict=True))
    values["ratings"] = tuple((str(role), int(n)) for role, n in json.loads(values["ratings"]))
    return JobFacts(**values)
