"""The HTML blocks every report page is made of: the page itself, sections, figures, tables,
cards, notes (pure: values in, text out). What each page shows: docs/report.md."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from rubricate import __version__

CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'"
"""The pages' Content-Security-Policy: no script, no inline style, nothing from elsewhere."""


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


def footer(events: int | None = None) -> str:
    """The pages' footer; only the index names the ledger's size (`events`), so that a page
    changes only when what it shows does."""
    size = "" if events is None else f" ({events:,} events)"
    return (
        f"Made by rubricate {escape(__version__)} from the ledger{size}. "
        "Every number here is also in report.json."
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
    shown = listed if raw else [[cell(v) for v in row] for row in listed]  # raw: made already
    body = "".join(
        "<tr>" + "".join([f"{o}{v}</td>" for o, v in zip(opens, row, strict=False)]) + "</tr>"
        for row in shown
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
    if type(value) is int:  # digits and a sign: nothing to escape
        return str(value)
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


def shown_note(shown: int, every: int, which: str) -> str:
    """The note under a table that lists only some rows."""
    note = f"The {shown:,} {which} of {every:,}; report.json has every one."
    return "" if shown == every else f'<p class="muted">{note}</p>'
