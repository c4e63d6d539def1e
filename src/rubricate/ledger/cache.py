"""The fold cache and the id index: derived files that let an append skip work (pure: data to
bytes and back).

A derived file like the others (a full recompute rebuilds it byte for byte), it lets an append
re-fold only the jobs it touches. The job facts live in buckets, `.rubricate/facts/<pr // 1000>
.jsonl` (one job a line), so an append rewrites one small bucket. The head,
`.rubricate/fold-cache.json`, records:
- the cache format and `FOLD_VERSION`: a head written by another format or fold is not used;
- the layout version, the reputation config, the git tree id of `ledger/`, the buckets with
  their blob ids, the repositories and the located problems (corrupt, duplicate and misplaced
  lines);
- `derived`: a digest of reputation.json's blob id and the tree ids of `jobs/`, `badges/` and of
  every entry of `.rubricate/` but the head, which covers every other derived file (job files,
  badges, buckets, the id index, the totals), so that a hand-edited or missing one is seen, and
  an append checks it from a few directory entries, never listing the whole tree;
- `digest`: a digest of the head itself, so that a hand-edited head is seen.
An append trusts the cache only when all of this verifies against the tree it writes onto;
otherwise it folds the whole ledger again. Counts (events, newest event) come from the rows.

The id index holds every event id of the ledger, so an append can skip ids already present
without reading every shard. An id is unique across the whole ledger. `.rubricate/ids/<x>/<yz>
.jsonl` holds the ids whose sha256 starts with the hex digits `xyz`, one JSON string a line,
sorted; an append rewrites only the (small) files of its new ids.

The running totals, `.rubricate/totals/<owner>/<name>.json`, hold each author's
`reputation.Totals` (one line each), so an append moves only its jobs' terms and recomputes
only its repository's entry of reputation.json; in it, an author whose totals did not move keeps
the tip's entry and text (only its `ranked` values pulled again when a mean moved), so a change to
what an author's entry holds must change `CACHE_FORMAT` or `FOLD_VERSION`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rubricate.errors import LedgerProblem
from rubricate.ledger.codec import LEDGER_DIR
from rubricate.ledger.event import rfc3339
from rubricate.ledger.fold import FOLD_VERSION, JobFacts
from rubricate.ledger.paths import (
    BUCKET_DIR,
    CACHE_PATH,
    ID_DIR,
    LAYOUT_VERSION,
    REPUTATION_PATH,
    is_derived,
)
from rubricate.ledger.reputation import Totals
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.times import read_time
from rubricate.ledger.treeids import FILE_MODE, Entry, directories, tree_id

BUCKET_SIZE = 1000
CACHE_FORMAT = 5
STATE_DIR = CACHE_PATH.rpartition("/")[0]
_STATES = ("open", "completed", "abandoned")
_ROW_LENGTH = 13
"""The values of a bucket row (`_job_row`)."""


@dataclass(frozen=True)
class CachedJob:
    """One job's facts and the git blob id of its job file."""

    facts: JobFacts
    file_id: str


@dataclass(frozen=True)
class FoldCache:
    """Everything the summary files need, without the events themselves."""

    config: ReputationConfig
    shards: Mapping[str, str] = field(default_factory=dict)
    corrupt: tuple[LedgerProblem, ...] = ()
    duplicates: tuple[LedgerProblem, ...] = ()
    misplaced: tuple[LedgerProblem, ...] = ()
    jobs: Mapping[tuple[str, int], CachedJob] = field(default_factory=dict)
    key_id: str | None = None
    """The public id of the ledger key the events were checked with (None: ids only)."""
    shards_id: str = ""
    """The head's tree id of `ledger/`, when the cache was read from a head (it lists no shard)."""

    @property
    def repos(self) -> tuple[str, ...]:
        """The repositories the ledger holds, sorted."""
        return tuple(sorted({repo for repo, _ in self.jobs}))

    @property
    def events(self) -> int:
        """How many valid events the ledger holds (each belongs to exactly one job)."""
        return sum(job.facts.events for job in self.jobs.values())

    @property
    def newest_at(self) -> datetime | None:
        """The newest event's time."""
        return max((job.facts.last_at for job in self.jobs.values()), default=None)


def bucket_path(pr: int) -> str:
    """The bucket holding a job's facts."""
    return f"{BUCKET_DIR}{pr // BUCKET_SIZE}.jsonl"


def bucket_files(
    cache: FoldCache | Mapping[tuple[str, int], CachedJob], touched: Iterable[str] | None = None
) -> dict[str, bytes]:
    """The buckets of job facts (only the `touched` ones, when given; all otherwise)."""
    jobs = cache.jobs if isinstance(cache, FoldCache) else cache
    return _buckets(jobs, lambda key: json.dumps(_job_row(jobs[key])), touched)


def _buckets(
    keys: Iterable[tuple[str, int]],
    line: Callable[[tuple[str, int]], str],
    touched: Iterable[str] | None,
) -> dict[str, bytes]:
    """The buckets of these jobs, each job's row its `line` (only the `touched` buckets, when
    given)."""
    rows: dict[str, list[str]] = {}
    wanted = None if touched is None else set(touched)
    for key in sorted(keys):
        path = bucket_path(key[1])
        if wanted is None or path in wanted:
            rows.setdefault(path, []).append(line(key))
    return {path: ("\n".join(lines) + "\n").encode() for path, lines in rows.items()}


def _taken_in(jobs: dict[tuple[str, int], Any], bucket: Mapping[tuple[str, int], Any]) -> None:
    """One bucket's jobs added to those of others; ValueError when a job is in both."""
    if bucket.keys() & jobs.keys():
        raise ValueError("a job in two buckets")
    jobs.update(bucket)


def bucket_jobs(path: str, data: bytes) -> dict[tuple[str, int], CachedJob]:
    """The rows of one bucket; ValueError when it is not one."""
    jobs: dict[tuple[str, int], CachedJob] = {}
    try:
        for key, (_, row) in bucket_rows(path, data).items():
            jobs[key] = _job_from_row(row)
    except (TypeError, KeyError, AttributeError, IndexError) as exc:
        raise ValueError(str(exc)) from None
    return jobs


def bucket_rows(path: str, data: bytes) -> dict[tuple[str, int], tuple[str, list[Any]]]:
    """Each row of one bucket by its job: its line and its JSON values (not yet read as facts);
    ValueError when it is not a bucket's rows, each a job of that bucket, once."""
    found: dict[tuple[str, int], tuple[str, list[Any]]] = {}
    try:
        lines = data.decode().split("\n")[:-1]
        if not all(line[:1] == "[" and line[-1:] == "]" for line in lines):
            raise ValueError("a bucket line is a JSON array")
        rows = json.loads("[" + ",".join(lines) + "]")  # one parse: no call per line
        if len(rows) != len(lines):
            raise ValueError("a bucket line is one JSON array")
        name = path.removeprefix(BUCKET_DIR).removesuffix(".jsonl")  # its jobs' pr // BUCKET_SIZE
        low = int(name) * BUCKET_SIZE if name.isdigit() else -1
        if rows and (low < 0 or bucket_path(low) != path):
            raise ValueError(f"{path} is not a bucket's name")
        for line, row in zip(lines, rows, strict=True):
            key = (row[0], row[1])
            if type(key[0]) is not str or type(key[1]) is not int or len(row) != _ROW_LENGTH:
                raise ValueError("a bucket row starts with its job's repository and number")
            if key in found or not low <= key[1] < low + BUCKET_SIZE:
                raise ValueError("a job twice, or in the wrong bucket")
            found[key] = (line, row)
    except (TypeError, KeyError, AttributeError, IndexError) as exc:
        raise ValueError(str(exc)) from None
    return found


class BucketRows(MutableMapping[tuple[str, int], CachedJob]):
    """The jobs of some buckets as the tip has them, by job: a job's facts are read when it is
    asked for, and `files` writes each bucket again from its rows' lines, encoding only the
    jobs that were set (an append touches a job or two of a bucket of a thousand).

    A job that is read is checked as `bucket_jobs` checks it (ValueError), and every row's key
    when its bucket is taken in (`read`)."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, int], tuple[str, list[Any]]] = {}
        self._jobs: dict[tuple[str, int], CachedJob] = {}
        self._set: set[tuple[str, int]] = set()

    def read(self, path: str, data: bytes) -> None:
        """Take in one bucket's rows; ValueError when it is not one."""
        _taken_in(self._rows, bucket_rows(path, data))

    def files(self, paths: Iterable[str]) -> dict[str, bytes]:
        """These buckets, each from its rows' lines and its jobs that were set."""
        return _buckets(self._rows.keys() | self._jobs.keys(), self._line, paths)

    def _line(self, key: tuple[str, int]) -> str:
        """A job's row: as the tip has it, unless the job was set."""
        if key in self._set or key not in self._rows:
            return json.dumps(_job_row(self._jobs[key]))
        return self._rows[key][0]

    def __getitem__(self, key: tuple[str, int]) -> CachedJob:
        if key not in self._jobs:
            try:
                self._jobs[key] = _job_from_row(self._rows[key][1])
            except (TypeError, AttributeError, IndexError) as exc:
                raise ValueError(str(exc)) from None
        return self._jobs[key]

    def __setitem__(self, key: tuple[str, int], job: CachedJob) -> None:
        self._jobs[key] = job
        self._set.add(key)

    def __delitem__(self, key: tuple[str, int]) -> None:
        found = key in self._rows or key in self._jobs
        self._rows.pop(key, None)
        self._jobs.pop(key, None)
        self._set.discard(key)
        if not found:
            raise KeyError(key)

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(sorted(self._rows.keys() | self._jobs.keys()))

    def __len__(self) -> int:
        return len(self._rows.keys() | self._jobs.keys())


def totals_file(authors: Mapping[str, Totals]) -> bytes:
    """A repository's running totals, one author a line (`[login, ...Totals.row()]`)."""
    return "".join(json.dumps([a, *authors[a].row()]) + "\n" for a in sorted(authors)).encode()


def read_totals(data: bytes) -> dict[str, Totals]:
    """The inverse of `totals_file`; ValueError when it is not one."""
    authors: dict[str, Totals] = {}
    try:
        for line in data.decode().split("\n")[:-1]:
            login, *row = json.loads(line)
            authors[str(login)] = Totals.from_row(row)
    except (TypeError, AttributeError) as exc:
        raise ValueError(str(exc)) from None
    if totals_file(authors) != data:
        raise ValueError("a totals file must be sorted, one author a line")
    return authors


def renewed_head(
    head: dict[str, Any],
    root: Mapping[str, Entry],
    state: Mapping[str, Entry],
    buckets: Mapping[str, str],
    repos: list[str],
) -> bytes:
    """The head after an incremental append: what `cache_head` gives for the grown ledger, from
    the new entries of the root and of `.rubricate/`, and the buckets (path → blob id)."""
    renewed = {k: v for k, v in head.items() if k != "digest"}
    renewed["shards"] = ledger_id(root)
    renewed["buckets"] = dict(sorted(buckets.items()))
    renewed["repos"] = repos
    renewed["derived"] = derived_state(root, state)
    renewed["digest"] = _digest(renewed)
    return (json.dumps(renewed, indent=1, sort_keys=True) + "\n").encode()


def ledger_id(root: Mapping[str, Entry]) -> str:
    """The tree id of `ledger/` among the root's entries ("" when there is none)."""
    return root.get(LEDGER_DIR.rstrip("/"), ("", ""))[1]


def derived_state(root: Mapping[str, Entry], state: Mapping[str, Entry]) -> str:
    """A digest of every derived file but the head, from the root's entries (reputation.json,
    `jobs/`, `badges/`) and those of `.rubricate/`."""
    lines = [
        f"{name}\0{mode}\0{oid}\n"
        for name, (mode, oid) in sorted(root.items())
        if name == REPUTATION_PATH or (name != STATE_DIR and is_derived(name + "/"))
    ]
    lines += [
        f"{STATE_DIR}/{name}\0{mode}\0{oid}\n"
        for name, (mode, oid) in sorted(state.items())
        if f"{STATE_DIR}/{name}" != CACHE_PATH
    ]
    return hashlib.sha256("".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def buckets_id(buckets: Mapping[str, str]) -> str:
    """The tree id of `.rubricate/facts/` holding these buckets (path → blob id)."""
    return tree_id({p[len(BUCKET_DIR) :]: (FILE_MODE, i) for p, i in buckets.items()})


def derived_entries(tree: Mapping[str, str]) -> dict[str, str]:
    """The derived files of a tree (path → blob id), the cache head left out."""
    return {p: i for p, i in tree.items() if is_derived(p) and p != CACHE_PATH}


def cache_head(cache: FoldCache, derived: Mapping[str, str]) -> bytes:
    """The head, given every other derived file's blob id after this write."""
    trees = directories({p: i for p, i in derived.items() if p != CACHE_PATH})
    head: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "fold": FOLD_VERSION,
        "config": cache.config.model_dump(mode="json"),
        "layout": LAYOUT_VERSION,
        "shards": cache.shards_id or ledger_id(directories(cache.shards)[""]),
        "buckets": {p: i for p, i in sorted(derived.items()) if p.startswith(BUCKET_DIR)},
        "repos": list(cache.repos),
        "corrupt": [_problem(p) for p in cache.corrupt],
        "duplicates": [_problem(p) for p in cache.duplicates],
        "misplaced": [_problem(p) for p in cache.misplaced],
        "derived": derived_state(trees[""], trees.get(STATE_DIR, {})),
    }
    if cache.key_id is not None:
        head["key"] = cache.key_id
    head["digest"] = _digest(head)
    return (json.dumps(head, indent=1, sort_keys=True) + "\n").encode()


def read_head(data: bytes) -> dict[str, Any] | None:
    """The parsed head; None when it is unreadable, of another format or fold, or altered."""
    try:
        head = json.loads(data)
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("format") != CACHE_FORMAT:
        return None
    if head.get("fold") != FOLD_VERSION or head.get("digest") != _digest(head):
        return None
    return head


def head_config(head: dict[str, Any] | None) -> ReputationConfig | None:
    """The reputation config a (verified) head records, if it holds a valid one."""
    try:
        return None if head is None else ReputationConfig.model_validate(head["config"])
    except (KeyError, ValueError):  # (a refused config: pydantic's ValidationError)
        return None


def load_cache(head: dict[str, Any], buckets: Mapping[str, bytes]) -> FoldCache | None:
    """The cache from its head and every bucket; None when anything does not fit together."""
    try:
        jobs: dict[tuple[str, int], CachedJob] = {}
        for path, data in buckets.items():
            _taken_in(jobs, bucket_jobs(path, data))
        cache = FoldCache(
            config=ReputationConfig.model_validate(head["config"]),
            shards_id=str(head["shards"]),
            corrupt=_problems(head["corrupt"]),
            duplicates=_problems(head["duplicates"]),
            misplaced=_problems(head["misplaced"]),
            jobs=jobs,
            key_id=head.get("key"),
        )
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None
    return cache if list(cache.repos) == head["repos"] else None


def _digest(head: Mapping[str, Any]) -> str:
    body = {k: v for k, v in head.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _job_row(cached: CachedJob) -> list[Any]:
    f = cached.facts
    return [
        f.repo,
        f.pr,
        f.author,
        f.state,
        rfc3339(f.opened_at),
        rfc3339(f.closed_at),
        rfc3339(f.deadline),
        f.disputed,
        [list(r) for r in f.ratings],
        f.rubric_quality,
        f.events,
        cached.file_id,
        rfc3339(f.last_at),
    ]


def _job_from_row(row: list[Any]) -> CachedJob:
    (repo, pr, author, state, opened, closed, deadline, disputed, ratings, quality, *rest) = row
    events, file_id, last = rest
    if state not in _STATES:
        raise ValueError("bad job row")
    facts = JobFacts(
        str(repo),
        int(pr),
        str(author),
        state,
        read_time(opened),
        None if closed is None else read_time(closed),
        read_time(last),
        None if deadline is None else read_time(deadline),
        bool(disputed),
        () if ratings == [] else tuple([(str(role), int(rating)) for role, rating in ratings]),
        None if quality is None else float(quality),
        int(events),
    )
    return CachedJob(facts, str(file_id))


def _problem(problem: LedgerProblem) -> list[Any]:
    return [problem.file, problem.line, problem.message]


def _problems(rows: list[list[Any]]) -> tuple[LedgerProblem, ...]:
    return tuple(LedgerProblem(str(f), int(n), str(m)) for f, n, m in rows)


def id_bucket(event_id: str) -> str:
    """The index file that holds this id."""
    digits = hashlib.sha256(event_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{ID_DIR}{digits[0]}/{digits[1:3]}.jsonl"


def id_files(ids: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """Every index file for these ids, in path order, each made as it is given (its ids are
    then let go)."""
    buckets: dict[str, set[str]] = {}
    for event_id in ids:
        buckets.setdefault(id_bucket(event_id), set()).add(event_id)
    for path in sorted(buckets):
        yield path, encode_ids(buckets.pop(path))


def known_ids(files: Mapping[str, bytes], paths: Iterable[str]) -> dict[str, set[str]] | None:
    """The ids in each of these index files (empty when absent); None when one is unreadable."""
    try:
        return {p: read_ids(files[p]) if p in files else set() for p in paths}
    except (ValueError, UnicodeDecodeError):
        return None


def read_ids(data: bytes) -> set[str]:
    """The ids of one index file; ValueError when it is not one."""
    ids = set()
    for line in data.decode().split("\n")[:-1]:
        value = json.loads(line)
        if not isinstance(value, str):
            raise ValueError("an id index line must be a JSON string")
        ids.add(value)
    if encode_ids(ids) != data:
        raise ValueError("an id index file must be sorted, one id a line")
    return ids


def encode_ids(ids: Iterable[str]) -> bytes:
    """One index file holding these ids."""
    return "".join(json.dumps(i) + "\n" for i in sorted(ids)).encode()
