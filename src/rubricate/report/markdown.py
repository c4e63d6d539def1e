"""The report as compact GitHub markdown for `$GITHUB_STEP_SUMMARY` (pure).

Small tables, and Mermaid `xychart-beta` charts, which GitHub renders in markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rubricate.ledger.reputation import COMPONENTS
from rubricate.report.calibration import MACHINES

TOP_AUTHORS = 15


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
            f"> [!WARNING]\n> {len(problems)} ledger line(s) kept aside, e.g. `{_md(problems[0])}`",
        ]
    if not report["ledger"]["events"]:
        return "\n".join([*lines, "", "No data yet: the ledger has no events.", ""])
    lines += ["", *_reputation(report), "", *_scores(report), "", *_calibration(report)]
    lines += ["", *_weights(report), "", *_audit(report), ""]
    return "\n".join(lines)


def _reputation(report: Mapping[str, Any]) -> list[str]:
    authors = sorted(report["authors"], key=lambda a: (-(a["reputation"] or 0), a["author"]))
    rows = [
        [
            a["author"],
            a["repo"],
            _n(a["reputation"]),
            *(_n(a["components"][c]["value"]) for c in COMPONENTS),
        ]
        for a in authors[:TOP_AUTHORS]
    ]
    more = len(authors) - TOP_AUTHORS
    note = ["", f"…and {more} more authors."] if more > 0 else []
    head = ["author", "repo", "reputation", *(c.replace("_", " ") for c in COMPONENTS)]
    return ["### Reputation", "", *_table(head, rows), *note]


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
            if m["status"] != "ok":
                rows.append([criterion, machine, str(m["n"]), m["status"], "–", "–"])
            else:
                kappa = f"{m['kappa']:.2f} [{_n(m['kappa_low'], 2)}, {_n(m['kappa_high'], 2)}]"
                rows.append(
                    [
                        criterion,
                        machine,
                        str(m["n"]),
                        kappa,
                        f"{m['exact_agreement']:.0%}",
                        f"{m['mean_difference']:+.2f}",
                    ]
                )
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
            [o["at"], f"#{o['pr']}", f"v{o['version']}", o["actor"], o["reason"]]
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
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _n(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"
