"""A report of a remote data branch after one new event fetches its blobs in two requests: the
fold cache's head, its buckets and reputation.json together, then the changed jobs' files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.paths import BUCKET_DIR, CACHE_PATH, REPUTATION_PATH
from tests.ledger.factory import event
from tests.ledger.gitutil import bare_remote, fetched_blobs
from tests.report.sample import sample_events


def test_a_report_after_one_event_fetches_in_two_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1719792000")
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(sample_events(40))
    source = ["report", "--remote", str(remote), "--format", "json", "--out", str(tmp_path / "o")]
    assert main(source) == 0
    with DataBranchStore(str(remote)) as store:
        store.append([event("rated", 7, 900, "one-more", rating=2, author="carol")])
        tip = store.backend.tip()
        first = {tip.tree[p] for p in tip.tree if p.startswith(BUCKET_DIR)}
        first |= {tip.tree[p] for p in (CACHE_PATH, REPUTATION_PATH)}
    requests = fetched_blobs(monkeypatch)
    assert main(source) == 0
    assert len(requests) == 2
    assert set(requests[0]) == first
