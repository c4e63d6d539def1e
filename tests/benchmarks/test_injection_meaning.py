"""The meaning trial's word pieces and span rows (`benchmarks/injection_meaning.py`)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
PIECES = ["[UNK]", "ignore", "ig", "##nore", "##s", "un", "##believ", "##able", "a", "über", "中"]
INDEX = {p: i for i, p in enumerate(PIECES)}


@pytest.fixture
def meaning(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """`injection_meaning`, imported as the benchmarks import each other."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("injection_meaning")


def test_a_word_is_cut_greedily_longest_match_first(meaning: ModuleType) -> None:
    assert meaning.word_pieces("ignore", INDEX, 0) == [1]
    assert meaning.word_pieces("ignores", INDEX, 0) == [1, 4]
    assert meaning.word_pieces("unbelievable", INDEX, 0) == [5, 6, 7]


def test_a_word_with_an_unmatched_part_is_one_unknown_piece(meaning: ModuleType) -> None:
    assert meaning.word_pieces("unbelievx", INDEX, 0) == [0]
    assert meaning.word_pieces("a" * 101, {"a": 1, "##a": 2}, 0) == [0]
    assert meaning.word_pieces("a" * 100, {"a": 1, "##a": 2}, 0) == [1] + [2] * 99


def test_accents_are_stripped_and_symbols_cut_as_the_uncased_tokenizer_does(
    meaning: ModuleType,
) -> None:
    assert meaning.strip_accents("überprüfe") == "uberprufe"
    assert meaning.split_symbols("a中b") == ["a", "中", "b"]
    assert meaning.split_symbols("don't stop") == ["don", "'", "t", "stop"]
    assert meaning.word_pieces("中a", INDEX, 0) == [10, 8]


def test_a_spans_row_is_the_mean_of_its_pieces_vectors_markers_left_out(
    meaning: ModuleType, tmp_path: Path
) -> None:
    vectors = np.zeros((len(PIECES), 2))
    vectors[INDEX["ignore"]] = [3.0, 0.0]
    vectors[INDEX["##s"]] = [0.0, 3.0]
    vectors[INDEX["a"]] = [0.0, 6.0]
    path = tmp_path / "v.npz"
    info = np.array(json.dumps({"model": "test"}))
    np.savez(path, pieces=np.array(PIECES), vectors=vectors, unknown=np.array(0), info=info)
    loaded = meaning.Vectors.load(path)
    tokenized = [[["ignores", "a", "#base64", "^ignores"], []], [["zzz"]]]
    rows, scale = loaded.rows(tokenized)
    assert rows.shape == (2, 2)  # the empty span has no row
    assert rows * scale == pytest.approx(np.array([[1.0, 3.0], [0.0, 0.0]]))
    weights = np.array([1.0, -1.0])
    folded = loaded.fold(weights, scale)
    assert folded[INDEX["ignore"]] == pytest.approx(3.0 / scale[0])
    assert rows @ weights == pytest.approx([folded[[1, 4, 8]].mean(), folded[0]])


def test_the_hidden_layer_learns_what_no_linear_model_of_the_rows_can(meaning: ModuleType) -> None:
    rows = np.random.default_rng(0).normal(size=(1000, 4))
    labels = (rows[:, 0] * rows[:, 1] > 0).astype(float)  # no line separates these
    sample = np.ones(1000)
    sample[::2] = 0.0  # spans with no sample weight are not fitted on, but still scored
    margins = meaning.layer_margins(rows, labels, sample, steps=300)
    assert margins.shape == (1000,)
    assert np.mean((margins > 0) == (labels > 0)) > 0.9
