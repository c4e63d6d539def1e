"""The ledger in PostgreSQL: an append-only events table and a per-job facts view (shell).

`rubricate_events` holds each event's canonical line under its id (the primary key, so a replay
inserts nothing); a trigger refuses every UPDATE, DELETE and TRUNCATE. `rubricate_jobs` holds each
job's folded facts, refreshed in the same transaction as the insert, so an org-wide reputation
reads one row a job instead of every event. The reading side gives the same `ParsedLedger` as the
data branch: lines grouped into monthly shards (in insertion order) and parsed by the same codec,
so `ledger export` and the derived files come out byte for byte the same from either backend.

psycopg (the `server` extra) is imported when a store is opened, not with this module.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import astuple, dataclass, fields
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rubricate.errors import ConfigError
from rubricate.ledger.codec import ParsedLedger, combine_shards, encode_shard, parse_shard
from rubricate.ledger.codec import shard_path as shard_path
from rubricate.ledger.event import Event
from rubricate.ledger.fold import JobFacts, bulk, fold_job
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH
from rubricate.ledger.reputation import LedgerCounts, reputation_document
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.store import AppendResult, Closing

if TYPE_CHECKING:
    import psycopg

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE rubricate_events (
        seq bigserial NOT NULL UNIQUE,
        id text PRIMARY KEY,
        owner text NOT NULL,
        repo text NOT NULL,
        pr integer NOT NULL,
        at timestamptz NOT NULL,
        shard text NOT NULL,
        line text NOT NULL
    );
    CREATE INDEX rubricate_events_owner ON rubricate_events (owner, seq);
    CREATE INDEX rubricate_events_job ON rubricate_events (repo, pr);
    CREATE FUNCTION rubricate_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'rubricate_events is append-only: % refused', TG_OP;
    END $$;
    CREATE TRIGGER rubricate_events_no_change BEFORE UPDATE OR DELETE ON rubricate_events
        FOR EACH ROW EXECUTE FUNCTION rubricate_append_only();
    CREATE TRIGGER rubricate_events_no_truncate BEFORE TRUNCATE ON rubricate_events
        FOR EACH STATEMENT EXECUTE FUNCTION rubricate_append_only();
    CREATE TABLE rubricate_jobs (
        repo text NOT NULL,
        pr integer NOT NULL,
        owner text NOT NULL,
        author text NOT NULL,
        state text NOT NULL,
        opened_at timestamptz NOT NULL,
        closed_at timestamptz,
        last_at timestamptz NOT NULL,
        deadline timestamptz,
        disputed boolean NOT NULL,
        ratings text NOT NULL,
        rubric_quality double precision,
        events integer NOT NULL,
        PRIMARY KEY (repo, pr)
    );
    CREATE INDEX rubricate_jobs_owner ON rubricate_jobs (owner);
    """,
)
"""Each migration's SQL, applied in order; its number is its place in this tuple, from 1."""

_VERSIONS = "CREATE TABLE IF NOT EXISTS rubricate_migrations (version integer PRIMARY KEY)"


@dataclass(frozen=True)
class Scope:
    """Which events a store sees: one organisation's, one repository's, or all (neither)."""

    org: str | None = None
    repo: str | None = None

    def where(self, table: str = "rubricate_events") -> tuple[str, tuple[str, ...]]:
        """The SQL condition and its parameters."""
        if self.repo is not None:
            return f"{table}.repo = %s", (self.repo,)
        if self.org is not None:
            return f"{table}.owner = %s", (self.org,)
        return "TRUE", ()


def check_url(url: str) -> None:
    """A database URL must be a `postgresql://` (or `postgres://`) URL."""
    try:
        scheme = urlsplit(url).scheme
    except ValueError:
        scheme = ""
    if scheme not in ("postgresql", "postgres"):
        raise ConfigError(
            "--database-url must be a PostgreSQL URL such as "
            "postgresql://user@host:5432/dbname (the password in PGPASSWORD or ~/.pgpass)"
        )


def connect(url: str) -> psycopg.Connection[Any]:
    """An open connection to the database at `url`, or a clear error."""
    check_url(url)
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            "the PostgreSQL ledger needs the optional extra: pip install 'rubricate[server]'"
        ) from None
    try:
        conn = psycopg.connect(url, connect_timeout=10, autocommit=True)
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"cannot reach the database at --database-url: {reason}") from None
    except ValueError as exc:  # e.g. a URL psycopg cannot parse
        raise ConfigError(f"--database-url is not a usable PostgreSQL URL: {exc}") from None
    conn.execute("SET TIME ZONE 'UTC'")
    return conn


def migrate(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply every migration not yet applied, each in its own transaction; the ones applied."""
    conn.execute(_VERSIONS)
    applied = []
    for version, sql in enumerate(MIGRATIONS, start=1):
        with conn.transaction():
            conn.execute("LOCK TABLE rubricate_migrations IN EXCLUSIVE MODE")
            done = conn.execute(
                "SELECT 1 FROM rubricate_migrations WHERE version = %s", (version,)
            ).fetchone()
            if done is None:
                conn.execute(sql.encode())
                conn.execute("INSERT INTO rubricate_migrations VALUES (%s)", (version,))
                applied.append(version)
    return applied


def schema_version(conn: psycopg.Connection[Any]) -> int:
    """The newest migration applied (0 for a database never migrated)."""
    found = conn.execute("SELECT to_regclass('rubricate_migrations')").fetchone()
    if found is None or found[0] is None:
        return 0
    row = conn.execute("SELECT coalesce(max(version), 0) FROM rubricate_migrations").fetchone()
    return int(row[0]) if row else 0


class PostgresStore(Closing):
    """The ledger in one PostgreSQL database, seen through a `Scope`."""

    branch_found: bool | None = True
    """Always found: the tables exist once migrated (kept for the CLI's data-branch checks)."""

    def __init__(
        self,
        url: str,
        *,
        config: ReputationConfig | None = None,
        key: bytes | None = None,
        scope: Scope | None = None,
    ) -> None:
        self.conn = connect(url)
        self.config = config
        self.key = key
        self.scope = scope or Scope()
        if schema_version(self.conn) < len(MIGRATIONS):
            self.conn.close()
            raise ConfigError(
                "the database is not migrated: run `rubricate db migrate --database-url URL`"
            )

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def append(self, events: Iterable[Event]) -> AppendResult:
        """Insert the events not yet present and refresh their jobs' facts, in one transaction."""
        from rubricate.ledger.plan import prepare

        given = list(events)
        batch = prepare(given, self.key)
        with self.conn.transaction():
            added = self._insert(batch)
            self._refresh({(e.repo, e.pr) for e in added}, {e.id: e for e in added})
        return AppendResult(len(added), len(given) - len(added), None, 1)

    def _insert(self, batch: Sequence[Event]) -> list[Event]:
        self.conn.execute(
            "CREATE TEMP TABLE rubricate_new (ord integer, id text, owner text, repo text,"
            " pr integer, at timestamptz, shard text, line text) ON COMMIT DROP"
        )
        with self.conn.cursor().copy("COPY rubricate_new FROM STDIN") as copy:
            for ord_, e in enumerate(batch):
                owner = e.repo.split("/", 1)[0]
                row = (ord_, e.id, owner, e.repo, e.pr, e.at, shard_path(e.at), e.to_line())
                copy.write_row(row)
        rows = self.conn.execute(
            "INSERT INTO rubricate_events (id, owner, repo, pr, at, shard, line)"
            " SELECT id, owner, repo, pr, at, shard, line FROM rubricate_new ORDER BY ord"
            " ON CONFLICT (id) DO NOTHING RETURNING id"
        ).fetchall()
        inserted = {row[0] for row in rows}
        return [e for e in batch if e.id in inserted]

    def _refresh(self, jobs: set[tuple[str, int]], known: dict[str, Event]) -> None:
        """Fold each job again from all its events (parsing only those not in `known`)."""
        if not jobs:
            return
        repos, prs = zip(*sorted(jobs), strict=True)
        rows = self.conn.execute(
            "SELECT e.repo, e.pr, e.id, e.line FROM rubricate_events e"
            " JOIN unnest(%s::text[], %s::integer[]) AS j(repo, pr)"
            " ON e.repo = j.repo AND e.pr = j.pr",
            (list(repos), list(prs)),
        ).fetchall()
        by_job: dict[tuple[str, int], list[Event]] = defaultdict(list)
        for repo, pr, event_id, line in rows:
            by_job[(repo, pr)].append(known.get(event_id) or Event.model_validate_json(line))
        self._write_facts([fold_job(events).facts for events in by_job.values()])

    def _write_facts(self, facts: Iterable[JobFacts]) -> None:
        rows = [(f.repo.split("/", 1)[0], *_facts_row(f)) for f in facts]
        with self.conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO rubricate_jobs (owner, {_FACT_COLUMNS})"
                f" VALUES (%s, {', '.join(['%s'] * len(_FACT_NAMES))})"
                " ON CONFLICT (repo, pr) DO UPDATE SET"
                f" {', '.join(f'{c} = excluded.{c}' for c in _FACT_NAMES[2:])}",
                rows,
            )

    def rebuild(self) -> AppendResult:
        """Fold every job of the scope again from its events into the facts view."""
        condition, params = self.scope.where()
        with self.conn.transaction():
            rows = self.conn.execute(
                f"SELECT DISTINCT repo, pr FROM rubricate_events WHERE {condition}", params
            ).fetchall()
            self._refresh({(r, p) for r, p in rows}, {})
        return AppendResult(0, 0, None, 1)

    def lines(self) -> list[tuple[str, str]]:
        """Every event line of the scope with its shard, in insertion order."""
        condition, params = self.scope.where()
        cursor = self.conn.execute(
            f"SELECT shard, line FROM rubricate_events WHERE {condition} ORDER BY seq", params
        )
        return [(shard, line) for shard, line in cursor]

    @bulk
    def read(self) -> ParsedLedger:
        """Every event of the scope, parsed as the data branch's shards would be."""
        texts: dict[str, list[str]] = defaultdict(list)
        for shard, line in self.lines():
            texts[shard].append(line)
        parses = (parse_shard(p, "".join(t + "\n" for t in texts[p]), self.key) for p in texts)
        return combine_shards(parses, self.key)

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The files a data branch holding these events would hold, those `wanted` accepts."""
        from rubricate.ledger.derive import derive_files

        parsed = self.read()
        texts: dict[str, list[str]] = defaultdict(list)
        for event in parsed.events:
            texts[shard_path(event.at)].append(event.to_line())
        files = {p: encode_shard("".join(t + "\n" for t in ts)) for p, ts in texts.items()}
        if wanted(REPUTATION_PATH) or wanted(CACHE_PATH):
            files.update(derive_files(parsed, self.config or ReputationConfig()))
        return {p: d for p, d in files.items() if wanted(p)}

    def read_file(self, path: str) -> bytes | None:
        """One file of `read_files`, or None."""
        return self.read_files(lambda p: p == path).get(path)

    def reputation(self) -> dict[str, Any]:
        """`reputation.json` of the scope, from the facts view (no event is parsed)."""
        condition, params = self.scope.where("rubricate_jobs")
        cursor = self.conn.cursor(binary=True)
        cursor.execute(f"SELECT {_FACT_COLUMNS} FROM rubricate_jobs WHERE {condition}", params)
        facts = [_facts_from_row(row) for row in cursor]
        condition, params = self.scope.where()
        row = self.conn.execute(
            f"SELECT count(*), max(at) FROM rubricate_events WHERE {condition}", params
        ).fetchone()
        count, newest = (0, None) if row is None else row
        counts = LedgerCounts(int(count), 0, 0, newest)
        return reputation_document(facts, self.config or ReputationConfig(), counts)


_FACT_NAMES = tuple(field.name for field in fields(JobFacts))
_FACT_COLUMNS = ", ".join(_FACT_NAMES)


def _facts_row(facts: JobFacts) -> tuple[Any, ...]:
    row = astuple(facts)
    at = _FACT_NAMES.index("ratings")
    return (*row[:at], json.dumps([list(r) for r in facts.ratings]), *row[at + 1 :])


def _facts_from_row(row: Sequence[Any]) -> JobFacts:
    values = dict(zip(_FACT_NAMES, row, strict=True))
    values["ratings"] = tuple((str(role), int(n)) for role, n in json.loads(values["ratings"]))
    return JobFacts(**values)
