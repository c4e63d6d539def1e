"""Ledger benchmarks: fold N events into reputation.json; append one event to an N-event branch.

Run: `python benchmarks/bench_ledger.py [--sizes 1000,10000,100000]` (`--sizes 1000000
--no-fold` for a million: the fold benchmark holds every event in memory). Prints one JSON
object (and each size's row on stderr as it is done); every CPU time counts git's processes.
Events are synthetic but realistic: five per job (about N/5 jobs), up to 500 authors, a full
Agora rubric reference on every scoring event, spread over 24 monthly shards.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

from ledger_seed import seed_branch

from rubricate.gitio.workspace import LOCAL_UPLOAD_PACK
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.derive import derive_files
from rubricate.ledger.event import SCHEMA_VERSION, CriterionRef, Event, RubricRef, ScaleRef, rfc3339
from rubricate.ledger.reputation import compute_reputation
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.trust import natural_key

START = datetime(2023, 1, 1, tzinfo=timezone.utc)
WEIGHTS = (
    ("spec_adherence", 0.30),
    ("completeness", 0.20),
    ("quality", 0.25),
    ("verifiability", 0.15),
    ("format_correctness", 0.10),
)
# Criteria and scores in sorted order, as they read back from a ledger line: a generated event is
# then already canonical (its weighted sums add in the same order), so a seeder may skip that step.
AGORA = RubricRef(
    id="agora-v3",
    version="3",
    scale=ScaleRef(min=1, max=5),
    criteria={name: CriterionRef(weight=weight) for name, weight in sorted(WEIGHTS)},
)
NAMES = tuple(name for name, _ in WEIGHTS)
AGORA_JSON = AGORA.model_dump(mode="json", exclude_none=True)
BYTECODE_OFF = "PYTHONDONTWRITEBYTECODE"
NEXT_JOB = "rubricate-bench-next-job"
Append = Callable[[Path, list[Event], str | None], None]


def make_events(count: int) -> list[Event]:
    """`count` events: five per job, jobs spread over 24 months and up to 500 authors."""
    return [event for job in job_events(count) for event in job]


def job_events(count: int) -> Iterator[list[Event]]:
    """The events of `make_events(count)`, one job at a time, read as ledger lines are (events
    recorded with one rubric share its reference)."""
    for records in job_records(count):
        yield [Event.model_validate_json(json.dumps(record)) for record in records]


def job_records(
    count: int, first: int = 1, stop: int | None = None
) -> Iterator[list[dict[str, Any]]]:
    """The events of `make_events(count)` as the JSON objects of their canonical ledger lines,
    one job at a time (made without validating: `job_events` and the seeder validate them);
    with `first` and `stop`, only those of the jobs numbered from `first` to before `stop`."""
    jobs = max(1, count // 5)
    left = count - 5 * (first - 1)  # (every job before the last has five events)
    for pr in range(first, jobs + 1 if stop is None else min(stop, jobs + 1)):
        if left <= 0:
            return
        records = _job_values(pr, jobs)[:left]
        left -= len(records)
        yield records


def job_blocks(count: int, size: int = 1000) -> list[Iterator[list[dict[str, Any]]]]:
    """`job_records(count)` in blocks of `size` consecutive jobs, each made as it is read."""
    jobs = max(1, count // 5)
    return [job_records(count, first, first + size) for first in range(1, jobs + 1, size)]


def history_events(git_dir: Path) -> list[Event]:
    """Events shaped by a real repository's history: five for each squash-merged pull request
    (a commit subject ending in `(#N)`), by its commit author, merged at its commit time."""
    log = subprocess.run(
        ["git", f"--git-dir={git_dir}", "log", "--format=%aI%x1f%an%x1f%s"],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    merged: dict[int, tuple[str, datetime]] = {}
    for line in log.splitlines():
        at, name, subject = line.split("\x1f", 2)
        found = re.search(r"\(#(\d+)\)$", subject)
        login = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:39] or "someone"
        if found:  # the newest commit of a number (git log lists newest first)
            merged.setdefault(int(found[1]), (login, datetime.fromisoformat(at)))
    events: list[Event] = []
    for pr, (author, at) in sorted(merged.items()):
        events += _job(pr, len(merged), author, at.astimezone(timezone.utc) - timedelta(hours=30))
    return events


def _job(
    pr: int, jobs: int, author: str | None = None, opened: datetime | None = None
) -> list[Event]:
    return [Event.model_validate(values) for values in _job_values(pr, jobs, author, opened)]


def _job_values(
    pr: int, jobs: int, author: str | None = None, opened: datetime | None = None
) -> list[dict[str, Any]]:
    """A job's five events as the JSON objects of their canonical ledger lines."""
    opened = opened or START + timedelta(minutes=pr * (24 * 30 * 24 * 60) // jobs)
    author = author or f"agent-{pr % 500}"
    scores = dict(sorted((n, float(1 + (pr + i) % 5)) for i, n in enumerate(NAMES)))
    sha = f"{pr:040x}"
    common: dict[str, Any] = {"repo": "o/r", "pr": pr, "author": author, "head_sha": sha}
    abandoned = pr % 10 == 0
    plan: list[tuple[str, int, dict[str, Any]]] = [
        ("first_submission", 0, {"scores": scores, "source": "auto", "actor_role": "bot"}),
        ("first_submission", 2, {"scores": {"quality": 4.0}, "source": "reviewer"}),
        ("review_scored", 2, {"scores": {"quality": 4.0}, "source": "reviewer"}),
        ("abandoned", 30, {}) if abandoned else ("final_approval", 30, _approval(opened, scores)),
        ("rated", 40, {"rating": 1 + pr % 5, "actor_role": "maintain"}),
    ]
    return [
        _event(kind, opened + timedelta(hours=h), f"d{pr}-{n}", {**common, **extra})
        for n, (kind, h, extra) in enumerate(plan)
    ]


def _approval(opened: datetime, scores: dict[str, float]) -> dict[str, Any]:
    return {
        "scores": scores,
        "source": "reviewer",
        "gate": "passed",
        "deadline": rfc3339(opened + timedelta(hours=48)),
    }


def _event(kind: str, at: datetime, delivery: str, fields: dict[str, Any]) -> dict[str, Any]:
    scoring = kind in ("first_submission", "review_scored", "final_approval")
    values = {
        "schema_version": SCHEMA_VERSION,
        "version": 1,
        "kind": kind,
        "actor": "reviewer",
        "actor_role": "write",
        "at": rfc3339(at),
        "delivery": delivery,
        "tree_sha": fields["head_sha"],
        **({"rubric": AGORA_JSON} if scoring else {}),
        **fields,
    }
    values["id"] = natural_key(kind, fields["repo"], fields["pr"], 1, delivery)
    return values


def shard_texts(events: list[Event]) -> dict[str, str]:
    """The ledger shards these events make."""
    shards: dict[str, list[str]] = {}
    for event in events:
        shards.setdefault(f"ledger/{event.at:%Y-%m}.jsonl", []).append(event.to_line())
    return {path: "\n".join(lines) + "\n" for path, lines in shards.items()}


def bench_fold(events: list[Event]) -> dict[str, float]:
    """Seconds (best of 3) to fold into reputation.json; once to parse shards and derive all."""
    config = ReputationConfig()
    fold = min(_timed(lambda: compute_reputation(events, config)) for _ in range(3))
    texts = shard_texts(events)
    started = time.perf_counter()
    parsed = parse_ledger(texts)
    parse = time.perf_counter() - started
    derive = _timed(lambda: derive_files(parsed, config))
    return {"fold_to_reputation_s": fold, "parse_shards_s": parse, "derive_all_files_s": derive}


def bench_append(size: int, root: Path, seeded: Path | None = None) -> dict[str, float]:
    """Seed a local bare remote with `size` events (`ledger_seed`, one fast-import commit), then
    time appending one event to it: wall and CPU seconds (git processes included), bytes the
    remote stores more, and git processes started (children of git included). With `seeded`,
    the appends go to that remote, already seeded with `size` events by `ledger_seed` (and
    grown by earlier runs: each run's events are new jobs numbered from its size).

    Cold: a fresh store with an empty private repository (as in CI), median of 3 in-process;
    CLI: `rubricate ledger append --remote` in a new process (Python start and imports
    included), median of 3, with the modules' bytecode cached as an installed package has it
    (after one run that writes it); CLI uncompiled: the same with no bytecode to read or write
    (`PYTHONDONTWRITEBYTECODE` and an empty cache), so every module is compiled from source on
    every run; warm: a store reusing its private repository.
    """
    row: dict[str, float] = {}
    if seeded is None:
        remote = root / "remote.git"
        subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
        cpu, started = _cpu(), time.perf_counter()
        seed_branch(remote, job_blocks(size), "o/r", processes=2)
        row = {"seed_branch_s": time.perf_counter() - started, "seed_branch_cpu_s": _cpu() - cpu}
        row["seed_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    else:
        remote = seeded
    jobs = size // 5 + 1
    first = 1 if seeded is None else _first_new_job(remote, 15)
    extra = iter(_job(jobs + n, jobs)[0] for n in range(first, first + 15))
    _append(remote, [next(extra)], None)  # the seed's head is checked like any other
    cached = _bytecode(root / "bytecode", cached=True)
    _append_cli(remote, [next(extra)], None, cached)  # writes the bytecode the runs read
    uncompiled = _bytecode(root / "no-bytecode", cached=False)
    ratings = iter(_rating(size // 5, first + n) for n in range(3))
    appends: tuple[tuple[str, Append, Iterator[Event]], ...] = (
        ("cold", _append, extra),
        ("cli", partial(_append_cli, env=cached), extra),
        ("cli_uncompiled", partial(_append_cli, env=uncompiled), extra),
        ("cli_rating", partial(_append_cli, env=cached), ratings),
    )
    for name, append, given in appends:
        walls, before, cpu, processes = [], _stored(remote), _cpu(), 0
        for _ in range(3):
            with _git_processes() as count:
                batch = [next(given)]
                walls.append(_timed(lambda a=append, b=batch: a(remote, b, None)))  # type: ignore[misc]
                processes += count()
        row[f"append_one_{name}_s"] = sorted(walls)[1]
        row[f"append_one_{name}_cpu_s"] = (_cpu() - cpu) / 3
        row[f"append_one_{name}_bytes_written"] = (_stored(remote) - before) / 3
        row[f"append_one_{name}_git_processes"] = processes / 3
    warm_dir = str(root / "warm")
    _append(remote, [next(extra)], warm_dir)
    row["append_one_warm_s"] = _timed(lambda: _append(remote, [next(extra)], warm_dir))
    return row


def _rating(jobs: int, number: int) -> Event:
    """A new rating of one of the first `jobs` jobs (of `job_records`), completed: it moves the
    repository's rating mean, so every author's `ranked` values move (a new job's first event
    moves no mean)."""
    pr = 1 + number * 7919 % (jobs - 1)
    pr += 1 if pr % 10 == 0 else 0  # every tenth job is abandoned
    first = _job_values(pr, jobs)[0]
    at = datetime.fromisoformat(first["at"].replace("Z", "+00:00")) + timedelta(hours=41)
    fields = {k: first[k] for k in ("repo", "pr", "author", "head_sha")}
    rating = {"rating": 1 + number % 5, "actor_role": "maintain"}
    return Event.model_validate(_event("rated", at, f"bench-rating-{number}", fields | rating))


def _first_new_job(remote: Path, count: int) -> int:
    """A seeded remote keeps what earlier runs appended: each run takes the next `count` job
    numbers past the seed's, counted in a file kept in the bare repository (git ignores it)."""
    mark = remote / NEXT_JOB
    first = int(mark.read_text()) if mark.exists() else 1
    mark.write_text(f"{first + count}\n")
    return first


def bench_verify(remote: Path) -> dict[str, float]:
    """Peak RSS (MB) and wall seconds of `ledger verify`, then of `verify --fix` after one derived
    file was made stale (a full rebuild), each in a fresh process, on the seeded remote."""
    clean = _peak(["ledger", "verify", "--remote", str(remote)])
    with DataBranchStore(str(remote)) as store:
        store.git.write(store.git.tip(), {"badges/repo.json": b"{}\n"}, [], "Make a file stale\n")
    fixed = _peak(["ledger", "verify", "--fix", "--remote", str(remote)])
    return {
        "verify_peak_rss_mb": clean[0],
        "verify_s": clean[1],
        "verify_fix_peak_rss_mb": fixed[0],
        "verify_fix_s": fixed[1],
    }


def bench_tip_fetch(remote: Path, root: Path) -> dict[str, float]:
    """What fetching the branch tip costs (bytes the private repository then holds, CPU seconds
    with git's children): as appends do (`--depth 1 --filter=blob:none`: the commit and every
    tree), and with `--filter=tree:0` (the commit alone) followed by reading the root tree, which
    git then fetches on demand from the promisor remote."""
    upload = f"--upload-pack={LOCAL_UPLOAD_PACK}"
    row: dict[str, float] = {}
    for name, extra in (("blob_none", []), ("tree_0", ["commit^{tree}"])):
        repo = root / f"fetch-{name}"
        subprocess.run(["git", "init", "--quiet", "--bare", str(repo)], check=True)
        cpu = _cpu()
        fetch = ["git", "-C", str(repo), "fetch", "--quiet", "--no-tags", "--depth", "1", upload]
        ref = "+refs/heads/rubricate-data:refs/heads/commit"
        fetch += [f"--filter={name.replace('_', ':', 1)}", remote.as_uri(), ref]
        subprocess.run(fetch, check=True)
        for spec in extra:  # the lazy fetch of a missing tree
            subprocess.run(
                ["git", "-C", str(repo), "cat-file", "-t", spec], check=True, capture_output=True
            )
        row[f"tip_fetch_{name}_cpu_s"] = _cpu() - cpu
        row[f"tip_fetch_{name}_bytes"] = _stored(repo)
    return row


def _peak(arguments: list[str]) -> tuple[float, float]:
    """The peak RSS (MB) and wall seconds of `rubricate ARGUMENTS` in a child process."""
    script = (
        "import resource, sys\n"
        "from rubricate.cli.main import main\n"
        "try:\n    code = main(sys.argv[1:])\nexcept SystemExit as exc:\n    code = exc.code\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(f'PEAK {peak} {code}', file=sys.stderr)\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, *arguments], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    found = re.search(r"PEAK (\d+) (\S+)", done.stderr)
    if found is None or found[2] not in ("0", "1", "None"):
        raise RuntimeError(f"rubricate {' '.join(arguments)} failed: {done.stderr[-2000:]}")
    return int(found[1]) / 1024, wall


def _stored(remote: Path) -> int:
    """Bytes of the objects the remote holds."""
    return sum(f.stat().st_size for f in (remote / "objects").rglob("*") if f.is_file())


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _append(remote: Path, events: list[Event], workdir: str | None) -> None:
    with DataBranchStore(str(remote), workdir=workdir) as store:
        result = store.append(events)
    if result.added != len(events):
        raise RuntimeError(f"expected {len(events)} new events, got {result}")


def _bytecode(cache: Path, cached: bool) -> dict[str, str]:
    """The settings of a CLI run whose bytecode lives in `cache` (written and read), or is
    neither read nor written (`cached` false: every module compiled from source)."""
    cache.mkdir()
    return {"PYTHONPYCACHEPREFIX": str(cache), **({} if cached else {BYTECODE_OFF: "1"})}


def _append_cli(
    remote: Path, events: list[Event], workdir: str | None, env: dict[str, str]
) -> None:
    """`rubricate ledger append --remote` in a new process."""
    lines = "".join(e.to_line() + "\n" for e in events).encode()
    command = [sys.executable, "-m", "rubricate", "ledger", "append", "--remote", str(remote), "-"]
    settings = {k: v for k, v in os.environ.items() if k != BYTECODE_OFF} | env
    done = subprocess.run(command, input=lines, capture_output=True, check=False, env=settings)
    if done.returncode != 0:
        raise RuntimeError(f"ledger append failed: {done.stderr.decode()[-2000:]}")


@contextmanager
def _git_processes() -> Iterator[Callable[[], int]]:
    """Count the git processes started inside the block (through git's trace2 events)."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace"
        before = os.environ.get("GIT_TRACE2_EVENT")
        os.environ["GIT_TRACE2_EVENT"] = str(trace)
        try:
            yield lambda: trace.read_text().count('"event":"start"') if trace.exists() else 0
        finally:
            if before is None:
                del os.environ["GIT_TRACE2_EVENT"]
            else:
                os.environ["GIT_TRACE2_EVENT"] = before


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    """Run every size and print the results as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-fold", action="store_true", help="measure appends only")
    parser.add_argument(
        "--tmp", default=None, help="where the seeded remote goes (default: TMPDIR)"
    )
    parser.add_argument(
        "--verify", action="store_true", help="also measure `ledger verify` and `verify --fix`"
    )
    parser.add_argument(
        "--fetch", action="store_true", help="also measure the tip fetch with two filters"
    )
    parser.add_argument(
        "--seeded",
        type=Path,
        help="append to this bare remote, seeded with --sizes events (one size) by ledger_seed",
    )
    args = parser.parse_args()
    goals = {"fold_100k_s": 1.0, "append_100k_s": 0.5, "append_1m_s": 1.0, "seed_1m_s": 180}
    goals["verify_fix_1m_peak_rss_mb"] = 1536
    results: dict[str, Any] = {"goals": goals, "sizes": {}}
    for size in (int(s) for s in args.sizes.split(",")):
        jobs = max(1, size // 5)
        row: dict[str, Any] = {"events": size, "jobs": jobs, "authors": min(500, jobs)}
        if not args.no_fold:
            row.update(bench_fold(make_events(size)))
        with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
            row.update(bench_append(size, Path(tmp), args.seeded))
            remote = args.seeded or Path(tmp) / "remote.git"
            if args.verify:
                row.update(bench_verify(remote))
            if args.fetch:
                row.update(bench_tip_fetch(remote, Path(tmp)))
        results["sizes"][str(size)] = {
            k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()
        }
        results["sizes"][str(size)]["load_average"] = [round(x, 2) for x in os.getloadavg()]
        print(json.dumps({str(size): results["sizes"][str(size)]}), file=sys.stderr, flush=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
