"""Write the report: a static site, a markdown summary or JSON (shell: writes files).

Pages are made and written one at a time, so the site is never held in memory as a whole.
With many authors, the author pages (one chart each) are drawn by a pool of processes, one per
core; each writes its own pages. Progress goes to `progress` (the CLI passes stderr when it is
a terminal).
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

Progress = Callable[[str], None]
PARALLEL_FROM = 64
"""Draw author pages in parallel from this many authors on."""
_worker: dict[str, Any] = {}


def write_site(
    report: Mapping[str, Any],
    out: Path,
    progress: Progress,
    *,
    workers: int | None = None,
    parallel_from: int = PARALLEL_FROM,
) -> list[Path]:
    """`index.html`, the sorted author tables, one page per author, `report.json` and the one
    `style.css` they all link (written last: it holds the CSS of every chart drawn)."""
    from rubricate.report import charts

    (out / "authors").mkdir(parents=True, exist_ok=True)
    charts.STYLES.clear()
    gc.freeze()  # the document lives to the end: collections while drawing skip it
    try:
        count = workers or min(os.cpu_count() or 1, 8)
        return _write_pages(report, out, progress, count, parallel_from)
    finally:
        gc.unfreeze()


def _write_pages(
    report: Mapping[str, Any], out: Path, progress: Progress, count: int, parallel_from: int
) -> list[Path]:
    from rubricate.report.pages import author_slugs, index_page, sort_pages

    written = [_write(out / "index.html", index_page(report))]
    progress("index.html")
    written += [_write(out / name, text) for name, text in sort_pages(report)]
    slugs = author_slugs(report)
    if count > 1 and len(slugs) >= parallel_from:
        written += _parallel_authors(report, out, slugs, count, progress)
    else:
        written += _write_authors(report, out, slugs, progress)
    written.append(write_json(report, out / "report.json"))
    written.append(_write(out / "style.css", stylesheet()))
    return written


def stylesheet() -> str:
    """The site's one stylesheet: the pages' CSS, then every chart's."""
    from rubricate.report import charts

    pages = resources.files("rubricate.report").joinpath("style.css").read_text(encoding="utf-8")
    return f"{pages}\n{charts.stylesheet()}\n"


def _write_authors(
    report: Mapping[str, Any], out: Path, slugs: Sequence[str], progress: Progress
) -> list[Path]:
    from rubricate.report.pages import author_pages

    written = []
    for done, (name, text) in enumerate(author_pages(report, set(slugs)), start=1):
        written.append(_write(out / "authors" / name, text))
        if done == len(slugs) or done % 25 == 0:
            progress(f"author pages {done}/{len(slugs)}")
    return written


def _parallel_authors(
    report: Mapping[str, Any], out: Path, slugs: Sequence[str], workers: int, progress: Progress
) -> list[Path]:
    from rubricate.report import charts

    chunks = [list(slugs[i : i + 25]) for i in range(0, len(slugs), 25)]
    written: list[Path] = []
    with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(report, out)) as pool:
        for paths, styles in pool.map(_draw_chunk, chunks):
            written += [Path(p) for p in paths]
            charts.STYLES.update(styles)
            progress(f"author pages {len(written)}/{len(slugs)}")
    return written


def _start_worker(report: Mapping[str, Any], out: Path) -> None:
    _worker["report"], _worker["out"] = report, out


def _draw_chunk(slugs: list[str]) -> tuple[list[str], dict[str, str]]:
    from rubricate.report import charts

    paths = _write_authors(_worker["report"], _worker["out"], slugs, lambda _: None)
    return [str(p) for p in paths], charts.STYLES


def write_markdown(report: Mapping[str, Any], out: Path) -> Path:
    """`report.md`, compact enough for `$GITHUB_STEP_SUMMARY`."""
    from rubricate.report.markdown import report_markdown

    out.mkdir(parents=True, exist_ok=True)
    return _write(out / "report.md", report_markdown(report))


def write_json(report: Mapping[str, Any], path: Path) -> Path:
    """Every number the pages show, as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # `dumps`, compact: only then does json use its C encoder (`dump` never does).
    text = json.dumps(report, sort_keys=True, allow_nan=False, separators=(",", ":"))
    return _write(path, text + "\n")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
