"""Decide what an append writes: new shard lines and regenerated derived files (pure).

`plan_full` folds the whole ledger; `try_incremental` re-folds only the touched jobs and moves
their terms in their authors' running totals, patching reputation.json (see
`rubricate.ledger.cache` for what must verify first, and the id index), and gives exactly the
files a full recompute gives (a test pins this).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from rubricate.ledger.cache import (
    STATE_DIR,
    BucketRows,
    CachedJob,
    bucket_path,
    buckets_id,
    derived_state,
    encode_ids,
    head_config,
    id_bucket,
    known_ids,
    ledger_id,
    read_head,
    read_totals,
    renewed_head,
    totals_file,
)
from rubricate.ledger.codec import (
    LEDGER_DIR,
    SHARD_BYTES,
    append_lines,
    decode_shard,
    encode_shard,
    is_shard,
    parse_shard,
    parse_streamed,
    prepared_lines,
    shard_for,
    shard_month,
    shard_path,
)
from rubricate.ledger.derive import derive_files, job_file, recorded_config, reputation_file
from rubricate.ledger.event import Event, parse_time, rfc3339
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import (
    BUCKET_DIR,
    CACHE_PATH,
    REPUTATION_PATH,
    Layout,
    git_blob_id,
    is_derived,
    job_paths,
)
from rubricate.ledger.redraw import kept_texts, moved_badges
from rubricate.ledger.reputation import TipEntry, Totals, job_terms, repo_entry, whole_totals
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.treeids import TREE_MODE, Listing, changed_listing, listing_of
from rubricate.ledger.trust import key_id
from rubricate.ledger.verify import verify_tree

Reader = Callable[[Sequence[str]], Mapping[str, bytes]]
"""Reads files of the tree being planned on: paths → contents."""


@dataclass(frozen=True)
class AppendPlan:
    """What to write: the events that are new, and the files with their new content."""

    added: tuple[Event, ...]
    present: int
    files: Mapping[str, bytes] = field(default_factory=dict)
    deletions: tuple[str, ...] = ()
    incremental: bool = False


def plan_full(
    tree: Mapping[str, str],
    read: Reader,
    batch: Sequence[Event],
    config: ReputationConfig,
    key: bytes | None = None,
) -> AppendPlan:
    """Fold the whole ledger with the new events, reading one shard at a time; delete derived
    files no longer produced."""
    shards = [p for p in tree if is_shard(p)]
    parsed = parse_streamed(shards, read, key)
    known = {e.id for e in parsed.events}
    added = tuple(e for e in batch if e.id not in known)
    receiving = read([p for p in last_shards(shards, added) if p in tree])
    texts = appended({p: decode_shard(d) for p, d in receiving.items()}, lines_of(added), shards)
    new_shards = {**parsed.shards, **{p: git_blob_id(d) for p, d in texts.items()}}
    grown = replace(parsed, events=parsed.events + added, shards=new_shards)
    files = {**texts, **derive_files(grown, config)}
    stale = tuple(sorted(p for p in tree if is_derived(p) and p not in files))
    return AppendPlan(added, len(batch) - len(added), files, stale)


def last_shards(shards: Iterable[str], events: Iterable[Event]) -> set[str]:
    """The last shard of each month the events fall in (the shards that may receive them)."""
    months = {shard_month(shard_path(e.at)) for e in events}
    found: set[str] = set()
    for month in months:
        found.update(sorted(p for p in shards if shard_month(p) == month)[-1:])
    return found


def lines_of(events: Iterable[Event]) -> list[tuple[datetime, str]]:
    """Each event's time and canonical ledger line, as `appended` takes them."""
    return [(event.at, event.to_line()) for event in events]


def appended(
    texts: Mapping[str, str], lines: Sequence[tuple[datetime, str]], paths: Iterable[str] = ()
) -> dict[str, bytes]:
    """The shards that receive new lines (each new event's time and canonical line), with those
    lines appended; `texts` holds at least the last shard of each month the events fall in,
    `paths` every shard of those months (see `shard_for`). A shard that reaches `SHARD_BYTES`
    takes no more: the next one starts."""
    shards = set(paths) | set(texts)
    sizes: dict[str, int] = {}
    receiving: dict[str, str] = {}
    by_shard: dict[str, list[str]] = {}

    def size(path: str) -> int:
        if path not in sizes:
            sizes[path] = len(encode_shard(texts.get(path, "")))
        return sizes[path]

    for at, text in lines:
        month = shard_path(at)
        path = receiving.get(month)
        if path is None or size(path) >= SHARD_BYTES:
            path = shard_for(at, shards if path is None else [path], size)
            shards.add(path)
            receiving[month] = path
        line = text + "\n"
        by_shard.setdefault(path, []).append(line)
        sizes[path] = size(path) + len(line.encode())
    return {
        p: encode_shard(append_lines(texts.get(p, ""), [])) + "".join(new).encode()
        for p, new in by_shard.items()
    }


def prepare(events: Iterable[Event], key: bytes | None = None) -> list[Event]:
    """Events as they will read back from the ledger, each id once (the first kept), signed
    with the ledger `key` when there is one."""
    return [event for event, _ in prepared_lines(events, key)]


def plan_append(
    tree: Mapping[str, str],
    read: Reader,
    batch: Sequence[Event],
    config: ReputationConfig | None,
    key: bytes | None = None,
) -> AppendPlan:
    """Plan an append onto a tree (path → blob id), reading file contents through `read`.

    Incremental when the fold cache verifies against the tree and was built with the same
    ledger `key`, in full otherwise. Without a `config`, the one the branch records is kept
    (the defaults when it records none).
    """
    listing = listing_of(tree)
    shards = month_shards(listing, batch)
    wanted = [CACHE_PATH, *incremental_reads(shards, batch)]
    files = read([p for p in wanted if p in tree])
    head = read_head(files[CACHE_PATH]) if CACHE_PATH in files else None
    used = config or branch_config(tree, read, head)
    if head is not None and head.get("key") == key_id(key):
        plan = try_incremental(head, tree, files, shards, batch, used)
        if plan is not None and in_the_shards(batch, plan.added, shards, read, key):
            return plan
    return plan_full(tree, read, batch, used, key)


def in_the_shards(
    batch: Sequence[Event],
    added: Sequence[Event],
    shards: Sequence[str],
    read: Reader,
    key: bytes | None,
) -> bool:
    """Whether every event of the batch that the id index calls present is a trusted line of
    its month's shards. The index is derived and its cache head's digests are public: anyone
    who can push could plant an id there, with a head that matches, to have an event skipped
    as "already present", so it never reached the ledger. Only a claim the shards bear out is
    taken; otherwise the append folds the whole ledger, its source of truth. The months' last
    shards (read for the append already) are looked at first: a re-run or a re-delivery comes
    soon after its first run, so a month's other shards are read only for a claim they leave,
    one at a time, the newest first, until none is left."""
    claimed = {e.id for e in batch} - {e.id for e in added}
    last = sorted(last_shards(shards, batch))
    others = [[p] for p in sorted(shards, reverse=True) if p not in last]
    for paths in [last, *others]:
        if not claimed:
            break
        texts = read(paths) if paths else {}
        for path in paths:
            parsed = parse_shard(path, decode_shard(texts[path]), key)
            claimed -= {e.id for _, e in parsed.events}
    return not claimed


def month_shards(listing: Listing, batch: Sequence[Event]) -> list[str]:
    """Every shard of the months the batch falls in, from `ledger/` and those months' folders."""
    top = LEDGER_DIR.rstrip("/")
    months = {shard_month(shard_path(e.at)) for e in batch}
    entries = listing(top) if months else {}
    found = []
    for month in sorted(m for m in months if m is not None):
        if f"{month}.jsonl" in entries and entries[f"{month}.jsonl"][0] != TREE_MODE:
            found.append(f"{LEDGER_DIR}{month}.jsonl")
        if entries.get(month, ("", ""))[0] == TREE_MODE:
            found += [f"{LEDGER_DIR}{month}/{name}" for name in listing(f"{top}/{month}")]
    return [p for p in found if shard_month(p) is not None]


def plan_rebuild(
    tree: Mapping[str, str],
    read: Reader,
    config: ReputationConfig | None,
    key: bytes | None = None,
) -> AppendPlan:
    """Regenerate every derived file from the whole ledger, adding nothing: the plan holds the
    derived files whose content differs from the tree's (the fold streams, see
    `rubricate.ledger.refold`), and deletes those no longer derived. A store's rebuild writes
    them as the fold gives them instead (`verify_tree`'s `fix`); this holds them."""
    held = Held()
    report = verify_tree(tree, read, config, key, held)
    return AppendPlan((), 0, held.files, report.removed)


class Held:
    """A `Fixer` that holds the files it is given."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def put(self, path: str, data: bytes) -> None:
        """Hold one file."""
        self.files[path] = data

    def reset(self) -> None:
        """Forget every file."""
        self.files.clear()


def branch_config(
    tree: Mapping[str, str], read: Reader, head: dict[str, Any] | None
) -> ReputationConfig:
    """The config the branch records: the cache head's, else reputation.json's, else defaults."""
    recorded = head_config(head)
    if recorded is None and REPUTATION_PATH in tree:
        recorded = recorded_config(read([REPUTATION_PATH])[REPUTATION_PATH])
    return recorded or ReputationConfig()


def _head(tree: Mapping[str, str], read: Reader) -> dict[str, Any] | None:
    """The verified cache head of the tree, if it has one."""
    return read_head(read([CACHE_PATH])[CACHE_PATH]) if CACHE_PATH in tree else None


JobKey = tuple[str, int]


def try_incremental(
    head: dict[str, Any],
    tree: Mapping[str, str],
    files: Mapping[str, bytes],
    shards: Sequence[str],
    batch: Sequence[Event],
    config: ReputationConfig,
) -> AppendPlan | None:
    """The incremental plan from the files `incremental_reads` names (those in `tree`) and the
    shards of the batch's months; None if it cannot be used."""
    if not head_matches(head, tree) or head_config(head) != config:
        return None
    layout = incremental_layout(head["repos"], batch)
    if layout is None:
        return None
    try:
        return plan_incremental(head, tree, files, shards, batch, config, layout)
    except (ValueError, KeyError, TypeError):
        return None


def head_matches(head: dict[str, Any], tree: Mapping[str, str]) -> bool:
    """True when the tree holds exactly the shards, buckets and derived files the head records,
    checked from the entries of the root, `.rubricate/` and its buckets' folder alone."""
    listing = listing_of(tree)
    try:
        root, state = listing(""), listing(STATE_DIR)
        named = isinstance(head["repos"], list) and all(isinstance(r, str) for r in head["repos"])
        derived = head["derived"] == derived_state(root, state)
        facts = state.get(BUCKET_DIR.rstrip("/").rpartition("/")[2], ("", ""))[1]
        buckets = buckets_id(head["buckets"]) == facts if head["buckets"] else not facts
        recorded = head["shards"] == ledger_id(root) and buckets
        return bool(named and derived and recorded and REPUTATION_PATH in root)
    except (KeyError, AttributeError, TypeError, ValueError):
        return False


def incremental_layout(known: Sequence[str], batch: Sequence[Event]) -> Layout | None:
    """The layout after the batch; None when its repositories would change the layout."""
    repos = set(known) | {e.repo for e in batch}
    if len(repos) > 1 and repos != set(known):
        return None
    return Layout(tuple(sorted(repos)))


def incremental_reads(shards: Sequence[str], batch: Sequence[Event]) -> list[str]:
    """The files `plan_incremental` needs: the batch's jobs (in either layout) with their fact
    buckets, id-index files, months' last shards and repositories' totals, and
    reputation.json."""
    wanted = {REPUTATION_PATH}
    for event in batch:
        wanted |= {*job_paths(event.repo, event.pr)[:2], bucket_path(event.pr)}
        wanted |= {id_bucket(event.id), Layout(()).totals_path(event.repo)}
    wanted |= last_shards(shards, batch)
    return sorted(wanted)


def plan_incremental(
    head: dict[str, Any],
    tree: Mapping[str, str],
    files: Mapping[str, bytes],
    shards: Sequence[str],
    batch: Sequence[Event],
    config: ReputationConfig,
    layout: Layout,
) -> AppendPlan | None:
    """Re-fold only the touched jobs and their authors' totals; None when what the cache names
    does not verify (ValueError when a cache file is unreadable).

    `files` holds the files `incremental_reads` names that exist in `tree`.
    """
    known = known_ids(files, {id_bucket(e.id) for e in batch})
    if known is None:
        return None
    added = tuple(e for e in batch if e.id not in known[id_bucket(e.id)])
    if not added:
        return AppendPlan((), len(batch), {}, (), True)
    by_job: dict[JobKey, list[Event]] = {}
    for event in added:
        by_job.setdefault((event.repo, event.pr), []).append(event)
    touched = {bucket_path(pr) for _, pr in by_job}
    rows = BucketRows()
    for path in touched:
        if path in files:
            rows.read(path, files[path])
    existing = {key: verified_job(rows, layout, files, key) for key in by_job}
    if any(events is None for events in existing.values()):
        return None
    texts = {p: decode_shard(d) for p, d in files.items() if is_shard(p)}
    written = appended(texts, lines_of(added), shards)
    for path in {id_bucket(e.id) for e in added}:
        written[path] = encode_ids(known[path] | {e.id for e in added if id_bucket(e.id) == path})
    totals = {
        repo: read_totals(files[path]) if path in files else {}
        for repo in {r for r, _ in by_job}
        for path in [layout.totals_path(repo)]
    }
    means = {repo: whole_totals(repo_totals).components() for repo, repo_totals in totals.items()}
    authors = _refold(rows, layout, existing, by_job, written, totals, config)
    written.update(rows.files(touched))
    gone = [(r, a) for r, logins in authors.items() for a in sorted(logins) if a not in totals[r]]
    for repo, repo_totals in totals.items():
        written[layout.totals_path(repo)] = totals_file(repo_totals)
    document = json.loads(files[REPUTATION_PATH])
    _grow(document, added, sum(1 for key in by_job if not existing[key]))
    before = {repo: document["repos"].get(repo) for repo in totals}
    for repo, repo_totals in totals.items():
        old = before[repo]
        tip = None if old is None else TipEntry(old, means[repo], authors.get(repo, set()))
        document["repos"][repo] = repo_entry(repo_totals, config, tip)
    after = {repo: document["repos"][repo] for repo in totals}
    drawn = kept_texts(files[REPUTATION_PATH], before, after)
    written[REPUTATION_PATH] = reputation_file(document, drawn)
    written.update(moved_badges(before, after, layout, authors))
    deletions = tuple(layout.author_badge(r, a, ext) for r, a in gone for ext in ("json", "svg"))
    changes = {p: git_blob_id(d) for p, d in written.items()}
    listing = listing_of(tree)
    root = changed_listing(listing, "", changes, deletions)
    state = changed_listing(listing, STATE_DIR, changes, deletions)
    buckets = {p: i for p, i in head["buckets"].items() if p not in touched}
    buckets.update({p: changes[p] for p in touched if p in changes})
    written[CACHE_PATH] = renewed_head(head, root, state, buckets, list(layout.repos))
    return AppendPlan(added, len(batch) - len(added), written, deletions, True)


def _grow(document: dict[str, Any], added: Sequence[Event], new_jobs: int) -> None:
    """reputation.json's ledger counts and generation time after appending `added`."""
    ledger = document["ledger"]
    ledger["events"] += len(added)
    ledger["jobs"] += new_jobs
    times = [e.at for e in added]
    if document["generated_at"] is not None:
        times.append(parse_time(document["generated_at"]))
    document["generated_at"] = rfc3339(max(times))


def verified_job(
    rows: Mapping[JobKey, CachedJob], layout: Layout, files: Mapping[str, bytes], key: JobKey
) -> list[Event] | None:
    """A job's recorded events, when its job file and cached facts are what the fold gives."""
    data = files.get(layout.job_path(*key))
    cached = rows.get(key)
    if cached is None:
        return [] if data is None else None
    if data is None or git_blob_id(data) != cached.file_id:
        return None
    try:
        events = [Event.model_validate(raw) for raw in json.loads(data)["events"]]
        summary = fold_job(events)
    except (ValueError, KeyError, TypeError):
        return None
    if summary.facts != cached.facts or job_file(summary) != data:
        return None
    return events


def _refold(
    rows: MutableMapping[JobKey, CachedJob],
    layout: Layout,
    existing: Mapping[JobKey, list[Event] | None],
    by_job: Mapping[JobKey, list[Event]],
    written: dict[str, bytes],
    totals: dict[str, dict[str, Totals]],
    config: ReputationConfig,
) -> dict[str, set[str]]:
    """Fold each touched job again, writing its job file and moving its terms in its
    repository's totals (an author left without a job leaves them); the touched authors."""
    authors: dict[str, set[str]] = {}
    for key, new in by_job.items():
        summary = fold_job([*(existing[key] or []), *new])
        path = layout.job_path(*key)
        written[path] = job_file(summary)
        repo_totals = totals[key[0]]
        old = rows.get(key)
        if old is not None:
            authors.setdefault(key[0], set()).add(old.facts.author)
            repo_totals[old.facts.author].add(job_terms(old.facts, config), -1)
            if not repo_totals[old.facts.author].jobs:
                del repo_totals[old.facts.author]
        authors.setdefault(key[0], set()).add(summary.facts.author)
        repo_totals.setdefault(summary.facts.author, Totals()).add(job_terms(summary.facts, config))
        rows[key] = CachedJob(summary.facts, git_blob_id(written[path]))
    return authors
