"""The native (Agora-style) dialect: weighted `criteria:` on one scale (pure: no I/O)."""

from __future__ import annotations

import math

from rubricate.rubric.build import (
    Draft,
    Identity,
    Shape,
    build_rubric,
    check_pass_rule,
    pass_rule_of,
)
from rubricate.rubric.files import NativeFile
from rubricate.rubric.model import TOLERANCE, PassRule, Rubric, Scale
from rubricate.yamlsource import Problems

AGORA_SCALE = Scale(min=1, max=5, kind="points")
AGORA_PASS = PassRule(min_total=3.5, min_each=2)


def native_rubrics(file: NativeFile, identity: Identity, problems: Problems) -> list[Rubric]:
    """The one rubric of a native file."""
    scale = _scale(file, problems)
    rule = _pass_rule(file, scale, problems)
    _check_weight_sum(file, problems)
    drafts = [Draft(("criteria", i), spec) for i, spec in enumerate(file.criteria)]
    rubric = build_rubric(problems, identity, Shape("native", scale, rule), drafts, None)
    return [] if rubric is None else [rubric]


def _scale(file: NativeFile, problems: Problems) -> Scale:
    if file.scale is None:
        return AGORA_SCALE
    if file.scale.min >= file.scale.max:
        problems.error(
            ("scale",),
            f"scale.min ({file.scale.min:g}) must be below scale.max ({file.scale.max:g})",
        )
        return AGORA_SCALE
    return Scale(min=file.scale.min, max=file.scale.max, kind="points")


def _pass_rule(file: NativeFile, scale: Scale, problems: Problems) -> PassRule:
    if file.pass_ is None and scale != AGORA_SCALE:
        problems.error(
            ("scale",), "a native rubric with its own scale needs a `pass:` rule", key=True
        )
    rule = pass_rule_of(file.pass_, AGORA_PASS)
    check_pass_rule(rule, scale, problems)
    return rule


def _check_weight_sum(file: NativeFile, problems: Problems) -> None:
    total = math.fsum(c.weight for c in file.criteria)
    if abs(total - 1.0) > TOLERANCE:
        message = f"native criterion weights must sum to 1.00, but they sum to {total:.10g}"
        problems.error(("criteria",), message, key=True)
