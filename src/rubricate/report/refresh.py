"""The report's sources from the last report's and the fold cache, re-reading only the jobs
that changed (pure: reads job files through a `FoldSnapshot`).

A job changed when its job file's id is not the one the last report was built from. Its part is
made again from its events; so is the series of each author who has a changed job (from the
events of all of that author's jobs in the repository), or whose series the last report did not
keep. The tally of scores and the totals of the rows lose each changed job's old scores and row
and gain its new ones. Everything
else is the last report's. `assemble` then gives the document a full build gives.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rubricate.ledger.cache import FoldCache
from rubricate.ledger.codec import ParsedLedger
from rubricate.ledger.fold import JobFacts, fold_job
from rubricate.ledger.paths import author_stem
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.snapshot import FoldSnapshot
from rubricate.ledger.verify import corrupt_lines
from rubricate.report.kept_json import KeptSeries
from rubricate.report.memo import Memo
from rubricate.report.model import (
    AuthorKey,
    JobKey,
    JobPart,
    LedgerFacts,
    Points,
    Sources,
    each_series,
    job_part,
    kept_series,
    with_row_text,
)
from rubricate.report.summary import RowTotals, totals_of
from rubricate.report.tallies import Tally, tally_of


@dataclass(frozen=True)
class Kept:
    """What a report keeps for the next one: each job's file id and part, each author's series,
    the tally of every job's scores, the totals of every job's row and the estimates the report
    used (`Sources.memo`)."""

    files: Mapping[JobKey, str]
    parts: Mapping[JobKey, JobPart]
    series: Mapping[AuthorKey, Points | KeptSeries]
    tally: Tally
    totals: RowTotals
    memo: Memo = field(default_factory=Memo)


def first_kept(
    files: Mapping[JobKey, str],
    parts: Mapping[JobKey, JobPart],
    series: Mapping[AuthorKey, Points | KeptSeries],
    memo: Memo,
) -> Kept:
    """What a report that read every job keeps: its parts with their rows' texts, and the tally
    and totals counted over every job."""
    kept = {key: with_row_text(part) for key, part in parts.items()}
    tally = tally_of(part.scored for part in kept.values())
    return Kept(files, kept, series, tally, totals_of(p.row for p in kept.values()), memo)


def kept_as_made(
    series: Iterable[tuple[AuthorKey, Points | KeptSeries]],
    into: dict[AuthorKey, Points | KeptSeries],
) -> Iterator[tuple[AuthorKey, KeptSeries]]:
    """The series as they come, each with its texts made once (`kept_series`) and also put
    `into` a dict (what the report keeps)."""
    for key, points in series:
        kept = points if isinstance(points, KeptSeries) else kept_series(points)
        into[key] = kept
        yield key, kept


def cache_ledger_facts(cache: FoldCache, events: int, newest: datetime | None) -> LedgerFacts:
    """What the report says of the ledger as a whole, from the fold cache (`events`: how many
    its jobs hold, `newest`: the newest one's time, `FoldCache.events` and `.newest_at`)."""
    problems = corrupt_lines(ParsedLedger(corrupt=cache.corrupt))
    problems += [str(p) for p in (*cache.duplicates, *cache.misplaced)]
    return LedgerFacts(problems, events, len(cache.corrupt), len(cache.duplicates), newest)


def recorded_reputation(data: bytes | None, config: ReputationConfig) -> dict[str, Any] | None:
    """The `repos` of the data branch's reputation.json (`data`, from a tip whose fold cache
    verified, so folded from the very jobs the cache holds) when it was folded under `config`;
    None otherwise (the report then folds every job for the `ranked` column)."""
    if data is None:
        return None
    try:
        document = json.loads(data)
        if document["config"] != config.model_dump(mode="json"):
            return None
        repos = document["repos"]
    except (ValueError, TypeError, KeyError):
        return None
    return repos if isinstance(repos, dict) else None


def refreshed(
    snapshot: FoldSnapshot, kept: Kept, config: ReputationConfig
) -> tuple[Sources, Kept, set[str]]:
    """The sources of the snapshot's ledger, what to keep of them for the next report, and the
    page names (`author_stem`) of the authors whose pages may show something else."""
    jobs = snapshot.cache.jobs
    files: dict[JobKey, str] = {}
    facts: dict[JobKey, JobFacts] = {}
    authors: set[AuthorKey] = set()
    changed: set[JobKey] = set()
    events_count, newest = 0, None
    kept_files, kept_parts = kept.files, kept.parts
    for key, job in jobs.items():  # one pass over every job
        file_id = files[key] = job.file_id
        job_facts = facts[key] = job.facts
        authors.add((key[0], job_facts.author))
        events_count += job_facts.events
        if newest is None or job_facts.last_at > newest:
            newest = job_facts.last_at
        if kept_files.get(key) != file_id or key not in kept_parts:
            changed.add(key)
    gone = kept_files.keys() - files.keys()
    touched = {(key[0], facts[key].author) for key in changed}
    touched |= {
        (key[0], kept_parts[key].row["author"]) for key in gone | changed if key in kept_parts
    }
    touched |= authors - kept.series.keys()
    stale = {author_stem(author) for _, author in touched | (kept.series.keys() - authors)}
    touched &= authors
    logins = {login for _, login in touched}
    read = changed | {
        key for key, f in facts.items() if f.author in logins and (key[0], f.author) in touched
    }
    events = snapshot.job_events(sorted(read))
    parts = dict(kept_parts)
    for key in changed | (parts.keys() - files.keys()):
        parts.pop(key, None)
    tally = Tally(Counter(kept.tally.scores), Counter(kept.tally.pairs))
    totals = kept.totals.copy()
    for key in changed | gone:
        if key in kept.parts:
            tally.add(kept.parts[key].scored, -1)
            totals.add(kept.parts[key].row, -1)
    parts.update({key: with_row_text(job_part(fold_job(events[key]))) for key in changed})
    for key in changed:
        tally.add(parts[key].scored)
        totals.add(parts[key].row)
    series: dict[AuthorKey, Points | KeptSeries] = {
        key: kept.series[key] for key in authors - touched
    }
    ordered = [e for key in sorted(read) for e in events[key]]
    series.update(each_series(ordered, config, facts))
    listed = [(key, series[key]) for key in sorted(series, key=page_order)]
    ledger = cache_ledger_facts(snapshot.cache, events_count, newest)
    sources = Sources(ledger, facts, parts, listed, tally, kept.memo, totals=totals)
    return sources, Kept(files, parts, series, tally, totals, kept.memo), stale


def page_order(key: AuthorKey) -> tuple[str, AuthorKey]:
    """An author's place in the order `each_series` gives: by page name, then by repo."""
    return author_stem(key[1]), key
