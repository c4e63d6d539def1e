"""The slash-command grammar, and who may run which command (pure: text and roles in).

The grammar and the roles are DESIGN.md §5 ("Command grammar", "Authorization"); the commands,
their arguments and default roles are `rubricate.bot.command_table`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from rubricate.bot.command_table import (
    MIN_REASON,
    ROLE_ORDER,
    Role,
    command,
    display_name,
    typed_names,
)
from rubricate.bot.markdown import code
from rubricate.bot.visible import COMMAND_LINE, command_lines
from rubricate.errors import ScoreError
from rubricate.ledger.event import same_login
from rubricate.rubric import scoring
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.score_args import read_value
from rubricate.rubric.scoring import resolve_criterion_id
from rubricate.suggest import did_you_mean

MAX_COMMANDS = 10


@dataclass(frozen=True)
class ParsedCommand:
    """A well-formed command; `index` numbers it among the comment's command attempts."""

    name: str
    index: int
    line: int
    raw: str
    scores: tuple[tuple[str, ScoreValue], ...] = ()
    text: str = ""
    rating: int | None = None


@dataclass(frozen=True)
class CommandMistake:
    """A command attempt that cannot be parsed, with the reason to reply."""

    name: str
    index: int
    line: int
    raw: str
    message: str


ParseResult = ParsedCommand | CommandMistake
_PAIR = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.:-]*)=(\S+)$")
_NOTE_SEPARATOR = re.compile(r"(?:^|\s)--(?:\s|$)")
_TAG = re.compile(r"<[^<>]*>")
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e")
"""Characters Unicode calls letters (or symbols) that render as nothing."""
MIN_REASON_WORDS = 3


def parse_commands(body: str) -> list[ParseResult]:
    """Every command attempt in a comment body, in order; never raises.

    Commands are read on the lines a reader sees (`rubricate.bot.visible.command_lines`). Only a
    `/word` token followed by a space or the end of the line is a command attempt. Free text
    (`/revise`, `/override`, `/dispute`) runs to the next command line; an override reason
    counts only visible characters. Echoed tokens go in code spans (`markdown.code`).
    """
    lines = command_lines(body)
    found: list[ParseResult] = []
    for position, (line_no, text) in enumerate(lines):
        match = COMMAND_LINE.match(text)
        if match is None:
            continue
        index = len(found)
        if index == MAX_COMMANDS:
            found.append(CommandMistake("", index, line_no, text.strip(), _TOO_MANY))
            break
        rest = (match.group(2) or "").strip()
        following = _continuation(lines[position + 1 :])
        found.append(
            _parse_one(match.group(1).lower(), rest, following, index, line_no, text.strip())
        )
    return found


_TOO_MANY = f"too many commands in one comment; at most {MAX_COMMANDS} are read"


def _continuation(lines: list[tuple[int, str]]) -> str:
    """The prose lines after a command, up to the next command attempt."""
    taken: list[str] = []
    for _, text in lines:
        if COMMAND_LINE.match(text):
            break
        taken.append(text.rstrip())
    return "\n".join(taken).strip()


def _parse_one(
    typed: str, rest: str, following: str, index: int, line: int, raw: str
) -> ParseResult:
    names = typed_names()
    spec = command(names.get(typed, ""))
    if spec is None:
        hint = did_you_mean(typed, names)
        message = f"unknown command {code('/' + typed)}{hint}; see `/rubricate help`"
        return CommandMistake(typed, index, line, raw, message)
    name = spec.name
    parsed = _ARG_PARSERS[spec.args](rest, following)
    if isinstance(parsed, str):
        return CommandMistake(name, index, line, raw, f"{spec.usage}: {parsed}")
    scores, text, rating = parsed
    return ParsedCommand(name, index, line, raw, scores, text, rating)


_Args = tuple[tuple[tuple[str, ScoreValue], ...], str, int | None]


def _args_scores_note(rest: str, following: str) -> _Args | str:
    head, *tail = _NOTE_SEPARATOR.split(rest, maxsplit=1)
    note = tail[0] if tail else ""
    scores = _parse_pairs(head.split())
    if isinstance(scores, str):
        return scores
    if not scores:
        return "give at least one ID=N"
    return scores, note.strip(), None


def _args_scores(rest: str, following: str) -> _Args | str:
    scores = _parse_pairs(rest.split())
    return scores if isinstance(scores, str) else (scores, "", None)


def _args_text(rest: str, following: str) -> _Args | str:
    text = "\n".join(part for part in (rest, following) if part).strip()
    return ((), text, None) if text else "the text is required"


def _args_reason(rest: str, following: str) -> _Args | str:
    text = "\n".join(part for part in (rest, following) if part).strip()
    length, words = visible_length(text), readable_words(text)
    if length < MIN_REASON or words < MIN_REASON_WORDS:
        return (
            f"the reason has {length} visible characters in {words} words; at least "
            f"{MIN_REASON} are needed, in {MIN_REASON_WORDS} words or more (letters or digits "
            f"count, markup and blank characters do not: {max(0, MIN_REASON - length)} missing)"
        )
    return (), text, None


def visible_length(text: str) -> int:
    """The letters and digits a reader sees: markup, spaces, punctuation, symbols, zero-width
    and blank-looking characters (Hangul fillers, the blank Braille pattern) do not count."""
    return sum(_readable(char) for char in _TAG.sub("", text))


def readable_words(text: str) -> int:
    """Words of at least two letters or digits, after markup is stripped."""
    return sum(sum(_readable(c) for c in word) >= 2 for word in _TAG.sub(" ", text).split())


def _readable(char: str) -> bool:
    return unicodedata.category(char)[0] in "LN" and char not in _BLANK_LETTERS


def _args_rating(rest: str, following: str) -> _Args | str:
    first, *tail = rest.split(maxsplit=1) or [""]
    note = tail[0] if tail else ""
    if first not in {"1", "2", "3", "4", "5"}:
        shown = code(first) if first else "nothing"
        return f"the rating must be a whole number from 1 to 5, not {shown}"
    return (), note.strip(), int(first)


def _args_none(rest: str, following: str) -> _Args | str:
    return "it takes no arguments" if rest else ((), "", None)


def _args_help(rest: str, following: str) -> _Args | str:
    return ((), "", None) if rest.lower() in ("", "help") else "the only argument is `help`"


_ARG_PARSERS = {
    "scores_note": _args_scores_note,
    "scores": _args_scores,
    "text": _args_text,
    "reason": _args_reason,
    "rating": _args_rating,
    "none": _args_none,
    "help": _args_help,
}


def _parse_pairs(tokens: list[str]) -> tuple[tuple[str, ScoreValue], ...] | str:
    pairs: list[tuple[str, ScoreValue]] = []
    seen: set[str] = set()
    for token in tokens:
        match = _PAIR.match(token)
        if match is None:
            return f"{code(token)} is not ID=N"
        key, value_text = match.group(1), match.group(2)
        value = parse_value(value_text)
        if isinstance(value, str):
            return f"{code(token)}: {value}"
        if key.lower() in seen:
            return f"{code(key)} is given twice"
        seen.add(key.lower())
        pairs.append((key, value))
    return tuple(pairs)


def resolve_scores(
    rubric: Rubric, pairs: tuple[tuple[str, ScoreValue], ...]
) -> dict[str, ScoreValue] | str:
    """Criterion prefixes resolved and values checked, or the first problem."""
    resolved: dict[str, ScoreValue] = {}
    for prefix, value in pairs:
        try:
            cid = resolve_criterion_id(rubric, prefix)
            checked = scoring.check(rubric, cid, value)
        except ScoreError as exc:
            return str(exc)
        if cid in resolved:
            return f"`{cid}` is given twice"
        resolved[cid] = checked
    return resolved


def parse_value(text: str) -> ScoreValue | str:
    """A typed score value (number, true/false, null), or the reason it is not one."""
    try:
        return read_value(text)
    except ScoreError:
        return f"{code(text)} is not a number, true/false or null"


@dataclass(frozen=True)
class Decision:
    """Whether a command may run, and why (the reason is shown to the actor when refused)."""

    allowed: bool
    reason: str
    for_role: bool = False
    """True when only the role refused it (the command and the author rule allow it)."""


def role_rank(role: str) -> int:
    """The position of a role in the order; unknown roles rank as `none`."""
    return ROLE_ORDER.index(role) if role in ROLE_ORDER else 0


def known_role(role: str) -> Role:
    """The role itself when it is one of the ordered roles, else `none`."""
    return ROLE_ORDER[role_rank(role)]


def authorize(
    command_name: str, actor: str, actor_role: str, pr_author: str, roles: Mapping[str, Role]
) -> Decision:
    """Decide whether `actor` (with `actor_role`) may run a command on a PR by `pr_author`.

    `actor_role` is the one the shell read on the collaborator-permission endpoint (never
    `author_association`); bots are ignored before this is asked.
    """
    shown = display_name(command_name)
    spec = command(command_name)
    if spec is None:
        return Decision(False, f"`{shown}` is not a rubricate command")
    if not spec.by_author and same_login(actor, pr_author):
        return Decision(False, f"the author of a pull request cannot use `{shown}` on it")
    needed = roles.get(command_name, spec.role)
    if role_rank(actor_role) < role_rank(needed):
        have = known_role(actor_role)
        reason = f"`{shown}` needs the {needed} role or higher; you have {have}"
        return Decision(False, reason, for_role=True)
    return Decision(True, "allowed")
