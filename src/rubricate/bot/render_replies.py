"""Replies to commands, the help, the `/rubric` view and the check run (pure: text out).

The help is generated from the command definitions; the `/rubric` reply is
`rubricate.rubric.describe.describe_markdown`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rubricate.bot import command_table
from rubricate.bot.markdown import block, code, number, score_text, table, truncate
from rubricate.bot.messages import (
    CHECK_NOTE,
    FAIL_BEST,
    FAIL_CRITERIA,
    FAIL_TOTAL,
    HELP_INTRO,
    REPLY_HEADER,
    REPLY_INFO_HEADER,
)
from rubricate.bot.render import criteria_table, findings_section, gate_line
from rubricate.evidence.score_report import render_markdown

if TYPE_CHECKING:
    from rubricate.bot.commands import CommandMistake, ParsedCommand
    from rubricate.bot.jobstate import AutoScore, JobState
    from rubricate.config import Role
    from rubricate.evidence.report_model import ScoreReport
    from rubricate.rubric.model import Rubric, ScoreResult

CHECK_LIMIT = 65_535
REPLY_LIMIT = 60_000
"""A reply comment stays under GitHub's 65,536-character body limit, whatever it echoes."""
REFUSAL_LIMIT = 2_000
"""A refusal or mistake echoes user text (names, arguments, reasons): at most this much."""
TRUNCATED = "… (truncated)"
_MOMENTS = {"open": "while open", "merged": "after merge", "any": "any time"}


@dataclass(frozen=True)
class Reply:
    """One answer to one command: a refusal or mistake, or information asked for."""

    command: ParsedCommand | CommandMistake
    text: str
    refused: bool


def reply_body(actor: str, replies: Sequence[Reply]) -> str:
    """One comment answering every command of a comment that needs an answer."""
    refused = [r for r in replies if r.refused]
    parts = []
    if refused:
        count = f"{len(refused)} command" + ("s" if len(refused) > 1 else "")
        parts.append(REPLY_HEADER.format(actor=actor, count=count))
    else:
        parts.append(REPLY_INFO_HEADER.format(actor=actor))
    for reply in replies:
        quoted = block(reply.command.raw, 300)
        show_quote = reply.refused or len(replies) > 1
        text = capped(reply.text, REFUSAL_LIMIT) if reply.refused else reply.text
        parts.append(f"{quoted}\n\n{text}" if show_quote else text)
    return capped("\n\n".join(parts), REPLY_LIMIT)


def capped(text: str, limit: int) -> str:
    """`text` if it has at most `limit` characters, else its start and a truncation mark."""
    if len(text) <= limit:
        return text
    return text[: limit - len(TRUNCATED) - 1] + "\n" + TRUNCATED


def help_markdown(roles: Mapping[str, Role]) -> str:
    """The command reference, generated from the command definitions and the configured roles."""
    rows = [
        [
            code(spec.usage),
            spec.summary,
            _role_text(roles.get(spec.name, spec.role)),
            _MOMENTS[spec.moment],
        ]
        for spec in command_table.COMMANDS
    ]
    reference = table(["command", "what it does", "minimum role", "when"], rows)
    return f"{HELP_INTRO}\n\n{reference}"


def _role_text(role: str | None) -> str:
    return "anyone" if role in (None, "none") else str(role)


def fail_reasons(result: ScoreResult, rubric: Rubric) -> str:
    """Why a score fails the rubric (already decided when scores are missing), in a few words."""
    reasons = []
    bar = rubric.pass_rule.min_total
    total = result.weighted_total if not result.missing else result.best_total
    if result.missing and bar is not None and total is not None and total < bar - 1e-9:
        reasons.append(FAIL_BEST.format(total=number(total), bar=number(bar)))
    elif bar is not None and total is not None and total < bar - 1e-9:
        reasons.append(FAIL_TOTAL.format(total=number(total), bar=number(bar)))
    if result.failed:
        scored = {c.id: c.score for c in result.criteria}
        failed = ", ".join(f"{code(cid)} ({score_text(scored[cid])})" for cid in result.failed)
        reasons.append(FAIL_CRITERIA.format(criteria=failed))
    return "; ".join(reasons) or "the rubric's pass rule is not met"


def check_title(job: JobState, rubric: Rubric) -> str:
    """The check run's title: the automatic score of the current version."""
    version = job.current_version
    auto = job.auto.get(version)
    moment = "FIRST_SUBMISSION v1" if version == 1 else f"v{version} automatic score"
    if auto is None or auto.weighted_total is None:
        return f"{moment}: no automatic score"
    total = f"{number(auto.weighted_total)}/{number(rubric.scale.max)}"
    return f"{moment}: {total} · {auto.verdict} (informational)"


def check_summary(job: JobState, rubric: Rubric, report: ScoreReport | None) -> str:
    """The check run's summary: the note, the gate and the report, cut under the limit."""
    scores = render_markdown(report) if report is not None else criteria_table(job, rubric)
    parts = [CHECK_NOTE, gate_line(job, rubric), scores]
    return truncate("\n\n".join(parts), CHECK_LIMIT, "; see the job's step summary")


def check_text(auto: AutoScore | None, report: ScoreReport | None) -> str:
    """The check run's text: the recorded findings, when the summary has no report to show."""
    if report is not None:
        return ""
    return truncate(findings_section(auto), CHECK_LIMIT, "; see the job's step summary")
