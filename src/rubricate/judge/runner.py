"""Runs the judge's calls for one submission over an injected client (pure logic: no I/O).

Request criteria go first, in a call that sees no diff; an invalid reply is retried once with
its problems; a failed call becomes an error of the run, never an exception. The passages a
call reports as addressed to the reviewer are checked against the untrusted text that call was
shown (`reports.py`); a verified one flags the judgments of each call that showed its field.
`JudgeRun` is what a run produced, as cached (only a run without errors is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from rubricate.errors import PromptTooLargeError, ReplyError
from rubricate.evidence.snapshot import Snapshot
from rubricate.judge import known_answer as checks
from rubricate.judge import prompt_text
from rubricate.judge.budget import Budget, LeftOut
from rubricate.judge.calls import JudgeCallError, RawReply, Usage
from rubricate.judge.hidden import Stripped
from rubricate.judge.prompt import Prompt, build_prompt, phase_criteria
from rubricate.judge.prompt_text import Phase
from rubricate.judge.quotes import verified_quotes
from rubricate.judge.reply import CriterionJudgment, parse_reply
from rubricate.judge.reply_schema import REPORT_KEY, max_output_tokens
from rubricate.judge.reports import Report, shows_any, verify
from rubricate.rubric.model import Rubric

PHASES: tuple[Phase, ...] = ("request", "submission")
MIN_CALL_SECONDS = 1.0
ECHO_LIMIT = 6000
"""At most this much of an invalid reply is sent back with the retry."""
CACHE_FORMAT = 5


@dataclass(frozen=True)
class Shown:
    """What the judge was shown of the change."""

    files_seen: tuple[str, ...] = ()
    files_truncated: tuple[str, ...] = ()
    files_left_out: tuple[LeftOut, ...] = ()
    tokens_estimate: int = 0
    stripped: tuple[Stripped, ...] = ()
    """Hidden text removed before the judge saw it (request fields and files)."""


@dataclass(frozen=True)
class JudgeRun:
    """The result of the judge step for one submission."""

    model: str
    judgments: tuple[CriterionJudgment, ...] = ()
    not_assessed: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)
    shown: Shown = Shown()
    cached: bool = False
    prompt_version: str = prompt_text.PROMPT_VERSION
    known_answer: str = ""
    """The known-answer check: `passed`, `failed`, `not checked`, or '' when not asked for."""
    known_answer_reply: str = ""
    """What the judge answered when the check failed."""
    reports: tuple[Report, ...] = ()
    """The passages the judge reported as addressed to the reviewer, found in its input."""
    reports_ignored: int = 0
    """Reported passages not found in the input, too short to locate, or over the limits."""
    reports_malformed: int = 0
    """Reported values of another shape than a list of strings, or under a misspelled key."""

    @property
    def ok(self) -> bool:
        """True when every call succeeded and every criterion was assessed."""
        return not self.errors and not self.not_assessed

    def as_cache(self) -> dict[str, Any]:
        """The JSON stored in the cache."""
        return {
            "format": CACHE_FORMAT,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "judgments": [j.as_dict() for j in self.judgments],
            "usage": self.usage.as_dict(),
            "known_answer": [self.known_answer, self.known_answer_reply],
            "reports": [report.as_dict() for report in self.reports],
            "reports_ignored": self.reports_ignored,
            "reports_malformed": self.reports_malformed,
            "shown": {
                "files_seen": list(self.shown.files_seen),
                "files_truncated": list(self.shown.files_truncated),
                "files_left_out": [item.as_dict() for item in self.shown.files_left_out],
                "tokens_estimate": self.shown.tokens_estimate,
                "stripped": [item.as_dict() for item in self.shown.stripped],
            },
        }

    @classmethod
    def from_cache(cls, data: dict[str, Any]) -> JudgeRun:
        """A cached run, with what it originally cost (KeyError, TypeError or ValueError if
        bad); `cached` says that it cost nothing this time."""
        if (
            data.get("format") != CACHE_FORMAT
            or data.get("prompt_version") != prompt_text.PROMPT_VERSION
        ):
            raise ValueError("cache entry of another format or prompt version")
        shown = data["shown"]
        check, reply = data.get("known_answer", ["", ""])
        return cls(
            model=str(data["model"]),
            judgments=tuple(CriterionJudgment.from_dict(j) for j in data["judgments"]),
            shown=Shown(
                tuple(str(p) for p in shown["files_seen"]),
                tuple(str(p) for p in shown["files_truncated"]),
                tuple(LeftOut(str(i["path"]), str(i["reason"])) for i in shown["files_left_out"]),
                int(shown["tokens_estimate"]),
                tuple(Stripped.from_dict(i) for i in shown["stripped"]),
            ),
            usage=Usage.from_dict(data["usage"]),
            cached=True,
            known_answer=str(check),
            known_answer_reply=str(reply),
            reports=tuple(Report.from_dict(item) for item in data["reports"]),
            reports_ignored=_count(data["reports_ignored"]),
            reports_malformed=_count(data["reports_malformed"]),
        )


class JudgeClient(Protocol):
    """What the runner needs of a client (`OpenAIJudgeClient`, or a fake in tests)."""

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        schema: dict[str, Any],
        model: str,
        temperature: float,
        seed: int | None,
        *,
        max_tokens: int | None = None,
        remaining_s: float | None = None,
    ) -> RawReply: ...


class Clock(Protocol):
    """The whole step's deadline."""

    def remaining(self) -> float: ...


@dataclass(frozen=True)
class CallSettings:
    """Model and sampling options for every call of a run."""

    model: str
    temperature: float = 0.0
    seed: int | None = 0


@dataclass(frozen=True)
class _PhaseResult:
    judgments: tuple[CriterionJudgment, ...] = ()
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    reported: tuple[str, ...] = ()
    dropped: int = 0
    malformed: int = 0


def run_judge(
    client: JudgeClient,
    rubric: Rubric,
    snapshot: Snapshot,
    budget: Budget,
    call: CallSettings,
    deadline: Clock,
    new_marker: Callable[[], str],
    *,
    known_answer: bool = False,
) -> JudgeRun:
    """Judge every criterion of `rubric`, request criteria first; never raises for call faults.

    Reported passages found in the untrusted text of the call that reported them flag the
    judgments of every call that showed the same field. With `known_answer`, one known-answer
    check (`known_answer.py`) follows, over the last prompt (the one that shows the most), while
    time is left; when it fails, every judgment's input is flagged, so that no quote lifts the
    evidence cap."""
    run = JudgeRun(model=call.model)
    prompts: list[Prompt] = []
    for phase in (p for p in PHASES if phase_criteria(rubric, p)):
        ids = phase_criteria(rubric, phase)
        try:
            prompt = build_prompt(rubric, snapshot, budget, marker=new_marker(), phase=phase)
        except PromptTooLargeError as exc:
            run = _failed(run, ids, f"{phase} criteria: {exc}")
            continue
        if phase == "submission":
            run = replace(run, shown=_shown(prompt, run.shown.stripped))
        else:
            run = replace(run, shown=replace(run.shown, stripped=prompt.stripped))
        prompts.append(prompt)
    results: list[_PhaseResult] = []
    for prompt in prompts:
        result = _judge_phase(client, rubric, prompt, call, deadline, budget)
        results.append(result)
        run = replace(
            run, usage=run.usage + result.usage, judgments=run.judgments + result.judgments
        )
        if result.error is not None:
            run = _failed(run, prompt.criteria_ids, f"{prompt.phase} criteria: {result.error}")
    run = _reported(run, prompts, results)
    if known_answer and prompts:
        run = _checked(run, client, prompts[-1], call, deadline, new_marker())
    if run.known_answer == checks.FAILED:
        flagged = tuple(replace(j, input_flagged=True) for j in run.judgments)
        run = replace(run, judgments=flagged)
    return run


def _checked(
    run: JudgeRun, client: JudgeClient, prompt: Prompt, call: CallSettings, deadline: Clock,
    answer: str,
) -> JudgeRun:  # fmt: skip
    """The run with the known-answer check's verdict and cost."""
    if deadline.remaining() < MIN_CALL_SECONDS:
        return replace(run, known_answer=checks.NOT_CHECKED)
    messages = checks.check_messages(prompt.messages[-1]["content"], prompt.marker, answer)
    try:
        raw = client.complete(
            messages, checks.SCHEMA, call.model, call.temperature, call.seed,
            max_tokens=checks.MAX_TOKENS, remaining_s=deadline.remaining(),
        )  # fmt: skip
    except JudgeCallError as exc:
        usage = run.usage.plus(exc.spent, exc.mode)
        return replace(run, usage=usage, known_answer=checks.NOT_CHECKED)
    found = checks.verdict(raw.text, answer)
    reply = raw.text if found == checks.FAILED else ""
    usage = run.usage.plus(raw.spent, raw.mode)
    return replace(run, usage=usage, known_answer=found, known_answer_reply=reply)


def _judge_phase(
    client: JudgeClient,
    rubric: Rubric,
    prompt: Prompt,
    call: CallSettings,
    deadline: Clock,
    budget: Budget,
) -> _PhaseResult:
    messages = list(prompt.messages)
    usage = Usage()
    problems = ""
    limit = max_output_tokens(len(prompt.criteria_ids), budget.max_output_tokens)
    for _attempt in range(2):
        if deadline.remaining() < MIN_CALL_SECONDS:
            return _PhaseResult(error="the judge step ran out of time", usage=usage)
        try:
            raw = client.complete(
                messages, prompt.schema, call.model, call.temperature, call.seed,
                max_tokens=limit, remaining_s=deadline.remaining(),
            )  # fmt: skip
        except JudgeCallError as exc:
            usage = usage.plus(exc.spent, exc.mode)
            reason = f"max_tokens={limit}: {exc}" if exc.kind == "truncated" else str(exc)
            return _PhaseResult(error=f"the judge call failed ({exc.kind}): {reason}", usage=usage)
        usage = usage.plus(raw.spent, raw.mode)
        try:
            judgment = parse_reply(raw.text, rubric, prompt.criteria_ids, budget.open_ceiling)
        except ReplyError as exc:
            problems = str(exc)
            messages += _retry_messages(raw.text, problems, prompt.criteria_ids)
            continue
        checked = tuple(_verified(j, prompt) for j in judgment.criteria)
        return _PhaseResult(
            checked, None, usage, judgment.reported, judgment.dropped, judgment.malformed
        )
    return _PhaseResult(error=f"the reply was invalid twice: {problems}", usage=usage)


def _reported(run: JudgeRun, prompts: list[Prompt], results: list[_PhaseResult]) -> JudgeRun:
    """The run with each call's reports checked against the untrusted text that call was shown,
    and the judgments of each call that showed a field of a verified report flagged."""
    found: list[Report] = []
    ignored = 0
    for prompt, result in zip(prompts, results, strict=True):
        reports, missing = verify(result.reported, prompt.untrusted)
        found += reports
        ignored += missing + result.dropped
    reports = tuple(dict.fromkeys(found))
    flagged = {cid for p in prompts if shows_any(p.untrusted, reports) for cid in p.criteria_ids}
    judgments = tuple(
        replace(j, input_flagged=True) if j.id in flagged else j for j in run.judgments
    )
    malformed = sum(r.malformed for r in results)
    return replace(
        run,
        judgments=judgments,
        reports=reports,
        reports_ignored=ignored,
        reports_malformed=malformed,
    )


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("a count of reports must be a whole number")
    return value


def _retry_messages(reply: str, problems: str, ids: tuple[str, ...]) -> list[dict[str, str]]:
    retry = prompt_text.RETRY.format(problems=problems, report_key=REPORT_KEY, ids=", ".join(ids))
    return [
        {"role": "assistant", "content": reply[:ECHO_LIMIT]},
        {"role": "user", "content": retry},
    ]


def _verified(judgment: CriterionJudgment, prompt: Prompt) -> CriterionJudgment:
    verified = verified_quotes(judgment.evidence, prompt.evidence)
    return replace(judgment, verified=verified, input_flagged=bool(prompt.flagged))


def _failed(run: JudgeRun, ids: tuple[str, ...], error: str) -> JudgeRun:
    return replace(run, not_assessed=run.not_assessed + ids, errors=(*run.errors, error))


def _shown(prompt: Prompt, earlier: tuple[Stripped, ...]) -> Shown:
    stripped = tuple(dict.fromkeys([*earlier, *prompt.stripped]))
    return Shown(
        prompt.files_seen,
        prompt.files_truncated,
        prompt.files_left_out,
        prompt.tokens_estimate,
        stripped,
    )
