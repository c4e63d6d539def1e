"""Thresholds of the injection detector chosen on benign text out of fold: one for all spans,
or one per group of spans: per kind of text (`rubricate.judge.detector_kinds`, shipped) or
per language (`injection_language_id`, a trial).

Shared by `train_injection` (the shipped thresholds) and `injection_groups` (the trial of
other groupings). A threshold is the lowest score flagging at most `TARGET_FP` of the benign
items it is chosen on; a group's items are the benign items holding a span of that group,
each scored by its worst span of the group.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from injection_language_id import LANGUAGES

from rubricate.judge.detector_kinds import KINDS

TARGET_FP = 0.015
"""The share of the training repositories' items the threshold may flag out of fold (the
issue's budget is 2% for the whole scan, and the pattern rules flag some items too)."""
MIN_ITEMS = 150
"""A group with fewer benign items than this takes a pooled threshold (`group_thresholds`)."""
CARRIER_KINDS = {
    "description": "prose",
    "commit message": "prose",
    "README": "docs",
    "code comment": "code",
    "code": "code",
    "JSON value": "data",
}
"""The kind of text (`detector_kinds.KINDS`) of each carrier of the benign corpora."""
LANGUAGE_GROUPS = LANGUAGES[1:]
"""The groups of spans not in English."""


def threshold_for(scores: Sequence[float], target: float = TARGET_FP) -> float:
    """The lowest threshold that flags at most `target` of these benign scores."""
    ordered = sorted(scores, reverse=True)
    allowed = int(len(ordered) * target)
    return float(ordered[allowed]) + 1e-6 if ordered else 0.5


def group_of(design: str, language: str, kind: str) -> str:
    """A span's group under a design: `global` (one group, `all`), `language`, `kind` (the
    kind of text it is in) or `language+kind` (the kind for English spans, else the language)."""
    if design == "global":
        return "all"
    if design == "language":
        return language
    if design == "kind" or language == "en":
        return kind
    return language


def names(design: str) -> tuple[str, ...]:
    """The groups of a design."""
    if design == "global":
        return ("all",)
    if design == "language":
        return ("en", *LANGUAGE_GROUPS)
    if design == "kind":
        return KINDS
    return KINDS + LANGUAGE_GROUPS


def group_thresholds(
    spans: Sequence[Sequence[tuple[str, float]]], kinds: Sequence[str], design: str
) -> tuple[dict[str, float], dict[str, int]]:
    """Each group's threshold, and how many benign items it was chosen on, from benign items
    given as their spans' (language, out-of-fold score) and their kinds of text. A language
    group with fewer than `MIN_ITEMS` items takes the threshold of every non-English span
    pooled (when that has enough), any other group the global one (`all`)."""
    per_group: dict[str, list[float]] = defaultdict(list)
    for item, kind in zip(spans, kinds, strict=True):
        best: dict[str, float] = {}
        for language, score in item:
            found = {group_of(design, language, kind), "all"}
            if language != "en":
                found.add("pooled")
            for name in found:
                best[name] = max(best.get(name, 0.0), score)
        for name, score in best.items():
            per_group[name].append(score)
    counts = {n: len(per_group[n]) for n in names(design)}
    limits = {"all": threshold_for(per_group["all"])}
    if len(per_group["pooled"]) >= MIN_ITEMS:
        limits["pooled"] = threshold_for(per_group["pooled"])
    for name in names(design):
        if len(per_group[name]) >= MIN_ITEMS:
            limits[name] = threshold_for(per_group[name])
        else:
            fallback = "pooled" if name in LANGUAGE_GROUPS and "pooled" in limits else "all"
            limits[name] = limits[fallback]
    return limits, counts
