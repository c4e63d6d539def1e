"""An author's page: their reputation in each repository, over time, and their jobs (pure: the
report document in, HTML out). A page shows only what is its author's and the window asked for.

The jobs are listed newest first (by pull-request number), each number linking to its pull
request on the server the report was made for (`server_url`; none for a made-up ledger).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from html import escape
from typing import Any

from rubricate.ledger.reputation import COMPONENTS
from rubricate.report import charts
from rubricate.report.html import (
    cards,
    cell,
    empty,
    figure,
    footer,
    number,
    page,
    shown_note,
    table,
)
from rubricate.report.pages import subtitle

Doc = Mapping[str, Any]
JOB_HEADERS = "PR|state|first|final|change|rubric quality|versions|revisions|hours to approval|gate"
JOB_KEYS = "state first final change rubric_quality versions revisions"
MAX_JOBS = 500  # an author page lists this many of their most recent jobs at most
MIN_CHART_POINTS = 3  # an author's reputation is drawn from this many points on
NO_JOB = "No job in the window."


def author_pages(report: Doc, only: Collection[str] | None = None) -> Iterator[tuple[str, str]]:
    """`(file name, page)` for each author (or those whose slug is in `only`), one at a time."""
    by_login: dict[str, list[Doc]] = {}
    for entry in report["authors"]:
        if only is None or entry["slug"] in only:
            by_login.setdefault(entry["slug"], []).append(entry)
    jobs: dict[str, list[Doc]] = {}
    for row in report["scores"]["jobs"]:
        jobs.setdefault(row["author"], []).append(row)
    server = report.get("server_url") or ""
    for slug, entries in sorted(by_login.items()):
        title = f"{entries[0]['author']} · rubricate report"
        body = "".join(author_section(e, jobs.get(e["author"], []), server) for e in entries)
        back = '<p><a href="../index.html">← all authors</a></p>'
        yield (
            f"{slug}.html",
            page(title, subtitle(report, ledger=False), (), back + body, footer(), "../"),
        )


def author_section(entry: Doc, jobs: Sequence[Doc], server_url: str = "") -> str:
    """One author's reputation in one repository: numbers, chart over time, jobs."""
    points, parts = entry["series"], entry["components"]
    numbers = [("reputation", entry["reputation"], 3), ("coverage", entry["coverage_share"], 2)]
    numbers += [(_component_label(n, parts[n]), parts[n]["value"], 3) for n in COMPONENTS]
    top = cards((label, number(value, digits)) for label, value, digits in numbers)
    top += f"<p>{escape(_provisional_note(entry))}</p>"
    headers = ["time", "completed PR", "reputation", *(n.replace("_", " ") for n in COMPONENTS)]
    drawn = charts.thin(points)  # the table holds the chart's points
    rows = [
        [p["at"], f"#{p['pr']}" if p["pr"] else "–", p["reputation"]]
        + [_with_n(p["components"][n]) for n in COMPONENTS]
        for p in drawn
    ]
    data = table(headers, rows, text_columns=(0, 1)) + shown_note(len(drawn), len(points), "drawn")
    chart = f"<h3>Reputation over time</h3>{data}"  # a line through one or two points says no more
    if len(points) >= MIN_CHART_POINTS:
        desc = f"{entry['author']}'s reputation and its five components as of each completed job"
        desc += f" ({len(points)} points)."
        svg = charts.reputation_over_time(f"series-{entry['slug']}", points, desc)
        chart = figure("Reputation over time", svg, data)
    heading = f"<h2>{escape(entry['author'])} in {escape(entry['repo'])}</h2>"
    own = sorted((j for j in jobs if j["repo"] == entry["repo"]), key=lambda j: -j["pr"])
    cells = [_job_row(r, server_url) for r in own[:MAX_JOBS]]
    listed = table(JOB_HEADERS.split("|"), cells, text_columns=(0, 1, 9), raw=True)
    listed += shown_note(len(cells), len(own), "most recent")
    jobs_html = "<h3>Jobs, newest first</h3>" + (listed if own else empty(NO_JOB))
    return heading + top + chart + jobs_html


def _component_label(name: str, part: Doc) -> str:
    """A component's card label: its n and 95% interval."""
    bounds = part["interval"]
    interval = "" if bounds is None else f", 95% interval {number(bounds[0])}–{number(bounds[1])}"
    return f"{name.replace('_', ' ')} (n={part['n']}{interval})"


def _provisional_note(entry: Doc) -> str:
    jobs = entry["jobs"]["completed"]
    note = f"{entry['author']} has {jobs:,} completed job{'' if jobs == 1 else 's'} here"
    if entry["provisional"]:
        return f"{note}: provisional, too few to say much yet."
    return f"{note}."


def _job_row(row: Doc, server_url: str) -> list[str]:
    """A job's cells, made safe: its number links to the pull request; hours to one place."""
    pr = f"#{row['pr']}"
    if server_url:
        url = f"{server_url.rstrip('/')}/{row['repo']}/pull/{row['pr']}"
        pr = f'<a href="{escape(url)}">{pr}</a>'
    hours = row["hours_to_approval"]
    values = [cell(row[k]) for k in JOB_KEYS.split()]
    return [pr, *values, "–" if hours is None else f"{hours:,.1f}", cell(row["gate"])]


def _with_n(component: Doc) -> str:
    return f"{number(component['value'], 3)} (n={component['n']})"
