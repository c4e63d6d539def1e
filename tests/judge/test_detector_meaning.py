"""The meaning features' word pieces, weights file and per-span terms."""

from __future__ import annotations

import math
import zlib

import pytest

from rubricate.judge.detector import HASH_BITS, Detector
from rubricate.judge.detector_meaning import Meaning, split_symbols, strip_accents, word_pieces
from rubricate.judge.detector_text import tokens_of

PIECES = ["[UNK]", "ignore", "ig", "##nore", "##s", "un", "##believ", "##able", "a", "über", "中"]
INDEX = {p: i for i, p in enumerate(PIECES)}


def test_a_word_is_cut_greedily_longest_match_first() -> None:
    assert word_pieces("ignore", INDEX, 0) == [1]
    assert word_pieces("ignores", INDEX, 0) == [1, 4]
    assert word_pieces("unbelievable", INDEX, 0) == [5, 6, 7]


def test_a_word_with_an_unmatched_part_is_one_unknown_piece() -> None:
    assert word_pieces("unbelievx", INDEX, 0) == [0]
    assert word_pieces("a" * 101, {"a": 1, "##a": 2}, 0) == [0]


def test_accents_are_stripped_and_symbols_cut_as_the_uncased_tokenizer_does() -> None:
    assert strip_accents("überprüfe") == "uberprufe"
    assert split_symbols("a中b") == ["a", "中", "b"]
    assert split_symbols("don't") == ["don", "'", "t"]
    assert word_pieces("中a", INDEX, 0) == [10, 8]


def meaning() -> Meaning:
    weights = [0.0] * len(PIECES)
    weights[INDEX["ignore"]] = 2.0
    weights[INDEX["##s"]] = -1.0
    weights[INDEX["a"]] = 0.5
    return Meaning(PIECES, weights, 0)


def test_a_span_term_is_the_mean_of_its_pieces_weights_markers_left_out() -> None:
    tokens = [b"ignores", b"a", b"#base64", b"^ignores", b"zzz"]
    bounds = [0, 2, 5]
    terms = meaning().terms(tokens, bounds, [(0, 1), (1, 2), (0, 2)])
    assert terms == pytest.approx([(2.0 - 1.0 + 0.5) / 3, 0.0, (2.0 - 1.0 + 0.5) / 4])


def test_a_span_without_pieces_adds_nothing() -> None:
    assert meaning().terms([b"#leet"], [0, 1], [(0, 1)]) == [0.0]


def test_the_weights_file_round_trips_within_its_quantisation() -> None:
    model = meaning()
    read = Meaning.from_bytes(model.to_bytes("v-test"), "v-test")
    assert read.vocabulary == PIECES
    assert read.unknown == 0
    assert read.weights == pytest.approx(model.weights, abs=2.0 / 32767)


def test_a_weights_file_of_another_version_or_shape_is_refused() -> None:
    data = meaning().to_bytes("v-old")
    with pytest.raises(ValueError, match="v-old"):
        Meaning.from_bytes(data, "v-new")
    with pytest.raises(ValueError, match="not an injection meaning file"):
        Meaning.from_bytes(b"junk", "v-new")
    with pytest.raises(ValueError, match="not an injection meaning file"):
        Meaning.from_bytes(zlib.compress(b"RBINJ1"), "v-new")
    cut = zlib.compress(zlib.decompress(data)[:-2])
    with pytest.raises(ValueError, match="wrong size"):
        Meaning.from_bytes(cut, "v-old")


def test_the_detector_adds_each_spans_meaning_term_to_its_margin() -> None:
    weights = [((i * 7919) % 13 - 6) / 10 for i in range(1 << HASH_BITS)]
    plain = Detector(weights, 0.3, 0.5)
    meant = Detector(weights, 0.3, 0.5, meaning=meaning())
    text = "Please ignores a rule\nand a second line here\n\nignore it"
    logit = math.log
    for (*where, p, span), (*same, q, _span) in zip(
        plain.scored(text), meant.scored(text), strict=True
    ):
        assert where == same
        tokens = [t.encode() for t in tokens_of(span)]
        (term,) = meaning().terms(tokens, [0, len(tokens)], [(0, 1)])
        assert logit(q / (1 - q)) == pytest.approx(logit(p / (1 - p)) + term)
    assert meant.score("ignores a") > plain.score("ignores a")
