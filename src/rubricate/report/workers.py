"""The report's work spread over the cores (shell: processes): the ledger's shards parsed and
the author pages drawn by pools of processes, one per core.

Nothing depends on a pool running: where none can start (no `/dev/shm`, say) or a worker dies
(killed for memory), this process does the work it was given, with the same result.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rubricate.bulk import gc_paused

if TYPE_CHECKING:
    from rubricate.ledger.codec import ParsedLedger, ShardParse

T = TypeVar("T")
Progress = Callable[[str], None]
PARALLEL_FROM = 64
"""Draw author pages in parallel from this many authors on."""
PARALLEL_PARSE_FROM = 4_000_000
"""Ledgers of this many characters and more (about 5,000 events) are parsed on every core."""
SENT_COST = 1.4
"""What parsing a shard in a worker costs against parsing it here: its events come back pickled."""
CHUNK = 25
"""Authors drawn per task."""


def parse_in_parallel(
    texts: dict[str, str],
    workers: int | None = None,
    parallel_from: int = PARALLEL_PARSE_FROM,
    key: bytes | None = None,
) -> ParsedLedger:
    """The ledger of these shards (path → text), read as `parse_ledger` reads it with `key`. A
    large one is parsed by this process and a pool of others, each given whole shards of about
    equal cost."""
    from rubricate.ledger.codec import combine_shards

    workers = workers or os.cpu_count() or 1
    pool = _pool(workers - 1) if sum(map(len, texts.values())) >= parallel_from else None
    if pool is None:
        return combine_shards(_parse_group(texts, key), key)
    groups: list[dict[str, str]] = [{} for _ in range(workers)]
    costs = [0.0] * workers
    for path in sorted(texts, key=lambda p: -len(texts[p])):  # each to the least loaded group
        least = costs.index(min(costs))
        groups[least][path] = texts[path]
        costs[least] += len(texts[path]) * (1 if least == 0 else SENT_COST)
    with pool:
        sent = [(_submit(pool, _parse_group, group, key), group) for group in groups[1:]]
        parses = _parse_group(groups[0], key)
        for future, group in sent:
            theirs: list[ShardParse] = _outcome(future, _parse_group, group, key)
            parses += theirs
    return combine_shards(parses, key)


class AuthorPages:
    """The author pages: with many authors and more than one core, drawn by a pool of processes
    from the moment their part of the document is known (`start`, a few authors at a time), each
    sent only what its pages show."""

    def __init__(self, out: Path, workers: int | None = None, parallel_from: int = PARALLEL_FROM):
        self.out, self.parallel_from = out, parallel_from
        self.workers = workers or min(os.cpu_count() or 1, 8)
        self.pool: Executor | None = None
        self.chunks: list[tuple[Future[Drawn] | None, dict[str, Any]]] = []
        self.waiting: list[tuple[Mapping[str, Any], list[str]]] = []
        self.seen: set[str] = set()

    def start(self, part: Mapping[str, Any]) -> None:
        """Draw the page of each author in `part` (what their pages show) not drawn yet."""
        from rubricate.report.pages import author_slugs

        self.waiting.append((part, [s for s in author_slugs(part) if s not in self.seen]))
        self.seen.update(self.waiting[-1][1])
        if self.workers < 2 or (self.pool is None and len(self.seen) < self.parallel_from):
            return
        if self.pool is None:
            (self.out / "authors").mkdir(parents=True, exist_ok=True)
            self.pool = _pool(self.workers)
            if self.pool is None:  # drawn here, at the end
                self.workers = 1
                return
        for waiting, names in self.waiting:
            for i in range(0, len(names), CHUNK):
                chunk = _part(waiting, names[i : i + CHUNK])
                sent = _submit(self.pool, _draw_in_worker, self.out, chunk)
                self.chunks.append((sent, chunk))
        self.waiting.clear()

    def finish(self, report: Mapping[str, Any], progress: Progress) -> list[Path]:
        """Every author page, written."""
        from rubricate.report import charts
        from rubricate.report.pages import author_slugs

        slugs = author_slugs(report)
        if self.pool is None:
            return write_authors(report, self.out, slugs, progress)
        written: list[Path] = []
        for future, chunk in self.chunks:
            paths, styles = _outcome(future, _draw_chunk, self.out, chunk)
            written += [Path(p) for p in paths]
            charts.STYLES.update(styles)
            progress(f"author pages {len(written)}/{len(slugs)}")
        return written

    def close(self) -> None:
        """Stop the pool, if any (drawing nothing more)."""
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def write_authors(
    report: Mapping[str, Any], out: Path, slugs: Sequence[str], progress: Progress
) -> list[Path]:
    """The pages of these authors, drawn and written here."""
    from rubricate.report.author_page import author_pages

    written = []
    for done, (name, text) in enumerate(author_pages(report, set(slugs)), start=1):
        path = out / "authors" / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
        if done == len(slugs) or done % CHUNK == 0:
            progress(f"author pages {done}/{len(slugs)}")
    return written


Drawn = tuple[list[str], dict[str, str]]


def _part(report: Mapping[str, Any], slugs: Sequence[str]) -> dict[str, Any]:
    """What the pages of these authors show, and no more: a worker is sent only this."""
    authors = [e for e in report["authors"] if e["slug"] in slugs]
    logins = {e["author"] for e in authors}
    jobs = [row for row in report["scores"]["jobs"] if row["author"] in logins]
    kept = {k: report[k] for k in ("window", "generated_at", "ledger")}
    return {**kept, "authors": authors, "scores": {"jobs": jobs}}


def _draw_chunk(out: Path, part: dict[str, Any]) -> Drawn:
    """The pages of the authors in `part`, and the CSS of their charts."""
    from rubricate.report import charts

    paths = write_authors(part, out, [e["slug"] for e in part["authors"]], lambda _: None)
    return [str(p) for p in paths], charts.STYLES


def _draw_in_worker(out: Path, part: dict[str, Any]) -> Drawn:
    """`_draw_chunk` in a worker: what the parent held is never collected here, what drawing
    leaves is."""
    gc.freeze()
    gc.enable()
    return _draw_chunk(out, part)


def _parse_group(texts: dict[str, str], key: bytes | None = None) -> list[ShardParse]:
    from rubricate.ledger.codec import parse_shard

    with gc_paused():
        return [parse_shard(path, text, key) for path, text in texts.items()]


def _pool(workers: int) -> Executor | None:
    """A pool of `workers` processes, or None with fewer than one or where none can start."""
    if workers < 1:
        return None
    try:
        return ProcessPoolExecutor(workers)
    except (OSError, NotImplementedError):  # no working semaphores (no /dev/shm): one process
        return None


def _submit(pool: Executor, function: Callable[..., T], *args: Any) -> Future[T] | None:
    try:
        return pool.submit(function, *args)
    except BrokenExecutor:
        return None


def _outcome(future: Future[T] | None, function: Callable[..., T], *args: Any) -> T:
    """What the pool's worker returned for `function(*args)`, or the same computed here when
    the pool broke before it could."""
    try:
        if future is not None:
            return future.result()
    except BrokenExecutor:
        pass
    return function(*args)
