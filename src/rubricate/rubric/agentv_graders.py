"""AgentV grader lists: rubric graders and their criteria, as AgentV parses them (pure: no I/O).

Citations are to EntityProcess/agentv; `head` is 58f316c (assert form), `v4` is v4.42.4
(assertions form), `v2` is v2.5.8 (evalcases form); paths are under
`packages/core/src/evaluation/`.

- Plain strings of one list become one rubric grader at the first string's place, with weight =
  the number of strings; each is a required criterion `rubric-<n>` (head
  `loaders/grader-parser.ts` 589-633, v4 same file 400-440).
- `include:` entries are spliced in before that (head `grader-parser.ts` 417-447).
- A rubric grader (`llm-rubric`, `agent-rubric`, and the older `rubrics`, `rubric`,
  `llm-grader`/`llm-judge` with rubrics) takes criteria from `value`, `criteria` or `rubrics`
  (head 1809-1830, 2379-2476); a criterion without `id` is `rubric-<index+1>` in its own list
  (head 2492); a checklist criterion is required unless it says `required: false` (head 2565).
- Grader `weight` must be a finite number >= 0 (head 2313-2340); `required: true` and
  `min_score` in (0, 1] (head 2282-2306; v4 also reads a numeric `required` as `min_score`).
- Any other type (contains, regex, script, ...) is not a rubric: it is listed and left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from rubricate.rubric.agentv_refs import MAX_INCLUDE_DEPTH, Located, References, RefError
from rubricate.rubric.build import Draft
from rubricate.rubric.files import AgentVCriterion
from rubricate.rubric.located import describe_value, located_diagnostics
from rubricate.yamlsource import Loc, Locator

if TYPE_CHECKING:
    from rubricate.rubric.agentv_forms import Form

CURRENT_TYPES = frozenset({"llm-rubric", "agent-rubric"})
OLDER_TYPES = frozenset({"rubrics", "rubric", "llm-grader", "llm-judge"})
COMMAND_TYPES = frozenset({"script", "code-grader", "code-judge", "script-grader"})
OPERATORS = ("correctness", "contradiction")
_CRITERIA_KEYS = ("value", "criteria", "rubrics")
_OUTCOME_KEYS = ("outcome", "criteria", "expected_outcome", "description")


@dataclass
class CriterionDraft:
    """One criterion of a grader, with AgentV's number for it and the file it is in."""

    draft: Draft
    where: Located
    number: int


@dataclass
class GraderDraft:
    """One rubric grader as written: its settings and its criteria."""

    name: str
    type: str
    where: Located
    criteria: list[CriterionDraft] = field(default_factory=list)
    weight: float = 1.0
    required: bool = False
    min_score: float | None = None
    negate: bool = False

    @property
    def analytic(self) -> bool:
        """AgentV scores a grader 0-10 when any of its criteria has score ranges (head 646)."""
        return any(_has_ranges(c.draft) for c in self.criteria)


@dataclass
class Context:
    """What parsing a grader list needs: the form's rules, references, and what was left out."""

    form: Form
    refs: References
    left_out: list[str] = field(default_factory=list)
    criteria_text: str | None = None


def parse_graders(entries: Located, ctx: Context) -> list[GraderDraft]:
    """The rubric graders of one list (`assert`, `assertions` or `evaluators`)."""
    if not isinstance(entries.value, list):
        entries.error(f"should be a list of assertions, got {describe_value(entries.value)}")
        return []
    items = _expand(entries, ctx, 0, ())
    graders: list[GraderDraft] = []
    strings = [i for i in items if isinstance(i.value, str)]
    if strings and ctx.form != "evalcases":
        placed = False
        for item in items:
            if isinstance(item.value, str):
                if not placed:
                    graders += _string_grader(strings, ctx)
                    placed = True
            else:
                graders += _object_grader(item, ctx)
        return graders
    for item in items:
        if isinstance(item.value, str):
            item.warn("an evaluator must be a mapping; AgentV skips this entry")
        else:
            graders += _object_grader(item, ctx)
    return graders


def inline_grader(entries: Located, ctx: Context, name: str = "rubric") -> list[GraderDraft]:
    """An inline `rubrics:` list as one grader (v2 `loaders/evaluator-parser.ts` 1032-1110)."""
    if not isinstance(entries.value, list):
        entries.error(f"rubrics should be a list of criteria, got {describe_value(entries.value)}")
        return []
    grader = GraderDraft(name, "rubric", entries)
    grader.criteria = _criteria(entries.items(), ctx, strings_ok=True)
    return [grader] if grader.criteria else []


def _expand(entries: Located, ctx: Context, depth: int, chain: tuple[str, ...]) -> list[Located]:
    found: list[Located] = []
    for item in entries.items():
        value = item.value
        if (
            isinstance(value, dict)
            and set(value) == {"include"}
            and isinstance(value["include"], str)
        ):
            found += _include(item, ctx, depth, chain)
        else:
            found.append(item)
    return found


def _include(item: Located, ctx: Context, depth: int, chain: tuple[str, ...]) -> list[Located]:
    name = item.value["include"]
    if depth + 1 > MAX_INCLUDE_DEPTH:
        item.error(f"include depth exceeds {MAX_INCLUDE_DEPTH} ({' -> '.join((*chain, name))})")
        return []
    try:
        path, loaded = ctx.refs.template(item.problems.locator.path, name)
    except RefError as exc:
        item.error(f"include {name!r}: {exc}", "include")
        return []
    if path in chain:
        item.error(f"include cycle: {' -> '.join((*chain, path))}", "include")
        return []
    key = "assert" if ctx.form == "assert" else "assertions"
    data = loaded.value
    listed = next(
        (k for k in (key, "assert", "assertions") if isinstance(data, dict) and k in data), None
    )
    if listed is None:
        item.error(f"include {name!r}: {path} has no top-level `{key}:` list", "include")
        return []
    return _expand(loaded.child(listed), ctx, depth + 1, (*chain, path))


def _string_grader(strings: list[Located], ctx: Context) -> list[GraderDraft]:
    kept = []
    for item in strings:
        if item.value.strip():
            kept.append(item)
        else:
            item.warn("an empty criterion is skipped, as AgentV skips it")
    if not kept:
        return []
    kind = "llm-rubric" if ctx.form == "assert" else "rubrics"
    grader = GraderDraft(kind, kind, kept[0], weight=float(len(kept)))
    grader.criteria = [
        CriterionDraft(Draft(item.loc, item.value.strip(), plain_required=True), item, n)
        for n, item in enumerate(kept, 1)
    ]
    return [grader]


def _object_grader(item: Located, ctx: Context) -> list[GraderDraft]:
    raw = item.value
    if not isinstance(raw, dict):
        item.error(f"an assertion should be a string or a mapping, got {describe_value(raw)}")
        return []
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind.strip():
        item.error("missing `type:`; AgentV skips an assertion without a type")
        return []
    normal = kind.strip().replace("_", "-")
    source = next((k for k in _CRITERIA_KEYS if raw.get(k) is not None), None)
    judge = normal in ("llm-grader", "llm-judge") and bool(ctx.criteria_text)
    free_form = source is None and (raw.get("prompt") is not None or judge)
    if normal not in CURRENT_TYPES | OLDER_TYPES or (source is None and not free_form):
        _left_out(item, kind, normal, ctx)
        return []
    grader = GraderDraft(_name(raw, kind), normal, item)
    if normal not in CURRENT_TYPES and ctx.form == "assert":
        item.warn(f"AgentV now rejects type {kind!r}; write `type: llm-rubric`", "type")
    _settings(grader, item, ctx)
    if source is None:
        grader.criteria = [_prompt_criterion(grader, item, ctx)]
        return [grader]
    grader.criteria = _grader_criteria(item, source, ctx)
    return [grader] if grader.criteria else []


def _prompt_criterion(grader: GraderDraft, item: Located, ctx: Context) -> CriterionDraft:
    """A free-form prompt grader as one criterion: the test's `criteria`, else its prompt.

    AgentV fills the prompt's rubric with the test's `criteria` (head `graders/llm-grader.ts`
    209-211) and asks for one verdict, so the grader is one required criterion.
    """
    prompt = item.value.get("prompt")
    if ctx.criteria_text:
        outcome = ctx.criteria_text
    elif isinstance(prompt, str) and not prompt.strip().startswith("file://"):
        outcome = prompt.strip()
    else:
        where = prompt if isinstance(prompt, str) else "its prompt"
        outcome = f"Passes the {grader.name!r} grader prompt ({where})"
    spec = AgentVCriterion(id=_slug(grader.name), outcome=outcome)
    return CriterionDraft(Draft(item.loc, spec), item, 1)


def _slug(name: str) -> str:
    kept = "".join(c if c.isalnum() or c in "_.-" else " " for c in name)
    return "-".join(kept.split()) or "rubric"


def _name(raw: dict[str, Any], kind: str) -> str:
    for key in ("metric", "name"):
        if isinstance(raw.get(key), str) and raw[key].strip():
            return str(raw[key]).strip()
    return kind.strip()


def _left_out(item: Located, kind: str, normal: str, ctx: Context) -> None:
    if normal in COMMAND_TYPES:
        why = "it runs a command: configure it under `graders:` in .github/rubricate.yml"
    elif normal in CURRENT_TYPES | OLDER_TYPES:
        why = "it has neither `value:` nor `prompt:`, so AgentV skips it"
    else:
        why = "it is a deterministic check, not a rubric criterion"
    ctx.left_out.append(kind)
    item.warn(
        f"assertion type {kind!r} is not applicable to PR scoring and is left out: {why}", "type"
    )


def _settings(grader: GraderDraft, item: Located, ctx: Context) -> None:
    raw = item.value
    grader.weight = _weight(item)
    if ctx.form == "evalcases":
        return
    required = raw.get("required")
    if required is True:
        grader.required = True
    elif isinstance(required, (int, float)) and not isinstance(required, bool):
        if ctx.form == "assertions" and 0 < required <= 1:
            grader.required, grader.min_score = True, float(required)
            advice = f"write `required: true` and `min_score: {required}`"
            item.warn(f"`required: {required}` is deprecated in AgentV; {advice}", "required")
        else:
            item.error(
                f"`required: {required}`: write `required: true` and `min_score: {required}`",
                "required",
            )
    min_score = raw.get("min_score")
    if isinstance(min_score, (int, float)) and not isinstance(min_score, bool):
        if 0 < min_score <= 1:
            grader.min_score = float(min_score)
        else:
            item.warn(f"min_score {min_score!r} is outside (0, 1]; AgentV ignores it", "min_score")
    grader.negate = raw.get("negate") is True


def _weight(item: Located) -> float:
    weight = item.value.get("weight")
    if weight is None:
        return 1.0
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        item.error(f"weight should be a number, got {describe_value(weight)}", "weight")
        return 1.0
    if not math.isfinite(weight) or weight < 0:
        item.error(f"weight should be a finite number >= 0, got {weight!r}", "weight")
        return 1.0
    return float(weight)


def _grader_criteria(item: Located, source: str, ctx: Context) -> list[CriterionDraft]:
    value = item.child(source)
    if isinstance(value.value, str):
        return _single(item, value, ctx)
    if isinstance(value.value, dict):
        nested = next((k for k in ("criteria", "rubrics") if k in value.value), None)
        if nested is not None:
            return _grader_criteria(value, nested, ctx)
        return _criteria([value], ctx, strings_ok=True)
    if isinstance(value.value, list):
        if not value.value:
            value.error(f"{source} should list at least one criterion")
            return []
        strings_ok = not (ctx.form == "evalcases" and source == "rubrics")
        return _criteria(value.items(), ctx, strings_ok=strings_ok)
    value.error(
        f"{source} should be a list of criteria or a text, got {describe_value(value.value)}"
    )
    return []


def _single(grader: Located, value: Located, ctx: Context) -> list[CriterionDraft]:
    """A text `value:`: one criterion `rubric-1` (head `grader-parser.ts` 2421-2436)."""
    raw = grader.value
    spec: dict[str, Any] = {"outcome": value.value}
    if "score_ranges" in raw:
        spec["score_ranges"] = raw["score_ranges"]
    if isinstance(raw.get("id"), str):
        spec["id"] = raw["id"]
    if isinstance(raw.get("operator"), str):
        spec["operator"] = raw["operator"]
    synthetic = Located(spec, grader.loc, grader.problems)
    return _criteria([synthetic], ctx, strings_ok=True, single=True)


def _criteria(
    items: list[Located],
    ctx: Context,
    *,
    strings_ok: bool,
    single: bool = False,
) -> list[CriterionDraft]:
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
        made = _object_criterion(item, ctx, number, single)
        if made is not None:
            found.append(made)
    return found


def _object_criterion(
    item: Located, ctx: Context, number: int, single: bool
) -> CriterionDraft | None:
    raw = item.value
    if not isinstance(raw, dict):
        item.error(f"a criterion should be a string or a mapping, got {describe_value(raw)}")
        return None
    data = _normalized(raw, item, ctx)
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
    spec = spec.model_copy(update=_bars(spec, raw, item, ctx, ranges))
    draft = Draft(item.loc, spec)
    return CriterionDraft(draft, item, number)


def _normalized(raw: dict[str, Any], item: Located, ctx: Context) -> dict[str, Any]:
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

    c: AgentVCriterion


def _validated(data: dict[str, Any], item: Located) -> AgentVCriterion | None:
    wrapped = {"c": data}
    try:
        return _One.model_validate(wrapped).c
    except ValidationError as exc:
        locator = _Prefixed(item.problems.locator, item.loc)
        for diagnostic in located_diagnostics(exc, _One, wrapped, locator):
            item.problems.errors.append(diagnostic)
        return None


def _bars(
    spec: AgentVCriterion, raw: dict[str, Any], item: Located, ctx: Context, ranges: bool
) -> dict[str, Any]:
    """`required` and `min_score` as each AgentV version reads them."""
    legacy = spec.required_min_score
    if legacy is not None and ctx.form == "assert":
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
    if ctx.form == "assert":
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


def _has_ranges(draft: Draft) -> bool:
    return getattr(draft.spec, "score_ranges", None) is not None


class _Prefixed(Locator):
    """A locator for a sub-document: positions of `loc` are looked up under a prefix."""

    def __init__(self, base: Locator, prefix: Loc) -> None:
        super().__init__(base.path, base.values, base.keys)
        self.prefix = prefix

    def at(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        return super().at((*self.prefix, *loc[1:]), key=key)
