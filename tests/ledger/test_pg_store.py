"""The ledger in PostgreSQL: append-only, replay-safe, and byte for byte the data branch's twin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.ledger import codec
from rubricate.ledger.codec import event_from_line
from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore, Scope
from tests.ledger.factory import completed_job, event
from tests.report.sample import sample_events

psycopg = pytest.importorskip("psycopg")


def _events() -> list[Event]:
    """Two organisations: the sample ledger in o/r, and a few jobs in p/q and p/s."""
    events = sample_events(40)
    for pr in range(1, 6):
        events += completed_job(pr, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5], hours=pr, repo="p/q")
    events += completed_job(9, [3, 3, 3, 3, 3], [4, 4, 4, 4, 4], repo="p/s", author="zed")
    events.append(event("abandoned", 7, 30, "x7", repo="p/q", author="yan"))
    return events


def _write(path: Path, events: list[Event]) -> str:
    path.write_text("".join(e.to_line() + "\n" for e in events), encoding="utf-8")
    return str(path)


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def loaded(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The same events appended to a data directory and imported into the database."""
    root = tmp_path_factory.mktemp("pg")
    stream = _write(root / "events.jsonl", _events())
    data = root / "data"
    data.mkdir()
    assert main(["ledger", "append", "--data", str(data), stream]) == 0
    assert main(["ledger", "import", "--database-url", pg_url, stream]) == 0
    return pg_url, data


def test_exports_are_byte_identical(
    loaded: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, data = loaded
    from_branch = _out(capsys, "ledger", "export", "--data", str(data))
    assert from_branch == _out(capsys, "ledger", "export", "--database-url", url)
    assert len(from_branch.splitlines()) == len(_events())
    scoped = _out(capsys, "ledger", "export", "--data", str(data), "--repo", "p/q")
    assert scoped == _out(capsys, "ledger", "export", "--database-url", url, "--repo", "p/q")
    assert {json.loads(line)["repo"] for line in scoped.splitlines()} == {"p/q"}


def test_reputation_json_is_byte_identical(loaded: tuple[str, Path]) -> None:
    from rubricate.ledger.pg_store import PostgresStore

    url, data = loaded
    with PostgresStore(url) as store:
        derived = store.read_file("reputation.json")
        view = store.reputation()
    assert derived == (data / "reputation.json").read_bytes()
    assert (json.dumps(view, indent=2, sort_keys=True) + "\n").encode() == derived


def test_reputation_cli_reads_either_backend_alike(
    loaded: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, data = loaded
    for scope in ([], ["--org", "p"], ["--repo", "o/r"]):
        branch = _out(capsys, "reputation", "--json", "--data", str(data), *scope)
        database = _out(capsys, "reputation", "--json", "--database-url", url, *scope)
        assert json.loads(branch)["repos"] == json.loads(database)["repos"]
    org = json.loads(_out(capsys, "reputation", "--json", "--database-url", url, "--org", "p"))
    assert sorted(org["repos"]) == ["p/q", "p/s"]
    table = _out(capsys, "reputation", "--database-url", url, "--org", "p")
    assert table.splitlines()[0].split()[:3] == ["repo", "author", "ranked"]
    assert _out(capsys, "reputation", "--database-url", url, "--recompute").endswith(
        "matches the ledger\n"
    )


def test_show_and_verify_read_the_database(
    loaded: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = loaded
    shown = _out(capsys, "ledger", "show", "--database-url", url, "--repo", "p/s", "--json")
    assert {json.loads(line)["repo"] for line in shown.splitlines()} == {"p/s"}
    assert "clean" in _out(capsys, "ledger", "verify", "--database-url", url)


def test_a_replay_inserts_nothing(
    loaded: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = loaded
    stream = _write(tmp_path / "again.jsonl", _events())
    result = json.loads(_out(capsys, "ledger", "import", "--database-url", url, stream, "--json"))
    assert (result["added"], result["present"]) == (0, len(_events()))


def test_events_cannot_be_changed_or_deleted(loaded: tuple[str, Path]) -> None:
    url, _ = loaded
    with psycopg.connect(url, autocommit=True) as conn:
        for sql in (
            "UPDATE rubricate_events SET line = 'x'",
            "DELETE FROM rubricate_events",
            "TRUNCATE rubricate_events",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(sql)
        count = conn.execute("SELECT count(*) FROM rubricate_events").fetchone()
    assert count == (len(_events()),)


def test_moving_back_to_a_data_branch_round_trips(
    loaded: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, data = loaded
    exported = _out(capsys, "ledger", "export", "--database-url", url)
    back = tmp_path / "back"
    back.mkdir()
    stream = tmp_path / "export.jsonl"
    stream.write_text(exported, encoding="utf-8")
    assert main(["ledger", "append", "--data", str(back), str(stream)]) == 0
    assert _out(capsys, "ledger", "export", "--data", str(back)) == exported
    assert (back / "reputation.json").read_bytes() == (data / "reputation.json").read_bytes()


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 2
    return capsys.readouterr().err


def test_bad_urls_unreachable_and_unmigrated_databases_are_clear_errors(
    pg_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.ledger.pg_server import free_port

    err = _error(capsys, "ledger", "export", "--database-url", "mysql://x/y")
    assert "must be a PostgreSQL URL" in err
    closed = f"postgresql://postgres@127.0.0.1:{free_port()}/none"
    assert "cannot reach the database" in _error(capsys, "db", "migrate", "--database-url", closed)
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE rubricate_bare")
    bare = pg_server.url("rubricate_bare")
    assert "not migrated" in _error(capsys, "reputation", "--database-url", bare)
    assert "applied 1" in _out(capsys, "db", "migrate", "--database-url", bare)
    assert "nothing to apply" in _out(capsys, "db", "migrate", "--database-url", bare)
    assert _out(capsys, "ledger", "export", "--database-url", bare) == ""


def _report(out: Path, *argv: str) -> dict[str, Any]:
    assert main(["report", "--format", "json", "--out", str(out), *argv]) == 0
    report: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return report


@pytest.fixture
def reporting(loaded: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """The loaded ledgers, for reports (which need numpy) dated as reproducible builds are."""
    pytest.importorskip("numpy")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1719792000")
    return loaded


def test_the_report_reads_the_database_for_an_org_or_a_repo(
    reporting: tuple[str, Path], tmp_path: Path
) -> None:
    url, data = reporting
    for scope in (["--org", "p"], ["--repo", "o/r"], []):
        name = "-".join(scope) or "all"
        database = _report(tmp_path / f"db{name}", "--database-url", url, *scope)
        branch = _report(tmp_path / f"branch{name}", "--data", str(data), *scope)
        assert database == branch
        wanted = {"p/q", "p/s"} if scope[:1] == ["--org"] else {"o/r"} if scope else None
        assert wanted is None or {a["repo"] for a in database["authors"]} == wanted
    with PostgresStore(url, scope=Scope(org="p")) as store:
        recorded = store.reputation()["repos"]
    for entry in _report(tmp_path / "org", "--database-url", url, "--org", "p")["authors"]:
        mine = recorded[entry["repo"]]["authors"][entry["author"]]
        assert (entry["ranked"], entry["provisional"]) == (mine["ranked"], mine["provisional"])
        assert entry["components"] == mine["components"]


def test_every_reading_command_refuses_a_bad_database_clearly(
    pg_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.ledger.pg_server import free_port

    closed = f"postgresql://postgres@127.0.0.1:{free_port()}/none"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE rubricate_unmigrated")
    bare = pg_server.url("rubricate_unmigrated")
    commands = (
        ["report", "--out", str(tmp_path / "r"), "--format", "json", "--org", "p"],
        ["ledger", "show", "--org", "p"],
        ["ledger", "verify", "--repo", "p/q"],
        ["ledger", "export", "--repo", "p/q"],
        ["reputation", "--org", "p"],
        ["ledger", "import", _write(tmp_path / "one.jsonl", _events()[:1])],
    )
    for command in commands:
        for url, said in ((closed, "cannot reach the database"), (bare, "not migrated")):
            err = _error(capsys, *command, "--database-url", url)
            assert said in err, (command, err)
            assert "Traceback" not in err


def test_reputation_under_another_config_is_the_data_branchs(
    loaded: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, data = loaded
    config = tmp_path / "rubricate.yml"
    config.write_text(
        "reputation:\n  sla_hours: 20\n  trust:\n    maintain: 2\n    default: 0.1\n",
        encoding="utf-8",
    )
    argv = ["reputation", "--json", "--config", str(config)]
    capsys.readouterr()  # the fold under this config, beside the stored one under the defaults
    assert main([*argv, "--recompute", "--data", str(data)]) == 1
    branch = json.loads(capsys.readouterr().out)
    database = json.loads(_out(capsys, *argv, "--database-url", url))
    assert database == branch
    assert database["config"]["sla_hours"] == 20
    default = json.loads(_out(capsys, "reputation", "--json", "--database-url", url))
    assert default["repos"] != database["repos"]


def _migrated(pg_server: Any, capsys: pytest.CaptureFixture[str], name: str) -> str:
    """A new database, migrated by `db migrate`."""
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url: str = pg_server.url(name)
    _out(capsys, "db", "migrate", "--database-url", url)
    return url


def test_migrating_to_the_tallies_fills_them_from_the_jobs(
    pg_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _migrated(pg_server, capsys, "rubricate_at_two")
    _out(capsys, "ledger", "import", "--database-url", url, _write(tmp_path / "e.jsonl", _events()))
    expected = _out(capsys, "reputation", "--json", "--database-url", url)
    with psycopg.connect(url, autocommit=True) as conn:  # as a database at migration 2 was
        conn.execute("DROP TABLE rubricate_authors")
        conn.execute("DROP INDEX rubricate_jobs_author")
        conn.execute("ALTER TABLE rubricate_budgets DROP COLUMN write_times")
        conn.execute("DROP TABLE rubricate_job_failures")
        conn.execute("DELETE FROM rubricate_migrations WHERE version >= 3")
    assert "not migrated" in _error(capsys, "reputation", "--database-url", url)
    assert "applied 3, 4, 5" in _out(capsys, "db", "migrate", "--database-url", url)
    assert _out(capsys, "reputation", "--json", "--database-url", url) == expected


def test_tallies_kept_batch_by_batch_fold_as_the_data_branch(
    pg_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _migrated(pg_server, capsys, "rubricate_batches")
    events = _events()
    late = event("rated", 3, -5, "late", rating=4, repo="p/q", author="someone-else")
    batches = [events[i::4] for i in range(4)] + [[late]]  # every job grows batch by batch
    data = tmp_path / "data"
    data.mkdir()
    for number, batch in enumerate(batches):
        stream = _write(tmp_path / f"{number}.jsonl", batch)
        _out(capsys, "ledger", "import", "--database-url", url, stream)
        _out(capsys, "ledger", "append", "--data", str(data), stream)
        database = _out(capsys, "reputation", "--json", "--database-url", url)
        assert database == _out(capsys, "reputation", "--json", "--data", str(data))
    authors = json.loads(database)["repos"]["p/q"]["authors"]
    assert authors["someone-else"]["jobs"]["completed"] == 1  # job 3 changed hands
    with PostgresStore(url) as store:
        assert (json.dumps(store.reputation(), indent=2, sort_keys=True) + "\n").encode() == (
            data / "reputation.json"
        ).read_bytes()


def test_the_reports_files_are_the_data_branchs_byte_for_byte(
    reporting: tuple[str, Path], tmp_path: Path
) -> None:
    url, data = reporting
    for scope in (["--org", "p"], []):
        outs = []
        for source in (["--database-url", url], ["--data", str(data)]):
            out = tmp_path / f"{source[0][2:]}-{'-'.join(scope) or 'all'}"
            assert main(["report", "--out", str(out), *source, *scope]) == 0
            files = {p.relative_to(out): p for p in out.rglob("*") if p.is_file()}
            kept = {p for p in files if p.parts[0] == ".rubricate"}  # a data branch's, for reuse
            outs.append({p: files[p].read_bytes() for p in set(files) - kept})
        assert outs[0] == outs[1]
        assert len(outs[0]) > 3


def test_the_report_parses_each_line_of_the_database_once(
    loaded: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It reads the lines of its scope and parses them; no derived file is made on the way."""
    pytest.importorskip("numpy")
    url, _ = loaded
    parsed: list[str] = []

    def counted(line: str) -> Event:
        parsed.append(line)
        return event_from_line(line)

    monkeypatch.setattr(codec, "event_from_line", counted)
    assert main(["report", "--format", "json", "--out", str(tmp_path), "--database-url", url]) == 0
    assert sorted(parsed) == sorted(e.to_line() for e in _events())


def test_one_store_appends_after_a_rollback_and_twice_in_one_transaction(
    pg_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The staging table an append fills is kept by the connection, emptied each time."""
    url = _migrated(pg_server, capsys, "rubricate_staging")
    first = completed_job(1, [3] * 5, [4] * 5)
    second = completed_job(2, [2] * 5, [5] * 5, author="bob")
    with PostgresStore(url) as store:
        with store.conn.transaction():
            assert store.append(first).added == 2
            raise psycopg.Rollback
        with store.conn.transaction():
            assert store.append(first).added == 2
            again = store.append([*first, *second])
            assert (again.added, again.present) == (2, 2)
        assert store.append([*second, *first]).added == 0
        assert [line for _, line in store.lines()] == [e.to_line() for e in (*first, *second)]
        assert store.reputation()["ledger"]["jobs"] == 2
