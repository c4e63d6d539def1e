"""The report's HTML pages and their building blocks (pure: the report document in, text out).

Pages have inline SVG, no scripts and nothing from elsewhere; all their CSS (the charts' too) is in
the site's one `style.css`, so they work from a file, on GitHub Pages and behind the strict
Content-Security-Policy each page declares (`CSP`). Every chart is a `<figure>` with its SVG
(title and description) and a data table. The index's five sections are in `sections`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from html import escape
from typing import Any

from rubricate import __version__
from rubricate.ledger.reputation import COMPONENTS

Doc = Mapping[str, Any]
CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'"
"""The pages' Content-Security-Policy: no script, no inline style, nothing from elsewhere."""
NAV = tuple(
    (f"#{name.lower()}", f"{n} · {name}")
    for n, name in enumerate(("Reputation", "Scores", "Calibration", "Weights", "Audit"), start=1)
)
SORTS: tuple[tuple[str, str], ...] = (
    ("author", "author"),
    ("repo", "repository"),
    *((key, key) for key in ("reputation", "coverage", "completed", "abandoned", "open")),
    *((name, name.replace("_", " ")) for name in COMPONENTS),
)
NO_DATA = "No data yet: the ledger has no events. Pages fill in once pull requests are scored."


def index_page(report: Doc, sections: Iterable[str]) -> str:
    """`index.html`: the overview, then the five `sections` (`sections.all_sections`; not read
    when the ledger has no events)."""
    title = "rubricate report"
    problems = warnings(
        "Some ledger lines were kept aside (as rubricate ledger verify reports them):",
        report["ledger"]["problems"],
    )
    if not report["ledger"]["events"]:
        return page(title, subtitle(report), (), problems + empty(NO_DATA), footer(report))
    body = problems + _overview(report) + "".join(sections)
    return page(title, subtitle(report), NAV, body, footer(report))


def author_slugs(report: Doc) -> list[str]:
    """The file-name stems of the author pages, sorted."""
    return sorted({entry["slug"] for entry in report["authors"]})


def sort_pages(report: Doc) -> Iterator[tuple[str, str]]:
    """`(file name, page)`: the authors table sorted by each column."""
    for key, label in SORTS:
        body = (
            '<p><a href="index.html">← report</a></p>'
            f"<h2>Authors by {escape(label)}</h2>{author_table(report, key)}"
        )
        title = "rubricate report · authors"
        yield f"authors-by-{key}.html", page(title, subtitle(report), (), body, footer(report))


def author_table(report: Doc, key: str, limit: int | None = None) -> str:
    """Every author's reputation row (the first `limit`, with a link to them all), sorted by
    `key`; headers link to the other orders."""
    rows = sorted(report["authors"], key=lambda e: _sort_key(e, key))
    headers = [f'<a href="authors-by-{k}.html">{escape(label)}</a>' for k, label in SORTS]
    index = [k for k, _ in SORTS].index(key)
    order = "ascending" if key in ("author", "repo") else "descending"
    cells = [_author_row(e) for e in rows[:limit]]
    listed = table(headers, cells, raw=True, text_columns=(0, 1), sort=(index, order))
    if len(cells) == len(rows):
        return listed
    every = f'<a href="authors-by-{key}.html">all {len(rows):,} authors</a>'
    return listed + f'<p class="more">The first {len(cells)}; {every}, sorted by any column.</p>'


def page(
    title: str, subtitle: str, nav: Sequence[tuple[str, str]], body: str, foot: str, root: str = ""
) -> str:
    """A whole page: head (policy, the shared `style.css` under `root`), header, section links,
    content and footer."""
    links = "".join(f'<a href="{escape(h)}">{escape(t)}</a>' for h, t in nav)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="{root}style.css"></head><body>'
        f'<header class="top"><h1>{escape(title)}</h1><p>{subtitle}</p></header>'
        + (f'<nav class="sections" aria-label="Sections">{links}</nav>' if nav else "")
        + f"<main>{body}</main><footer>{foot}</footer></body></html>\n"
    )


def section(anchor: str, title: str, lead: str, body: str) -> str:
    """A numbered page section with a heading and a short explanation."""
    return (
        f'<section id="{escape(anchor)}"><h2>{escape(title)}</h2>'
        f'<p class="lead">{lead}</p>{body}</section>'
    )


def figure(caption: str, svg: str, table: str) -> str:
    """A chart with its caption and its data as a table."""
    return (
        f'<figure class="chart"><figcaption>{escape(caption)}</figcaption>{svg}'
        f"<details><summary>Data table</summary>{table}</details></figure>"
    )


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    text_columns: Iterable[int] = (0,),
    raw: bool = False,
    sort: tuple[int, str] | None = None,
) -> str:
    """A plain table; cells are escaped unless `raw` (cells already made safe).

    `sort` marks the column the rows are sorted by: `(index, "ascending" | "descending")`.
    """
    texts = set(text_columns)
    head = "".join(
        f'<th scope="col"{" class=text" if i in texts else ""}'
        f"{f' aria-sort={sort[1]}' if sort and sort[0] == i else ''}>"
        f"{h if raw else escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    listed = [list(row) for row in rows]
    width = max([len(headers), *map(len, listed)])
    opens = ["<td class=text>" if i in texts else "<td>" for i in range(width)]
    show = (lambda v: v) if raw else cell
    body = "".join(
        "<tr>" + "".join(f"{o}{show(v)}</td>" for o, v in zip(opens, row, strict=False)) + "</tr>"
        for row in listed
    )
    inner = f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
    return f'<div class="table-wrap"><table>{inner}</table></div>'


def cell(value: object) -> str:
    """A table cell's text: numbers to three places, None as an en dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return escape(str(value))


def cards(items: Iterable[tuple[str, str]]) -> str:
    """Big numbers with a label each."""
    inner = "".join(
        f'<div class="card"><b>{escape(v)}</b><span>{escape(k)}</span></div>' for k, v in items
    )
    return f'<div class="cards">{inner}</div>'


def empty(message: str) -> str:
    """The box shown where there is nothing to show yet."""
    return f'<div class="empty">{escape(message)}</div>'


def warnings(title: str, lines: Sequence[str], limit: int = 50) -> str:
    """A warning box listing located problems (at most `limit`)."""
    if not lines:
        return ""
    shown = "".join(f"<li>{escape(line)}</li>" for line in lines[:limit])
    more = f"<li>… and {len(lines) - limit} more</li>" if len(lines) > limit else ""
    return f'<div class="warn" role="note"><b>{escape(title)}</b><ul>{shown}{more}</ul></div>'


def number(value: float | None, digits: int = 2) -> str:
    """A number for a card, or an en dash."""
    return "–" if value is None else f"{value:.{digits}f}"


def _author_row(entry: Doc) -> list[str]:
    link = f'<a href="authors/{escape(entry["slug"])}.html">{escape(entry["author"])}</a>'
    parts, jobs = entry["components"], entry["jobs"]
    return [
        link,
        escape(entry["repo"]),
        number(entry["reputation"], 3),
        number(entry["coverage_share"], 3),
        *(str(jobs[state]) for state in ("completed", "abandoned", "open")),
        *(
            f'{number(parts[n]["value"], 3)} <span class="muted">n={parts[n]["n"]}</span>'
            for n in COMPONENTS
        ),
    ]


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


def subtitle(report: Doc) -> str:
    window = report["window"]
    parts = [f"ledger up to {escape(str(report['generated_at'] or '–'))}"]
    if window["from"] is not None:
        parts.append(f"jobs active since {escape(str(window['from']))}")
    if window["author"]:
        parts.append(f"author {escape(window['author'])}")
    return " · ".join(parts)


def footer(report: Doc) -> str:
    return (
        f"Made by rubricate {escape(__version__)} from the ledger ({report['ledger']['events']:,} "
        "events). Every number here is also in report.json."
    )


def shown_note(shown: int, every: int, which: str) -> str:
    """The note under a table that lists only some rows."""
    note = f"The {shown:,} {which} of {every:,}; report.json has every one."
    return "" if shown == every else f'<p class="muted">{note}</p>'
