"""The ledger in PostgreSQL: an append-only events table and a per-job facts view (shell).

`rubricate_events` holds each event's canonical line under its id (the primary key, so a replay
inserts nothing); a trigger refuses every UPDATE, DELETE and TRUNCATE. `rubricate_jobs` holds each
job's folded facts, refreshed in the same transaction as the insert, so an org-wide reputation
reads one row a job instead of every event. The reading side gives the same `ParsedLedger` as the
data branch: lines grouped into monthly shards (in insertion order) and parsed by the same codec,
so `ledger export` and the derived files come out byte for byte the same from either backend.

Tables, migrations and connections are in `rubricate.ledger.pg_schema`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from rubricate.bulk import bulk
from rubricate.errors import ConfigError
from rubricate.ledger.codec import (
    ParsedLedger,
    combine_shards,
    encode_shard,
    parse_shard,
    prepared_lines,
)
from rubricate.ledger.codec import shard_path as shard_path
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH
from rubricate.ledger.pg_facts import (
    AuthorKey,
    lock_authors,
    lock_jobs,
    lock_ledger,
    owner_of,
    store_tallies,
    write_facts,
)
from rubricate.ledger.pg_schema import MIGRATIONS, connect, schema_version
from rubricate.ledger.reputation import LedgerCounts, Totals, totals_document
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.store import AppendResult, Closing
from rubricate.ledger.tally import Tally

if TYPE_CHECKING:
    import psycopg

_BATCH_ROWS = 20_000
"""Rows a server-side cursor hands over at a time."""
APPEND_CHUNK = 5_000
"""Events an append takes from its iterable at a time (all in its one transaction)."""
_DELETE_UP_TO = 256
"""The staging table is emptied by DELETE after a write of up to this many rows, by TRUNCATE
(a new file: dearer for a few rows, but no dead ones) after a larger one."""


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
        conn = connect(url)
        if schema_version(conn) < len(MIGRATIONS):
            conn.close()
            raise ConfigError(
                "the database is not migrated: run `rubricate db migrate --database-url URL`"
            )
        self._attach(conn, config=config, key=key, scope=scope)

    def _attach(
        self,
        conn: psycopg.Connection[Any],
        *,
        config: ReputationConfig | None = None,
        key: bytes | None = None,
        scope: Scope | None = None,
    ) -> None:
        """Use `conn`, an open and migrated connection, for this store's reads and writes."""
        self.conn = conn
        self.config = config
        self.key = key
        self.scope = scope or Scope()
        self._staged = 0
        """Rows this store last staged."""

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def append(self, events: Iterable[Event]) -> AppendResult:
        """Insert the events not yet present and refresh their jobs' facts, in one transaction.

        The events are taken `APPEND_CHUNK` at a time, so an import holds one chunk, not the
        file; an error raised by the iterable (a bad line) rolls the whole transaction back.
        An append of more than one chunk takes the ledger-wide lock before its first write."""
        given = added = 0
        stream = iter(events)
        with self.conn.transaction():
            chunk = list(islice(stream, APPEND_CHUNK))
            following = list(islice(stream, 1))
            held: dict[AuthorKey, Tally] | None = None
            if following:
                lock_ledger(self.conn)
                held = {}  # the authors' tallies, stored once after the last chunk
            while chunk:
                given += len(chunk)
                added += self._append_chunk(chunk, held)
                chunk = following + list(islice(stream, APPEND_CHUNK - len(following)))
                following = []
            if held:
                store_tallies(self.conn, held)
        return AppendResult(added, given - added, None, 1)

    def _append_chunk(self, chunk: Sequence[Event], held: dict[AuthorKey, Tally] | None) -> int:
        """Insert one chunk and refresh its jobs; how many events were new."""
        added = self._insert(prepared_lines(chunk, self.key))
        self._refresh({(e.repo, e.pr) for e, _ in added}, {e.id: e for e, _ in added}, held)
        return len(added)

    def lock_for(self, events: Iterable[Event]) -> None:
        """Take now, in the one order every append takes them (jobs, then authors, each
        sorted), the locks appending these events may need: a transaction that appends more
        than once calls it first with all its events, or a later append (one that gives a job
        to another author) could wait for a lock another writer holds while waiting for its."""
        given = list(events)
        jobs = sorted({(e.repo, e.pr) for e in given})
        if jobs:
            lock_jobs(self.conn, jobs)
            lock_authors(self.conn, jobs, {(e.repo, e.author) for e in given})

    def _insert(self, batch: Sequence[tuple[Event, str]]) -> list[tuple[Event, str]]:
        """Insert the events not present. Rows go in by id, so writers inserting the same
        events take their index locks in one order and never deadlock, while `seq` follows the
        batch's order (the lines' order in an export)."""
        self.conn.execute(  # kept by the connection: a table made and dropped in each
            "CREATE TEMP TABLE IF NOT EXISTS rubricate_new"  # transaction costs more than a
            " (seq bigint DEFAULT nextval('rubricate_events_seq_seq'), id text, owner text,"
            " repo text, pr integer, at timestamptz, shard text, line text)"  # small append
            " ON COMMIT DELETE ROWS"
        )
        # Rows of an earlier write in this transaction go. A large batch's are truncated: deleted,
        # they would stay as dead rows until the commit, and each later chunk of an import would
        # scan them all again (the staging table outgrows PostgreSQL's temp_buffers at 1M).
        self.conn.execute(
            "TRUNCATE rubricate_new"
            if self._staged > _DELETE_UP_TO
            else "DELETE FROM rubricate_new"
        )
        self._staged = len(batch)
        columns = "id, owner, repo, pr, at, shard, line"
        with self.conn.cursor().copy(f"COPY rubricate_new ({columns}) FROM STDIN") as copy:
            for e, line in batch:
                copy.write_row((e.id, owner_of(e.repo), e.repo, e.pr, e.at, shard_path(e.at), line))
        rows = self.conn.execute(
            f"INSERT INTO rubricate_events (seq, {columns})"
            f" SELECT seq, {columns} FROM rubricate_new ORDER BY id"
            " ON CONFLICT (id) DO NOTHING RETURNING id"
        ).fetchall()
        inserted = {row[0] for row in rows}
        return [(e, line) for e, line in batch if e.id in inserted]

    def _refresh(
        self,
        jobs: set[tuple[str, int]],
        known: dict[str, Event],
        held: dict[AuthorKey, Tally] | None = None,
    ) -> None:
        """Fold each job again from all its events (parsing only those not in `known`)."""
        if not jobs:
            return
        ordered = sorted(jobs)
        lock_jobs(self.conn, ordered)  # a job's events are read once its other writers are done
        repos, prs = zip(*ordered, strict=True)
        rows = self.conn.execute(
            "SELECT e.repo, e.pr, e.id, e.line FROM rubricate_events e"
            " JOIN unnest(%s::text[], %s::integer[]) AS j(repo, pr)"
            " ON e.repo = j.repo AND e.pr = j.pr",
            (list(repos), list(prs)),
        ).fetchall()
        by_job: dict[tuple[str, int], list[Event]] = defaultdict(list)
        for repo, pr, event_id, line in rows:
            by_job[(repo, pr)].append(known.get(event_id) or Event.model_validate_json(line))
        write_facts(self.conn, [fold_job(events).facts for events in by_job.values()], held)

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
        return list(self._stream_lines())

    def shard_texts(self) -> dict[str, str]:
        """Each shard's text as a data branch holding these events holds it: the lines of its
        month in insertion order, read through one server-side cursor and never parsed."""
        texts: dict[str, list[str]] = defaultdict(list)
        for shard, line in self._stream_lines():
            texts[shard].append(line)
        return {path: "".join(t + "\n" for t in lines) for path, lines in texts.items()}

    def _stream_lines(self) -> Iterator[tuple[str, str]]:
        condition, params = self.scope.where()
        with self.conn.transaction(), self.conn.cursor("rubricate_lines") as cursor:
            cursor.itersize = _BATCH_ROWS
            cursor.execute(
                f"SELECT shard, line FROM rubricate_events WHERE {condition} ORDER BY seq", params
            )
            yield from cursor

    @bulk
    def read(self) -> ParsedLedger:
        """Every event of the scope, parsed as the data branch's shards would be."""
        parses = (parse_shard(p, text, self.key) for p, text in self.shard_texts().items())
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
        """`reputation.json` of the scope, from its authors' tallies (one row per author; no
        event or job is read)."""
        config = self.config or ReputationConfig()
        condition, params = self.scope.where("rubricate_authors")
        rows = self.conn.execute(
            f"SELECT repo, author, tally FROM rubricate_authors WHERE {condition}", params
        )
        by_repo: dict[str, dict[str, Totals]] = defaultdict(dict)
        jobs = events = 0
        times: list[datetime] = []
        for repo, author, text in rows:
            tally = Tally.from_json(text)
            if not sum(tally.counts.values()) or tally.newest is None:  # its job changed hands
                continue
            by_repo[repo][author] = tally.totals(config)
            jobs += sum(tally.counts.values())
            events += tally.events
            times.append(tally.newest)
        counts = LedgerCounts(events, 0, 0, max(times, default=None))
        return totals_document(by_repo, jobs, config, counts)
