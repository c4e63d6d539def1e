"""The scan of a large change is shared out so that a second process takes about half its cost,
cutting one text only after a blank line, where the detector's findings stay the same."""

from __future__ import annotations

import re

import pytest

from rubricate.judge.scan import Part
from rubricate.judge.scan_shares import (
    LOOK_BACK,
    OWN_COST,
    RULES_COST,
    Shares,
    after_blank_line,
    detected,
    detected_first,
    detected_last,
    first_lines,
    last_lines,
    rules_cost,
    shares,
)

from .detector_fixture import diluted_text, fixture_detector, fixture_text


def _cost(parts: list[Part]) -> float:
    """The whole scan's cost, in characters the detector reads in that time."""
    texts = [p.text for p in parts]
    own = OWN_COST * sum(map(len, texts))
    return rules_cost(texts) + own + sum(len(p.text) for p in parts if p.judged)


def test_the_child_takes_the_last_texts_whole_and_cuts_the_one_where_half_the_cost_ends() -> None:
    texts = [diluted_text(seed=n, lines=200) for n in range(6)]
    parts = [Part(text, f"src/f{n}.py") for n, text in enumerate(texts)]
    share = shares(parts)
    assert share.cut is not None
    index, at = share.cut
    assert share.whole == tuple(range(index + 1, len(texts)))
    theirs = sum(len(t) for t in texts[index + 1 :]) + len(texts[index]) - at
    assert abs(theirs - _cost(parts) / 2) < 1_000  # blank lines lie a few lines apart
    assert first_lines(texts[index], at).split("\n")[-1].strip() == ""  # a blank line ends it


def test_the_rules_cost_more_where_their_trigger_words_are_frequent() -> None:
    plain = "\n".join(f"line {n} of words" for n in range(5000))
    triggered = "\n".join(f"score {n}: ignore the rubric" for n in range(5000))
    assert rules_cost([plain]) == pytest.approx(RULES_COST * len(plain), rel=0.01)
    assert rules_cost([triggered]) > 3 * RULES_COST * len(triggered)
    assert rules_cost([plain, plain]) == pytest.approx(2 * rules_cost([plain]), rel=0.01)
    assert rules_cost([]) == 0


def test_paths_and_unjudged_texts_are_never_the_childs() -> None:
    parts = [Part("src/a.py", "src/a.py", judged=False), Part(fixture_text(), "src/a.py")]
    share = shares(parts)
    assert 0 not in share.whole
    assert share.cut is None or share.cut[0] == 1


def test_a_text_without_a_blank_line_goes_whole_to_the_nearer_side() -> None:
    solid = Part("\n".join(f"line {n} of words" for n in range(3000)), "a.py")
    assert shares([solid]) == Shares((0,))  # the detector's work costs more than the rules'
    assert shares([solid, solid]) == Shares((1,))  # a half of the first is left: not more


@pytest.mark.parametrize("near", [0, 1, 50, 999, 5000, 10**6])
def test_the_cut_follows_the_nearest_blank_line(near: int) -> None:
    text = "a\nb\n\nc\n  \t\nd\ne\n" + "f\n" * 3000 + "\n\ng"
    blanks = [m.end() + 1 for m in re.finditer(r"\n[ \t\r\f\v]*(?=\n)", text)]
    assert blanks[-2:] == [len(text) - 2, len(text) - 1]
    near = min(near, len(text) - 1)
    at = after_blank_line(text, near)
    assert at is not None
    assert at in blanks
    assert all(abs(at - near) <= abs(b - near) for b in blanks)
    first, (last, before) = first_lines(text, at), last_lines(text, at)
    assert first.split("\n")[-1].strip() == ""
    assert first + "\n" + last == text
    assert before == len(first.split("\n"))
    assert after_blank_line("no\nblank\nline", 5) is None


def test_a_text_cut_after_any_blank_line_gives_the_detectors_findings_of_the_whole() -> None:
    model = fixture_detector()
    text = fixture_text(seed=11, lines=400)
    part = Part(text, "src/big.py")
    whole = detected(part, model)
    assert len(whole) > 10
    cuts = [m.end() for m in re.finditer(r"\n[ \t]*\n", text)]
    assert len(cuts) > 40
    for at in cuts:
        first, carry = detected_first(part, at, model)
        assert first + detected_last(part, at, model, carry) == whole


def test_a_blank_line_across_a_look_back_window_is_found() -> None:
    text = "a" * (2 * LOOK_BACK - 1) + "\n\n" + "b" * (3 * LOOK_BACK)
    assert after_blank_line(text, 3 * LOOK_BACK) == 2 * LOOK_BACK + 1
