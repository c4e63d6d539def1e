"""A first report (no state in `--out`) of a data branch whose fold cache verifies takes the
ledger's lines as the cache vouches for them, checking none field by field again, and gives the
very files `--full` gives; a cache that is missing or stale, or that does not hold for a line or
a job, gives the whole ledger read with every check instead, and the report says why."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore, DirectoryStore
from rubricate.ledger.cache import (
    CachedJob,
    FoldCache,
    bucket_files,
    cache_head,
    derived_entries,
    ledger_id,
    load_cache,
    read_head,
)
from rubricate.ledger.codec import is_shard
from rubricate.ledger.event import Event
from rubricate.ledger.paths import CACHE_PATH, git_blob_id
from rubricate.ledger.treeids import directories
from rubricate.ledger.trust import KEY_ENV
from rubricate.report import cached, pool
from rubricate.report.reuse import STATE_PATH
from tests.ledger.factory import AGORA_IDS, event, scored
from tests.ledger.gitutil import bare_remote
from tests.report.sample import (
    parses_counted,
    sample_events,
    site_files,
    with_derived_files,
    write_ledger,
)

EPOCH = "1719792000"
KEY = b"k" * 32
OVERRIDE = {"reason": "the failing check is a known flaky network test"}


def every_kind() -> list[Event]:
    """The sample ledger, and jobs that test the fold's corners: an author who changes within a
    job, a job abandoned then reopened, raters who rate again, a second final approval after a
    rating, a score corrected by a reviewer, evidence that names another job, a job in another
    repository."""
    return [
        *sample_events(60),
        scored("first_submission", 301, 5, "a1", [4, 4, 4, 4, 4], author="alice"),
        event("rated", 301, 25, "a3", rating=2, actor="x", author="bob-the-builder"),
        scored("final_approval", 301, 20, "a2", [5, 5, 5, 5, 5], author="bob", gate="passed"),
        scored("final_approval", 301, 30, "a4", [3] * 5, gate="overridden", override=OVERRIDE),
        scored("first_submission", 302, 0, "b1", [2, 3, 2, 3, 2], source="auto"),
        scored("first_submission", 302, 1, "b1r", [4, 3], source="reviewer"),
        event("abandoned", 302, 3, "b2"),
        scored("review_scored", 302, 5, "b3", [3, 3, 3, 3, 3]),
        scored("final_approval", 302, 9, "b4", [4, 4, 4, 4, 4], gate="bypassed"),
        event("rated", 302, 12, "b5", rating=2, actor="x"),
        event("rated", 302, 13, "b6", rating=5, actor="x"),
        event("rated", 302, 14, "b7", rating=3, actor="y", actor_role="admin"),
        event("disputed", 302, 15, "b8", feedback="broke the build"),
        event("disputed", 302, 16, "b9", feedback="see", evidence=[{"pr": 5, "repo": "a/b"}]),
        scored("first_submission", 7, 1, "o1", [3] * 5, repo="o/other", author="carol"),
        scored("final_approval", 7, 9, "o2", [4] * 5, repo="o/other", author="carol"),
    ]


def _lines(events: list[Event]) -> dict[str, str]:
    """A corrupt line, a line repeated in another shard and a line in another month's shard."""
    return {
        "ledger/2024-02.jsonl": '{"kind": "nope"}',
        "ledger/2024-05.jsonl": events[3].to_line(),
        "ledger/2024-06.jsonl": events[8].to_line(),
    }


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data-branch directory with every kind of event and line, and its derived files."""
    events = every_kind()
    return with_derived_files(write_ledger(tmp_path / "data", events, _lines(events)))


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _report(source: list[str], out: Path, *extra: str) -> None:
    assert main(["report", *source, "--out", str(out), *extra]) == 0


@pytest.mark.parametrize("fmt", ["html", "markdown", "json"])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_first_report_checks_no_line_again_and_equals_a_full_one(
    data: Path,
    tmp_path: Path,
    fmt: str,
    workers: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = ["--data", str(data), "--format", fmt]
    calls = parses_counted(monkeypatch)
    monkeypatch.setattr(pool, "PARALLEL_JOBS_FROM", 0)
    monkeypatch.setattr(pool.os, "cpu_count", lambda: workers)
    _report(source, tmp_path / "full", "--full")
    assert calls == [1]
    full_err = capsys.readouterr().err
    _report(source, tmp_path / "first")
    assert calls == [1]  # no line checked again
    assert capsys.readouterr().err == full_err  # the corrupt line, located as verify does
    assert site_files(tmp_path / "first") == site_files(tmp_path / "full")
    assert (tmp_path / "first" / STATE_PATH).is_file()


def test_the_state_a_first_report_keeps_serves_the_next_one(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = ["--data", str(data)]
    site = tmp_path / "site"
    _report(source, site)
    with DirectoryStore(str(data)) as store:
        store.append(
            [
                event("rated", 301, 40, "c1", rating=4, actor="z", author="carol"),
                scored("first_submission", 303, 50, "c2", [2] * 5, author="zoe"),
            ]
        )
    calls = parses_counted(monkeypatch)
    _report(source, site)
    assert calls == []
    _report(source, tmp_path / "full", "--full")
    assert site_files(site) == site_files(tmp_path / "full")


def test_a_first_report_of_a_remote_branch_equals_a_full_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(every_kind())
    source = ["--remote", str(remote), "--format", "json"]
    calls = parses_counted(monkeypatch)
    _report(source, tmp_path / "first")
    assert calls == []
    _report(source, tmp_path / "full", "--full")
    assert site_files(tmp_path / "first") == site_files(tmp_path / "full")


def test_a_first_report_with_a_ledger_key_checks_every_signature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append(every_kind())
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    checked: list[int] = []
    real = cached.trusted

    def counted(events: Any, key: bytes | None = None) -> Any:
        assert key == KEY
        checked.append(1)
        return real(events, key)

    monkeypatch.setattr(cached, "trusted", counted)
    source = ["--remote", str(remote), "--format", "json"]
    calls = parses_counted(monkeypatch)
    _report(source, tmp_path / "first")
    assert calls == []
    assert len(checked) == len({(e.repo, e.pr) for e in every_kind()})
    _report(source, tmp_path / "full", "--full")
    assert site_files(tmp_path / "first") == site_files(tmp_path / "full")


def _tree(data: Path) -> dict[str, str]:
    return {
        p.relative_to(data).as_posix(): git_blob_id(p.read_bytes())
        for p in data.rglob("*")
        if p.is_file()
    }


def _forge(data: Path, change: Callable[[FoldCache], FoldCache]) -> None:
    """Write the fold cache `change` gives, with a head that verifies against the folder."""
    head = read_head((data / CACHE_PATH).read_bytes())
    assert head is not None
    cache = load_cache(head, {p: (data / p).read_bytes() for p in head["buckets"]})
    assert cache is not None
    forged = change(cache)
    for bucket, text in bucket_files(forged).items():
        (data / bucket).write_bytes(text)
    shards = ledger_id(directories({p: i for p, i in _tree(data).items() if is_shard(p)})[""])
    forged = replace(forged, shards_id=shards)
    (data / CACHE_PATH).write_bytes(cache_head(forged, derived_entries(_tree(data))))


def _rated_five(cache: FoldCache) -> FoldCache:
    """Job 302's raters all gave it five."""
    jobs = dict(cache.jobs)
    job = jobs[("o/r", 302)]
    ratings = tuple((role, 5) for role, _ in job.facts.ratings)
    jobs[("o/r", 302)] = CachedJob(replace(job.facts, ratings=ratings), job.file_id)
    return replace(cache, jobs=jobs)


def _one_job_less(cache: FoldCache) -> FoldCache:
    return replace(cache, jobs={k: j for k, j in cache.jobs.items() if k != ("o/r", 302)})


def _by_hand(compact: bool = False, **values: Any) -> str:
    """A line written by hand: valid (the ledger reader reads it), not as rubricate writes it."""
    written = json.loads(event("rated", 302, 100, "by-hand", rating=1, actor="q").to_line())
    return json.dumps({**written, **values}, separators=(",", ":") if compact else None)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("none", ""),
        ("stale", ""),
        (_rated_five, "o/r#302: its events do not fold to the fold cache's facts"),
        (_one_job_less, "not a line of a job the fold cache holds"),
        (_by_hand(pr="302"), "not a line of a job the fold cache holds"),
        (_by_hand(rating=1.0), "not a line of a job the fold cache holds"),
        (_by_hand(weighted_total=3), "not as rubricate writes it"),
        (_by_hand(at="2024-03-05T16:00:00+00:00"), "not as rubricate writes it"),
        (_by_hand(compact=True), "not a line of a job the fold cache holds"),
    ],
)
def test_a_cache_that_does_not_hold_gives_the_whole_ledger_read(
    tmp_path: Path,
    damage: Any,
    why: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    events = every_kind()
    lines = {"ledger/2024-03.jsonl": damage} if isinstance(damage, str) and "{" in damage else {}
    data = write_ledger(tmp_path / "data", events, lines)
    if damage != "none":
        with_derived_files(data)
    if damage == "stale":  # a line added by hand: the cache is of another ledger
        with (data / "ledger" / "2024-03.jsonl").open("a") as shard:
            shard.write(event("rated", 302, 100, "by-hand", rating=1, actor="q").to_line() + "\n")
    elif callable(damage):
        _forge(data, damage)
    calls = parses_counted(monkeypatch)
    _report(["--data", str(data)], tmp_path / "first")
    assert calls == [1]
    err = capsys.readouterr().err
    assert (why in err and "reading the whole ledger" in err) if why else "reading" not in err
    _report(["--data", str(data)], tmp_path / "full", "--full")
    assert site_files(tmp_path / "first") == site_files(tmp_path / "full")


def test_with_a_ledger_key_a_line_changed_by_hand_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with DirectoryStore(str(data), key=KEY) as store:
        store.append(every_kind())
    shard = data / "ledger" / "2024-03.jsonl"  # job 302's automatic score, corrected later
    lines = shard.read_text().splitlines()
    found = [n for n, line in enumerate(lines) if '"delivery": "b1"' in line]
    written = json.loads(lines[found[0]])
    written["scores"][AGORA_IDS[0]] = 1.0  # the facts stay: the reviewer corrected it
    lines[found[0]] = json.dumps(written, sort_keys=True)
    shard.write_text("\n".join(lines) + "\n")
    _forge(data, lambda cache: cache)
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    calls = parses_counted(monkeypatch)
    _report(["--data", str(data)], tmp_path / "first")
    assert calls == [1]
    assert "o/r#302: an event not signed with the ledger key" in capsys.readouterr().err
    _report(["--data", str(data)], tmp_path / "full", "--full")
    assert site_files(tmp_path / "first") == site_files(tmp_path / "full")


def test_a_worker_that_dies_leaves_its_group_to_this_process(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "PARALLEL_JOBS_FROM", 0)
    monkeypatch.setattr(pool.os, "cpu_count", lambda: 2)
    real = pool.submit

    def dead(executor: Any, function: Any, *args: Any) -> Any:
        if function is pool._sources:
            return real(executor, pool.os._exit, 9)
        return real(executor, function, *args)

    monkeypatch.setattr(pool, "submit", dead)
    _report(["--data", str(data), "--format", "json"], tmp_path / "first")
    _report(["--data", str(data), "--format", "json"], tmp_path / "full", "--full")
    assert site_files(tmp_path / "first") == site_files(tmp_path / "full")
