"""AgentV grader lists: rubric graders and their criteria, as AgentV parses them (pure: no I/O).

Citations are to EntityProcess/agentv; `head` is 58f316c (assert form), `v4` is v4.42.4
(assertions form), `v2` is v2.5.8 (evalcases form); paths are under
`packages/core/src/evaluation/`.

- Plain strings of one list become one rubric grader at the first string's place, with weight =
  the number of strings; each is a required criterion `rubric-<n>` (head
  `loaders/grader-parser.ts` 589-633, v4 same file 400-440).
- `include:` entries are spliced in before that (see `includes`).
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
from typing import Any

from rubricate.rubric.agentv.checks import unsupported_message
from rubricate.rubric.agentv.criteria import CriterionDraft, criteria_of, grader_criteria
from rubricate.rubric.agentv.draft import Context, GraderDraft
from rubricate.rubric.agentv.freeform import (
    criteria_keys,
    free_form_text,
    judged,
    prompt_criterion,
)
from rubricate.rubric.agentv.includes import expand_includes
from rubricate.rubric.build import Draft
from rubricate.rubric.located import Located, describe_value

CURRENT_TYPES = frozenset({"llm-rubric", "agent-rubric"})
OLDER_TYPES = frozenset({"rubrics", "rubric", "llm-grader", "llm-judge", "g-eval"})
RUBRIC_TYPES = CURRENT_TYPES | OLDER_TYPES
COMMAND_TYPES = frozenset({"script", "code-grader", "code-judge", "script-grader"})


def parse_graders(entries: Located, ctx: Context) -> list[GraderDraft]:
    """The rubric graders of one list (`assert`, `assertions` or `evaluators`)."""
    if not isinstance(entries.value, list):
        entries.error(f"should be a list of assertions, got {describe_value(entries.value)}")
        return []
    items = expand_includes(entries, ctx)
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
    grader.criteria = criteria_of(entries.items(), ctx.form, strings_ok=True)
    return [grader] if grader.criteria else []


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
    refused = unsupported_message(ctx.form, kind.strip())
    if refused is not None:
        item.error(refused, "type")
        return []
    if normal == "composite":
        return _composite(item, ctx)
    source = next((k for k in criteria_keys(normal) if raw.get(k) is not None), None)
    free_form = source is None and (raw.get("prompt") is not None or judged(normal, ctx))
    if normal not in RUBRIC_TYPES or (source is None and not free_form):
        _left_out(item, kind, normal, ctx)
        return []
    grader = GraderDraft(_name(raw, kind), normal, item)
    if normal not in CURRENT_TYPES and ctx.form == "assert":
        item.warn(f"AgentV now rejects type {kind!r}; write `type: llm-rubric`", "type")
    _settings(grader, item, ctx)
    text = free_form_text(item, normal, source, ctx)
    if source is None or text is not None:
        grader.continuous = True
        spec = prompt_criterion(grader, item, ctx, text)
        grader.criteria = [CriterionDraft(Draft(item.loc, spec), item, 1)]
        return [grader]
    grader.criteria = grader_criteria(item, source, ctx.form)
    return [grader] if grader.criteria else []


def _composite(item: Located, ctx: Context) -> list[GraderDraft]:
    """A v4 `composite`: its rubric members, each weighted by its share of the composite.

    v4 `grader-parser.ts` 772-880 reads the members from `assert`, `assertions` or `evaluators`
    and an `aggregator`; `graders/composite.ts` 90-150 scores `weighted_average` as the mean of
    the members' scores, each weighted by `aggregator.weights[name]` (default 1). With every
    member a rubric grader, that is the same as the members standing in the test with weight
    `composite weight x member weight / sum of member weights`. A `threshold` aggregator counts
    passing members instead (160-215); rubricate folds it as the weighted mean and says so.
    """
    raw = item.value
    key = next((k for k in ("assert", "assertions", "evaluators") if k in raw), None)
    aggregator = raw.get("aggregator")
    if key is None or not isinstance(aggregator, dict):
        what = "a member list" if key is None else "an `aggregator:`"
        item.warn(f"a composite without {what} is skipped, as AgentV skips it")
        return []
    if aggregator.get("type") not in ("weighted_average", None):
        item.warn(
            f"composite aggregator {aggregator.get('type')!r}: rubricate scores the members' "
            "weighted mean, as `weighted_average` does",
            "aggregator",
        )
    members = parse_graders(item.child(key), ctx)
    weights = aggregator.get("weights")
    named = weights if isinstance(weights, dict) else {}
    shares = [_member_weight(named.get(m.name)) for m in members]
    total = sum(shares)
    own = _weight(item)
    for member, share in zip(members, shares, strict=True):
        member.weight = own * share / total if total > 0 else 0.0
    return members


def _member_weight(value: Any) -> float:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if number else 1.0


def _name(raw: dict[str, Any], kind: str) -> str:
    for key in ("metric", "name"):
        if isinstance(raw.get(key), str) and raw[key].strip():
            return str(raw[key]).strip()
    return kind.strip()


def _left_out(item: Located, kind: str, normal: str, ctx: Context) -> None:
    if normal in COMMAND_TYPES:
        why = "it runs a command: configure it under `graders:` in .github/rubricate.yml"
    elif normal in RUBRIC_TYPES:
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
