"""Which AgentV form an eval file uses, told from its top-level keys alone (pure: no I/O).

Kept apart from the AgentV loaders (`agentv.py` and the modules it uses), so that telling a file's
form loads none of them.
"""

from __future__ import annotations

from typing import Any, Literal

from rubricate.rubric.model import Dialect

Form = Literal["assert", "assertions", "evalcases"]
FORM_NAMES: dict[Form, str] = {
    "assert": "AgentV assert (current)",
    "assertions": "AgentV assertions (v4)",
    "evalcases": "AgentV evalcases",
}
DIALECT_OF_FORM: dict[Form, Dialect] = {
    "assert": "agentv-assert",
    "assertions": "agentv-assertions",
    "evalcases": "agentv-evaluator",
}
FORM_OF_DIALECT: dict[str, Form] = {d: f for f, d in DIALECT_OF_FORM.items()}
MARKERS = (
    "tests",
    "assert",
    "default_test",
    "assertions",
    "evalcases",
    "eval_cases",
    "rubrics",
    "evaluators",
)


def form_name(dialect: str) -> str:
    """`AgentV assert (current)` and the like, for an AgentV dialect."""
    form = FORM_OF_DIALECT.get(dialect)
    return FORM_NAMES[form] if form else dialect


def detect_form(data: dict[Any, Any]) -> Form | None:
    """The AgentV form of a file's top-level mapping, or None when it is not AgentV."""
    if "evalcases" in data or "eval_cases" in data:
        return "evalcases"
    if "assertions" in data or _tests_use(data, "assertions", "rubrics", "evaluators"):
        return "assertions"
    if any(key in data for key in ("tests", "assert", "default_test")):
        return "assert"
    execution = data.get("execution")
    if "rubrics" in data or "evaluators" in data:
        return "evalcases"
    if isinstance(execution, dict) and "evaluators" in execution:
        return "evalcases"
    if isinstance(execution, dict) and "assertions" in execution:
        return "assertions"
    return None


def _tests_use(data: dict[Any, Any], *keys: str) -> bool:
    tests = data.get("tests")
    if not isinstance(tests, list):
        return False
    return any(isinstance(t, dict) and any(k in t for k in keys) for t in tests)
