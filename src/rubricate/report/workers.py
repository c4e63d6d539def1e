"""The author pages, drawn by a pool of processes (shell: processes, writes files).

With many authors and more than one core, a pool draws the pages from the moment their part of
the document is known (`AuthorPages.start`, a few authors at a time), each worker sent only what
its pages show. A page whose inputs (`page_inputs`) are those it was last drawn from, and that is
still there, is not drawn again; when the report says which authors' pages may have changed
(`keep_unless`), the others are kept without looking at their inputs, as long as what every page
shows (`page_context`) is the same. The pool starts only once enough pages must be drawn.
Without a pool, or when a worker dies, this process draws.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

from rubricate import __version__
from rubricate.bulk import only_new_collected
from rubricate.report import author_page, chart_styles
from rubricate.report.kept_json import KeptJSON, canonical, rows_for_writing
from rubricate.report.pages import author_slugs
from rubricate.report.pool import outcome, start_pool, submit
from rubricate.report.reuse import DrawnPage

Progress = Callable[[str], None]
PARALLEL_FROM = 64
"""Draw author pages in parallel from this many authors on."""
CHUNK = 25
"""Authors drawn per task."""
SHOWN_WINDOW = ("from", "author")
"""What of the window an author page shows (`pages.subtitle`)."""
Styles = dict[str, str]
"""Chart CSS by class name (see `chart_styles.STYLES`)."""


class AuthorPages:
    """The author pages of one site: drawn in the background as their parts come (`start`),
    written by `finish`. `previous`: the pages already in `out` (slug → how each was drawn);
    those whose inputs did not change are kept as they are."""

    def __init__(
        self,
        out: Path,
        workers: int | None = None,
        parallel_from: int = PARALLEL_FROM,
        previous: Mapping[str, DrawnPage] | None = None,
        context: str = "",
    ):
        self.out, self.parallel_from = out, parallel_from
        self.workers = workers or min(os.cpu_count() or 1, 8)
        self.previous = previous or {}
        self.previous_context = context
        self.stale: set[str] | None = None
        self.context = ""
        """What every page of this run shows besides its author's (`page_context`)."""
        self.pool: Executor | None = None
        self.chunks: list[tuple[Future[Drawn] | None, dict[str, Any]]] = []
        self.waiting: list[tuple[Mapping[str, Any], dict[str, dict[str, Any]]]] = []
        """Parts whose pages are to be drawn, each with those pages' inputs (by slug)."""
        self.seen: set[str] = set()
        self.drawn: dict[str, DrawnPage] = {}
        """Every page of the site as drawn (or kept) by this run, by slug."""
        self.digests: dict[str, str] = {}
        self.rows: Sequence[Mapping[str, Any]] = ()
        self.positions: dict[str, list[int]] = defaultdict(list)
        """Where each author's rows are in `rows`, the report's job rows (`_narrowed`)."""

    def start(self, part: Mapping[str, Any]) -> None:
        """Draw the page of each author in `part` (what their pages show) not drawn yet."""
        fresh = [s for s in author_slugs(part) if s not in self.seen]
        self.seen.update(fresh)
        self.context = page_context(part)
        same = self.stale is not None and self.context == self.previous_context
        unread = []
        for slug in fresh:
            kept = self.previous.get(slug)
            if same and slug not in (self.stale or ()) and kept and self._page(slug).is_file():
                self.drawn[slug], self.digests[slug] = kept, kept.digest
            else:
                unread.append(slug)
        inputs = page_inputs(self._narrowed(part, unread), unread) if unread else {}
        names = []
        for slug in unread:
            digest = self.digests[slug] = _digest(inputs[slug])
            kept = self.previous.get(slug)
            if kept is not None and kept.digest == digest and self._page(slug).is_file():
                self.drawn[slug] = kept
            else:
                names.append(slug)
        self.waiting.append((part, {slug: inputs[slug] for slug in names}))
        queued = sum(len(shown) for _, shown in self.waiting)
        if not queued or self.workers < 2:
            return
        if self.pool is None and queued < self.parallel_from:
            return
        if self.pool is None:
            (self.out / "authors").mkdir(parents=True, exist_ok=True)
            self.pool = start_pool(self.workers)
            if self.pool is None:  # drawn here, at the end
                self.workers = 1
                return
        for waiting, shown in self.waiting:
            slugs = list(shown)
            for i in range(0, len(slugs), CHUNK):
                chunk = _part(waiting, shown, slugs[i : i + CHUNK])
                self.chunks.append((submit(self.pool, _draw_in_worker, self.out, chunk), chunk))
        self.waiting.clear()

    def finish(self, report: Mapping[str, Any], progress: Progress) -> list[Path]:
        """The author pages drawn by this run, written; the CSS of every page's charts (those
        kept too) added to `chart_styles.STYLES`."""
        slugs = author_slugs(report)
        if self.pool is None:  # drawn here, from the inputs their digests were taken of
            drawn = {}
            for waiting, shown in self.waiting:
                if shown:
                    drawn.update(_draw_chunk(self.out, _part(waiting, shown, list(shown))))
                    progress(f"author pages {len(drawn)}/{len(slugs)}")
        else:
            drawn = {}
            for future, chunk in self.chunks:
                theirs: Drawn = outcome(future, _draw_chunk, self.out, chunk)
                drawn.update(theirs)
                progress(f"author pages {len(drawn)}/{len(slugs)}")
        for slug, styles in drawn.items():
            self.drawn[slug] = DrawnPage(self.digests[slug], styles)
        for page in self.drawn.values():
            chart_styles.STYLES.update(page.styles)
        return [self._page(slug) for slug in sorted(drawn)]

    def _narrowed(self, part: Mapping[str, Any], slugs: Sequence[str]) -> Mapping[str, Any]:
        """`part` with only the job rows of these authors, found through an index of the rows
        by author (made once for the report's rows, which every part shares)."""
        rows = part["scores"]["jobs"]
        if rows is not self.rows:
            self.rows, self.positions = rows, defaultdict(list)
            for position, row in enumerate(rows):
                self.positions[row["author"]].append(position)
        wanted = set(slugs)
        logins = {entry["author"] for entry in part["authors"] if entry["slug"] in wanted}
        found = sorted(p for login in logins for p in self.positions.get(login, ()))
        return {**part, "scores": {**part["scores"], "jobs": [rows[p] for p in found]}}

    def keep_unless(self, stale: set[str]) -> None:
        """Only the pages named `stale` may show something else than when they were drawn."""
        self.stale = stale

    def close(self) -> None:
        """Stop the pool, if any (drawing nothing more)."""
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None

    def _page(self, slug: str) -> Path:
        return self.out / "authors" / f"{slug}.html"


def write_authors(
    report: Mapping[str, Any], out: Path, slugs: Collection[str], progress: Progress
) -> dict[str, Styles]:
    """The pages of these authors, drawn and written here: the CSS of each one's charts."""
    drawn: dict[str, Styles] = {}
    kept = dict(chart_styles.STYLES)
    chart_styles.STYLES.clear()  # each page's charts put their CSS in it as the page is drawn
    for done, (name, text) in enumerate(author_page.author_pages(report, set(slugs)), start=1):
        (out / "authors" / name).write_text(text, encoding="utf-8")
        drawn[name.removesuffix(".html")] = dict(chart_styles.STYLES)
        kept.update(chart_styles.STYLES)
        chart_styles.STYLES.clear()
        if done == len(slugs) or done % CHUNK == 0:
            progress(f"author pages {done}/{len(slugs)}")
    chart_styles.STYLES.clear()
    chart_styles.STYLES.update(kept)
    return drawn


def page_inputs(report: Mapping[str, Any], slugs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Everything the page of each of these authors shows, by slug: their entries, their jobs,
    the window and the server their pull requests link to."""
    wanted = set(slugs)
    entries: dict[str, list[Any]] = {slug: [] for slug in slugs}
    for entry in report["authors"]:
        if entry["slug"] in wanted:
            entries[entry["slug"]].append(entry)
    logins = {e["author"]: slug for slug, found in entries.items() for e in found}
    jobs: dict[str, list[Any]] = {slug: [] for slug in slugs}
    for row in report["scores"]["jobs"]:
        if row["author"] in logins:
            jobs[logins[row["author"]]].append(row)
    window = report["window"]
    kept = {"window": {k: window[k] for k in SHOWN_WINDOW}, "server_url": report.get("server_url")}
    return {s: {**kept, "authors": entries[s], "scores": {"jobs": jobs[s]}} for s in slugs}


Drawn = dict[str, Styles]


def page_context(report: Mapping[str, Any]) -> str:
    """A digest of what every author page shows besides its author's: the part of the window
    it names, the server its pull requests link to (and rubricate's version)."""
    window = report["window"]
    shown = {k: window[k] for k in SHOWN_WINDOW}
    return _digest({"window": shown, "server_url": report.get("server_url")})


def _digest(inputs: Mapping[str, Any]) -> str:
    """A digest of the canonical JSON of `inputs` (kept parts and rows as their kept text:
    neither read nor encoded again)."""
    shown = dict(inputs)
    if "scores" in shown:
        shown["scores"] = {**shown["scores"], "jobs": rows_for_writing(shown["scores"]["jobs"])}
    text = canonical([__version__, shown])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _part(
    report: Mapping[str, Any], inputs: Mapping[str, dict[str, Any]], slugs: Sequence[str]
) -> dict[str, Any]:
    """What the pages of these authors show (from their `page_inputs`), and no more: a worker
    is sent only this (the rows as one kept JSON text when they are kept, so that they are sent
    as one text and read in one go)."""
    authors = [e for slug in slugs for e in inputs[slug]["authors"]]
    jobs = [row for slug in slugs for row in inputs[slug]["scores"]["jobs"]]
    kept = {"window": report["window"], "server_url": report.get("server_url")}
    return {**kept, "authors": authors, "scores": {"jobs": rows_for_writing(jobs)}}


def _draw_chunk(out: Path, part: dict[str, Any]) -> Drawn:
    """The pages of the authors in `part` (from `_part`), and the CSS of each one's charts."""
    rows = part["scores"]["jobs"]
    if isinstance(rows, KeptJSON):
        part = {**part, "scores": {"jobs": rows.items()}}
    return write_authors(part, out, author_slugs(part), lambda _: None)


def _draw_in_worker(out: Path, part: dict[str, Any]) -> Drawn:
    """`_draw_chunk` in a worker: what the parent held is never collected here, what drawing
    leaves is."""
    with only_new_collected():
        return _draw_chunk(out, part)
