"""Every number the report shows, as one JSON-ready document (pure: events in, data out).

The pages and the `json` format are views of this document. It is assembled (`assemble`) from
what the report keeps of each job (`JobPart`, from the job's events alone), each job's folded
facts and each author's reputation series, so a report can reuse the parts of jobs that did not
change (`rubricate.report.reuse`). Reputation always comes from the whole ledger (the last point
of each series is the author's `reputation.json` entry); `since` narrows what is shown to the
jobs active in the window and to the points and audit entries in it; `author` narrows everything
to that author's jobs.

Reputation over time: a series has one point as of each completed job (the time of its
`final_approval`) and a last point as of the author's newest event, when that is later; every
point is what `reputation.json` would say for the ledger up to that time (docs/report.md).
Audit: every override, bypassed gate and dispute, newest first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any, NamedTuple

from rubricate.ledger.codec import ParsedLedger
from rubricate.ledger.event import Event, parse_time, rfc3339, same_login
from rubricate.ledger.fold import (
    JobFacts,
    JobSummary,
    facts_so_far,
    fold_job,
    fold_jobs,
    lifecycle_state,
    shapes_facts,
)
from rubricate.ledger.paths import author_stem
from rubricate.ledger.reputation import (
    Entries,
    JobTerms,
    LedgerCounts,
    RunningTerms,
    job_terms,
    reputation_document,
)
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.verify import corrupt_lines
from rubricate.report.calibration import calibration
from rubricate.report.kept_json import KeptJSON, KeptRow, KeptSeries, canonical
from rubricate.report.memo import SEED, Memo
from rubricate.report.scores import (
    Scored,
    distributions,
    job_row,
    latest_scores,
    weights_section,
)
from rubricate.report.summary import RowTotals, summary_of, totals_of
from rubricate.report.tallies import Tally, tally_of

REPORT_SCHEMA_VERSION = 1
AuthorKey = tuple[str, str]
"""`(repo, author)`."""
JobKey = tuple[str, int]
Points = list[dict[str, Any]]
AUDITS = ("overrides", "bypassed", "disputes")
_ORDER = attrgetter("at", "id")
"""`event_order` as one C call per event (the series sort every event)."""


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


class JobPart(NamedTuple):
    """What the report keeps of one job, from its events alone: its row in the jobs table, the
    latest score of each source on each version and criterion, and its audit entries (a tuple:
    a report reads one for each of its jobs)."""

    row: dict[str, Any]
    scored: Sequence[Scored]
    audit: dict[str, list[dict[str, Any]]]


def job_part(job: JobSummary) -> JobPart:
    """The part of one folded job."""
    scored = tuple(
        s for by_source in latest_scores(job.events).values() for s in by_source.values()
    )
    return JobPart(job_row(job), scored, audit_entries(job.events))


def with_row_text(part: JobPart) -> JobPart:
    """The part with its row's canonical text made (`KeptRow`), as a report that keeps its
    parts writes it (report.json, the author pages' digests and the state use the text)."""
    return part if isinstance(part.row, KeptRow) else part._replace(row=KeptRow.made(part.row))


@dataclass(frozen=True)
class LedgerFacts:
    """What the report says of the ledger as a whole: its problems, events and newest event."""

    problems: list[str]
    events: int
    corrupt: int
    duplicates: int
    newest: datetime | None

    def section(self, jobs: int) -> dict[str, Any]:
        """The document's `ledger` entry."""
        return {
            "events": self.events,
            "jobs": jobs,
            "corrupt_lines": self.corrupt,
            "duplicate_lines": self.duplicates,
            "problems": self.problems,
        }


def ledger_facts(parsed: ParsedLedger) -> LedgerFacts:
    """The ledger's problems (worded as `ledger verify` words them) and size."""
    problems = corrupt_lines(parsed)
    problems += [str(p) for p in (*parsed.duplicates, *parsed.misplaced)]
    newest = max((e.at for e in parsed.events), default=None)
    return LedgerFacts(
        problems, len(parsed.events), len(parsed.corrupt), len(parsed.duplicates), newest
    )


@dataclass(frozen=True)
class Sources:
    """What the document is assembled from: the ledger's facts, every job's facts and part, and
    the authors' series (in the order `each_series` gives them). `tally`: the tally of every
    job's scores, when known; `memo`: the estimates the last report kept (`memo.Memo`)."""

    ledger: LedgerFacts
    facts: Mapping[JobKey, JobFacts]
    parts: Mapping[JobKey, JobPart]
    series: Iterable[tuple[AuthorKey, Points | KeptSeries]]
    tally: Tally | None = None
    memo: Memo = field(default_factory=Memo)
    reputation: Mapping[str, Any] | None = None
    """reputation.json's `repos`, when it was folded from these very jobs under this config (the
    `ranked` column then reads it instead of folding every job again)."""
    totals: RowTotals | None = None
    """The totals of every job's row (`summary.RowTotals`), when known."""


def parsed_sources(parsed: ParsedLedger, config: ReputationConfig, author: str | None) -> Sources:
    """The sources of a parsed ledger: every job folded; the series of `author` (all if None),
    drawn up one author at a time as they are read."""
    folded = fold_jobs(parsed.events)
    facts = {k: job.facts for k, job in folded.items()}
    parts = {k: job_part(job) for k, job in folded.items()}
    mine = [
        e
        for e in parsed.events
        if author is None or same_login(facts[(e.repo, e.pr)].author, author)
    ]
    return Sources(ledger_facts(parsed), facts, parts, each_series(mine, config, facts))


def build_report(
    parsed: ParsedLedger,
    config: ReputationConfig,
    options: Options,
    authors_ready: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The report document for a parsed ledger (see `assemble` for `authors_ready`)."""
    sources = parsed_sources(parsed, config, options.author)
    return assemble(sources, config, options, authors_ready)


def assemble(
    sources: Sources,
    config: ReputationConfig,
    options: Options,
    authors_ready: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The report document from its sources (series of other authors than `options.author` are
    left out). `authors_ready` is given the authors' part of it (what the author pages show), a
    few authors at a time, as soon as each part is known."""
    ledger, facts, parts, series = sources.ledger, sources.facts, sources.parts, sources.series
    wanted = options.author
    keys = {k for k, f in facts.items() if wanted is None or same_login(f.author, wanted)}
    cutoff = options.cutoff
    active = sorted(k for k in keys if cutoff is None or facts[k].last_at >= cutoff)
    rows = [parts[k].row for k in active]
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generated_at": rfc3339(ledger.newest),
        "server_url": options.server_url,
        "window": {
            "since_days": options.since_days,
            "from": rfc3339(cutoff),
            "to": rfc3339(options.now),
            "author": options.author,
        },
        "ledger": ledger.section(len(facts)),
        "config": config.model_dump(mode="json"),
    }

    def part(authors: list[dict[str, Any]]) -> None:
        if authors_ready is not None:
            authors_ready({**report, "authors": authors, "scores": {"jobs": rows}})

    shown = (
        (key, points) for key, points in series if wanted is None or same_login(key[1], wanted)
    )
    authors = _authors(shown, cutoff, part)
    whole = sources.reputation
    if whole is None:
        whole = reputation_document(list(facts.values()), config, LedgerCounts())["repos"]
    report["authors"] = [_with_ranked(a, whole[a["repo"]]["authors"][a["author"]]) for a in authors]
    tally, totals = sources.tally, sources.totals
    if tally is None or len(active) != len(facts):
        tally = tally_of(parts[k].scored for k in active)
    if totals is None or len(active) != len(facts):
        totals = totals_of(rows)
    shown_facts = (facts[k] for k in active)
    return {
        **report,
        "scores": {
            "distributions": distributions(tally.scores),
            "summary": summary_of(totals),
            "jobs": rows,
        },
        "calibration": calibration(tally.pairs, seed=options.seed, memo=sources.memo),
        "weights": weights_section(shown_facts, config, seed=options.seed, memo=sources.memo),
        "audit": audit((parts[k].audit for k in active), cutoff),
    }


def _authors(
    series: Iterable[tuple[AuthorKey, Points | KeptSeries]],
    cutoff: datetime | None,
    part: Callable[[list[dict[str, Any]]], None],
) -> list[dict[str, Any]]:
    """Every author's entry, sorted by repo and login; `part` gets them 25 pages at a time."""
    authors: list[dict[str, Any]] = []
    done = 0
    for (repo, author), points in series:
        last = points.last if isinstance(points, KeptSeries) else points[-1]
        entry = {k: v for k, v in last.items() if k not in ("at", "pr")}
        slug = author_stem(author)
        if (
            authors
            and slug != authors[-1]["slug"]
            and len({a["slug"] for a in authors[done:]}) >= 25
        ):
            part(authors[done:])
            done = len(authors)
        shown = shown_points(points, cutoff)
        authors.append({"repo": repo, "author": author, "slug": slug, **entry, "series": shown})
    if authors[done:]:
        part(authors[done:])
    return sorted(authors, key=lambda a: (a["repo"], a["author"]))


def _with_ranked(entry: dict[str, Any], recorded: Mapping[str, Any]) -> dict[str, Any]:
    """The entry with reputation.json's `ranked`, its own and each component's. An author's
    page leaves it out: it moves with every author of the repository (each page is drawn again
    only when its author's own entry changes)."""
    parts = entry["components"]
    ranked = {n: {**c, "ranked": recorded["components"][n]["ranked"]} for n, c in parts.items()}
    return {**entry, "ranked": recorded["ranked"], "components": ranked}


def shown_points(points: Points | KeptSeries, cutoff: datetime | None) -> Sequence[Any]:
    """The points of a series that the report shows (`since` the cutoff), as it shows them."""
    if isinstance(points, KeptSeries):
        return points.shown if cutoff is None else since(points.shown, cutoff)
    return [shown_point(p) for p in since(points, cutoff)]


def kept_series(points: Points) -> KeptSeries:
    """A series with its texts made once, as the state keeps them (the values kept with them)."""
    shown = [shown_point(p) for p in points]
    return KeptSeries(KeptRow.made(points[-1]), KeptJSON(canonical(shown), shown))


def shown_point(point: dict[str, Any]) -> dict[str, Any]:
    """A point as the report shows it."""
    return {
        "at": point["at"],
        "pr": point["pr"],
        "reputation": point["reputation"],
        "coverage": point["coverage"],
        "components": point["components"],
    }


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
    for key, job_events in by_job.items():  # a job is its first event's author's
        by_author[(key[0], min(job_events, key=_ORDER).author)].extend(job_events)
    by_repo: dict[str, dict[int, JobFacts]] = defaultdict(dict)
    for (repo, pr), facts in (folded or {}).items():
        by_repo[repo][pr] = facts
    entries = Entries(config)  # one for all: each shown component is made once
    for repo, author in sorted(by_author, key=lambda k: (author_stem(k[1]), k)):
        yield (repo, author), author_series(by_author[(repo, author)], entries, by_repo[repo])


def author_series(
    events: Sequence[Event], entries: Entries, folded: Mapping[int, JobFacts] | None = None
) -> list[dict[str, Any]]:
    """One author's points from the events of all their jobs in one repo, under `entries`'
    config (`folded`: the facts of whole jobs, by `pr`, when they are known already)."""
    config = entries.config
    ordered = sorted(events, key=_ORDER)
    sizes: Counter[int] = Counter()
    shaped: dict[int, int] = {}  # how many of each job's events hold its last shaping one
    for event in ordered:
        sizes[event.pr] += 1
        if shapes_facts(event):
            shaped[event.pr] = sizes[event.pr]
    known = folded or {}
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
            so_far = seen[pr]
            whole = known.get(pr)
            if len(so_far) == sizes[pr] or whole is None:
                terms = _terms(so_far, whole if len(so_far) == sizes[pr] else None, config)
            elif len(so_far) >= shaped.get(pr, 0):
                terms = _terms(so_far, None, config, whole)
            else:
                terms = _terms(so_far, None, config)
            running.set(pr, terms)
        points.append({"at": rfc3339(ordered[stop].at), "pr": completed, **running.entry(entries)})
    return points


def _terms(
    so_far: Sequence[Event],
    whole: JobFacts | None,
    config: ReputationConfig,
    shaped: JobFacts | None = None,
) -> JobTerms:
    """A job's terms as of its events so far (in fold order; `whole`: the facts of all of them,
    when known; `shaped`: the job's whole facts, when its events so far hold every one that
    `shapes_facts`). Until it is completed only its state counts (`terms_components` takes
    everything else from completed jobs only)."""
    if whole is None and not any(event.kind == "final_approval" for event in so_far):
        return JobTerms(lifecycle_state(so_far), None, False, (), None)
    if whole is None and shaped is not None:
        whole = facts_so_far(shaped, so_far)
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


def audit_entries(events: Iterable[Event]) -> dict[str, list[dict[str, Any]]]:
    """Overrides with reason, approver and version; bypassed gates; disputes (in event order)."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in AUDITS}
    for event in events:
        if event.override is not None:
            found["overrides"].append({**_base(event), "reason": event.override.reason})
        if event.kind == "final_approval" and event.gate == "bypassed":
            found["bypassed"].append(_base(event))
        if event.kind == "disputed":
            found["disputes"].append({**_base(event), "feedback": event.feedback})
    return found


def audit(
    entries: Iterable[Mapping[str, list[dict[str, Any]]]], cutoff: datetime | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The audit section: the jobs' entries at or after `cutoff`, newest first."""
    listed = list(entries)
    return {
        name: sorted(
            (r for job in listed for r in job[name] if _since(r["at"], cutoff)),
            key=_audit_order,
            reverse=True,
        )
        for name in AUDITS
    }


def _since(stamp: str, cutoff: datetime | None) -> bool:
    at = parse_time(stamp)
    return cutoff is None or (at is not None and at >= cutoff)


def _audit_order(row: Mapping[str, Any]) -> tuple[Any, ...]:
    text = row.get("reason", row.get("feedback"))
    return (row["at"], row["repo"], row["pr"], row["version"], row["actor"], str(text))


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
