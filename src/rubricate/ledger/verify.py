"""Check a data branch's files (schema, ids, shard placement, derived files), and the text and
JSON views of events, jobs and reputation for the CLI (pure: data to text)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from rubricate.errors import RubricateError
from rubricate.ledger.cache import head_config, read_head
from rubricate.ledger.codec import ParsedLedger
from rubricate.ledger.derive import job_file
from rubricate.ledger.derive import recorded_config as reputation_config
from rubricate.ledger.event import Event, rfc3339, same_login
from rubricate.ledger.fold import event_order, fold_job
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH, git_blob_id, is_derived
from rubricate.ledger.refold import Fetch, refold
from rubricate.ledger.reputation import COMPONENTS
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.trust import refusal
from rubricate.suggest import did_you_mean


@dataclass(frozen=True)
class VerifyReport:
    """What `ledger verify` found; clean when there are no problems."""

    parsed: ParsedLedger
    """The ledger's shards and located problems; its events are not kept (`events` counts them)."""
    stale: tuple[str, ...]
    config: ReputationConfig
    expected: Mapping[str, bytes]
    """`reputation.json` as the full fold gives it (the other derived files are compared by
    blob id and let go)."""
    events: int
    """How many valid events the ledger holds."""
    derived: Mapping[str, str] = field(default_factory=dict)
    """Every derived file's blob id, as the full fold gives it."""
    removed: tuple[str, ...] = ()
    """The derived paths of the tree that the fold does not give (a fix deletes them)."""

    @property
    def problems(self) -> list[str]:
        """Every problem as one line of text."""
        lines = corrupt_lines(self.parsed)
        lines += [f"{p}" for p in self.parsed.duplicates]
        lines += [f"{p}" for p in self.parsed.misplaced]
        lines += self.stale
        return lines

    @property
    def fixable(self) -> bool:
        """True when some derived file differs from a full recompute (`verify --fix` rebuilds)."""
        return bool(self.stale)

    @property
    def clean(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems


def corrupt_lines(parsed: ParsedLedger) -> list[str]:
    """One line per line the fold skips: not an event, or refused (a forged id; with a ledger
    key, a missing or bad signature). Every reader says these, never silently."""
    return [f"{p}: corrupt line (kept aside, skipped by the fold)" for p in parsed.corrupt]


def recorded_config(files: Mapping[str, bytes]) -> ReputationConfig | None:
    """The reputation config the derived files were built with, when they say."""
    recorded = head_config(read_head(files[CACHE_PATH])) if CACHE_PATH in files else None
    if recorded is None and REPUTATION_PATH in files:
        recorded = reputation_config(files[REPUTATION_PATH])
    return recorded


def verify_files(
    files: Mapping[str, bytes], config: ReputationConfig | None = None, key: bytes | None = None
) -> VerifyReport:
    """Parse the ledger (checking ids, and signatures with a `key`) and compare every derived
    file with a full recompute."""
    tree = {p: git_blob_id(d) for p, d in files.items()}
    return verify_tree(tree, lambda paths: {p: files[p] for p in paths}, config, key)


class Fixer(Protocol):
    """Where a fix writes the derived files that differ from the tree's, as the fold gives them."""

    def put(self, path: str, data: bytes) -> None:
        """Write one derived file."""

    def reset(self) -> None:
        """Forget the files written so far: the fold starts over (they come again)."""


def verify_tree(
    tree: Mapping[str, str],
    read: Callable[[Sequence[str]], Mapping[str, bytes]],
    config: ReputationConfig | None = None,
    key: bytes | None = None,
    fix: Fixer | None = None,
    fetch: Fetch = lambda paths: None,
) -> VerifyReport:
    """`verify_files` over a tree (path → git blob id) whose files `read` gives: the ledger is
    folded job by job, reading one shard at a time (`rubricate.ledger.refold`), and each derived
    file is compared by blob id as it is produced, so that memory holds one shard and the
    fold's compact state, not the ledger. With `fix`, each derived file whose id differs from the
    tree's is handed to it as it is produced (the report's `removed` are the files to delete).
    `fetch` is given every shard before the first is read (see `rubricate.ledger.refold`)."""
    recorded = read([p for p in (CACHE_PATH, REPUTATION_PATH) if p in tree])
    used = config or recorded_config(recorded) or ReputationConfig()
    kept: dict[str, bytes] = {}

    def emit(path: str, blob_id: str, data: bytes) -> None:
        if path == REPUTATION_PATH:
            kept[path] = data
        if fix is not None and tree.get(path) != blob_id:
            fix.put(path, data)

    restart = fix.reset if fix is not None else lambda: None
    fold = refold(tree, read, used, key, emit, restart, fetch)
    expected = fold.derived
    stale = [f"{p}: missing" for p in sorted(expected) if p not in tree]
    stale += [f"{p}: out of date" for p in sorted(expected) if p in tree and tree[p] != expected[p]]
    removed = tuple(p for p in sorted(tree) if is_derived(p) and p not in expected)
    stale += [f"{p}: not derived from the ledger" for p in removed]
    return VerifyReport(fold.ledger, tuple(stale), used, kept, fold.events, expected, removed)


def written_problems(
    before: Mapping[str, str], report: VerifyReport, written: Mapping[str, str]
) -> list[str]:
    """How a tree written by a fix of `before` differs from what its fold expects: `before`'s
    files that are not derived, unchanged, and exactly the derived files of `report`, by id."""
    expected = {p: i for p, i in before.items() if not is_derived(p)}
    expected.update(report.derived)
    found = dict(written)
    paths = sorted(p for p in expected.keys() | found.keys() if expected.get(p) != found.get(p))
    return [
        f"{p}: written {found.get(p, 'nothing')}, expected {expected.get(p, 'nothing')}"
        for p in paths
    ]


@dataclass(frozen=True)
class ForeignCommit:
    """A data-branch commit that the bot's identity did not make, and what it added."""

    sha: str
    author: str
    committer: str
    subject: str
    added: tuple[str, ...]
    verified: tuple[bool, str] | None = None
    """What GitHub's API says of its signature, when it was asked: (verified, reason)."""

    def lines(self) -> list[str]:
        """The commit, then one line per event line it added."""
        who = self.author if self.author == self.committer else f"{self.author}, committed by "
        who += "" if self.author == self.committer else self.committer
        head = f"{self.sha[:12]} by {who}: {self.subject[:80]!r}"
        if self.verified is not None:
            head += f" (GitHub: {'' if self.verified[0] else 'not '}verified, {self.verified[1]})"
        return [head, *(f"  + {line}" for line in self.added)]


History: TypeAlias = Iterable[tuple[str, str, str, str, list[tuple[str, str]], bool]]
"""A branch's commits (`rubricate.gitio.history.HistoryCommit`): sha, author, committer,
subject, the (path, line) pairs each added, and whether it belongs to the branch's own history
(descends from the root of the chain of first parents from the tip)."""


def foreign_commits(history: History, bot: str, key: bytes | None = None) -> list[ForeignCommit]:
    """The commits whose author or committer is not `bot`, each with the events it added.

    An identity is a claim anyone can write into a commit: this finds hand edits, not forgeries
    made in the bot's name (a ledger key makes those unusable)."""
    found = []
    for sha, author, committer, subject, added, _ in history:
        if author != bot or committer != bot:
            events = tuple(_added_event(line, key) for _, line in added if line.strip())
            found.append(ForeignCommit(sha, author, committer, subject, events))
    return found


def bot_written(history: History, bot: str) -> Counter[tuple[str, str]]:
    """How many times each line (exact text) was added to each file by commits that `bot` made
    in the branch's own history: by the history's word, the bot's own lines, occurrence by
    occurrence.

    A copy of such a line (in another file, or one more time in the same one) is not the bot's,
    and never makes the bot's own occurrence any less its own: were it so, copying a line the
    bot wrote (a revision request that withdraws an approval) would take it from every keyed
    reader after `ledger resign`, as a deletion would, without deleting anything. A bot commit
    of the branch's own history stays the bot's whichever parent of a merge reaches it (a merge
    adds only what no parent of that history held); one of an unrelated history merged in is
    not: what it brought is the merge's (`rubricate.gitio.history`)."""
    mine: Counter[tuple[str, str]] = Counter()
    for _, author, committer, _, added, own in history:
        if own and (author, committer) == (bot, bot):
            mine.update(added)
    return mine


def _added_event(line: str, key: bytes | None) -> str:
    try:
        event = Event.model_validate(json.loads(line))
    except (ValueError, RecursionError) as exc:  # pydantic's ValidationError is a ValueError
        return f"not an event: {str(exc).splitlines()[0][:120]}"
    why = refusal(event, key)
    what = f"{event.kind} {event.repo}#{event.pr} v{event.version} by {event.actor}"
    return f"{what} (id {event.id[:12]})" + (f": {why}" if why else "")


def json_differences(old: Any, new: Any, where: str = "") -> list[str]:
    """Paths where two JSON values differ: `repos.o/r.authors.a.reputation: 0.5 → 0.6`."""
    if isinstance(old, dict) and isinstance(new, dict):
        found: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{where}.{key}" if where else str(key)
            found += json_differences(old.get(key), new.get(key), path)
        return found
    if old != new:
        return [f"{where or '(top)'}: {json.dumps(old)} → {json.dumps(new)}"]
    return []


EVENT_COLUMNS = ("at", "pr", "v", "kind", "actor", "source", "verdict", "total")


def event_rows(events: Iterable[Event]) -> str:
    """One line per event, in fold order."""
    rows = [EVENT_COLUMNS]
    for e in sorted(events, key=lambda e: (e.repo, e.pr, *event_order(e))):
        total = "" if e.weighted_total is None else f"{e.weighted_total:g}"
        rating = f"rating {e.rating}" if e.rating else ""
        rows.append(
            (
                rfc3339(e.at) or "",
                str(e.pr),
                str(e.version),
                e.kind,
                e.actor,
                e.source or "",
                e.verdict or e.gate or rating,
                total,
            )
        )
    return table(rows)


def select_job(events: Sequence[Event], pr: int, repo: str | None) -> dict[str, Any]:
    """The job view of one pull request (as `jobs/<pr>.json` holds it)."""
    mine = [e for e in events if e.pr == pr and (repo is None or e.repo == repo)]
    repos = sorted({e.repo for e in mine})
    if not mine:
        where = f" in {repo}" if repo is not None else ""
        raise RubricateError(f"no events for pull request #{pr}{where}")
    if len(repos) > 1:
        raise RubricateError(f"#{pr} exists in {', '.join(repos)}: choose one with --repo")
    body: dict[str, Any] = json.loads(job_file(fold_job(mine)))
    return body


def job_text(job: dict[str, Any]) -> str:
    """A readable account of one job."""
    lines = [
        f"{job['repo']}#{job['pr']} by {job['author']}: {job['state']}"
        + (f" (gate {job['gate']})" if job.get("gate") else ""),
        f"  FIRST_SUBMISSION: {_moment(job['first_submission'])}",
        f"  FINAL_APPROVAL:   {_moment(job['final_approval'])}",
        f"  rubric_quality:   {_number(job['rubric_quality'])}",
        "",
    ]
    events = [Event.model_validate(raw) for raw in job["events"]]
    return "\n".join(lines) + event_rows(events)


SORTS = ("ranked", "reputation", "author")
"""The orders of the reputation table: `ranked` (the default) or `reputation` high to low, or
by repository and author."""


def reputation_text(
    document: dict[str, Any], author: str | None = None, sort: str = "ranked"
) -> str:
    """The per-author table of `reputation.json` (one author with `author`), sorted by `sort`."""
    header = ("repo", "author", "ranked", "reputation", "completed", "coverage", *COMPONENTS)
    found: list[tuple[str, str, dict[str, Any]]] = []
    for repo, entry in sorted(document.get("repos", {}).items()):
        for login, data in sorted(entry["authors"].items()):
            if author is None or same_login(login, author):
                found.append((repo, login, data))
    if sort != "author":
        found.sort(key=lambda row: _descending(row[2].get(sort)))
    rows = [header, *(_author_row(repo, login, data) for repo, login, data in found)]
    ledger = document.get("ledger", {})
    footer = (
        f"generated at {document.get('generated_at')} from {ledger.get('events', 0)} events, "
        f"{ledger.get('corrupt_lines', 0)} corrupt line(s) skipped; "
        "* provisional (few completed jobs); [low-high] the 95% interval"
    )
    return table(rows) + "\n" + footer


def _descending(value: Any) -> tuple[bool, float]:
    """A sort key: numbers high to low, then missing values (the sort is stable)."""
    return (not isinstance(value, (int, float)), -value if isinstance(value, (int, float)) else 0)


def check_author(document: dict[str, Any], author: str) -> None:
    """Raise a clear error when `reputation.json` has no entry for this author."""
    logins = sorted({login for e in document.get("repos", {}).values() for login in e["authors"]})
    if any(same_login(login, author) for login in logins):
        return
    known = f"authors: {', '.join(logins)}" if logins else "it has no authors yet"
    raise RubricateError(
        f"no author {author!r} in reputation.json{did_you_mean(author, logins)}; {known}"
    )


def only_author(document: dict[str, Any], author: str | None) -> dict[str, Any]:
    """`reputation.json` with only this author's entries (all of it without one)."""
    if author is None:
        return document
    repos = {}
    for repo, entry in document.get("repos", {}).items():
        kept = {k: v for k, v in entry["authors"].items() if same_login(k, author)}
        if kept:
            repos[repo] = {**entry, "authors": kept}
    return {**document, "repos": repos}


def table(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns separated by two spaces."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def _author_row(repo: str, login: str, data: dict[str, Any]) -> tuple[str, ...]:
    completed = str(data["jobs"]["completed"]) + ("*" if data.get("provisional") else "")
    parts = [repo, login, _number(data.get("ranked")), _number(data["reputation"]), completed]
    parts.append(_number(data["coverage"]))
    for name in COMPONENTS:
        component = data["components"][name]
        interval = component.get("interval")
        bounds = f" [{interval[0]:.2f}-{interval[1]:.2f}]" if interval else ""
        parts.append(f"{_number(component['value'])} (n={component['n']}){bounds}")
    return tuple(parts)


def _moment(moment: dict[str, Any] | None) -> str:
    if moment is None:
        return "none"
    scores = ", ".join(f"{k}={v}" for k, v in moment["scores"].items())
    state = "complete" if moment["complete"] else "incomplete"
    return f"{state}, normalized {_number(moment['normalized'])} [{scores}]"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
