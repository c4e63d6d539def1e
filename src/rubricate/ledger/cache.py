"""The fold cache: every job's facts and what they were built from (pure: data to bytes and back).

A derived file like the others (a full recompute rebuilds it byte for byte), it lets an append
re-fold only the jobs it touches. `.rubricate/fold-cache.json` (the head) names the shards and
their blob ids, the located problems, and the blob id of each bucket of job facts,
`.rubricate/facts/<pr // 1000>.jsonl` (one job a line), so an append rewrites one small bucket.
The cache is trusted only while every shard and bucket still has the blob id the head recorded,
and each touched job file still has the id its row recorded; otherwise the writer folds the
whole ledger again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from rubricate.config import ReputationConfig
from rubricate.ledger.codec import LedgerProblem, git_blob_id
from rubricate.ledger.event import parse_time, rfc3339
from rubricate.ledger.fold import JobFacts

CACHE_PATH = ".rubricate/fold-cache.json"
BUCKET_DIR = ".rubricate/facts/"
BUCKET_SIZE = 1000
CACHE_FORMAT = 2
_STATES = ("open", "completed", "abandoned")


@dataclass(frozen=True)
class CachedJob:
    """One job's facts and the git blob id of its job file."""

    facts: JobFacts
    file_id: str


@dataclass(frozen=True)
class FoldCache:
    """Everything the summary files need, without the events themselves."""

    config: ReputationConfig
    shards: Mapping[str, str] = field(default_factory=dict)
    events: int = 0
    newest_at: datetime | None = None
    corrupt: tuple[LedgerProblem, ...] = ()
    duplicates: tuple[LedgerProblem, ...] = ()
    misplaced: tuple[LedgerProblem, ...] = ()
    jobs: Mapping[tuple[str, int], CachedJob] = field(default_factory=dict)
    buckets: Mapping[str, str] = field(default_factory=dict)
    """Each bucket's path and blob id, as the head recorded them."""

    @property
    def repos(self) -> tuple[str, ...]:
        """The repositories the ledger holds, sorted."""
        return tuple(sorted({repo for repo, _ in self.jobs}))


def bucket_path(pr: int) -> str:
    """The bucket holding a job's facts."""
    return f"{BUCKET_DIR}{pr // BUCKET_SIZE}.jsonl"


def cache_files(cache: FoldCache, touched: Iterable[str] | None = None) -> dict[str, bytes]:
    """The head and the buckets (only the `touched` ones, when given; all otherwise)."""
    rows: dict[str, list[str]] = {}
    wanted = None if touched is None else set(touched)
    for key in sorted(cache.jobs):
        path = bucket_path(key[1])
        if wanted is None or path in wanted:
            rows.setdefault(path, []).append(json.dumps(_job_row(cache.jobs[key])))
    files = {path: ("\n".join(lines) + "\n").encode() for path, lines in rows.items()}
    kept = {} if wanted is None else {p: i for p, i in cache.buckets.items() if p not in wanted}
    ids = {**kept, **{p: git_blob_id(d) for p, d in files.items()}}
    files[CACHE_PATH] = _head(cache, ids)
    return files


def read_head(data: bytes) -> dict[str, Any] | None:
    """The parsed head, or None when it is unreadable or of another format."""
    try:
        head = json.loads(data)
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("format") != CACHE_FORMAT:
        return None
    return head


def head_config(head: dict[str, Any] | None) -> ReputationConfig | None:
    """The reputation config a head records, if it holds a valid one."""
    try:
        return None if head is None else ReputationConfig.model_validate(head["config"])
    except (KeyError, ValidationError):
        return None


def load_cache(head: dict[str, Any], buckets: Mapping[str, bytes]) -> FoldCache | None:
    """The cache from its head and every bucket it names; None when anything does not match."""
    try:
        recorded = {str(p): str(i) for p, i in head["buckets"].items()}
        if set(buckets) != set(recorded):
            return None
        if any(git_blob_id(buckets[p]) != recorded[p] for p in recorded):
            return None
        jobs = {}
        for data in buckets.values():
            for line in data.splitlines():
                cached = _job_from_row(json.loads(line))
                jobs[(cached.facts.repo, cached.facts.pr)] = cached
        return _from_head(head, jobs, recorded)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def _head(cache: FoldCache, buckets: Mapping[str, str]) -> bytes:
    head = {
        "format": CACHE_FORMAT,
        "config": cache.config.model_dump(mode="json"),
        "shards": dict(sorted(cache.shards.items())),
        "buckets": dict(sorted(buckets.items())),
        "repos": list(cache.repos),
        "events": cache.events,
        "newest_at": rfc3339(cache.newest_at),
        "corrupt": [_problem(p) for p in cache.corrupt],
        "duplicates": [_problem(p) for p in cache.duplicates],
        "misplaced": [_problem(p) for p in cache.misplaced],
    }
    return (json.dumps(head, indent=1, sort_keys=True) + "\n").encode()


def _from_head(
    head: dict[str, Any], jobs: dict[tuple[str, int], CachedJob], buckets: dict[str, str]
) -> FoldCache:
    return FoldCache(
        config=ReputationConfig.model_validate(head["config"]),
        shards={str(k): str(v) for k, v in head["shards"].items()},
        events=int(head["events"]),
        newest_at=parse_time(head["newest_at"]),
        corrupt=tuple(LedgerProblem(*p) for p in head["corrupt"]),
        duplicates=tuple(LedgerProblem(*p) for p in head["duplicates"]),
        misplaced=tuple(LedgerProblem(*p) for p in head["misplaced"]),
        jobs=jobs,
        buckets=buckets,
    )


def _job_row(cached: CachedJob) -> list[Any]:
    f = cached.facts
    return [
        f.repo,
        f.pr,
        f.author,
        f.state,
        rfc3339(f.opened_at),
        rfc3339(f.closed_at),
        rfc3339(f.deadline),
        f.disputed,
        [list(r) for r in f.ratings],
        f.rubric_quality,
        f.events,
        cached.file_id,
    ]


def _job_from_row(row: list[Any]) -> CachedJob:
    (
        repo,
        pr,
        author,
        state,
        opened,
        closed,
        deadline,
        disputed,
        ratings,
        quality,
        events,
        file_id,
    ) = row
    opened_at = parse_time(opened)
    if opened_at is None or state not in _STATES:
        raise ValueError("bad job row")
    facts = JobFacts(
        repo=str(repo),
        pr=int(pr),
        author=str(author),
        state=state,
        opened_at=opened_at,
        closed_at=parse_time(closed),
        deadline=parse_time(deadline),
        disputed=bool(disputed),
        ratings=tuple((str(role), int(rating)) for role, rating in ratings),
        rubric_quality=None if quality is None else float(quality),
        events=int(events),
    )
    return CachedJob(facts, str(file_id))


def _problem(problem: LedgerProblem) -> list[Any]:
    return [problem.file, problem.line, problem.message]
