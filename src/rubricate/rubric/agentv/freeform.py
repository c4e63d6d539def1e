"""AgentV free-form graders: one criterion the judge scores 0-1 (pure: no I/O).

Citations are to EntityProcess/agentv as in `graders.py` (`head` is 58f316c, `v4` is
v4.42.4). A free-form grader has no rubric items: AgentV asks its judge for one score from 0 to
1, clamps it, and the grader passes at 0.8 (head `graders/llm-grader.ts` 588-600,
`graders/scoring.ts` 24-28). rubricate loads it as one continuous criterion. In v4 and the
evalcases form an `llm-grader` (`llm_judge`) without rubrics is judged free-form, with AgentV's
default prompt when it names none (v4 `grader-parser.ts` 2008-2024, `graders/llm-grader.ts`
258-265; 4ba4353 `evaluators/llm-judge.ts` 99-100, 156-170).
"""

from __future__ import annotations

from rubricate.rubric.agentv.draft import Context, GraderDraft
from rubricate.rubric.files import AgentVCriterion
from rubricate.rubric.located import Located

CRITERIA_KEYS = ("value", "criteria", "rubrics")


def criteria_keys(normal: str) -> tuple[str, ...]:
    """Where a grader's criteria are (v4 `grader-parser.ts` 1943-1948 for g-eval)."""
    return ("rubric_item", "rubricItem", *CRITERIA_KEYS) if normal == "g-eval" else CRITERIA_KEYS


def judged(normal: str, ctx: Context) -> bool:
    """True when a grader without criteria or a prompt is still judged free-form by AgentV.

    v4 and the evalcases form judge an `llm-grader` (`llm_judge`) with the default prompt, and
    v4 pushes every `llm-rubric` (v4 `grader-parser.ts` 1981-2024); in the current form an
    older judge type takes the test's `criteria` (head `graders/llm-grader.ts` 209-211).
    """
    if normal == "llm-rubric":
        return ctx.form == "assertions"
    if normal in ("llm-grader", "llm-judge"):
        return ctx.form != "assert" or bool(ctx.criteria_text)
    return False


def free_form_text(item: Located, normal: str, source: str | None, ctx: Context) -> str | None:
    """The text of an `llm-rubric` that AgentV judges free-form, or None when it has criteria.

    head: a text `value` without `score_ranges` gives no rubric items, so the grader is judged
    free-form (`grader-parser.ts` 2412-2416, `graders/llm-grader.ts` 588-600); v4: an
    `llm-rubric` is always free-form, judged on its text `value` or `criteria` (v4
    `grader-parser.ts` 1981-1990, `graders/llm-grader.ts` 258-265).
    """
    if normal != "llm-rubric" or source is None or ctx.form == "evalcases":
        return None
    raw = item.value
    value = raw.get(source)
    if ctx.form == "assert":
        plain = isinstance(value, str) and "score_ranges" not in raw
        return value.strip() if plain and value.strip() else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    item.warn("AgentV v4 reads only a text `value` or `criteria` of an llm-rubric", source)
    return ""


def prompt_criterion(
    grader: GraderDraft, item: Located, ctx: Context, text: str | None = None
) -> AgentVCriterion:
    """A free-form grader as one continuous criterion, scored 0-1 as AgentV's judge scores it.

    Its text is the grader's own text, else the test's `criteria` (AgentV fills the prompt's
    rubric with them: head `graders/llm-grader.ts` 209-211), else its prompt.
    """
    prompt = item.value.get("prompt")
    if text:
        outcome = text
    elif ctx.criteria_text:
        outcome = ctx.criteria_text
    elif isinstance(prompt, str) and not prompt.strip().startswith("file://"):
        outcome = prompt.strip()
    else:
        where = prompt if isinstance(prompt, str) else "its prompt"
        outcome = f"Passes the {grader.name!r} grader prompt ({where})"
    cid = "rubric-1" if text else _slug(grader.name)
    spec = AgentVCriterion(id=cid, outcome=outcome, required=False)
    return spec


def _slug(name: str) -> str:
    kept = "".join(c if c.isalnum() or c in "_.-" else " " for c in name)
    return "-".join(kept.split()) or "rubric"
