"""The database seen as the Action's data store: one repository's job files and view states."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from rubricate.bot.view_state import view_path
from rubricate.ledger.event import Event
from rubricate.ledger.paths import job_paths
from rubricate.ledger.pg_store import PostgresStore
from rubricate.ledger.trust import natural_key
from rubricate.serve.ledger_files import LedgerFiles

AT = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def submission(repo: str, pr: int) -> Event:
    return Event(
        id=natural_key("first_submission", repo, pr, 1, "test"),
        kind="first_submission",
        repo=repo,
        pr=pr,
        version=1,
        head_sha="a" * 40,
        at=AT,
        actor="alice",
        author="alice",
    )


def test_a_repository_sees_its_own_jobs_and_views_only(db_url: str) -> None:
    with PostgresStore(db_url) as store:
        mine, other = LedgerFiles(store, "octo/widgets"), LedgerFiles(store, "octo/gadgets")
        mine.append([submission("octo/widgets", 3)], {view_path("octo/widgets", 3): b"mine\n"})
        other.append([submission("octo/gadgets", 3)], {view_path("octo/gadgets", 3): b"theirs\n"})
        files = mine.read_files(lambda _path: True)
        assert files[view_path("octo/widgets", 3)] == b"mine\n"
        assert view_path("octo/gadgets", 3) not in files
        [job] = [p for p in files if p in job_paths("octo/widgets", 3)]
        body = json.loads(files[job])
        assert (body["repo"], body["pr"], len(body["events"])) == ("octo/widgets", 3, 1)
        assert mine.append([submission("octo/widgets", 3)]).added == 0  # a replay inserts nothing


class Recording:
    """A connection that records the SQL it runs."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.sql: list[str] = []

    def execute(self, sql: str, *args: Any) -> Any:
        self.sql.append(sql)
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_listed_paths_are_looked_up_alone_with_the_same_answer(db_url: str) -> None:
    repo = "octo/widgets"
    with PostgresStore(db_url) as store:
        files = LedgerFiles(store, repo)
        for pr in (3, 4, 1234):
            files.append([submission(repo, pr)], {view_path(repo, pr): f"v{pr}\n".encode()})
        LedgerFiles(store, "octo/gadgets").append(
            [submission("octo/gadgets", 4)], {view_path("octo/gadgets", 4): b"theirs\n"}
        )
        paths = {*job_paths(repo, 4), view_path(repo, 4), *job_paths(repo, 1234)}
        paths |= {view_path("octo/gadgets", 4), view_path(repo, 5), "jobs/x.json"}
        expected = files.read_files(lambda p: p in paths)
        assert len(expected) == 3
        recording = Recording(store.conn)
        store.conn = recording  # type: ignore[assignment]
        assert files.read_files(frozenset(paths).__contains__) == expected
        assert not any("starts_with" in sql for sql in recording.sql)  # no scan of all views
        assert all("ANY" in sql for sql in recording.sql)  # nor of all jobs
        store.conn = recording.conn
