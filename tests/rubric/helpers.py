"""Shared helpers for the rubric tests."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from rubricate.errors import Diagnostic, SourceError
from rubricate.rubric.loader import LoadedFile, load_rubrics
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import check

DATA = Path(__file__).resolve().parent / "data"
REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"


def read_local(path: str) -> str:
    """Read a file the way the command line's reader does (the test decides which files)."""
    return Path(path).read_text(encoding="utf-8")


def checked(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> dict[str, ScoreValue]:
    """Each score through `scoring.check`, as the command line and the bot check theirs."""
    return {cid: check(rubric, cid, value) for cid, value in scores.items()}


def load(text: str, source: str = "r.yml") -> LoadedFile:
    """Load dedented YAML text."""
    return load_rubrics(textwrap.dedent(text), source)


def load_data(name: str) -> LoadedFile:
    """Load a fixture file from tests/rubric/data."""
    return load_rubrics((DATA / name).read_text(encoding="utf-8"), f"data/{name}")


def errors_of(text: str, source: str = "r.yml") -> list[Diagnostic]:
    """The error diagnostics of invalid dedented YAML text."""
    with pytest.raises(SourceError) as caught:
        load(text, source)
    return [d for d in caught.value.diagnostics if d.severity == "error"]


def only_error(text: str) -> Diagnostic:
    """The one error of invalid text."""
    found = errors_of(text)
    assert len(found) == 1, [str(d) for d in found]
    return found[0]
