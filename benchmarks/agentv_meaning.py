"""What AgentV makes of an eval file, grader by grader, written apart from rubricate's loader.

Used by `bench_agentv_corpus.py` to compare rubricate's graders with AgentV's, per AgentV version.
It reads the raw YAML data only (no rubricate code) and gives, per test, the list of LLM graders
AgentV scores, each as `(kind, criteria)`: `checklist` or `analytic` with its number of rubric
items, or `continuous` (a free-form judge score, one item). Deterministic checks are not listed.
`refused` says AgentV refuses the file (an unsupported check). Rules, from EntityProcess/agentv
(`packages/core/src/evaluation/`):

- head 58f316c (`assert:`): plain strings are one checklist grader (`loaders/grader-parser.ts`
  589-633); `llm-rubric`/`agent-rubric` with a list `value` (or `criteria`/`rubrics`) are rubric
  graders, analytic when an item has `score_ranges`; a text `value` without `score_ranges`, or
  only a `prompt`, is free-form (2405-2416; `graders/llm-grader.ts` 588-600); the types of
  `UNSUPPORTED_PROMPTFOO_ASSERTION_TYPES` refuse the file (76-121, 220-229).
- v4 14bca459e (`assertions:`): plain strings are one `g-eval` checklist grader (480-505);
  `g-eval` and `llm-grader` with rubrics are rubric graders; `llm-rubric` and `llm-grader`
  without rubrics are free-form (1942-2024; `graders/llm-grader.ts` 258-265); `composite`
  holds its members (772-880); the v4 unsupported list refuses the file (54-114).
- Feb 4ba435368 (`evalcases:`): inline `rubrics:` and `type: rubric` are rubric graders;
  `llm_judge` without rubrics, and a case with no evaluators but `expected_outcome`, are
  free-form (`evaluators/llm-judge.ts` 99-100, 156-170; `yaml-parser.ts` 122, 214).
Includes and case-file references are not followed here: such files are compared on loading.
"""

from __future__ import annotations

from typing import Any

Grader = tuple[str, int]
UNSUPPORTED = {
    "word-count", "bleu", "rouge-n", "levenshtein", "meteor", "gleu", "factuality",
    "answer-relevance", "classifier", "contains-html", "contains-json", "contains-sql",
    "contains-xml", "context-faithfulness", "context-recall", "context-relevance",
    "conversation-relevance", "finish-reason", "guardrails", "is-html", "is-refusal", "is-sql",
    "is-valid-function-call", "is-valid-openai-function-call", "is-valid-openai-tools-call",
    "is-xml", "model-graded-closedqa", "model-graded-factuality", "moderation", "perplexity",
    "perplexity-score", "pi", "ruby", "similar:cosine", "similar:dot", "similar:euclidean",
    "select-best", "human", "max-score", "tool-call-f1", "trace-error-spans", "trace-span-count",
    "trace-span-duration", "search-rubric",
}  # fmt: skip
UNSUPPORTED_V4 = UNSUPPORTED | {
    "skill-used", "trajectory:goal-success", "trajectory:tool-args-match",
    "trajectory:step-count", "trajectory:tool-sequence", "trajectory:tool-used",
}  # fmt: skip


class Refused(Exception):
    """AgentV refuses the file."""


def expected(data: dict[str, Any], form: str) -> dict[str | None, list[Grader]] | None:
    """Per test id (None for a file without tests): AgentV's LLM graders; None when refused.

    Raises `LookupError` for a file whose tests or graders live in other files."""
    try:
        if form == "evalcases":
            return _evalcases(data)
        return _tests(data, form)
    except Refused:
        return None


def _tests(data: dict[str, Any], form: str) -> dict[str | None, list[Grader]]:
    defaults: list[list[Any]] = []  # each list gives its own plain-string grader
    if form == "assert":
        default_test = data.get("default_test")
        if isinstance(default_test, dict):
            defaults.append(_list(default_test.get("assert")))
        defaults.append(_list(data.get("assert")))
    else:
        defaults.append(_list(data.get("assertions", data.get("assert"))))
        execution = data.get("execution")
        if not defaults[0] and isinstance(execution, dict):
            defaults = [_list(execution.get("assertions", execution.get("evaluators")))]
    defaults = [d for d in defaults if d]
    tests = data.get("tests")
    if tests is None:
        return {None: [g for d in defaults for g in _graders(d, form, None)]}
    if not isinstance(tests, list):
        raise LookupError("tests in another file")
    found: dict[str | None, list[Grader]] = {}
    for test in tests:
        if not isinstance(test, dict) or "include" in test:
            raise LookupError("tests in another file")
        if not isinstance(test.get("id"), (str, int)):
            continue  # AgentV skips a test without an id
        own = test.get("assert") if form == "assert" else test.get("assertions", test.get("assert"))
        criteria = test.get("criteria") or (
            test.get("expected_outcome") if form != "assert" else None
        )
        execution = test.get("execution")
        skip = isinstance(execution, dict) and execution.get("skip_defaults") is True
        lists = ([_list(own)] if own is not None else []) + ([] if skip else defaults)
        if own is None and not lists and isinstance(criteria, str) and criteria.strip():
            lists = [[criteria]]
        found[str(test["id"])] = [g for entries in lists for g in _graders(entries, form, criteria)]
    return found


def _evalcases(data: dict[str, Any]) -> dict[str | None, list[Grader]]:
    execution = data.get("execution")
    shared = _list(execution.get("evaluators")) if isinstance(execution, dict) else []
    shared = shared or _list(data.get("evaluators"))
    found: dict[str | None, list[Grader]] = {}
    for case in _list(data.get("evalcases", data.get("eval_cases"))):
        if not isinstance(case, dict) or not isinstance(case.get("id"), (str, int)):
            continue
        outcome = case.get("expected_outcome", case.get("outcome"))
        inline = case.get("rubrics")  # strings are criteria here (evaluator-parser.ts 1108-1121)
        graders = [_rubric(inline, "inline")] if isinstance(inline, list) else []
        execution = case.get("execution")
        own = execution.get("evaluators") if isinstance(execution, dict) else None
        own = own if own is not None else case.get("evaluators")
        graders += _graders(_list(own) if own is not None else shared, "evalcases", outcome)
        default_judge = own is None and not shared and not graders
        if default_judge and isinstance(outcome, str) and outcome.strip():
            graders = [("continuous", 1)]
        found[str(case["id"])] = [g for g in graders if g[1]]
    return found


def _graders(entries: list[Any], form: str, criteria: Any) -> list[Grader]:
    strings = [e for e in entries if isinstance(e, str) and e.strip()]
    graders: list[Grader] = []
    placed = False
    for entry in entries:
        if isinstance(entry, str):
            if strings and not placed and form != "evalcases":
                graders.append(("checklist", len(strings)))
                placed = True
            continue
        if isinstance(entry, dict):
            if "include" in entry:
                raise LookupError("an include")
            graders += _grader(entry, form, criteria)
    return graders


def _grader(entry: dict[str, Any], form: str, criteria: Any) -> list[Grader]:
    kind = str(entry.get("type", "")).strip()
    normal = kind.replace("_", "-")
    refused = UNSUPPORTED if form == "assert" else UNSUPPORTED_V4 if form == "assertions" else set()
    if kind.removeprefix("not-") in refused:
        raise Refused(kind)
    if normal == "composite" and form != "assert":
        members = entry.get("assertions", entry.get("assert", entry.get("evaluators")))
        return _graders(_list(members), form, criteria)
    keys = ("value", "criteria", "rubrics")
    if normal == "g-eval":
        keys = ("rubric_item", "rubricItem", "rubrics", "criteria", "value")
    source = next((entry[k] for k in keys if entry.get(k) is not None), None)
    if normal in ("llm-rubric", "agent-rubric"):
        if form == "assertions" and normal == "llm-rubric":  # v4: always free-form
            return [("continuous", 1)]
        if source is None:
            return [("continuous", 1)] if entry.get("prompt") is not None else []
        if isinstance(source, str):
            ranged = "score_ranges" in entry
            return [("analytic", 1)] if ranged else [("continuous", 1)]
        return [_rubric(source, form)]
    if normal in ("rubric", "rubrics", "g-eval", "llm-grader", "llm-judge"):
        if source is None:
            free = normal in ("llm-grader", "llm-judge") and (form != "assert" or criteria)
            return [("continuous", 1)] if free or entry.get("prompt") is not None else []
        if isinstance(source, str):
            return [("analytic" if "score_ranges" in entry else "checklist", 1)]
        return [_rubric(source, form)]
    return []


def _rubric(items: Any, form: str) -> Grader:
    listed = items if isinstance(items, list) else [items]
    kept = [i for i in listed if (isinstance(i, str) and i.strip() and form != "evalcases")
            or isinstance(i, dict)]  # fmt: skip
    ranged = any(isinstance(i, dict) and i.get("score_ranges") is not None for i in kept)
    return ("analytic" if ranged else "checklist", len(kept))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def loaded_graders(rubric: Any) -> list[Grader]:
    """rubricate's graders of one loaded rubric in the same terms."""
    found = []
    for grader in rubric.graders:
        free = getattr(grader, "continuous", False)  # older rubricate versions lack it
        kind = "continuous" if free else "analytic" if grader.analytic else "checklist"
        found.append((kind, len(grader.criteria)))
    return found
