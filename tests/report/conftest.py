"""The report tests' shared ledger."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.report.sample import sample_events, write_ledger

NOW = datetime(2024, 7, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample ledger as a data directory, with one corrupt line."""
    root = tmp_path_factory.mktemp("ledger")
    return write_ledger(root, sample_events(), {"ledger/2024-04.jsonl": '{"kind": "rated"'})
