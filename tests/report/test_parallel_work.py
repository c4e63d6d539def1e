"""The report's work on several cores: the same ledger and the same pages as in one process,
also when no pool can start or a worker dies."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.model import Options, build_report
from tests.ledger.factory import event
from tests.report.conftest import NOW
from tests.report.sample import sample_events


def test_parallel_author_pages_match_serial(data: Path, tmp_path: Path) -> None:
    from rubricate.report.site import write_site

    parsed = parse_ledger(
        {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    )
    report = build_report(parsed, ReputationConfig(), Options(now=NOW))
    serial = write_site(report, tmp_path / "serial", lambda _: None, workers=1)
    parallel = write_site(report, tmp_path / "parallel", lambda _: None, workers=2, parallel_from=1)
    assert len(serial) == len(parallel)
    for path in [*(tmp_path / "serial").rglob("*.html"), tmp_path / "serial" / "style.css"]:
        twin = tmp_path / "parallel" / path.relative_to(tmp_path / "serial")
        assert twin.read_bytes() == path.read_bytes()


def test_author_pages_drawn_from_parts_match_serial(data: Path, tmp_path: Path) -> None:
    from rubricate.report.site import write_site
    from rubricate.report.workers import AuthorPages

    parsed = parse_ledger(
        {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    )
    pages = AuthorPages(tmp_path / "early", workers=2, parallel_from=1)
    parts: list[dict[str, object]] = []

    def ready(part: dict[str, object]) -> None:
        parts.append(part)
        pages.start(part)

    report = build_report(parsed, ReputationConfig(), Options(now=NOW), ready)
    per_part = [{a["slug"] for a in part["authors"]} for part in parts]  # type: ignore[attr-defined]
    every = set().union(*per_part)
    assert every == {a["slug"] for a in report["authors"]}
    assert sum(map(len, per_part)) == len(every)  # each author's page comes from one part
    write_site(report, tmp_path / "early", lambda _: None, pages=pages)
    write_site(report, tmp_path / "serial", lambda _: None, workers=1)
    for path in [*(tmp_path / "serial").rglob("*.html"), tmp_path / "serial" / "style.css"]:
        twin = tmp_path / "early" / path.relative_to(tmp_path / "serial")
        assert twin.read_bytes() == path.read_bytes()


def test_a_ledger_parsed_on_several_cores_equals_one_parsed_here(data: Path) -> None:
    from rubricate.report.pool import parse_in_parallel

    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    repeat = sample_events(3)[0].to_line() + "\n"  # a duplicate of a line in another shard
    astray = event("rated", 999, 0, "astray", rating=3).to_line() + "\n"  # belongs in 2024-03
    texts["ledger/2099-01.jsonl"] = repeat + '{"kind": "nope"}\n' + astray + repeat
    serial = parse_ledger(dict(texts))
    assert len(texts) >= 3
    assert serial.duplicates
    assert serial.corrupt
    assert serial.misplaced
    parallel = parse_in_parallel(dict(texts), workers=3, parallel_from=0)
    assert parallel == serial
    assert [str(p) for p in parallel.duplicates] == [str(p) for p in serial.duplicates]


def _fail(failure: str, monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
    """No process pool can start (as with no /dev/shm), or each worker dies (killed for
    memory, say) when it calls `module.name`; this process goes on as usual."""
    from rubricate.report import pool

    if failure == "no pool":

        def no_pool(*args: object) -> None:
            raise OSError(38, "Function not implemented")

        monkeypatch.setattr(pool, "ProcessPoolExecutor", no_pool)
        return
    here, function = os.getpid(), getattr(module, name)

    def killed(*args: Any) -> Any:
        if os.getpid() != here:
            os._exit(3)
        return function(*args)

    monkeypatch.setattr(module, name, killed)


FAILURES = ["no pool", "worker killed"]


@pytest.mark.parametrize("failure", FAILURES)
def test_a_ledger_is_parsed_whole_when_other_processes_fail(
    data: Path, failure: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rubricate.ledger import codec
    from rubricate.report.pool import parse_in_parallel

    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    serial = parse_ledger(dict(texts))
    _fail(failure, monkeypatch, codec, "parse_shard")
    assert parse_in_parallel(dict(texts), workers=3, parallel_from=0) == serial


@pytest.mark.parametrize("failure", FAILURES)
def test_author_pages_are_drawn_here_when_other_processes_fail(
    data: Path, tmp_path: Path, failure: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rubricate.report import author_page
    from rubricate.report.site import write_site

    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.rglob("*.jsonl")}
    report = build_report(parse_ledger(texts), ReputationConfig(), Options(now=NOW))
    write_site(report, tmp_path / "serial", lambda _: None, workers=1)
    _fail(failure, monkeypatch, author_page, "author_pages")
    write_site(report, tmp_path / "pool", lambda _: None, workers=2, parallel_from=1)
    for path in [*(tmp_path / "serial").rglob("*.html"), tmp_path / "serial" / "style.css"]:
        assert (tmp_path / "pool" / path.relative_to(tmp_path / "serial")).read_bytes() == (
            path.read_bytes()
        )
