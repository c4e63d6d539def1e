"""A reader's view of the data branch through its fold cache (pure: reads through a `Tip`).

`fold_snapshot` gives, when the tip's fold cache verifies (see `rubricate.ledger.cache`), every
job's facts and job-file id without parsing a ledger line, and reads the events of chosen jobs
from their job files. A reader that keeps what it built from each job (the report) uses the ids
to find the jobs that changed since.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from rubricate.errors import LedgerError
from rubricate.ledger.cache import FoldCache, load_cache, read_head
from rubricate.ledger.event import Event
from rubricate.ledger.paths import BUCKET_DIR, CACHE_PATH, Layout
from rubricate.ledger.plan import Reader, head_matches, verified_job
from rubricate.ledger.refold import Fetch
from rubricate.ledger.treeids import TREE_MODE, listing_of
from rubricate.ledger.trust import key_id, trusted

JobKey = tuple[str, int]


@dataclass(frozen=True)
class FoldSnapshot:
    """The fold cache of one tip, and a reader of that tip's files."""

    cache: FoldCache
    read: Reader
    key: bytes | None = None

    def job_events(self, keys: Collection[JobKey]) -> dict[JobKey, list[Event]]:
        """The trusted events of these jobs, in fold order, from their job files; LedgerError
        when a job file is not what the cache says it is."""
        layout = Layout(self.cache.repos)
        files = self.read(sorted({layout.job_path(*key) for key in keys}))
        found: dict[JobKey, list[Event]] = {}
        for key in keys:
            events = verified_job(self.cache.jobs, layout, files, key)
            if events is None or len(trusted(events, self.key)) != len(events):
                raise LedgerError(f"{layout.job_path(*key)}: not the job file the fold cache names")
            found[key] = events
        return found


def fold_snapshot(
    tree: Mapping[str, str],
    read: Reader,
    key: bytes | None = None,
    fetch: Fetch = lambda paths: None,
    along: Sequence[str] = (),
) -> FoldSnapshot | None:
    """The snapshot of a tip (its files as path → blob id, read through `read`); None when it
    has no fold cache that verifies, or one built with another ledger key. The cache's head and
    every bucket the tree lists are brought by one `fetch` before any is read, with the files
    of the tree the caller reads next (`along`)."""
    if CACHE_PATH not in tree:
        return None
    buckets = listing_of(tree)(BUCKET_DIR.rstrip("/"))
    fetch(
        [CACHE_PATH, *along, *(BUCKET_DIR + n for n, (m, _) in buckets.items() if m != TREE_MODE)]
    )
    head = read_head(read([CACHE_PATH])[CACHE_PATH])
    if head is None or head.get("key") != key_id(key) or not head_matches(head, tree):
        return None
    cache = load_cache(head, read(sorted(head["buckets"])))
    return None if cache is None else FoldSnapshot(cache, read, key)
