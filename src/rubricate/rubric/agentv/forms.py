"""Which AgentV form an eval file uses, told from its top-level keys alone, and the shape of
each form's file for validation and the JSON Schema (pure: no I/O).

Kept apart from the AgentV loaders (`agentv.py` and the modules it uses), so that telling a file's
form loads none of them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Tag

from rubricate.rubric.files import (
    TAG_MAPPING,
    TAG_TEXT,
    AgentVItem,
    AxesFile,
    MinScore,
    NativeFile,
    RubricHeader,
    Strict,
    shapes,
)
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


class _Open(BaseModel):
    model_config = ConfigDict(
        extra="allow", strict=True, frozen=True, populate_by_name=True, defer_build=True
    )


Threshold = Annotated[
    float, Field(ge=0, le=1, allow_inf_nan=False, description="The passing test score, 0-1.")
]


class RubricGrader(_Open):
    """An AgentV assertion; `llm-rubric`/`agent-rubric` carry criteria, others are not rubrics."""

    type: str = Field(description="`llm-rubric` or `agent-rubric` for rubric criteria.")
    metric: str | None = Field(default=None, description="The grader's name.")
    value: Any = Field(
        default=None,
        description="The criteria: a list of strings and criterion objects, or a text.",
    )
    criteria: list[AgentVItem] | None = None
    weight: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    required: bool | None = Field(default=None, description="A low score fails the whole test.")
    min_score: MinScore | None = None
    negate: bool | None = None


class IncludeEntry(Strict):
    """`include: NAME` splices the `assert:` list of `.agentv/templates/NAME.yaml` (or a path)."""

    include: str


AssertEntry = Annotated[
    Annotated[str, Tag(TAG_TEXT)] | Annotated[RubricGrader | IncludeEntry, Tag(TAG_MAPPING)],
    shapes("assertion"),
]


class TestExecution(_Open):
    """A test's `execution:` block."""

    threshold: Threshold | None = None
    skip_defaults: bool | None = Field(default=None, description="Leave out the file's defaults.")


class AssertTest(_Open):
    """An AgentV test: its own `assert:` graders run first, then the file's defaults."""

    id: str | int
    assert_: list[AssertEntry] | None = Field(default=None, alias="assert")
    criteria: str | None = Field(default=None, description="Alone, the one required criterion.")
    execution: TestExecution | None = None


class DefaultTest(_Open):
    """AgentV's `default_test:` block."""

    assert_: list[AssertEntry] | None = Field(default=None, alias="assert")
    threshold: Threshold | None = None


class AssertFile(_Open, RubricHeader):
    """An AgentV eval file in the current form: `tests[].assert`, `default_test`, `assert`."""

    model_config = ConfigDict(
        title="AgentV assert",
        json_schema_extra={
            "anyOf": [{"required": [key]} for key in ("tests", "assert", "default_test")]
        },
    )
    assert_: list[AssertEntry] | None = Field(default=None, alias="assert")
    default_test: DefaultTest | str | None = None
    tests: list[AssertTest | str] | str | None = None
    threshold: Threshold | None = None


class RubricsAssertion(_Open):
    """An AgentV assertion; `type: rubrics` carries criteria, other types are ignored."""

    type: str
    criteria: list[AgentVItem] | None = None


AssertionItem = Annotated[
    Annotated[str, Tag(TAG_TEXT)] | Annotated[RubricsAssertion, Tag(TAG_MAPPING)],
    shapes("assertion"),
]


class AgentVTest(_Open):
    """An AgentV test: its own assertions are added after the file-level ones."""

    id: str
    assertions: list[AssertionItem] | None = None


class AssertionsFile(_Open, RubricHeader):
    """An AgentV file with `assertions:` at the top level or in `tests[]`."""

    model_config = ConfigDict(
        title="AgentV assertions",
        json_schema_extra={"anyOf": [{"required": ["assertions"]}, {"required": ["tests"]}]},
    )
    assertions: list[AssertionItem] | None = None
    tests: list[AgentVTest] | None = None


class Evaluator(_Open):
    """An AgentV evaluator; `type: rubric` carries rubrics, other types are ignored."""

    type: str
    rubrics: list[AgentVItem] | None = None


class Execution(_Open):
    """AgentV's `execution:` block."""

    evaluators: list[Evaluator] | None = None


class EvalCase(_Open):
    """An AgentV eval case: its own rubrics are added after the file-level ones."""

    id: str
    rubrics: list[AgentVItem] | None = None
    execution: Execution | None = None


class EvaluatorFile(_Open, RubricHeader):
    """An AgentV evaluator file: `rubrics:` lists, file-level and per `evalcases[]`."""

    model_config = ConfigDict(
        title="AgentV rubric evaluator",
        json_schema_extra={
            "anyOf": [
                {"required": [key]} for key in ("execution", "evaluators", "rubrics", "evalcases")
            ]
        },
    )
    execution: Execution | None = None
    evaluators: list[Evaluator] | None = None
    rubrics: list[AgentVItem] | None = None
    evalcases: list[EvalCase] | None = None


RubricFile = NativeFile | AxesFile | AssertFile | AssertionsFile | EvaluatorFile
