"""The written requests trial source (`benchmarks/injection_requests.py`)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
OVERRIDE = re.compile(r"\b(?:ignore|disregard|override|forget|new instructions?)\b", re.I)


def test_requests_carry_no_override_wording_and_repeat_no_other_written_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    names = ("injection_requests", "injection_tasks", "injection_written")
    requests, tasks, written = map(importlib.import_module, names)
    assert len(requests.REQUESTS) == len(set(requests.REQUESTS)) > 0
    assert not [r for r in requests.REQUESTS if OVERRIDE.search(r)]
    earlier = " ".join((*tasks.TASK_INJECTIONS, *written.TRAIN_INJECTIONS)).lower()
    parts = {p for r in requests.REQUESTS for p in re.split(r"(?<=[:,?]) ", r)}
    assert not [p for p in parts if p.lower() in earlier]
    assert not set(requests.REQUESTS_BENIGN) & set(requests.REQUESTS)
