"""The report's HTML pages from the report document (pure: data in, page text out)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from html import escape
from typing import Any

from rubricate import __version__
from rubricate.ledger.reputation import COMPONENTS
from rubricate.report import sections
from rubricate.report.html import cards, empty, number, page, table, warnings

NAV = (
    ("#reputation", "1 · Reputation"),
    ("#scores", "2 · Scores"),
    ("#calibration", "3 · Calibration"),
    ("#weights", "4 · Weights"),
    ("#audit", "5 · Audit"),
)
SORTS: tuple[tuple[str, str], ...] = (
    ("author", "author"),
    ("repo", "repository"),
    ("reputation", "reputation"),
    ("coverage", "coverage"),
    ("completed", "completed"),
    ("abandoned", "abandoned"),
    ("open", "open"),
    *((name, name.replace("_", " ")) for name in COMPONENTS),
)
NO_DATA = "No data yet: the ledger has no events. Pages fill in once pull requests are scored."


def index_page(report: Mapping[str, Any]) -> str:
    """`index.html`: the five sections for every author in the report."""
    title = "rubricate report"
    problems = warnings(
        "Some ledger lines were kept aside (as rubricate ledger verify reports them):",
        report["ledger"]["problems"],
    )
    if not report["ledger"]["events"]:
        return page(title, _subtitle(report), (), problems + empty(NO_DATA), _footer(report))
    body = (
        problems
        + _overview(report)
        + "".join(sections.all_sections(report, author_table(report, "reputation")))
    )
    return page(title, _subtitle(report), NAV, body, _footer(report))


def author_slugs(report: Mapping[str, Any]) -> list[str]:
    """The file-name stems of the author pages, sorted."""
    return sorted({entry["slug"] for entry in report["authors"]})


def author_pages(
    report: Mapping[str, Any], only: Collection[str] | None = None
) -> Iterator[tuple[str, str]]:
    """`(file name, page)` for each author (or those whose slug is in `only`), one at a time."""
    by_login: dict[str, list[Mapping[str, Any]]] = {}
    for entry in report["authors"]:
        if only is None or entry["slug"] in only:
            by_login.setdefault(entry["slug"], []).append(entry)
    jobs: dict[str, list[Mapping[str, Any]]] = {}
    for row in report["scores"]["jobs"]:
        jobs.setdefault(row["author"], []).append(row)
    for slug, entries in sorted(by_login.items()):
        login = entries[0]["author"]
        body = "".join(sections.author_section(e, jobs.get(e["author"], [])) for e in entries)
        back = '<p><a href="../index.html">← all authors</a></p>'
        yield (
            f"{slug}.html",
            page(
                f"{login} · rubricate report",
                _subtitle(report),
                (),
                back + body,
                _footer(report),
                root="../",
            ),
        )


def sort_pages(report: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """`(file name, page)`: the authors table sorted by each column."""
    for key, label in SORTS:
        body = (
            '<p><a href="index.html">← report</a></p>'
            f"<h2>Authors by {escape(label)}</h2>{author_table(report, key)}"
        )
        yield (
            f"authors-by-{key}.html",
            page("rubricate report · authors", _subtitle(report), (), body, _footer(report)),
        )


def author_table(report: Mapping[str, Any], key: str) -> str:
    """Every author's reputation row, sorted by `key`; headers link to the other orders."""
    rows = sorted(report["authors"], key=lambda e: _sort_key(e, key))
    headers = [f'<a href="authors-by-{k}.html">{escape(label)}</a>' for k, label in SORTS]
    index = [k for k, _ in SORTS].index(key)
    order = "ascending" if key in ("author", "repo") else "descending"
    cells = [_author_row(e) for e in rows]
    return table(headers, cells, raw=True, text_columns=(0, 1), sort=(index, order))


def _author_row(entry: Mapping[str, Any]) -> list[str]:
    link = f'<a href="authors/{escape(entry["slug"])}.html">{escape(entry["author"])}</a>'
    parts = entry["components"]
    components = [
        f'{_num(parts[name]["value"])} <span class="muted">n={parts[name]["n"]}</span>'
        for name in COMPONENTS
    ]
    jobs = entry["jobs"]
    return [
        link,
        escape(entry["repo"]),
        _num(entry["reputation"]),
        _num(entry["coverage_share"]),
        str(jobs["completed"]),
        str(jobs["abandoned"]),
        str(jobs["open"]),
        *components,
    ]


def _sort_key(entry: Mapping[str, Any], key: str) -> tuple[Any, ...]:
    if key in ("author", "repo"):
        return (str(entry[key]).lower(), entry["repo"])
    if key in ("completed", "abandoned", "open"):
        value: float | None = entry["jobs"][key]
    elif key in COMPONENTS:
        value = entry["components"][key]["value"]
    else:
        value = entry["coverage_share" if key == "coverage" else key]
    return (value is None, -(value or 0.0), entry["author"].lower())


def _overview(report: Mapping[str, Any]) -> str:
    summary = report["scores"]["summary"]
    weights = report["weights"]
    return cards(
        [
            ("events in the ledger", f"{report['ledger']['events']:,}"),
            ("jobs shown", f"{summary['jobs']:,}"),
            ("authors", f"{len(report['authors']):,}"),
            ("mean change in review", number(summary["mean_change"], 3)),
            ("jobs for the weights", f"{weights['jobs']:,} / ~{weights['threshold_jobs']}"),
        ]
    )


def _subtitle(report: Mapping[str, Any]) -> str:
    window = report["window"]
    parts = [f"ledger up to {escape(str(report['generated_at'] or '–'))}"]
    if window["since_days"] is not None:
        parts.append(f"jobs active since {escape(str(window['from']))}")
    if window["author"]:
        parts.append(f"author {escape(window['author'])}")
    return " · ".join(parts)


def _footer(report: Mapping[str, Any]) -> str:
    return (
        f"Made by rubricate {escape(__version__)} from the ledger ({report['ledger']['events']:,} "
        "events). Every number here is also in report.json."
    )


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def job_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """An author's jobs."""
    headers = [
        "PR",
        "state",
        "first",
        "final",
        "change",
        "rubric quality",
        "versions",
        "revisions",
        "hours to approval",
        "gate",
    ]
    cells = [
        [
            f"#{r['pr']}",
            r["state"],
            r["first"],
            r["final"],
            r["change"],
            r["rubric_quality"],
            r["versions"],
            r["revisions"],
            r["hours_to_approval"],
            r["gate"],
        ]
        for r in rows
    ]
    return table(headers, cells, text_columns=(0, 1, 9))
