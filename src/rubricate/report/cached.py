"""A first report's sources from the fold cache and the ledger's lines, none of them checked
field by field again (pure: shard texts in, sources out; `pool.cached_in_parallel` spreads the
groups over cores).

When the data branch's fold cache verifies, it names the very shards it was written from, the
lines they hold that were refused or repeated, and every job's facts. So each line is read by
`Event.written`, the ledger's one rule for values exactly as rubricate writes them (a lax form
is refused, not read), and checked only against the cache: every job's events fold to its facts,
no line names a job the cache does not hold and, with a ledger key, each event is signed with
it. The jobs are split by author page into groups of about as many events each (`groups`), each
line goes to its job's group (`routed`: its job read from the line's text as rubricate writes
it, the event's own fields checked later), and each group makes its jobs' parts, its authors'
series and its tally and row totals (`group_sources`). Only these come back from a group, not
its events; together they make the sources `assemble` takes, with what the report keeps for the
next one (`combined`), equal to what reading every line with every check gives. A line or job
that does not fit is a `LedgerError`: the caller then reads the ledger with every check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rubricate.errors import LedgerError
from rubricate.ledger.cache import CachedJob, FoldCache
from rubricate.ledger.codec import is_shard
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import author_stem
from rubricate.ledger.reputation import Entries
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.trust import trusted
from rubricate.report.kept_json import KeptSeries
from rubricate.report.kept_lines import job_line, read_job_lines
from rubricate.report.memo import Memo
from rubricate.report.model import (
    AuthorKey,
    JobKey,
    Points,
    Sources,
    author_series,
    job_part,
    kept_series,
    with_row_text,
)
from rubricate.report.packing import packed
from rubricate.report.refresh import Kept, cache_ledger_facts, page_order
from rubricate.report.summary import RowTotals
from rubricate.report.tallies import Tally

_PR = '"pr": '
_JOB = re.compile(_PR + r'(\d+), (?:"rating": \d+, )?"repo": ("(?:[^"\\]|\\.)*")')
"""An event's job in its line as rubricate writes it (keys sorted, `json.dumps`' spacing, and of
the event's fields only `rating` sorting between `pr` and `repo`, as a test holds): its last
match, since the fields that follow `repo` (rubric, scores, ...) hold no such text and those
before it (evidence, ...) might."""


@dataclass(frozen=True)
class Group:
    """One group's jobs (as the cache has them) and their ledger lines."""

    jobs: Mapping[JobKey, CachedJob]
    lines: list[str]


@dataclass(frozen=True)
class GroupSources:
    """What a group gives back: its jobs' lines (`kept_lines`), its authors' series, its tally
    and totals."""

    jobs: list[str]
    series: dict[AuthorKey, KeptSeries]
    tally: Tally
    totals: RowTotals


def groups(cache: FoldCache, texts: Mapping[str, str], count: int) -> list[Group]:
    """The cache's jobs in `count` groups (or fewer) of about as many events each, every author
    page's jobs (an author's in each repository) in one group, each with its lines from these
    shard texts (path → text); LedgerError when a line the cache does not list as refused or
    repeated names no job of the cache."""
    by_page: dict[str, dict[JobKey, CachedJob]] = {}
    for key, job in cache.jobs.items():
        by_page.setdefault(author_stem(job.facts.author), {})[key] = job
    sizes = {p: sum(j.facts.events for j in by_page[p].values()) for p in sorted(by_page)}
    made = [
        {key: job for page in pages for key, job in by_page[page].items()}
        for pages in packed(sizes, max(1, count))
    ]
    owner = {key: n for n, jobs in enumerate(made) for key in jobs}
    lines: list[list[str]] = [[] for _ in made]
    names: dict[str, str] = {}  # each repository's JSON text, read once
    left: dict[str, set[int]] = {}
    for problem in (*cache.corrupt, *cache.duplicates):
        left.setdefault(problem.file, set()).add(problem.line)
    for path in sorted(filter(is_shard, texts)):
        skipped = left.get(path, set())
        for number, line in enumerate(texts[path].split("\n"), start=1):
            if not line or line.isspace() or number in skipped:
                continue
            found = _job_of(line)
            if found is not None:
                quoted = found[2]
                if quoted not in names:
                    names[quoted] = json.loads(quoted)
                n = owner.get((names[quoted], int(found[1])))
                if n is not None:
                    lines[n].append(line)
                    continue
            raise LedgerError(f"{path}:{number}: not a line of a job the fold cache holds")
    return [Group(jobs, mine) for jobs, mine in zip(made, lines, strict=True) if jobs]


def _job_of(line: str) -> re.Match[str] | None:
    """The last match of `_JOB` in a line."""
    at = line.rfind(_PR)
    while at >= 0:
        found = _JOB.match(line, at)
        if found is not None:
            return found
        at = line.rfind(_PR, 0, at)
    return None


def group_sources(group: Group, config: ReputationConfig, key: bytes | None) -> GroupSources:
    """The parts, series, tally and totals of one group's jobs, from their lines; LedgerError
    when a line is not an event as rubricate writes it, or a job's events do not fold to the
    facts the cache holds."""
    by_job: dict[JobKey, list[Event]] = {key: [] for key in group.jobs}
    try:
        for line in group.lines:
            event = Event.written(json.loads(line))
            by_job[(event.repo, event.pr)].append(event)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise LedgerError(f"a ledger line: {exc}") from None
    lines: list[str] = []
    tally, totals = Tally(), RowTotals()
    by_author: dict[AuthorKey, list[JobKey]] = {}
    for job_key, events in by_job.items():
        name = f"{job_key[0]}#{job_key[1]}"
        if key is not None and len(trusted(events, key)) != len(events):
            raise LedgerError(f"{name}: an event not signed with the ledger key")
        cached = group.jobs[job_key]
        summary = fold_job(events) if events else None
        if summary is None or summary.facts != cached.facts:
            raise LedgerError(f"{name}: its events do not fold to the fold cache's facts")
        part = with_row_text(job_part(summary))
        tally.add(part.scored)
        totals.add(part.row)
        lines.append(job_line(job_key, cached.file_id, part))
        by_author.setdefault((job_key[0], cached.facts.author), []).append(job_key)
    entries = Entries(config)
    series: dict[AuthorKey, KeptSeries] = {}
    for author in sorted(by_author, key=page_order):
        keys = by_author[author]
        folded = {pr: group.jobs[(repo, pr)].facts for repo, pr in keys}
        mine = [event for job_key in keys for event in by_job[job_key]]
        series[author] = kept_series(author_series(mine, entries, folded))
    return GroupSources(lines, series, tally, totals)


def combined(cache: FoldCache, made: Iterable[GroupSources]) -> tuple[Sources, Kept]:
    """The sources of the whole ledger from its groups', and what to keep of them."""
    lines: list[str] = []
    series: dict[AuthorKey, Points | KeptSeries] = {}
    tally, totals = Tally(), RowTotals()
    for group in made:
        lines += group.jobs
        series.update(group.series)
        tally.merge(group.tally)
        totals.merge(group.totals)
    try:
        files, parts = read_job_lines(lines)
    except (ValueError, KeyError, TypeError, IndexError) as exc:  # a job in two groups
        raise LedgerError(f"the groups' jobs do not add up ({exc})") from None
    facts = {key: job.facts for key, job in sorted(cache.jobs.items())}
    parts = {key: parts[key] for key in facts}
    ledger = cache_ledger_facts(cache, cache.events, cache.newest_at)
    listed: Sequence[tuple[AuthorKey, Points | KeptSeries]]
    listed = [(author, series[author]) for author in sorted(series, key=page_order)]
    memo = Memo()
    sources = Sources(ledger, facts, parts, listed, tally, memo, totals=totals)
    return sources, Kept(files, parts, series, tally, totals, memo)
