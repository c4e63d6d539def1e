"""The index's five sections: charts with their data tables and short explanations (pure)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from html import escape
from typing import Any

from rubricate.ledger.reputation import COMPONENTS
from rubricate.report import charts
from rubricate.report.calibration import MACHINES
from rubricate.report.html import cards, empty, figure, number, section, table
from rubricate.report.scores import SOURCES
from rubricate.report.text import shorten

Doc = Mapping[str, Any]
BANDS = tuple(f"{i / 10:.1f}–{(i + 1) / 10:.1f}" for i in range(10))
HISTOGRAMS = (
    (
        "score-change",
        "change_histogram",
        "Change from first submission to final approval",
        "Jobs by normalized final score minus normalized first score, in tenths.",
        "change (final − first)",
    ),
    (
        "revisions",
        "revisions_histogram",
        "Revisions requested per job",
        "Jobs by how many revisions reviewers requested.",
        "revisions requested",
    ),
    (
        "approval-time",
        "approval_histogram",
        "Time to approval",
        "Completed jobs by the time from the first event to the final approval.",
        "time to approval",
    ),
)
CALIBRATION_HEADERS = (
    "criterion|versus reviewer|pairs|weighted κ [95% CI]|exact agreement|mean difference"
)
AUDITS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("Overrides", "overrides", ("reason",), "No override."),
    ("Bypassed gates", "bypassed", (), "No merge bypassed the gate."),
    ("Disputes", "disputes", ("feedback",), "No dispute."),
)


def all_sections(report: Doc, authors_table: str) -> Iterator[str]:
    """Reputation, scores, calibration, weights and audit, in that order."""
    yield reputation(report, authors_table)
    yield scores(report)
    yield calibration(report)
    yield weights(report)
    yield audit(report)


def reputation(report: Doc, authors_table: str) -> str:
    """Section 1: how reputation is spread, and every author (sortable by any column)."""
    counts = [0] * 10
    for entry in report["authors"]:
        if entry["reputation"] is not None:
            counts[min(9, int(entry["reputation"] * 10))] += 1
    svg = charts.grouped_bars(
        "reputation-bands",
        "Authors by reputation",
        f"How many of the {len(report['authors'])} authors have a reputation in each band.",
        BANDS,
        {"authors": counts},
        x_title="reputation",
        y_title="authors",
        counts=True,
        rotate=30,
    )
    chart = figure(
        "Authors by reputation",
        svg,
        table(["reputation", "authors"], zip(BANDS, counts, strict=True)),
    )
    lead = (
        "Each author's reputation from the same fold as reputation.json, with the share of the "
        "weight that had data (coverage) and n per component. Click a column to sort by it; "
        "an author's name opens their reputation over time."
    )
    body = f'<div class="grid">{chart}{_component_means(report["authors"])}</div>'
    return section("reputation", "1 · Reputation", lead, body + authors_table)


def _component_means(authors: Sequence[Doc]) -> str:
    """The mean of each component over the authors who have it."""
    rows = []
    for name in COMPONENTS:
        values = [a["components"][name]["value"] for a in authors]
        known = [v for v in values if v is not None]
        rows.append((name, sum(known) / len(known) if known else None, len(known)))
    svg = charts.grouped_bars(
        "component-means",
        "Reputation components",
        "The mean of each reputation component over the authors who have data for it.",
        [name.replace("_", " ") for name, _, _ in rows],
        {"mean over authors": [mean for _, mean, _ in rows]},
        x_title="component",
        y_title="mean (0–1)",
        formatter=lambda v: f"{v:.2f}",
        value_range=(0, 1),
        rotate=15,
    )
    data = table(["component", "mean", "authors with data"], rows)
    return figure("Reputation components (mean over authors)", svg, data)


def scores(report: Doc) -> str:
    """Section 2: score distributions per criterion and what review changed."""
    dist = report["scores"]["distributions"]
    summary = report["scores"]["summary"]
    figures = [_distribution(criterion, by_source) for criterion, by_source in dist.items()]
    figures += [
        _histogram(chart_id, title, desc, summary[key], x_title, "jobs")
        for chart_id, key, title, desc, x_title in HISTOGRAMS
    ]
    top = cards(
        [
            ("mean first (normalized)", number(summary["mean_first"], 3)),
            ("mean final (normalized)", number(summary["mean_final"], 3)),
            ("improved in review", f"{summary['improved']:,} of {summary['with_both_moments']:,}"),
            ("median hours to approval", number(summary["median_hours_to_approval"], 1)),
        ]
    )
    lead = (
        "Per criterion, how often each score was given by the heuristics, the judge and "
        "reviewers (the latest score of each source on each version), then what review changed."
    )
    body = top + (
        f'<div class="grid">{"".join(figures)}</div>' if dist else empty("No scores yet.")
    )
    return section("scores", "2 · Scores", lead, body)


def calibration(report: Doc) -> str:
    """Section 3: agreement of judge and heuristics with reviewers, per criterion."""
    data = report["calibration"]
    criteria = data["criteria"]
    rows = []
    for criterion, by_machine in criteria.items():
        for machine in MACHINES:
            m = by_machine[machine]
            if m["status"] != "ok":
                rows.append([criterion, machine, m["n"], m["status"], "–", "–"])
                continue
            interval = f"{m['kappa']:.3f} [{_f(m['kappa_low'])}, {_f(m['kappa_high'])}]"
            agree, lenient = f"{m['exact_agreement']:.1%}", f"{m['mean_difference']:+.3f}"
            rows.append([criterion, machine, m["n"], interval, agree, lenient])
    numbers = table(CALIBRATION_HEADERS.split("|"), rows, text_columns=(0, 1, 3))
    lead = (
        "Machine and reviewer scores of the same criterion on the same version. Quadratic-weighted "
        f"Cohen's κ with a 95% bootstrap interval ({data['resamples']} resamples, seed "
        f"{data['seed']}); mean difference is machine − reviewer in scale points (above zero: "
        f"the machine is lenient). Under {data['min_pairs']} pairs: insufficient data."
    )
    usable = {c: v for c, v in criteria.items() if any(v[m]["status"] == "ok" for m in MACHINES)}
    if not usable:
        body = empty("Insufficient data: no criterion has 30 pairs yet.")
        return section("calibration", "3 · Calibration", lead, body + (numbers if rows else ""))
    series = {
        f"{m} vs reviewer": [
            (v[m]["kappa"], v[m]["kappa_low"], v[m]["kappa_high"])
            if v[m]["status"] == "ok"
            else None
            for v in usable.values()
        ]
        for m in MACHINES
    }
    svg = charts.intervals(
        "kappa",
        "Weighted kappa per criterion",
        "Quadratic-weighted kappa with 95% intervals, per criterion, "
        "for judge and heuristics against reviewers.",
        list(usable),
        series,
        y_title="weighted κ",
        colours=[charts.SOURCE_COLOURS[m] for m in MACHINES],
    )
    chart = figure("Agreement with reviewers (weighted κ)", svg, numbers)
    body = f'<div class="grid">{chart}</div>{numbers}'  # the table in full width: every column
    return section("calibration", "3 · Calibration", lead, body)


def weights(report: Doc) -> str:
    """Section 4: rubric_quality against the trust-weighted rating."""
    data = report["weights"]
    state = "reached" if data["reached"] else "not reached yet"
    low, high = data["spearman_low"], data["spearman_high"]
    stats = cards(
        [
            ("Spearman ρ", number(data["spearman"], 3)),
            ("95% interval", "–" if low is None else f"{low:.2f} … {high:.2f}"),
            ("jobs with both signals", f"{data['jobs']:,}"),
            (f"threshold ~{data['threshold_jobs']}", state),
        ]
    )
    lead = (
        "Per completed job: rubric_quality against the trust-weighted /rate value. Agora "
        f"revisits reputation.weights after about {data['threshold_jobs']} such jobs; this is the "
        "evidence to look at first. Current weights: "
        + ", ".join(f"{escape(k)} {v:g}" for k, v in data["weights"].items())
        + "."
    )
    if not data["growth"]:
        none = empty("No completed job has both a rubric_quality and a rating yet.")
        return section("weights", "4 · Weights", lead, stats + none)
    growth = charts.growth(
        "weights-growth",
        data["growth"],
        data["threshold_jobs"],
        "Completed jobs with both signals over time, against Agora's threshold of about "
        f"{data['threshold_jobs']}.",
    )
    points = table(["time", "jobs"], [(p["at"], p["jobs"]) for p in data["growth"]])
    growth_fig = figure("Jobs with both signals", growth, points)
    stars = data["by_rating"]
    bars = charts.grouped_bars(
        "weights-by-rating",
        "Mean rubric_quality by rating",
        "Mean rubric_quality of the jobs at each trust-weighted star rating.",
        [f"{s} ★" for s in stars],
        {"mean rubric_quality": [v["mean_rubric_quality"] for v in stars.values()]},
        x_title="trust-weighted rating",
        y_title="mean rubric_quality",
        formatter=lambda v: f"{v:.2f}",
        value_range=(0, 1),
    )
    rows = [(s, v["jobs"], v["mean_rubric_quality"]) for s, v in stars.items()]
    data = table(["rating", "jobs", "mean rubric_quality"], rows)
    bars_fig = figure("Mean rubric_quality by rating", bars, data)
    body = f'<div class="grid">{growth_fig}{bars_fig}</div>'
    return section("weights", "4 · Weights", lead, stats + body)


def audit(report: Doc) -> str:
    """Section 5: overrides, bypassed gates and disputes."""
    data = report["audit"]
    parts = [
        f"<h3>{title}</h3>" + (_audit_table(data[key], extra) if data[key] else empty(none))
        for title, key, extra, none in AUDITS
    ]
    lead = (
        "Every override with its reason, approver and version; "
        "every merge that bypassed the gate; every dispute."
    )
    return section("audit", "5 · Audit", lead, "".join(parts))


def _distribution(criterion: str, by_source: Doc) -> str:
    labels = sorted({int(k) for src in by_source.values() for k in src})
    totals = {s: sum(by_source[s].values()) for s in SOURCES}
    shown = [s for s in SOURCES if totals[s]]  # a source with no score leaves no empty slot
    series = {
        f"{s} (n={totals[s]})": [100 * by_source[s].get(str(v), 0) / totals[s] for v in labels]
        for s in shown
    }
    svg = charts.grouped_bars(
        f"dist-{criterion}",
        f"Scores for {criterion}",
        f"Share of each score for {criterion} by source.",
        [str(v) for v in labels],
        series,
        x_title="score",
        y_title="share of versions (%)",
        formatter=lambda v: f"{v:.0f}%",
        colours=[charts.SOURCE_COLOURS[s] for s in shown],
    )
    rows = [[str(v), *(by_source[s].get(str(v), 0) for s in SOURCES)] for v in labels]
    return figure(f"{criterion}", svg, table(["score", *SOURCES], rows))


def _histogram(
    chart_id: str, title: str, desc: str, counts: Mapping[str, int], x_title: str, y_title: str
) -> str:
    series = {y_title: list(counts.values())}
    svg = charts.grouped_bars(
        chart_id, title, desc, list(counts), series, x_title=x_title, y_title=y_title, counts=True
    )
    return figure(title, svg, table([x_title, y_title], counts.items()))


def _audit_table(rows: Sequence[Doc], extra: Sequence[str]) -> str:
    headers = ["time", "repository", "PR", "version", "author", "by", *extra]
    cells = [
        [r["at"], r["repo"], f"#{r['pr']}", f"v{r['version']}", r["author"], r["actor"]]
        + [shorten(r.get(x)) for x in extra]
        for r in rows
    ]
    return table(headers, cells, text_columns=(0, 1, 2, 3, 4, 5, 6))


def _f(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"
