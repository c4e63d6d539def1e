"""A report of a ledger of canonical lines loads no pydantic: neither the events' model (lines
are read without it) nor the rubrics' and the config file's models, which it does not use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rubricate.ledger.backends import DirectoryStore
from tests.ledger.factory import event
from tests.report.sample import sample_events, write_ledger

REPORT = """
import json, sys
from rubricate.cli.main import main
code = main(["report", "--data", sys.argv[1], "--out", sys.argv[2], "--format", sys.argv[3]])
print(json.dumps({"code": code, "pydantic": sorted(m for m in sys.modules if "pydantic" in m)}))
"""


def _report(data: Path, out: Path, fmt: str) -> dict[str, object]:
    command = [sys.executable, "-c", REPORT, str(data), str(out), fmt]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    loaded: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("fmt", ["html", "markdown", "json"])
def test_a_report_cold_and_after_one_event_loads_no_pydantic(tmp_path: Path, fmt: str) -> None:
    data = write_ledger(tmp_path / "data", sample_events(30))
    with DirectoryStore(str(data)) as store:
        store.rebuild()
    out = tmp_path / "out"
    assert _report(data, out, fmt) == {"code": 0, "pydantic": []}  # every line read
    with DirectoryStore(str(data)) as store:
        store.append([event("rated", 3, 900, "one-more", rating=4, author="carol")])
    assert _report(data, out, fmt) == {"code": 0, "pydantic": []}  # the changed job read
