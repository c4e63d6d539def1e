"""The AgentV dialects: detect the form of an eval file and load one rubric per test (pure: no I/O).

Three forms, each with the rules of the AgentV version that used it (EntityProcess/agentv,
paths under `packages/core/src/evaluation/`):

- `agentv-assert`, AgentV's current syntax (`tests[].assert`, `default_test.assert`; 58f316c);
- `agentv-assertions`, v4 (`assertions:`; v4.42.4);
- `agentv-evaluator`, v2 and earlier (`evalcases[]` with `rubrics:` and
  `execution.evaluators`; v2.5.8). There, a case's own evaluators replace the file's
  (v2 `loaders/evaluator-parser.ts` 27-33), its inline `rubrics:` come first as one grader
  (v2 `yaml-parser.ts` 224-231), and a score from 0.6 to 0.8 is `borderline`
  (v2 `evaluators/scoring.ts` 3-11).

Referenced files are read only through the `read` function the caller gives.
"""

from __future__ import annotations

from typing import Any

from rubricate.rubric.agentv.criteria import CriterionDraft
from rubricate.rubric.agentv.draft import Context, GraderDraft
from rubricate.rubric.agentv.forms import DIALECT_OF_FORM, Form
from rubricate.rubric.agentv.graders import inline_grader, parse_graders
from rubricate.rubric.agentv.refs import ReadFile, References
from rubricate.rubric.agentv.rubric import CaseDraft, build_cases
from rubricate.rubric.agentv.templates import Env, render_env
from rubricate.rubric.agentv.tests import test_cases
from rubricate.rubric.build import Draft, Identity
from rubricate.rubric.located import Located
from rubricate.rubric.model import Rubric
from rubricate.yamlsource import Problems


def agentv_rubrics(
    form: Form,
    root: Located,
    identity: Identity,
    read: ReadFile | None,
    env: Env | None = None,
) -> tuple[list[Rubric], list[Problems]]:
    """The rubrics of each test, and the problems of every file that was read; `env` holds
    the values of the `{{ env.X }}` names the config allows."""
    refs = References(identity.source, read, env=env)
    root = render_env(root, env)
    ctx = Context(form, refs)
    cases = test_cases(root, ctx) if form != "evalcases" else _evalcases(root, ctx)
    referenced = any(p.errors for p in refs.sources)
    rubrics = build_cases(DIALECT_OF_FORM[form], identity, cases, root.problems, referenced)
    return rubrics, refs.sources


def _evalcases(root: Located, ctx: Context) -> list[CaseDraft]:
    data = root.value
    shared = _file_evaluators(root)
    key = "evalcases" if "evalcases" in data else "eval_cases"
    if key not in data:
        case = CaseDraft(None, root)
        case.graders = _shared_graders(root, shared, ctx, case)
        return [case]
    cases_at = root.child(key)
    if not isinstance(cases_at.value, list):
        cases_at.error(f"{key} should be a list of eval cases")
        return []
    cases = []
    for item in cases_at.items():
        made = _evalcase(item, shared, root, ctx)
        if made is not None:
            cases.append(made)
    return cases


def _file_evaluators(root: Located) -> Located | None:
    execution = root.value.get("execution")
    if isinstance(execution, dict) and "evaluators" in execution:
        return root.child("execution").child("evaluators")
    if "evaluators" in root.value:
        return root.child("evaluators")
    return None


def _shared_graders(
    root: Located, evaluators: Located | None, ctx: Context, case: CaseDraft
) -> list[Any]:
    local = Context(ctx.form, ctx.refs, criteria_text=ctx.criteria_text)
    graders = []
    if "rubrics" in root.value:
        graders += inline_grader(root.child("rubrics"), local)
    if evaluators is not None:
        graders += parse_graders(evaluators, local)
    case.left_out += local.left_out
    return graders


def _evalcase(
    item: Located, shared: Located | None, root: Located, ctx: Context
) -> CaseDraft | None:
    data = item.value
    if not isinstance(data, dict):
        item.error("an eval case should be a mapping")
        return None
    case_id = data.get("id")
    if not isinstance(case_id, (str, int)) or isinstance(case_id, bool):
        item.warn("an eval case without an `id` is skipped, as AgentV skips it")
        return None
    case = CaseDraft(str(case_id), item)
    outcome = next(
        (data[k] for k in ("expected_outcome", "outcome") if isinstance(data.get(k), str)), None
    )
    local = Context(ctx.form, ctx.refs, criteria_text=outcome)
    if "rubrics" in data:
        case.graders += inline_grader(item.child("rubrics"), local)
    own = _case_evaluators(item)
    if own is not None:
        case.graders += parse_graders(own, local)
    else:
        case.graders += _shared_graders(root, shared, local, case)
    if not case.graders and not case.left_out and not local.left_out and outcome:
        # v2 `yaml-parser.ts` 122, 214: no evaluators means the default llm_judge, which
        # judges the case's `expected_outcome` free-form: one continuous 0-1 score
        # (Feb 4ba4353 `evaluators/llm-judge.ts` 99-100, 156-170: `clampScore`, `scoreToVerdict`).
        key = "expected_outcome" if "expected_outcome" in data else "outcome"
        where = item.child(key)
        grader = GraderDraft("llm_judge", "llm-judge", where, continuous=True)
        draft = Draft(where.loc, outcome.strip())
        grader.criteria = [CriterionDraft(draft, where, 1)]
        case.graders.append(grader)
    case.left_out += local.left_out
    return case


def _case_evaluators(item: Located) -> Located | None:
    execution = item.value.get("execution")
    if isinstance(execution, dict) and execution.get("evaluators") is not None:
        return item.child("execution").child("evaluators")
    if item.value.get("evaluators") is not None:
        return item.child("evaluators")
    return None
