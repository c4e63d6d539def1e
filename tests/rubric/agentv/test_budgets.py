"""AgentV references within budgets: `include:` fan-out and the size of case files."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from rubricate.errors import SourceError
from rubricate.rubric.agentv.includes import MAX_INCLUDED_ENTRIES
from rubricate.rubric.agentv.refs import MAX_REFERENCED_BYTES
from rubricate.rubric.loader import load_rubrics
from rubricate.yamlsource import MAX_SOURCE_BYTES


def _reader(files: dict[str, str]) -> Callable[[str], str]:
    def read(path: str) -> str:
        if path not in files:
            raise FileNotFoundError(path)
        return files[path]

    return read


def _fan_out(width: int) -> dict[str, str]:
    """Three template levels of `width` entries each: width**3 criteria per list."""
    files = {}
    for name, child in (("a", "b"), ("b", "c")):
        files[f".agentv/templates/{name}.yaml"] = "assert:\n" + f"  - include: {child}\n" * width
    strings = "".join(f"  - Criterion number {n} holds\n" for n in range(width))
    files[".agentv/templates/c.yaml"] = "assert:\n" + strings
    return files


def test_an_include_fan_out_over_the_budget_is_refused_once() -> None:
    files = _fan_out(40)  # 64,000 entries from a few KB of templates
    text = "tests:\n" + "".join(
        f"  - id: t{n}\n    assert:\n      - include: a\n" for n in range(3)
    )
    with pytest.raises(SourceError) as caught:
        load_rubrics(text, "e.yaml", _reader(files))
    messages = [d.message for d in caught.value.diagnostics if d.severity == "error"]
    assert len(messages) == 1
    assert f"more than {MAX_INCLUDED_ENTRIES} assertion entries" in messages[0]


def test_an_include_fan_out_within_the_budget_loads() -> None:
    files = _fan_out(5)
    text = "tests:\n  - id: t\n    assert:\n      - include: a\n"
    (rubric,) = load_rubrics(text, "e.yaml", _reader(files)).rubrics
    assert len(rubric.criteria) == 125


def _rows(count: int, width: int = 200) -> str:
    row = {"id": "x", "criteria": "The answer is right " + "x" * width}
    return "".join(json.dumps({**row, "id": f"c{n}"}) + "\n" for n in range(count))


def test_a_jsonl_case_file_over_the_source_limit_is_refused_before_parsing() -> None:
    big = _rows(MAX_SOURCE_BYTES // 200)
    files = {"cases.jsonl": big}
    with pytest.raises(SourceError, match=r"cases\.jsonl is too large: .* over the 1048576-byte"):
        load_rubrics("tests: file://cases.jsonl\n", "e.yaml", _reader(files))


def test_case_files_over_the_total_budget_are_refused() -> None:
    part = _rows(MAX_SOURCE_BYTES // 25_000, width=20_000)
    count = MAX_REFERENCED_BYTES // len(part) + 1
    files = {f"c{n}.jsonl": part for n in range(count)}
    text = "tests:\n" + "".join(f"  - file://c{n}.jsonl\n" for n in range(count))
    with pytest.raises(SourceError, match="exceed 4194304 bytes in all"):
        load_rubrics(text, "e.yaml", _reader(files))
