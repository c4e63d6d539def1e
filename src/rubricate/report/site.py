"""Write the report as a static site (shell: writes files).

Pages are made and written one at a time, so the site is never held in memory as a whole; a pool
of processes draws the author pages (`workers.AuthorPages`) while the rest is written, and an
author page whose content would not change is not drawn again (`reuse`). `style.css` (the pages'
CSS and every chart's) is written last.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from rubricate.bulk import only_new_collected
from rubricate.report import chart_styles, charts
from rubricate.report.files import write_json, write_text
from rubricate.report.memo import Memo
from rubricate.report.pages import index_html, sort_pages
from rubricate.report.workers import PARALLEL_FROM, AuthorPages, Progress


def write_site(
    report: Mapping[str, Any],
    out: Path,
    progress: Progress,
    *,
    workers: int | None = None,
    parallel_from: int = PARALLEL_FROM,
    pages: AuthorPages | None = None,
    memo: Memo | None = None,
) -> list[Path]:
    """`index.html`, the sorted author tables, `report.json`, one page per author (`pages`: when
    they are being drawn already) and the `style.css` they all link (last: it holds the CSS of
    every chart drawn). `memo`: the index's charts the last report drew, and those of this one."""
    (out / "authors").mkdir(parents=True, exist_ok=True)
    chart_styles.STYLES.clear()
    authors = pages or AuthorPages(out, workers, parallel_from)
    # the document lives to the end: collections while drawing skip it
    try:
        with only_new_collected():
            authors.start(report)
            with charts.kept_charts(memo):
                written = [write_text(out / "index.html", index_html(report))]
            progress("index.html")
            written += [write_text(out / name, text) for name, text in sort_pages(report)]
            written.append(write_json(report, out / "report.json"))
            written += authors.finish(report, progress)
            return [*written, write_text(out / "style.css", stylesheet())]
    finally:
        authors.close()


def stylesheet() -> str:
    """The site's one stylesheet: the pages' CSS, then every chart's."""
    pages = resources.files("rubricate.report").joinpath("style.css").read_text(encoding="utf-8")
    return f"{pages}\n{chart_styles.stylesheet()}\n"
