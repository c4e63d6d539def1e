"""What the bot answers to a comment's commands: the texts, the reply comment and the help (pure).

A reply answers every command of one comment; whatever it echoes, it stays under GitHub's
65,536-character body limit. The help is generated from the command table; the `/rubric`
reply is `rubricate.rubric.describe.describe_markdown`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rubricate.bot import command_table
from rubricate.bot.command_table import Role
from rubricate.bot.commands import CommandMistake, ParsedCommand
from rubricate.bot.markdown import block, capped, code, number, score_text, table
from rubricate.rubric.model import TOLERANCE, Rubric, ScoreResult

REPLY_LIMIT = 60_000
"""A reply comment stays under GitHub's 65,536-character body limit, whatever it echoes."""
REFUSAL_LIMIT = 2_000
"""A refusal or mistake echoes user text (names, arguments, reasons): at most this much."""
_MOMENTS = {"open": "while open", "merged": "after merge", "any": "any time"}

REPLY = {
    "no_version": (
        "rubricate has not recorded a version of this pull request yet; it records one when the "
        "pull request is opened, reopened, marked ready for review or pushed to"
    ),
    "closed": "the pull request is closed",
    "merged": "the pull request is already merged; after a merge only `/rate` and `/dispute` apply",
    "not_merged": "`{command}` is accepted only after the pull request is merged",
    "missing": (
        "every criterion must be scored before an approval; missing: {missing}. "
        "For example: `{example}`"
    ),
    "approval_fails": (
        "the approval of v{version} is recorded, but it fails the rubric: {why}. The "
        "`rubricate/approval` status is red; a maintainer can turn it green with "
        "`/override <reason>` (a reason of at least {min_reason} characters)."
    ),
    "nothing_to_override": "there is no approval of v{version} to override; `/approve` it first",
    "already_passes": "the approval of v{version} already passes; there is nothing to override",
    "already_overridden": "the approval of v{version} was already overridden by {actor}",
    "stale_review": (
        "this review is of commit {commit}, which is not a head of the current version v{version}: "
        "a new version was pushed. Please re-check v{version} and review again"
    ),
    "unrecorded_review": (
        "this review is of commit {commit}, the pull request's head, which rubricate has not "
        "recorded as a version yet (the run for that push has not finished); nothing was "
        "applied. Re-run this job once that run is done, or review again"
    ),
    "unknown_review": (
        "this review is of commit {commit}, which rubricate has not seen as a head of this pull "
        "request; please review its current head"
    ),
    "role_unread": (
        "rubricate could not read your role ({why}), so `{command}` was not applied; re-run "
        "this job to try again"
    ),
    "stale_comment": (
        "a new version, v{version}, was pushed after this comment was written. Please re-check "
        "v{version} and comment again"
    ),
}

REPLY_HEADER = "@{actor} rubricate could not apply {count}:"
REPLY_MARKER = "<!-- rubricate:reply {prefix} -->"
REPLY_INFO_HEADER = "@{actor}"
FAIL_TOTAL = "the weighted total {total} is below {bar}"
FAIL_BEST = "even top scores for the missing criteria reach only {total}, below {bar}"
ALREADY_FAILS = " Whatever the missing scores, it already fails the rubric: {why}."
FAIL_CRITERIA = "below the bar: {criteria}"
HELP_INTRO = (
    "rubricate reads commands at the start of a line in a pull-request comment or review. "
    "Code blocks, quotes and HTML comments are skipped. Criterion ids accept unique prefixes "
    "(`spec=4`)."
)


@dataclass(frozen=True)
class Reply:
    """One answer to one command: a refusal or mistake, or information asked for."""

    command: ParsedCommand | CommandMistake
    text: str
    refused: bool
    retry: bool = False
    """True when a re-run of the job may apply the command: its comment is not marked answered."""
    undecided: bool = False
    """True when the run could not decide (the role could not be read): the run fails."""


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
    if result.missing and bar is not None and total is not None and total < bar - TOLERANCE:
        reasons.append(FAIL_BEST.format(total=number(total), bar=number(bar)))
    elif bar is not None and total is not None and total < bar - TOLERANCE:
        reasons.append(FAIL_TOTAL.format(total=number(total), bar=number(bar)))
    if result.failed:
        scored = {c.id: c.score for c in result.criteria}
        failed = ", ".join(f"{code(cid)} ({score_text(scored[cid])})" for cid in result.failed)
        reasons.append(FAIL_CRITERIA.format(criteria=failed))
    return "; ".join(reasons) or "the rubric's pass rule is not met"
