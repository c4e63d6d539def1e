"""AgentV criteria: a rubric grader's criteria, as each AgentV version reads them (pure: no I/O).

Citations are to EntityProcess/agentv as in `graders.py` (`head` is 58f316c).

- A text `value:` is one criterion `rubric-1` (head `grader-parser.ts` 2421-2436); a list
  holds strings (required plain criteria) or mappings; a criterion without `id` is
  `rubric-<index+1>` in its own list (head 2492).
- A mapping is checked against `files.AgentVCriterion`, each error at its place in the file.
  It says what it checks in `outcome` (or `criteria`, `expected_outcome`, `description`; a
  score range may use the last two too); an unknown `operator` is dropped with a warning.
- A checklist criterion is required unless it says `required: false` (head 2565); a
  score-range criterion is gated by `min_score` (0-1), and in older forms by `required` or
  `required_min_score` (0-10) as those versions read them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from rubricate.rubric.agentv.forms import Form
from rubricate.rubric.build import Draft
from rubricate.rubric.files import AgentVCriterion
from rubricate.rubric.located import Located, Prefixed, describe_value, located_diagnostics

OPERATORS = ("correctness", "contradiction")
_OUTCOME_KEYS = ("outcome", "criteria", "expected_outcome", "description")


@dataclass
class CriterionDraft:
    """One criterion of a grader, with AgentV's number for it and the file it is in."""

    draft: Draft
    where: Located
    number: int


def grader_criteria(item: Located, source: str, form: Form) -> list[CriterionDraft]:
    """The criteria a grader mapping lists under `source` (`value`, `criteria` or `rubrics`)."""
    value = item.child(source)
    if isinstance(value.value, str):
        return _single(item, value, form)
    if isinstance(value.value, dict):
        nested = next((k for k in ("criteria", "rubrics") if k in value.value), None)
        if nested is not None:
            return grader_criteria(value, nested, form)
        return criteria_of([value], form, strings_ok=True)
    if isinstance(value.value, list):
        if not value.value:
            value.error(f"{source} should list at least one criterion")
            return []
        strings_ok = not (form == "evalcases" and source == "rubrics")
        return criteria_of(value.items(), form, strings_ok=strings_ok)
    value.error(
        f"{source} should be a list of criteria or a text, got {describe_value(value.value)}"
    )
    return []


def _single(grader: Located, value: Located, form: Form) -> list[CriterionDraft]:
    """A text `value:`: one criterion `rubric-1` (head `grader-parser.ts` 2421-2436)."""
    raw = grader.value
    spec: dict[str, Any] = {"outcome": value.value}
    if "score_ranges" in raw:
        spec["score_ranges"] = raw["score_ranges"]
    if isinstance(raw.get("id"), str):
        spec["id"] = raw["id"]
    if isinstance(raw.get("operator"), str):
        spec["operator"] = raw["operator"]
    if "score_ranges" not in raw:  # one text is a plain criterion: required unless it says not
        spec["required"] = raw.get("required") is not False
    synthetic = replace(grader, value=spec)
    return criteria_of([synthetic], form, strings_ok=True, single=True)


def criteria_of(
    items: list[Located],
    form: Form,
    *,
    strings_ok: bool,
    single: bool = False,
) -> list[CriterionDraft]:
    """One draft per criterion of a list; plain strings are criteria only where `strings_ok`."""
    found = []
    for number, item in enumerate(items, 1):
        if isinstance(item.value, str):
            if not strings_ok:
                item.warn("a plain-string rubric here is skipped by AgentV v2 (expected a mapping)")
            elif item.value.strip():
                draft = Draft(item.loc, item.value.strip(), plain_required=True)
                found.append(CriterionDraft(draft, item, number))
            else:
                item.warn("an empty criterion is skipped, as AgentV skips it")
            continue
        made = _object_criterion(item, form, number, single)
        if made is not None:
            found.append(made)
    return found


def _object_criterion(
    item: Located, form: Form, number: int, single: bool
) -> CriterionDraft | None:
    raw = item.value
    if not isinstance(raw, dict):
        item.error(f"a criterion should be a string or a mapping, got {describe_value(raw)}")
        return None
    data = _normalized(raw, item)
    spec = _validated(data, item)
    if spec is None:
        return None
    ranges = spec.score_ranges is not None
    if not any(isinstance(getattr(spec, k, None), str) for k in _OUTCOME_KEYS):
        if not ranges:
            message = "missing required key 'outcome': say what the criterion checks"
            item.error(message + " (AgentV skips such a criterion)")
            return None
        spec = spec.model_copy(update={"outcome": spec.id or f"rubric-{number}"})
    spec = spec.model_copy(update=_bars(spec, raw, item, form, ranges))
    draft = Draft(item.loc, spec)
    return CriterionDraft(draft, item, number)


def _normalized(raw: dict[str, Any], item: Located) -> dict[str, Any]:
    data = dict(raw)
    operator = data.get("operator")
    if operator is not None and operator not in OPERATORS:
        item.warn(
            f"operator {operator!r} is not one of {', '.join(OPERATORS)}; AgentV ignores it",
            "operator",
        )
        data.pop("operator")
    ranges = data.get("score_ranges")
    if isinstance(ranges, list):
        data["score_ranges"] = [_range_entry(r) for r in ranges]
    return data


def _range_entry(entry: Any) -> Any:
    if isinstance(entry, dict) and "outcome" not in entry:
        alias = next((k for k in ("expected_outcome", "description") if k in entry), None)
        if alias is not None:
            entry = {**{k: v for k, v in entry.items() if k != alias}, "outcome": entry[alias]}
    return entry


class _One(BaseModel):
    """A wrapper, so that every validation error has a place under `c`."""

    model_config = ConfigDict(defer_build=True)
    c: AgentVCriterion


def _validated(data: dict[str, Any], item: Located) -> AgentVCriterion | None:
    wrapped = {"c": data}
    try:
        return _One.model_validate(wrapped).c
    except ValidationError as exc:
        locator = Prefixed(item.problems.locator, item.loc)
        for diagnostic in located_diagnostics(exc, _One, wrapped, locator):
            item.problems.errors.append(diagnostic)
        return None


def _bars(
    spec: AgentVCriterion, raw: dict[str, Any], item: Located, form: Form, ranges: bool
) -> dict[str, Any]:
    """`required` and `min_score` as each AgentV version reads them."""
    legacy = spec.required_min_score
    if legacy is not None and form == "assert":
        item.error(
            "'required_min_score' has been removed in AgentV; use 'min_score' (0-1)",
            "required_min_score",
            at_key=True,
        )
    legacy_bar = None if legacy is None or legacy == 0 else legacy / 10
    said_required = raw.get("required") is True
    if not ranges:
        if spec.min_score is not None:
            item.warn(
                "AgentV ignores min_score on a checklist criterion (it is satisfied or not)",
                "min_score",
                at_key=True,
            )
        return {"required": raw.get("required", True) is not False, "min_score": None}
    if form == "assert":
        if said_required:
            item.warn(
                "AgentV ignores `required` on a score-range criterion; use `min_score`",
                "required",
                at_key=True,
            )
        return {"required": False, "min_score": spec.min_score}
    bar = spec.min_score if spec.min_score is not None else legacy_bar
    if bar is None and said_required:
        bar = 1.0
    return {"required": said_required, "min_score": bar}


def has_ranges(draft: Draft) -> bool:
    """True when a criterion scores by score ranges (AgentV then scores its grader 0-10)."""
    return getattr(draft.spec, "score_ranges", None) is not None
