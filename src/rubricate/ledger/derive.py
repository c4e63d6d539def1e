"""The derived files of the data branch, from the ledger alone (pure: data in, bytes out).

Layout (docs/data-branch.md): `reputation.json`, `jobs/<pr>.json` (`jobs/12k/12345.json` from
#1000 on), `badges/<author>.json|svg`, `badges/repo.json|svg`, the fold cache
(`.rubricate/fold-cache.json`, `.rubricate/facts/`, `.rubricate/totals/`) and the id index
(`.rubricate/ids/`). When the ledger holds several repositories, each one's job and badge files
go under `<owner>/<name>/` (`jobs/o/r/12.json`). Generation time is the newest event's `at`, so a
recompute of the same ledger gives the same bytes.

Badges are shields.io endpoint JSON and SVG rendered by anybadge (which reads only its own
packaged template, like an import).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rubricate.ledger.cache import (
    CachedJob,
    FoldCache,
    bucket_files,
    cache_head,
    id_files,
    totals_file,
)
from rubricate.ledger.event import SCHEMA_VERSION, Event, RubricRef
from rubricate.ledger.fold import JobSummary, Moment, fold_jobs
from rubricate.ledger.jsontext import indented
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH, Layout, git_blob_id
from rubricate.ledger.reputation import LedgerCounts, Totals, job_terms, reputation_document
from rubricate.ledger.reputation_config import ReputationConfig

if TYPE_CHECKING:
    from rubricate.ledger.codec import ParsedLedger

JobKey = tuple[str, int]


def derive_files(parsed: ParsedLedger, config: ReputationConfig) -> dict[str, bytes]:
    """Every derived file for this ledger: path → content."""
    jobs = fold_jobs(parsed.events)
    layout = Layout(tuple(sorted({repo for repo, _ in jobs})))
    files: dict[str, bytes] = {}
    cached: dict[JobKey, CachedJob] = {}
    for key, job in jobs.items():
        files[layout.job_path(*key)], cached[key] = folded_job(job)
    job_ids = {p: git_blob_id(d) for p, d in files.items()}
    files.update(closing_files(parsed, cached, config, (e.id for e in parsed.events), job_ids))
    return files


def folded_job(job: JobSummary) -> tuple[bytes, CachedJob]:
    """A job's file, and what the fold cache keeps of it (its facts and the file's blob id)."""
    data = job_file(job)
    return data, CachedJob(job.facts, git_blob_id(data))


def closing_files(
    ledger: ParsedLedger,
    jobs: Mapping[JobKey, CachedJob],
    config: ReputationConfig,
    ids: Iterable[str],
    job_ids: Mapping[str, str],
) -> Iterator[tuple[str, bytes]]:
    """The derived files that follow from every job's facts, one at a time: reputation.json,
    badges, fact buckets, running totals, the id index of `ids` and, last, the cache head (given
    the blob id of each job file in `job_ids`). `ledger` gives the shards and problems."""
    cache = FoldCache(
        config=config,
        shards=dict(ledger.shards),
        corrupt=ledger.corrupt,
        duplicates=ledger.duplicates,
        misplaced=ledger.misplaced,
        jobs=jobs,
        key_id=ledger.key_id,
    )
    derived = dict(job_ids)
    for path, data in summary_files(cache).items():
        derived[path] = git_blob_id(data)
        yield path, data
    for path, data in id_files(ids):
        derived[path] = git_blob_id(data)
        yield path, data
    yield CACHE_PATH, cache_head(cache, derived)


def job_file(job: JobSummary, records: Mapping[str, Mapping[str, Any]] | None = None) -> bytes:
    """One job: its state, both scoring moments, its rubric_quality and its events.

    `records` gives each event's JSON object by id, as its canonical ledger line reads, when
    the caller has them (a bulk writer that made the lines); the events are dumped otherwise.
    The bytes are `json.dumps` of the whole body, keys sorted, compact; it is written from its
    members' texts, so that a rubric's text is made once per rubric reference (the events read
    from lines share one), not once per event and moment.
    """
    facts = job.facts
    events = (event_json(e) if records is None else _compact(records[e.id]) for e in job.events)
    rest = {
        "gate": job.gate,
        "pr": facts.pr,
        "repo": facts.repo,
        "rubric_quality": facts.rubric_quality,
        "schema_version": SCHEMA_VERSION,
        "state": facts.state,
    }
    members = (
        f'"author":{_compact(facts.author)}',
        f'"events":[{",".join(events)}]',
        f'"final_approval":{_moment_json(job.final)}',
        f'"first_submission":{_moment_json(job.first)}',
        _compact(rest)[1:-1],
    )
    return ("{" + ",".join(members) + "}\n").encode()


def event_json(event: Event) -> str:
    """An event's object in its job file: its JSON values (absent fields left out), keys
    sorted, compact; its rubric written as `_rubric_json` gives it."""
    if event.rubric is None:
        return _compact(event.model_dump(mode="json", exclude_none=True))
    bare = event.model_copy(update={"rubric": None})  # (no field is checked again)
    values = bare.model_dump(mode="json", exclude_none=True)
    before = _compact({k: v for k, v in values.items() if k < "rubric"})
    after = _compact({k: v for k, v in values.items() if k > "rubric"})
    return _joined(before, f'"rubric":{_rubric_json(event.rubric)}', after)


def _moment_json(moment: Moment | None) -> str:
    """A scoring moment's object: scores, rubric, completeness, total and its events."""
    if moment is None:
        return "null"
    before = {"complete": moment.complete, "events": moment.events, "normalized": moment.normalized}
    after = {"scores": moment.scores, "weighted_total": moment.weighted_total}
    rubric = "null" if moment.rubric is None else _rubric_json(moment.rubric)
    return _joined(_compact(before), f'"rubric":{rubric}', _compact(after))


def _joined(before: str, member: str, after: str) -> str:
    """One compact object of two objects' texts and a member between them (keys sorted across
    the three by the caller)."""
    return "{" + ",".join(m for m in (before[1:-1], member, after[1:-1]) if m) + "}"


def _rubric_json(rubric: RubricRef) -> str:
    """A rubric reference's JSON text, made once per reference (they are frozen)."""
    known = _rubric_texts.get(id(rubric))
    if known is not None and known[0] is rubric:
        return known[1]
    text = _compact(rubric.model_dump(exclude_none=True))
    if len(_rubric_texts) >= _RUBRIC_TEXTS:
        _rubric_texts.clear()
    _rubric_texts[id(rubric)] = (rubric, text)  # (held, so that no other object takes its id)
    return text


_compact = json.JSONEncoder(sort_keys=True, separators=(",", ":"), check_circular=False).encode
"""`json.dumps(value, sort_keys=True, separators=(",", ":"))`, its encoder made once."""
_RUBRIC_TEXTS = 256
_rubric_texts: dict[int, tuple[RubricRef, str]] = {}


def summary_files(cache: FoldCache) -> dict[str, bytes]:
    """reputation.json, badges, fact buckets and the authors' running totals.

    The cache head is left to the caller, who knows every derived file's blob id.
    """
    counts = LedgerCounts(cache.events, len(cache.corrupt), len(cache.duplicates), cache.newest_at)
    facts = [cache.jobs[key].facts for key in sorted(cache.jobs)]
    document = reputation_document(facts, cache.config, counts)
    files = {REPUTATION_PATH: reputation_file(document)}
    files.update(badge_files(document, Layout(cache.repos)))
    files.update(bucket_files(cache))
    files.update(totals_files(cache))
    return files


def totals_files(cache: FoldCache) -> dict[str, bytes]:
    """Each repository's running totals of its authors (see `rubricate.ledger.cache`)."""
    by_repo: dict[str, dict[str, Totals]] = {}
    for key in sorted(cache.jobs):
        facts = cache.jobs[key].facts
        authors = by_repo.setdefault(facts.repo, {})
        authors.setdefault(facts.author, Totals()).add(job_terms(facts, cache.config))
    layout = Layout(cache.repos)
    return {layout.totals_path(repo): totals_file(a) for repo, a in by_repo.items()}


def reputation_file(document: dict[str, Any], known: Mapping[int, str] | None = None) -> bytes:
    """`reputation.json` of a document (`known`: the text of some of its objects, by `id`, as
    `jsontext.indented` takes it)."""
    return (indented(document, known) + "\n").encode()


def recorded_config(data: bytes) -> ReputationConfig | None:
    """The reputation config a `reputation.json` records, if it holds a valid one."""
    try:
        return ReputationConfig.model_validate(json.loads(data)["config"])
    except (KeyError, ValueError, TypeError):
        return None


def badge_files(document: dict[str, Any], layout: Layout) -> dict[str, bytes]:
    """Every repository's badge and its authors' badges (an append draws only those whose
    value moved: `rubricate.ledger.redraw`)."""
    files: dict[str, bytes] = {}
    for repo, entry in document["repos"].items():
        badge = repo_badge(entry)
        files[layout.repo_badge(repo, "json")] = badge.endpoint_json()
        files[layout.repo_badge(repo, "svg")] = badge.svg()
        for login, author in entry["authors"].items():
            badge = author_badge(author)
            files[layout.author_badge(repo, login, "json")] = badge.endpoint_json()
            files[layout.author_badge(repo, login, "svg")] = badge.svg()
    return files


NO_DATA = "no data"
AUTHOR_LABEL = "reputation"
REPO_LABEL = "rubric quality"
# (lowest value, shields.io colour name, its hex code), best first.
COLOR_STEPS: tuple[tuple[float, str, str], ...] = (
    (0.9, "brightgreen", "#44CC11"),
    (0.75, "green", "#97CA00"),
    (0.6, "yellowgreen", "#A4A61D"),
    (0.45, "yellow", "#DFB317"),
    (0.3, "orange", "#FE7D37"),
    (0.0, "red", "#E05D44"),
)
NO_DATA_COLOR = ("lightgrey", "#9F9F9F")


@dataclass(frozen=True)
class Badge:
    """One badge: its label, message and colour."""

    label: str
    message: str
    color: str
    hex_color: str

    def endpoint_json(self) -> bytes:
        """The shields.io endpoint format."""
        body = {
            "schemaVersion": 1,
            "label": self.label,
            "message": self.message,
            "color": self.color,
        }
        return (indented(body) + "\n").encode()

    def svg(self) -> bytes:
        """The badge drawn by anybadge."""
        return _render_svg(self.label, self.message, self.hex_color)


def value_badge(label: str, value: float | None) -> Badge:
    """A badge showing a value in [0, 1] with two decimals, coloured by thresholds."""
    if value is None:
        return Badge(label, NO_DATA, *NO_DATA_COLOR)
    name, code = next((n, c) for low, n, c in COLOR_STEPS if value >= low)
    return Badge(label, f"{value:.2f}", name, code)


def author_badge(entry: dict[str, Any]) -> Badge:
    """An author's reputation badge from their `reputation.json` entry."""
    return value_badge(AUTHOR_LABEL, entry.get("reputation"))


def repo_badge(entry: dict[str, Any]) -> Badge:
    """A repository's mean rubric_quality badge from its `reputation.json` entry."""
    return value_badge(REPO_LABEL, entry["rubric_quality"]["value"])


@lru_cache(maxsize=4096)
def _render_svg(label: str, message: str, hex_color: str) -> bytes:
    # anybadge (and the packaging it loads) only when a badge is drawn: an append whose badges
    # keep their value draws none (`plan.moved_badges`).
    import anybadge

    # anybadge reads numeric text as a number ("1.00" would show as "1.0"): keep two decimals.
    numeric = message.replace(".", "", 1).isdigit()
    value_format = "%.2f" if numeric else None
    badge = anybadge.Badge(label, message, default_color=hex_color, value_format=value_format)
    # anybadge numbers masks from a per-process counter; name it by content to stay reproducible.
    digest = hashlib.sha1(f"{label}|{message}|{hex_color}".encode(), usedforsecurity=False)
    badge.mask_str = f"rubricate_{digest.hexdigest()[:10]}"
    return str(badge.badge_svg_text).encode()
