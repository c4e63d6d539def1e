"""Ledger benchmarks: fold N events into reputation.json; append one event to an N-event branch.

Run: `python benchmarks/bench_ledger.py [--sizes 1000,10000,100000]`. Prints one JSON object.
Events are synthetic but realistic: five per job (about N/5 jobs), up to 500 authors, a full
Agora rubric reference on every scoring event, spread over 24 monthly shards.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.derive import derive_files
from rubricate.ledger.event import CriterionRef, Event, RubricRef, ScaleRef
from rubricate.ledger.reputation import compute_reputation
from rubricate.ledger.trust import natural_key

START = datetime(2023, 1, 1, tzinfo=timezone.utc)
AGORA = RubricRef(
    id="agora-v3",
    version="3",
    scale=ScaleRef(min=1, max=5),
    criteria={
        name: CriterionRef(weight=weight)
        for name, weight in (
            ("spec_adherence", 0.30),
            ("completeness", 0.20),
            ("quality", 0.25),
            ("verifiability", 0.15),
            ("format_correctness", 0.10),
        )
    },
)
NAMES = tuple(AGORA.criteria or {})


def make_events(count: int) -> list[Event]:
    """`count` events: five per job, jobs spread over 24 months and up to 500 authors."""
    jobs = max(1, count // 5)
    events: list[Event] = []
    for pr in range(1, jobs + 1):
        events.extend(_job(pr, jobs))
    return events[:count]


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
    opened = opened or START + timedelta(minutes=pr * (24 * 30 * 24 * 60) // jobs)
    author = author or f"agent-{pr % 500}"
    scores = {n: float(1 + (pr + i) % 5) for i, n in enumerate(NAMES)}
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
        "deadline": opened + timedelta(hours=48),
    }


def _event(kind: str, at: datetime, delivery: str, fields: dict[str, Any]) -> Event:
    scoring = kind in ("first_submission", "review_scored", "final_approval")
    values = {
        "kind": kind,
        "actor": "reviewer",
        "actor_role": "write",
        "at": at,
        "delivery": delivery,
        "tree_sha": fields["head_sha"],
        **({"rubric": AGORA} if scoring else {}),
        **fields,
    }
    values["id"] = natural_key(kind, fields["repo"], fields["pr"], 1, delivery)
    return Event.model_validate(values)


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


def bench_append(events: list[Event], root: Path) -> dict[str, float]:
    """Seconds to append one event to a local bare remote already holding `events`.

    Cold: a fresh process-like store with an empty private repository (as in CI), median of 3.
    Warm: a store reusing its private repository from an earlier append.
    """
    remote = root / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    seed = _timed(lambda: _append(remote, events, None))
    jobs = len(events) // 5 + 1
    extra = [_job(jobs + n, jobs)[0] for n in range(1, 6)]
    before, cpu = _stored(remote), _cpu()
    cold = sorted(_timed(lambda e=e: _append(remote, [e], None)) for e in extra[:3])  # type: ignore[misc]
    written, cold_cpu = (_stored(remote) - before) / 3, (_cpu() - cpu) / 3
    warm_dir = str(root / "warm")
    _append(remote, extra[3:4], warm_dir)
    warm = _timed(lambda: _append(remote, extra[4:5], warm_dir))
    return {
        "seed_branch_s": seed,
        "append_one_cold_s": cold[1],
        "append_one_cold_cpu_s": cold_cpu,
        "append_one_bytes_written": written,
        "append_one_warm_s": warm,
    }


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
        "--verify", action="store_true", help="also measure `ledger verify` and `verify --fix`"
    )
    args = parser.parse_args()
    goals = {"fold_100k_s": 1.0, "append_100k_s": 0.5, "append_1m_s": 1.0, "seed_1m_s": 180}
    goals["verify_fix_1m_peak_rss_mb"] = 1536
    results: dict[str, Any] = {"goals": goals, "sizes": {}}
    for size in (int(s) for s in args.sizes.split(",")):
        events = make_events(size)
        row: dict[str, Any] = {"events": len(events), "jobs": len({e.pr for e in events})}
        row["authors"] = len({e.author for e in events})
        if not args.no_fold:
            row.update(bench_fold(events))
        with tempfile.TemporaryDirectory() as tmp:
            row.update(bench_append(events, Path(tmp)))
            if args.verify:
                row.update(bench_verify(Path(tmp) / "remote.git"))
        results["sizes"][str(size)] = {
            k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()
        }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
