"""AgentV `tests:` files, current (`assert:`) and v4 (`assertions:`) forms (pure: no I/O).

Citations: EntityProcess/agentv at 58f316c (head) and v4.42.4 (v4), under
`packages/core/src/evaluation/`.

- A test's graders come first, then the file's defaults: `default_test.assert` and top-level
  `assert` (head `yaml-parser.ts` 672-690, 1534-1537; `loaders/grader-parser.ts` 234-287), or
  top-level `assertions`/`execution.assertions` in v4 (v4 `yaml-parser.ts` 457-466,
  `grader-parser.ts` 54-103). `execution.skip_defaults: true` drops the defaults.
- A test with only `criteria:` (v4 also `expected_outcome:`) gets it as its one plain-string
  criterion (head `yaml-parser.ts` 1649-1656).
- The threshold is the test's `execution.threshold`, else `default_test.threshold`, else the
  top-level `threshold`, each a number in [0, 1] (head `yaml-parser.ts` 1584-1590,
  `loaders/config-loader.ts` 743-780, `apps/cli/src/commands/eval/run-eval.ts` 1416).
- A test's `vars` are rendered into its own fields first (see `templates`).
- `tests: file://cases.yaml` (or a plain path; also as list entries) reads the cases from a YAML
  list or a JSONL file (head `yaml-parser.ts` 2550-2600, `loaders/case-file-loader.ts` 556-600).
"""

from __future__ import annotations

from typing import Any

from rubricate.rubric.agentv.draft import Context, GraderDraft
from rubricate.rubric.agentv.forms import Form
from rubricate.rubric.agentv.graders import inline_grader, parse_graders
from rubricate.rubric.agentv.refs import RefError
from rubricate.rubric.agentv.rubric import DEFAULT_THRESHOLD, CaseDraft
from rubricate.rubric.agentv.templates import render_case
from rubricate.rubric.located import Located, describe_value


def test_cases(root: Located, ctx: Context) -> list[CaseDraft]:
    """One draft per test (or one for the file when it has no `tests:`)."""
    defaults = _default_lists(root, ctx.form)
    file_threshold = _file_threshold(root)
    if "tests" not in root.value:
        case = CaseDraft(None, root, threshold=file_threshold)
        case.graders = _graders(defaults, ctx, case)
        return [case]
    cases = []
    for test in _tests(root.child("tests"), ctx):
        cases.append(_case(test, defaults, file_threshold, ctx))
    return [c for c in cases if c is not None]


def _default_lists(root: Located, form: Form) -> list[Located]:
    data = root.value
    lists = []
    if form == "assert":
        default_test = data.get("default_test")
        if isinstance(default_test, dict) and "assert" in default_test:
            lists.append(root.child("default_test").child("assert"))
        elif isinstance(default_test, str):
            root.warn(
                "a `default_test:` file reference is not followed", "default_test", at_key=True
            )
        if "assert" in data:
            lists.append(root.child("assert"))
        return lists
    key = "assertions" if "assertions" in data else "assert" if "assert" in data else None
    if key is not None:
        return [root.child(key)]
    execution = data.get("execution")
    if isinstance(execution, dict):
        key = next((k for k in ("assertions", "assert", "evaluators") if k in execution), None)
        if key is not None:
            return [root.child("execution").child(key)]
    return []


def _file_threshold(root: Located) -> float:
    data = root.value
    candidates = [
        (("default_test", "threshold"), _get(data, "default_test", "threshold")),
        (("threshold",), data.get("threshold")),
        (("execution", "threshold"), _get(data, "execution", "threshold")),
    ]
    for key, value in candidates:
        if value is not None:
            checked = _threshold(root, key, value)
            if checked is not None:
                return checked
    return DEFAULT_THRESHOLD


def _get(data: dict[str, Any], outer: str, inner: str) -> Any:
    block = data.get(outer)
    return block.get(inner) if isinstance(block, dict) else None


def _threshold(where: Located, key: tuple[str, ...], value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    where.warn(f"threshold should be a number from 0 to 1, got {value!r}; AgentV ignores it", *key)
    return None


def _tests(tests: Located, ctx: Context) -> list[Located]:
    if isinstance(tests.value, str):
        return _case_file(tests, tests.value, ctx)
    if not isinstance(tests.value, list):
        got = describe_value(tests.value)
        tests.error(f"tests should be a list of tests or a file reference, got {got}")
        return []
    found = []
    for entry in tests.items():
        value = entry.value
        if isinstance(value, str):
            found += _case_file(entry, value, ctx)
        elif (
            isinstance(value, dict) and isinstance(value.get("include"), str) and "id" not in value
        ):
            found += _case_file(entry.child("include"), value["include"], ctx)
        else:
            found.append(entry)
    return found


def _case_file(where: Located, ref: str, ctx: Context) -> list[Located]:
    if ref.strip().endswith((".eval.yaml", ".eval.yml")):
        where.warn(f"{ref!r} imports another eval suite; validate that file on its own")
        return []
    if not ref.strip().endswith((".yaml", ".yml", ".jsonl", ".json")):
        where.warn(
            f"{ref!r}: only YAML, JSON and JSONL case files are read; its tests are left out"
        )
        return []
    try:
        path = ctx.refs.resolve(where.problems.locator.path, ref)
        loaded = ctx.refs.load(path)
    except RefError as exc:
        where.error(f"tests file {ref!r}: {exc}")
        return []
    if isinstance(loaded.value, dict) and isinstance(loaded.value.get("tests"), list):
        loaded = loaded.child("tests")
    if not isinstance(loaded.value, list):
        where.error(
            f"tests file {path} should hold a list of tests, got {describe_value(loaded.value)}"
        )
        return []
    return loaded.items()


def _case(
    test: Located, defaults: list[Located], file_threshold: float, ctx: Context
) -> CaseDraft | None:
    if not isinstance(test.value, dict):
        test.error(f"a test should be a mapping, got {describe_value(test.value)}")
        return None
    test = render_case(test)
    data = test.value
    test_id = data.get("id")
    if not isinstance(test_id, (str, int)) or isinstance(test_id, bool):
        test.warn("a test without an `id` is skipped, as AgentV skips it")
        return None
    block = data.get("execution")
    execution: dict[str, Any] = block if isinstance(block, dict) else {}
    threshold = file_threshold
    if "threshold" in execution:
        checked = _threshold(test, ("execution", "threshold"), execution["threshold"])
        threshold = threshold if checked is None else checked
    case = CaseDraft(str(test_id), test, threshold=threshold)
    own = _own_list(test, ctx.form)
    skip = execution.get("skip_defaults") is True
    shared = [] if skip else defaults
    if own is None and not shared:
        own = _criteria_only(test)
    lists = ([own] if own is not None else []) + shared
    if "rubrics" in data:
        case.graders += inline_grader(test.child("rubrics"), ctx.fresh())
    case.graders += _graders(lists, ctx, case)
    return case


def _own_list(test: Located, form: Form) -> Located | None:
    data = test.value
    keys = ("assert", "assertions") if form == "assert" else ("assertions", "assert", "evaluators")
    for key in keys:
        if key in data:
            return test.child(key)
    execution = data.get("execution")
    if isinstance(execution, dict):
        inner = ("assert",) if form == "assert" else ("evaluators",)
        for key in inner:
            if key in execution:
                return test.child("execution").child(key)
    return None


def _criteria_only(test: Located) -> Located | None:
    for key in ("criteria", "expected_outcome"):
        value = test.value.get(key)
        if isinstance(value, str) and value.strip():
            return Located([value], (*test.loc, key), test.problems)
    return None


def _graders(lists: list[Located], ctx: Context, case: CaseDraft) -> list[GraderDraft]:
    text = case.where.value.get("criteria") if isinstance(case.where.value, dict) else None
    local = ctx.fresh(text if isinstance(text, str) else None)
    graders: list[GraderDraft] = []
    for entries in lists:
        graders += parse_graders(_as_list(entries), local)
    case.left_out += local.left_out
    return graders


def _as_list(entries: Located) -> Located:
    """A criteria-only test's text, as a one-item list located at that text."""
    if (
        isinstance(entries.value, list)
        and entries.loc
        and entries.loc[-1] in ("criteria", "expected_outcome")
    ):
        return OneText(entries.value, entries.loc, entries.problems)
    return entries


class OneText(Located):
    """A one-item list whose item is located at the list itself."""

    def child(self, key: Any) -> Located:
        return Located(self.value[key], self.loc, self.problems)
