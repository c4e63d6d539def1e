"""HTML building blocks for the report pages (pure: data in, text out).

Pages are self-contained: inline CSS and SVG, no scripts, no external resources, so they work
from a file, on GitHub Pages and behind a strict Content-Security-Policy. Every chart is a
`<figure>` with its SVG (title and description) and a data table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

CSS = """
:root{color-scheme:light;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;
--accent:#0b5cad}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--fg);background:#fff}
header.top{background:#0d1117;color:#f0f6fc;padding:18px 32px}
header.top a{color:#9ecbff}
header.top h1{margin:0;font-size:22px}
header.top p{margin:4px 0 0;color:#c9d1d9;font-size:13px}
nav.sections{display:flex;flex-wrap:wrap;gap:6px 18px;padding:10px 32px;
border-bottom:1px solid var(--line);
background:var(--bg);position:sticky;top:0}
nav.sections a{color:var(--accent);text-decoration:none;font-weight:600}
main{max-width:1200px;margin:0 auto;padding:8px 32px 48px}
h2{margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line);font-size:20px}
h3{margin:24px 0 6px;font-size:16px}
p.lead{color:var(--muted);margin:4px 0 12px;max-width:80ch}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(145px,1fr));gap:12px;
margin:12px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;background:#fff}
.card b{display:block;font-size:22px}
.card span{color:var(--muted);font-size:13px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:16px}
figure.chart{margin:12px 0;border:1px solid var(--line);border-radius:8px;padding:12px;
background:#fff;
min-width:0}
figure.chart figcaption{font-weight:600;margin-bottom:6px}
figure.chart svg{width:100%;height:auto;display:block}
details{margin-top:6px}
summary{cursor:pointer;color:var(--accent)}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:13px;margin:8px 0;min-width:50%}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:right;vertical-align:top;
overflow-wrap:break-word}
th{background:var(--bg);font-weight:600;overflow-wrap:normal;hyphens:auto}
th:first-child,td:first-child,td.text,th.text{text-align:left}
th a{color:var(--fg);text-decoration:none}
th a:hover,th a:focus{text-decoration:underline}
th[aria-sort] a::after{content:" \\25BE"}
td.reason{text-align:left;max-width:48ch}
.muted{color:var(--muted)}
.warn{border-left:4px solid #9a6700;background:#fff8c5;padding:8px 12px;margin:12px 0;
border-radius:4px}
.warn ul{margin:4px 0;padding-left:20px;font-family:ui-monospace,monospace;font-size:12px}
.empty{border:1px dashed var(--line);border-radius:8px;padding:24px;text-align:center;
color:var(--muted);margin:16px 0}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;background:#ddf4ff;
color:#0b3d6e}
.badge.low{background:#ffebe9;color:#82071e}
footer{color:var(--muted);font-size:12px;padding:24px 32px;border-top:1px solid var(--line)}
a{color:var(--accent)}
a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
""".strip()


def page(title: str, subtitle: str, nav: Sequence[tuple[str, str]], body: str, foot: str) -> str:
    """A whole page: head with inline CSS, header, section links, content and footer."""
    links = "".join(f'<a href="{escape(h)}">{escape(t)}</a>' for h, t in nav)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
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
    caption: str | None = None,
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
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=text' if i in texts else ''}>{cell(v) if not raw else v}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    inner = f"{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
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
