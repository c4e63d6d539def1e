"""Every number the report shows, as one JSON-ready document (pure: events in, data out).

The pages and the `json` format are views of this document. Reputation always comes from the
whole ledger (the last point of each series is the author's `reputation.json` entry); `since`
narrows what is shown to the jobs active in the window and to the points and audit entries in
it; `author` narrows everything to that author's jobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.codec import ParsedLedger, bulk
from rubricate.ledger.event import Event, rfc3339
from rubricate.ledger.fold import JobFacts, fold_jobs
from rubricate.ledger.paths import author_stem
from rubricate.report.audit import audit
from rubricate.report.calibration import calibration
from rubricate.report.pairs import latest_scores
from rubricate.report.scores import distributions, job_rows, summary
from rubricate.report.stats import SEED
from rubricate.report.timeline import reputation_series, since
from rubricate.report.weights import weights_section

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Options:
    """What to show: the time window (days before `now`) and one author."""

    now: datetime
    since_days: float | None = None
    author: str | None = None
    seed: int = SEED

    @property
    def cutoff(self) -> datetime | None:
        """The start of the window, or None for all time."""
        return None if self.since_days is None else self.now - timedelta(days=self.since_days)


@bulk
def build_report(
    parsed: ParsedLedger, config: ReputationConfig, options: Options
) -> dict[str, Any]:
    """The report document for a parsed ledger."""
    folded = fold_jobs(parsed.events)
    keys = {k for k, job in folded.items() if options.author in (None, job.facts.author)}
    cutoff = options.cutoff
    active = {k for k in keys if cutoff is None or folded[k].facts.last_at >= cutoff}
    mine = [e for e in parsed.events if (e.repo, e.pr) in keys]
    shown = [e for e in mine if (e.repo, e.pr) in active]
    rows = job_rows(folded[k] for k in sorted(active))
    scored = latest_scores(shown)
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generated_at": rfc3339(max((e.at for e in parsed.events), default=None)),
        "window": {
            "since_days": options.since_days,
            "from": rfc3339(cutoff),
            "to": rfc3339(options.now),
            "author": options.author,
        },
        "ledger": _ledger(parsed),
        "config": config.model_dump(mode="json"),
        "authors": _authors(mine, config, cutoff, {k: j.facts for k, j in folded.items()}),
        "scores": {"distributions": distributions(scored), "summary": summary(rows), "jobs": rows},
        "calibration": calibration(scored, seed=options.seed),
        "weights": weights_section(
            (folded[k].facts for k in sorted(active)), config, seed=options.seed
        ),
        "audit": audit(e for e in shown if cutoff is None or e.at >= cutoff),
    }


def _ledger(parsed: ParsedLedger) -> dict[str, Any]:
    problems = [f"{p}: corrupt line (kept aside, skipped by the fold)" for p in parsed.corrupt]
    problems += [str(p) for p in (*parsed.duplicates, *parsed.misplaced)]
    return {
        "events": len(parsed.events),
        "jobs": len({(e.repo, e.pr) for e in parsed.events}),
        "corrupt_lines": len(parsed.corrupt),
        "duplicate_lines": len(parsed.duplicates),
        "problems": problems,
    }


def _authors(
    events: Sequence[Event],
    config: ReputationConfig,
    cutoff: datetime | None,
    folded: Mapping[tuple[str, int], JobFacts],
) -> list[dict[str, Any]]:
    authors = []
    for (repo, author), points in reputation_series(events, config, folded).items():
        entry = {k: v for k, v in points[-1].items() if k not in ("at", "pr")}
        authors.append(
            {
                "repo": repo,
                "author": author,
                "slug": author_stem(author),
                **entry,
                "series": [_point(p) for p in since(points, cutoff)],
            }
        )
    return authors


def _point(point: dict[str, Any]) -> dict[str, Any]:
    return {
        "at": point["at"],
        "pr": point["pr"],
        "reputation": point["reputation"],
        "coverage": point["coverage"],
        "components": point["components"],
    }
