"""The markdown summary, compact GitHub markdown for `$GITHUB_STEP_SUMMARY` (pure: the report
document in, text out): small tables, and Mermaid `xychart-beta` charts, which GitHub renders."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rubricate.bot.markdown import code, escape, truncate
from rubricate.ledger.reputation import COMPONENTS
from rubricate.report.calibration import MACHINES
from rubricate.report.text import shorten

TOP_AUTHORS = 15
MARKDOWN_LIMIT = 400_000
"""`report.md` stays under this many characters (GitHub shows 1 MiB of a step summary at most,
and a character may take several bytes)."""
PROVISIONAL = " \\*"
"""After a provisional author's login (an escaped `*`)."""


def report_markdown(report: Mapping[str, Any]) -> str:
    """The whole summary."""
    lines = ["## rubricate report", ""]
    lines += [
        f"Ledger up to {report['generated_at'] or '–'}: {report['ledger']['events']:,} events."
    ]
    problems = report["ledger"]["problems"]
    if problems:
        lines += [
            "",
            f"> [!WARNING]\n> {len(problems)} ledger line(s) kept aside, "
            f"e.g. {code(shorten(problems[0]))}",
        ]
    if not report["ledger"]["events"]:
        return "\n".join([*lines, "", "No data yet: the ledger has no events.", ""])
    lines += ["", *_reputation(report), "", *_scores(report), "", *_calibration(report)]
    lines += ["", *_weights(report), "", *_audit(report), ""]
    return truncate("\n".join(lines), MARKDOWN_LIMIT, "; report.json has every number")


def _reputation(report: Mapping[str, Any]) -> list[str]:
    authors = sorted(report["authors"], key=lambda a: (-(a["ranked"] or 0), a["author"]))
    rows = [
        [
            _author(a),
            _text(a["repo"]),
            _n(a["ranked"]),
            _n(a["reputation"]),
            *(_n(a["components"][c]["value"]) for c in COMPONENTS),
        ]
        for a in authors[:TOP_AUTHORS]
    ]
    more = len(authors) - TOP_AUTHORS
    note = ["", f"…and {more} more authors."] if more > 0 else []
    below = report["config"]["provisional_below"]
    note += ["", f"{PROVISIONAL.strip()} provisional: fewer than {below} completed jobs."]
    head = ["author", "repo", "ranked", "reputation", *(c.replace("_", " ") for c in COMPONENTS)]
    return ["### Reputation", "", *_table(head, rows), *note]


def _author(entry: Mapping[str, Any]) -> _Text:
    """The author's login, marked `*` when provisional."""
    return _Text(_text(entry["author"]) + (PROVISIONAL if entry["provisional"] else ""))


def _scores(report: Mapping[str, Any]) -> list[str]:
    summary = report["scores"]["summary"]
    hist = summary["change_histogram"]
    chart = _mermaid_bars(
        "Change from first submission to final approval", "change", list(hist), list(hist.values())
    )
    facts = [
        f"Mean first {_n(summary['mean_first'])}, mean final {_n(summary['mean_final'])}, "
        f"{summary['improved']:,} of {summary['with_both_moments']:,} jobs improved in review; "
        f"median time to approval {_n(summary['median_hours_to_approval'], 1)} h."
    ]
    return ["### Scores", "", *facts, "", *chart]


def _calibration(report: Mapping[str, Any]) -> list[str]:
    rows = []
    for criterion, by_machine in report["calibration"]["criteria"].items():
        for machine in MACHINES:
            m = by_machine[machine]
            numbers = [m["status"], "–", "–"]
            if m["status"] == "ok":
                kappa = f"{m['kappa']:.2f} [{_n(m['kappa_low'], 2)}, {_n(m['kappa_high'], 2)}]"
                numbers = [kappa, f"{m['exact_agreement']:.0%}", f"{m['mean_difference']:+.2f}"]
            rows.append([_text(criterion), machine, str(m["n"]), *numbers])
    head = ["criterion", "vs reviewer", "pairs", "weighted κ [95% CI]", "exact", "mean diff"]
    return ["### Calibration", "", *(_table(head, rows) if rows else ["No pairs yet."])]


def _weights(report: Mapping[str, Any]) -> list[str]:
    w = report["weights"]
    interval = (
        "–" if w["spearman_low"] is None else f"[{w['spearman_low']:.2f}, {w['spearman_high']:.2f}]"
    )
    state = "reached" if w["reached"] else "not reached yet"
    return [
        "### Weights",
        "",
        "Spearman ρ between rubric_quality and the trust-weighted rating: "
        f"{_n(w['spearman'])} {interval} "
        f"over {w['jobs']:,} jobs (Agora's threshold of ~{w['threshold_jobs']}: {state}).",
    ]


def _audit(report: Mapping[str, Any]) -> list[str]:
    a = report["audit"]
    lines = [
        "### Audit",
        "",
        f"{len(a['overrides'])} override(s), {len(a['bypassed'])} bypassed gate(s), "
        f"{len(a['disputes'])} dispute(s).",
    ]
    if a["overrides"]:
        rows = [
            [o["at"], f"#{o['pr']}", f"v{o['version']}", _text(o["actor"]), _text(o["reason"])]
            for o in a["overrides"][:10]
        ]
        lines += ["", *_table(["time", "PR", "version", "approver", "reason"], rows)]
    return lines


def _mermaid_bars(
    title: str, x_title: str, labels: Sequence[str], values: Sequence[int]
) -> list[str]:
    if not values:
        return []
    axis = ", ".join(f'"{label}"' for label in labels)
    return [
        "```mermaid",
        "xychart-beta",
        f'    title "{title}"',
        f'    x-axis "{x_title}" [{axis}]',
        f'    y-axis "jobs" 0 --> {max(max(values), 1)}',
        f"    bar [{', '.join(str(v) for v in values)}]",
        "```",
    ]


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    body = [
        "| " + " | ".join(c if isinstance(c, _Text) else _md(c) for c in row) + " |" for row in rows
    ]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *body]


def _md(text: str) -> str:
    """A cell this module wrote (a number, a date): kept on one line of its table."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")


class _Text(str):
    """User text made inert by `_text`: `_table` leaves it as it is."""


def _text(value: object) -> _Text:
    """User text (a login, a repository, a criterion id, a reason) for a table cell: on one line,
    shortened with a note, and inert: no link, image, HTML, mention or table break."""
    return _Text(escape(shorten(value)))


def _n(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"
