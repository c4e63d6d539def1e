"""How the injection scan of a large change is shared between two processes (pure: no I/O).

The detector's work can be cut anywhere after a blank line: no span crosses one, and the
second part's running sums continue from the first's (`detector.Carry`), so the cut changes no
probability. So a second process takes the detector's work on the change's last texts, up to
about half the whole scan's cost, cutting one text after a blank line where its share begins;
this process does the rules of every text and the detector's work on the rest. The cost of
the rules grows with how often their trigger words occur, which a sample of the change tells
(`rules_cost`). `judge.scan_processes` runs the shares; see DESIGN.md section 7.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rubricate.judge.scan import TRIGGERS, Part, detector_findings

if TYPE_CHECKING:
    from rubricate.evidence.results import Finding
    from rubricate.judge.detector import Carried, Carry, Detector

RULES_COST = 0.28
RULES_COST_PER_HIT = 39.0
"""The CPU time of the rules with the hidden-text scan, for each character and for each
occurrence of a trigger word, in characters the detector reads in that time (fitted on the
texts of a 1 MB file of code and docs and two many-file diffs, in pure Python: the detector
took 0.56-0.76 s a megabyte, the rules 0.18 s a megabyte and 24 µs an occurrence)."""
OWN_COST = 0.08
"""This process's other work for each character of the change, in the same unit: reading the
change into texts, sampling it, forking, putting the findings in order (measured beside the
rules on a 1 MB file: about 0.05 s a megabyte)."""
SAMPLE_SLICES = 64
SAMPLE_SLICE = 1024
"""The sample the trigger words are counted in: this many slices of this many characters,
spread evenly over the change."""
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*(?=\n)")
"""A line holding only white space (blank once its markers and white space are off), from the
line break before it to the one ending it (not taken, so the next blank line is found too)."""
LOOK_BACK = 1 << 16
"""Characters looked back over at a time for the blank line before a point."""


@dataclass(frozen=True)
class Shares:
    """The detector's work a second process does: the texts (indices into the parts) it scores
    whole, and the last lines of one more text, `cut = (index, at)`: from the line starting at
    character `at`, after a blank line (`last_lines`). This process does everything else."""

    whole: tuple[int, ...] = ()
    cut: tuple[int, int] | None = None


def shares(parts: Sequence[Part]) -> Shares:
    """The second process's share of the scan of `parts` with the detector: about half the
    whole scan's cost (the detector's texts from the last, one of them cut where the half
    ends)."""
    judged = [i for i, part in enumerate(parts) if part.judged]
    texts = [p.text for p in parts]
    cost = rules_cost(texts) + OWN_COST * sum(map(len, texts))
    cost += sum(len(parts[i].text) for i in judged)
    left = cost / 2  # characters of the detector's work still to share out
    whole: list[int] = []
    for index in reversed(judged):
        size = len(parts[index].text)
        if size <= left:
            whole.append(index)
            left -= size
            continue
        at = after_blank_line(parts[index].text, size - round(left))
        if at is not None:
            return Shares(tuple(sorted(whole)), (index, at))
        return Shares(tuple(sorted([*whole, index] if left * 2 > size else whole)))
    return Shares(tuple(sorted(whole)))


def rules_cost(texts: Sequence[str]) -> float:
    """The rules' CPU time on `texts`, in characters the detector reads in that time: from
    their size, and the trigger words in a sample of them (`SAMPLE_SLICES`)."""
    joined = "\n".join(texts)
    step = max(len(joined) // SAMPLE_SLICES, SAMPLE_SLICE)
    sample = "".join(joined[at : at + SAMPLE_SLICE] for at in range(0, len(joined), step))
    lowered = sample.lower()
    hits = sum(map(lowered.count, TRIGGERS)) * len(joined) / max(len(sample), 1)
    return RULES_COST * len(joined) + RULES_COST_PER_HIT * hits


def after_blank_line(text: str, near: int) -> int | None:
    """Where the line after the blank line (white space only) nearest character `near` of
    `text` starts, or None when `text` has none."""
    after = _BLANK_LINE.search(text, near)
    before = None
    end = near
    while before is None and end > 0:
        start = max(end - LOOK_BACK, 0)
        # a window's blank lines are those starting in it, even one that ends past it
        for match in _BLANK_LINE.finditer(text, start, min(end + LOOK_BACK, len(text))):
            if match.start() > end:
                break
            before = match
        end = start
    found = [m for m in (before, after) if m is not None]
    if not found:
        return None
    return min(found, key=lambda m: abs(m.end() + 1 - near)).end() + 1


def first_lines(text: str, at: int) -> str:
    """The lines of `text` before `at` (which `after_blank_line` gave), the blank line last."""
    return text[: at - 1]


def last_lines(text: str, at: int) -> tuple[str, int]:
    """The lines of `text` from `at` (which `after_blank_line` gave), and how many lines come
    before them."""
    return text[at:], text.count("\n", 0, at)


def detected_first(part: Part, at: int, detector: Detector) -> tuple[list[Finding], Carry]:
    """The detector's findings on a part's lines before `at`, and where its running sums end."""
    scored, carry = detector.scored_from(first_lines(part.text, at))
    return detector_findings(scored, part.where, detector), carry


def detected_last(part: Part, at: int, detector: Detector, carry: Carried) -> list[Finding]:
    """The detector's findings on a part's lines from `at`, its running sums continuing from
    `carry` (those of the lines before, or how to get them once the lines are read), at their
    lines in the whole text."""
    text, before = last_lines(part.text, at)
    return detector_findings(detector.scored_from(text, carry)[0], part.where, detector, before)


def detected(part: Part, detector: Detector) -> list[Finding]:
    """The detector's findings on a whole part."""
    return detector_findings(detector.scored_from(part.text)[0], part.where, detector)
