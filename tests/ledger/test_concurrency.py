"""16 real `rubricate ledger append` processes racing on one bare repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rubricate.ledger.codec import decode_shard, parse_ledger
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import assert_derived_match_recompute, bare_remote, branch_files

WRITERS = 16
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_racing_appends_land_every_event_exactly_once(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    shared = event("disputed", 1, 50, "shared-delivery", actor_role="maintain")
    expected_ids = {shared.id}
    for writer in range(WRITERS):
        own = completed_job(
            writer + 1, [3, 4, 3, 4, 3], [4, 4, 5, 4, 4], author=f"agent{writer % 3}"
        )
        batch = [*own, shared] if writer % 2 == 0 else own
        expected_ids.update(e.id for e in batch)
        (tmp_path / f"w{writer}.jsonl").write_text("".join(e.to_line() + "\n" for e in batch))
    command = [sys.executable, "-m", "rubricate", "ledger", "append", "--remote", str(remote)]
    processes = [
        subprocess.Popen(
            [*command, str(tmp_path / f"w{n}.jsonl")],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert [p.returncode for p in processes] == [0] * WRITERS, outputs
    added = [int(re.search(r"added (\d+)", out).group(1)) for out, _ in outputs]  # type: ignore[union-attr]
    assert sum(added) == len(expected_ids)

    files = branch_files(remote)
    parsed = parse_ledger({p: decode_shard(d) for p, d in files.items() if p.startswith("ledger/")})
    ids = [e.id for e in parsed.events]
    assert sorted(ids) == sorted(expected_ids)
    assert parsed.duplicates == ()
    assert parsed.corrupt == ()
    lines = sum(d.count(b"\n") for p, d in files.items() if p.startswith("ledger/"))
    assert lines == len(expected_ids)
    assert_derived_match_recompute(files)
