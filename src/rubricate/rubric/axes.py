"""The axes dialect: anchored axes on an open 0..100+ scale (pure: no I/O)."""

from __future__ import annotations

from rubricate.rubric.build import (
    Draft,
    Identity,
    Shape,
    build_rubric,
    check_pass_rule,
    pass_rule_of,
)
from rubricate.rubric.files import AxesFile
from rubricate.rubric.model import PassRule, Rubric, Scale
from rubricate.yamlsource import Problems

AXES_SCALE = Scale(min=0, max=100, open=True, kind="open")
AXES_PASS = PassRule(min_total=50)


def axes_rubrics(file: AxesFile, identity: Identity, problems: Problems) -> list[Rubric]:
    """The one rubric of an axes file; each axis id is its key."""
    rule = pass_rule_of(file.pass_, AXES_PASS)
    if rule.min_total is None:
        rule = PassRule(min_total=AXES_PASS.min_total, min_each=rule.min_each)
    check_pass_rule(rule, AXES_SCALE, problems)
    drafts = [Draft(("axes", name), spec, key=name) for name, spec in file.axes.items()]
    rubric = build_rubric(problems, identity, Shape("axes", AXES_SCALE, rule), drafts, None)
    return [] if rubric is None else [rubric]
