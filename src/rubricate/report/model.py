"""Every number the report shows, as one JSON-ready document (pure: events in, data out).

The pages and the `json` format are views of this document. Reputation always comes from the
whole ledger (the last point of each series is the author's `reputation.json` entry); `since`
narrows what is shown to the jobs active in the window and to the points and audit entries in
it; `author` narrows everything to that author's jobs.

Reputation over time: a series has one point as of each completed job (the time of its
`final_approval`) and a last point as of the author's newest event, when that is later. One pass
over the author's events in fold order (`at`, ties by id) keeps each job's terms as of the point
(from its whole fold once every event is in; before its final approval only its state counts;
else from the job's own fold over its events so far), and the ledger's `RunningTerms` adds them
up with the same float operations in the same order as `reputation.json`. So every point is
what `reputation.json` would say for the ledger up to that time, and the last one equals it.

Audit: every override, bypassed gate and dispute, newest first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from rubricate.ledger.event import Event, rfc3339, same_login
from rubricate.ledger.fold import JobFacts, event_order, fold_job, fold_jobs, lifecycle_state
from rubricate.ledger.paths import author_stem
from rubricate.ledger.reputation import JobTerms, RunningTerms, job_terms
from rubricate.report.scores import distributions, job_rows, latest_scores, summary, weights_section
from rubricate.report.stats import SEED, calibration

if TYPE_CHECKING:
    from rubricate.config import ReputationConfig
    from rubricate.ledger.codec import ParsedLedger

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Options:
    """What to show: the time window (days before `now`) and one author."""

    now: datetime
    since_days: float | None = None
    author: str | None = None
    seed: int = SEED
    server_url: str = ""
    """The server whose pull requests the ledger names (their numbers link there), or none."""

    @property
    def cutoff(self) -> datetime | None:
        """The start of the window, or None for all time (also when it would be before year 1)."""
        try:
            return None if self.since_days is None else self.now - timedelta(days=self.since_days)
        except OverflowError:
            return None


def build_report(
    parsed: ParsedLedger,
    config: ReputationConfig,
    options: Options,
    authors_ready: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The report document for a parsed ledger. `authors_ready` is given the authors' part of it
    (what the author pages show), a few authors at a time, as soon as each part is known."""
    folded = fold_jobs(parsed.events)
    wanted = options.author
    keys = {
        k for k, job in folded.items() if wanted is None or same_login(job.facts.author, wanted)
    }
    cutoff = options.cutoff
    active = {k for k in keys if cutoff is None or folded[k].facts.last_at >= cutoff}
    mine = [e for e in parsed.events if (e.repo, e.pr) in keys]
    rows = job_rows(folded[k] for k in sorted(active))
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generated_at": rfc3339(max((e.at for e in parsed.events), default=None)),
        "server_url": options.server_url,
        "window": {
            "since_days": options.since_days,
            "from": rfc3339(cutoff),
            "to": rfc3339(options.now),
            "author": options.author,
        },
        "ledger": _ledger(parsed),
        "config": config.model_dump(mode="json"),
    }

    def part(authors: list[dict[str, Any]]) -> None:
        if authors_ready is not None:
            authors_ready({**report, "authors": authors, "scores": {"jobs": rows}})

    facts = {k: j.facts for k, j in folded.items()}
    report["authors"] = _authors(mine, config, cutoff, facts, part)
    shown = [e for e in mine if (e.repo, e.pr) in active]
    scored = latest_scores(shown)
    return {
        **report,
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
    part: Callable[[list[dict[str, Any]]], None],
) -> list[dict[str, Any]]:
    """Every author's entry, sorted by repo and login; `part` gets them 25 pages at a time."""
    authors: list[dict[str, Any]] = []
    done = 0
    for (repo, author), points in each_series(events, config, folded):
        entry = {k: v for k, v in points[-1].items() if k not in ("at", "pr")}
        slug = author_stem(author)
        if (
            authors
            and slug != authors[-1]["slug"]
            and len({a["slug"] for a in authors[done:]}) >= 25
        ):
            part(authors[done:])
            done = len(authors)
        series = [_point(p) for p in since(points, cutoff)]
        authors.append({"repo": repo, "author": author, "slug": slug, **entry, "series": series})
    if authors[done:]:
        part(authors[done:])
    return sorted(authors, key=lambda a: (a["repo"], a["author"]))


def _point(point: dict[str, Any]) -> dict[str, Any]:
    return {
        "at": point["at"],
        "pr": point["pr"],
        "reputation": point["reputation"],
        "coverage": point["coverage"],
        "components": point["components"],
    }


AuthorKey = tuple[str, str]
"""`(repo, author)`."""
JobKey = tuple[str, int]


def reputation_series(
    events: Iterable[Event],
    config: ReputationConfig,
    folded: Mapping[JobKey, JobFacts] | None = None,
) -> dict[AuthorKey, list[dict[str, Any]]]:
    """Every `(repo, author)`'s points, oldest first; keys sorted.

    `folded`: the facts of whole jobs when the caller has folded them already.
    """
    return dict(sorted(each_series(events, config, folded)))


def each_series(
    events: Iterable[Event],
    config: ReputationConfig,
    folded: Mapping[JobKey, JobFacts] | None = None,
) -> Iterator[tuple[AuthorKey, list[dict[str, Any]]]]:
    """`reputation_series` one `(repo, author)` at a time, ordered by the author's page name
    (so each author's repositories come one after another), then by repo."""
    by_job: dict[JobKey, list[Event]] = defaultdict(list)
    for event in events:
        by_job[(event.repo, event.pr)].append(event)
    by_author: dict[AuthorKey, list[Event]] = defaultdict(list)
    for key, job_events in by_job.items():
        job_events.sort(key=event_order)
        by_author[(key[0], job_events[0].author)].extend(job_events)
    by_repo: dict[str, dict[int, JobFacts]] = defaultdict(dict)
    for (repo, pr), facts in (folded or {}).items():
        by_repo[repo][pr] = facts
    for repo, author in sorted(by_author, key=lambda k: (author_stem(k[1]), k)):
        yield (repo, author), author_series(by_author[(repo, author)], config, by_repo[repo])


def author_series(
    events: Sequence[Event], config: ReputationConfig, folded: Mapping[int, JobFacts] | None = None
) -> list[dict[str, Any]]:
    """One author's points from the events of all their jobs in one repo (`folded`: the facts
    of whole jobs, by `pr`, when they are known already)."""
    ordered = sorted(events, key=event_order)
    sizes = Counter(event.pr for event in ordered)
    seen: dict[int, list[Event]] = defaultdict(list)
    running = RunningTerms()
    points: list[dict[str, Any]] = []
    start = 0
    for stop, completed in _stop_indexes(ordered):
        changed = set()
        for event in ordered[start : stop + 1]:
            seen[event.pr].append(event)
            changed.add(event.pr)
        start = stop + 1
        for pr in changed:
            whole = (folded or {}).get(pr) if len(seen[pr]) == sizes[pr] else None
            running.set(pr, _terms(seen[pr], whole, config))
        points.append({"at": rfc3339(ordered[stop].at), "pr": completed, **running.entry(config)})
    return points


def _terms(so_far: Sequence[Event], whole: JobFacts | None, config: ReputationConfig) -> JobTerms:
    """A job's terms as of its events so far (in fold order). Until it is completed only its
    state counts (`terms_components` takes everything else from completed jobs only)."""
    if whole is None and not any(event.kind == "final_approval" for event in so_far):
        return JobTerms(lifecycle_state(so_far), None, False, (), None)
    return job_terms(whole or fold_job(so_far).facts, config)


def _stop_indexes(ordered: Sequence[Event]) -> list[tuple[int, int | None]]:
    """Where points are taken (after the last event at each completion time, and at the end),
    with the pull request completed there."""
    stops: list[tuple[int, int | None]] = []
    for index, event in enumerate(ordered):
        if event.kind != "final_approval":
            continue
        last = index
        while last + 1 < len(ordered) and ordered[last + 1].at == event.at:
            last += 1
        if not stops or stops[-1][0] != last:
            stops.append((last, event.pr))
    if ordered and (not stops or stops[-1][0] != len(ordered) - 1):
        stops.append((len(ordered) - 1, None))
    return stops


def since(points: Sequence[dict[str, Any]], cutoff: datetime | None) -> list[dict[str, Any]]:
    """The points at or after `cutoff`, always keeping the last one."""
    if cutoff is None or not points:
        return list(points)
    stamp = rfc3339(cutoff) or ""
    kept = [p for p in points[:-1] if str(p["at"]) >= stamp]
    return [*kept, points[-1]]


def audit(events: Iterable[Event]) -> dict[str, list[dict[str, Any]]]:
    """Overrides with reason, approver and version; bypassed gates; disputes."""
    overrides: list[dict[str, Any]] = []
    bypassed: list[dict[str, Any]] = []
    disputes: list[dict[str, Any]] = []
    for event in events:
        if event.override is not None:
            overrides.append({**_base(event), "reason": event.override.reason})
        if event.kind == "final_approval" and event.gate == "bypassed":
            bypassed.append(_base(event))
        if event.kind == "disputed":
            disputes.append({**_base(event), "feedback": event.feedback})
    return {
        name: sorted(rows, key=lambda r: (r["at"], r["repo"], r["pr"]), reverse=True)
        for name, rows in (("overrides", overrides), ("bypassed", bypassed), ("disputes", disputes))
    }


def _base(event: Event) -> dict[str, Any]:
    return {
        "at": rfc3339(event.at),
        "repo": event.repo,
        "pr": event.pr,
        "version": event.version,
        "author": event.author,
        "actor": event.actor,
        "kind": event.kind,
    }
