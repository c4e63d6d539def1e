"""The bot's text: user-facing messages as data, markdown helpers, and replies (pure).

All user text goes through `escape`: HTML is turned into entities, markdown punctuation is
backslash-escaped, and `@` cannot mention anyone: a zero-width space follows it (an `&#64;`
entity would not do, since GitHub decodes entities before it looks for mentions). Literals go
through `code`, a code span whose fence is longer than any backtick run in its text.

A reply answers every command of one comment; whatever it echoes, it stays under GitHub's
65,536-character body limit. The help is generated from the command definitions; the `/rubric`
reply is `rubricate.rubric.describe.describe_markdown`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rubricate.bot import command_table
from rubricate.numbers import decimal_text
from rubricate.rubric.model import TOLERANCE

if TYPE_CHECKING:
    from rubricate.bot.commands import CommandMistake, ParsedCommand
    from rubricate.config import Role
    from rubricate.rubric.model import Rubric, ScoreResult, ScoreValue

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), (":", "&#58;"))
ZERO_WIDTH_SPACE = "\u200b"
DASH = "–"
REPLY_LIMIT = 60_000
"""A reply comment stays under GitHub's 65,536-character body limit, whatever it echoes."""
REFUSAL_LIMIT = 2_000
"""A refusal or mistake echoes user text (names, arguments, reasons): at most this much."""
TRUNCATED = "… (truncated)"
_MOMENTS = {"open": "while open", "merged": "after merge", "any": "any time"}

STATUS = {
    "pending": "Waiting for a reviewer's /approve of v{version}",
    "passed": "v{version} approved: {total}, the rubric passes",
    "overridden": "v{version} approved with an override: {total} fails the rubric",
    "failed": "v{version} approval fails the rubric ({total}); a maintainer can /override <reason>",
}

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
CHECK_NOTE = (
    "The automatic score is informational: it never gates the merge. "
    "The gate is the `rubricate/approval` status, set by a reviewer's `/approve`."
)


def no_mentions(text: str) -> str:
    """Text in which `@name` cannot mention or notify anyone."""
    return text.replace("@", "@" + ZERO_WIDTH_SPACE)


def escape(text: str) -> str:
    """User text made inert in markdown and HTML (no tags, no formatting, no mentions)."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    for char, entity in _ENTITIES:
        text = text.replace(char, entity)
    return no_mentions(text)


def cell(text: str, limit: int = 200) -> str:
    """Escaped user text for one table cell: one line, `|`-safe, shortened."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return escape(flat)


def block(text: str, limit: int = 1000) -> str:
    """Escaped multi-line user text as a blockquote."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    lines = [escape(line) for line in text.splitlines() or [""]]
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def code(text: str) -> str:
    """A short literal (an id, a sha, a path, a token) in a code span its content cannot break."""
    flat = no_mentions(" ".join(text.split())) or " "
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def number(value: float | None, digits: int = 2) -> str:
    """A number for display, rounded (`3.45`, `4`), or a dash."""
    if value is None:
        return DASH
    return decimal_text(value, digits)


def score_text(value: ScoreValue, present: bool = True) -> str:
    """A criterion score for display: a number, yes/no, n/a for null, a dash when absent."""
    if not present:
        return DASH
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return number(value)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A markdown table; `align` holds one of `l`/`r` per column (left by default)."""
    marks = [("---:" if align[i : i + 1] == "r" else "---") for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def details(summary: str, body: str) -> str:
    """A folded `<details>` section."""
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def truncate(text: str, limit: int, where: str = "") -> str:
    """Text cut under `limit` characters at a line break, with a note saying so."""
    if len(text) < limit:
        return text
    note = f"\n\n_… truncated: the full report is longer than {limit:,} characters{where}._"
    cut = text[: max(0, limit - len(note) - 1)]
    line_end = cut.rfind("\n")
    if line_end > 0:
        cut = cut[:line_end]
    return cut + note


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
    if result.missing and bar is not None and total is not None and total < bar - TOLERANCE:
        reasons.append(FAIL_BEST.format(total=number(total), bar=number(bar)))
    elif bar is not None and total is not None and total < bar - TOLERANCE:
        reasons.append(FAIL_TOTAL.format(total=number(total), bar=number(bar)))
    if result.failed:
        scored = {c.id: c.score for c in result.criteria}
        failed = ", ".join(f"{code(cid)} ({score_text(scored[cid])})" for cid in result.failed)
        reasons.append(FAIL_CRITERIA.format(criteria=failed))
    return "; ".join(reasons) or "the rubric's pass rule is not met"
