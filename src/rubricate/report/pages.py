"""The index page and the authors table, whole and sorted by each column (pure: the report
document in, HTML out). The index's five sections are in `sections`, the author pages in
`author_page`; only the index names what is global to the ledger (its size, its newest event)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from html import escape
from typing import Any

from rubricate.ledger.reputation import COMPONENTS
from rubricate.report.html import cards, empty, footer, number, page, table, warnings
from rubricate.report.sections import all_sections

Doc = Mapping[str, Any]
NAV = tuple(
    (f"#{name.lower()}", f"{n} · {name}")
    for n, name in enumerate(("Reputation", "Scores", "Calibration", "Weights", "Audit"), start=1)
)
SORTS: tuple[tuple[str, str], ...] = (
    ("author", "author"),
    ("repo", "repository"),
    *((key, key) for key in ("ranked", "reputation", "coverage", "completed", "abandoned", "open")),
    *((name, name.replace("_", " ")) for name in COMPONENTS),
)
NO_DATA = "No data yet: the ledger has no events. Pages fill in once pull requests are scored."
INDEX_AUTHORS = 20
"""The index lists the authors ranked highest; a sorted page lists them all."""
PROVISIONAL = '<span class="muted" title="provisional">*</span>'
"""After the name of an author with fewer completed jobs than `provisional_below`."""


def index_html(report: Doc) -> str:
    """`index.html`: the overview, then the five sections (none when the ledger has no events)."""
    title = "rubricate report"
    problems = warnings(
        "Some ledger lines were kept aside (as rubricate ledger verify reports them):",
        report["ledger"]["problems"],
    )
    foot = footer(report["ledger"]["events"])
    if not report["ledger"]["events"]:
        return page(title, subtitle(report), (), problems + empty(NO_DATA), foot)
    authors = author_table(report, "ranked", INDEX_AUTHORS)
    body = problems + _overview(report) + "".join(all_sections(report, authors))
    return page(title, subtitle(report), NAV, body, foot)


def author_slugs(report: Doc) -> list[str]:
    """The file-name stems of the author pages, sorted."""
    return sorted({entry["slug"] for entry in report["authors"]})


def sort_pages(report: Doc) -> Iterator[tuple[str, str]]:
    """`(file name, page)`: the authors table sorted by each column."""
    cells = [_author_row(entry) for entry in report["authors"]]  # the same rows in each order
    for key, label in SORTS:
        body = (
            '<p><a href="index.html">← report</a></p>'
            f"<h2>Authors by {escape(label)}</h2>{author_table(report, key, cells=cells)}"
        )
        title = "rubricate report · authors"
        yield (
            f"authors-by-{key}.html",
            page(title, subtitle(report, ledger=False), (), body, footer()),
        )


def author_table(
    report: Doc, key: str, limit: int | None = None, cells: Sequence[list[str]] | None = None
) -> str:
    """Every author's reputation row (the first `limit`, with a link to them all), sorted by
    `key`; headers link to the other orders. `cells`: each author's row, made already."""
    entries = report["authors"]
    rows = sorted(range(len(entries)), key=lambda i: _sort_key(entries[i], key))
    headers = [f'<a href="authors-by-{k}.html">{escape(label)}</a>' for k, label in SORTS]
    index = [k for k, _ in SORTS].index(key)
    order = "ascending" if key in ("author", "repo") else "descending"
    shown = [cells[i] if cells else _author_row(entries[i]) for i in rows[:limit]]
    listed = table(headers, shown, raw=True, text_columns=(0, 1), sort=(index, order))
    listed += _legend(report)
    if len(shown) == len(rows):
        return listed
    every = f'<a href="authors-by-{key}.html">all {len(rows):,} authors</a>'
    return listed + f'<p class="more">The first {len(shown)}; {every}, sorted by any column.</p>'


def subtitle(report: Doc, ledger: bool = True) -> str:
    """What the pages show: the window and the author asked for, and (`ledger`: on the index)
    the time of the ledger's newest event."""
    window = report["window"]
    parts = [f"ledger up to {escape(str(report['generated_at'] or '–'))}"] if ledger else []
    if window["from"] is not None:
        parts.append(f"jobs active since {escape(str(window['from']))}")
    if window["author"]:
        parts.append(f"author {escape(window['author'])}")
    return " · ".join(parts) or "all jobs"


def _legend(report: Doc) -> str:
    config = report["config"]
    return (
        '<p class="more muted">ranked: reputation with each component pulled toward the '
        f"repository's mean as if {config['prior_jobs']:g} more jobs at the mean were counted; "
        f"* provisional: fewer than {config['provisional_below']} completed jobs; "
        "each component with its n (its 95% interval on hover and on the author's page).</p>"
    )


def _author_row(entry: Doc) -> list[str]:
    link = f'<a href="authors/{escape(entry["slug"])}.html">{escape(entry["author"])}</a>'
    parts, jobs = entry["components"], entry["jobs"]
    return [
        f"{link}&nbsp;{PROVISIONAL}" if entry["provisional"] else link,
        escape(entry["repo"]),
        number(entry["ranked"], 3),
        number(entry["reputation"], 3),
        number(entry["coverage_share"], 3),
        *(str(jobs[state]) for state in ("completed", "abandoned", "open")),
        *(f"{number(parts[n]['value'], 3)} {_sureness(parts[n])}" for n in COMPONENTS),
    ]


def _sureness(component: Doc) -> str:
    """A component's n, muted, with n and its 95% interval on hover (the author page lists
    them)."""
    n, bounds = component["n"], component["interval"]
    interval = "" if bounds is None else f" · 95% interval {number(bounds[0])}–{number(bounds[1])}"
    return f'<span class="muted" title="n={n}{interval}">n={n}</span>'


def _sort_key(entry: Doc, key: str) -> tuple[Any, ...]:
    if key in ("author", "repo"):
        return (str(entry[key]).lower(), entry["repo"])
    if key in ("completed", "abandoned", "open"):
        value: float | None = entry["jobs"][key]
    elif key in COMPONENTS:
        value = entry["components"][key]["value"]
    else:
        value = entry["coverage_share" if key == "coverage" else key]
    return (value is None, -(value or 0.0), entry["author"].lower())


def _overview(report: Doc) -> str:
    summary, weights = report["scores"]["summary"], report["weights"]
    return cards(
        [
            ("events in the ledger", f"{report['ledger']['events']:,}"),
            ("jobs shown", f"{summary['jobs']:,}"),
            ("authors", f"{len(report['authors']):,}"),
            ("mean change in review", number(summary["mean_change"], 3)),
            (f"jobs for the weights (~{weights['threshold_jobs']} wanted)", f"{weights['jobs']:,}"),
        ]
    )
