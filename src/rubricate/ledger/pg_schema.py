"""The PostgreSQL ledger's tables and connections: migrations, and clear errors for a bad URL,
an unreachable database or a missing migration (shell).

Migration 1 holds the ledger (`rubricate_events`, `rubricate_jobs`); migration 2 what
`rubricate serve` and its workers keep beside it: webhook deliveries, the view state (`extras`),
the effects waiting to be published (`outbox`) and each installation's API budget; migration 3
each author's tally (`rubricate_authors`, see `rubricate.ledger.tally`), filled from the jobs by
the `then` step `db migrate` gives it; migration 4 each installation's pace of writes
(`rubricate.serve.write_pace`); migration 5 each job's failures, counted apart from its waits
(`rubricate.serve.failures`).

psycopg (the `server` extra) is imported when a connection is opened, not with this module.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rubricate.errors import ConfigError, RunFailed

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
    """
    CREATE TABLE rubricate_deliveries (
        guid text PRIMARY KEY,
        event text NOT NULL,
        action text,
        installation bigint,
        repo text,
        pr integer,
        received_at timestamptz NOT NULL DEFAULT now(),
        state text NOT NULL,
        reason text,
        body bytea NOT NULL
    );
    CREATE INDEX rubricate_deliveries_received ON rubricate_deliveries (received_at);
    CREATE TABLE rubricate_extras (
        path text PRIMARY KEY,
        data bytea NOT NULL
    );
    CREATE TABLE rubricate_outbox (
        seq bigserial PRIMARY KEY,
        repo text NOT NULL,
        pr integer NOT NULL,
        installation bigint NOT NULL,
        delivery text NOT NULL,
        effects jsonb NOT NULL,
        published_at timestamptz
    );
    CREATE INDEX rubricate_outbox_pending ON rubricate_outbox (repo, pr) WHERE published_at IS NULL;
    CREATE TABLE rubricate_budgets (
        installation bigint PRIMARY KEY,
        remaining integer,
        reset_at timestamptz,
        blocked_until timestamptz,
        updated_at timestamptz NOT NULL
    );
    """,
    """
    CREATE TABLE rubricate_authors (
        repo text NOT NULL,
        author text NOT NULL,
        owner text NOT NULL,
        tally text NOT NULL,
        PRIMARY KEY (repo, author)
    );
    CREATE INDEX rubricate_authors_owner ON rubricate_authors (owner);
    CREATE INDEX rubricate_jobs_author ON rubricate_jobs (repo, author);
    """,
    """
    ALTER TABLE rubricate_budgets ADD COLUMN write_times timestamptz[];
    """,
    """
    CREATE TABLE rubricate_job_failures (
        job_id bigint PRIMARY KEY,
        failures integer NOT NULL
    );
    """,
)
"""Each migration's SQL, applied in order; its number is its place in this tuple, from 1."""

_VERSIONS = "CREATE TABLE IF NOT EXISTS rubricate_migrations (version integer PRIMARY KEY)"


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
        reason = _reason(exc, -1)  # (a failed connect lists each address tried: the last)
        raise ConfigError(f"cannot reach the database at --database-url: {reason}") from None
    except ValueError as exc:  # e.g. a URL psycopg cannot parse
        raise ConfigError(f"--database-url is not a usable PostgreSQL URL: {exc}") from None
    session_setup(conn)
    return conn


@contextmanager
def database_errors() -> Iterator[None]:
    """A database that fails once connected (the connection dropped, the server shut down, a
    statement cancelled) as a `RunFailed` that says so and what to do, not a traceback. Every
    write is one transaction: whatever the failure, it landed whole or not at all. (psycopg is
    looked up, not imported: when no connection was opened it cannot have raised.)"""
    try:
        yield
    except Exception as exc:
        psycopg = sys.modules.get("psycopg")
        if psycopg is None or not isinstance(exc, psycopg.Error):
            raise
        raise RunFailed(
            f"the database at --database-url failed: {_reason(exc, 0)}; each append is one "
            "transaction, written whole or not at all: run it again (events already written "
            "are skipped)"
        ) from None


def _reason(exc: Exception, line: int) -> str:
    """One line of a database error's message (its class name when it has none)."""
    text = str(exc).strip()
    return text.splitlines()[line] if text else type(exc).__name__


def session_setup(conn: psycopg.Connection[Any]) -> None:
    """Set up a new session as the ledger's queries expect it (times read in UTC)."""
    conn.execute("SET TIME ZONE 'UTC'")


def migrate(
    conn: psycopg.Connection[Any],
    then: Mapping[int, Callable[[psycopg.Connection[Any]], object]] | None = None,
) -> list[int]:
    """Apply every migration not yet applied, each in its own transaction (with its `then`
    step, which fills what it made from what is there); the ones applied."""
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
                step = (then or {}).get(version)
                if step is not None:
                    step(conn)
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
