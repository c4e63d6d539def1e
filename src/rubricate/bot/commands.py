"""The slash-command grammar of PR comments and review bodies (pure: text in, commands out).

A command stands at the start of a line (up to three spaces of indent). Fenced code, quoted
lines and HTML comments are stripped first. Names ignore case. Only a `/word` token followed by
a space or the end of the line is a command attempt; any other line is prose. Each command
accepts only its own arguments; criterion prefixes are resolved later against the rubric.
Free text (`/revise`, `/override`, `/dispute`) runs to the next command line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rubricate.rubric.model import ScoreValue
from rubricate.yamlsource import did_you_mean

CommandName = Literal["score", "approve", "revise", "override", "rate", "dispute", "rubric", "help"]
ArgKind = Literal["scores_note", "scores", "text", "reason", "rating", "none", "help"]
Moment = Literal["open", "merged", "any"]
MIN_REASON = 20
MAX_COMMANDS = 10


@dataclass(frozen=True)
class CommandSpec:
    """One command's definition: the data that parsing, help and authorization read."""

    name: CommandName
    usage: str
    summary: str
    args: ArgKind
    moment: Moment


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "score",
        "/score ID=N [ID=N...] [-- note]",
        "Score criteria of the head version; partial scores merge into earlier ones.",
        "scores_note",
        "open",
    ),
    CommandSpec(
        "approve",
        "/approve [ID=N...]",
        "Approve the head version with these and earlier scores; all criteria must be scored.",
        "scores",
        "open",
    ),
    CommandSpec(
        "revise", "/revise <feedback>", "Request changes (feedback required).", "text", "open"
    ),
    CommandSpec(
        "override",
        f"/override <reason of at least {MIN_REASON} characters>",
        "Turn a failing approval green; the reason is kept forever.",
        "reason",
        "open",
    ),
    CommandSpec("rate", "/rate 1-5 [note]", "Rate the merged work.", "rating", "merged"),
    CommandSpec("dispute", "/dispute <reason>", "Dispute the merged work.", "text", "merged"),
    CommandSpec("rubric", "/rubric", "Show the active rubric.", "none", "any"),
    CommandSpec("help", "/rubricate help", "Show this help.", "help", "any"),
)
SPECS: dict[str, CommandSpec] = {spec.name: spec for spec in COMMANDS}
_TYPED_NAMES: dict[str, CommandName] = {
    **{spec.name: spec.name for spec in COMMANDS if spec.name != "help"},
    "rubricate": "help",
}


@dataclass(frozen=True)
class ParsedCommand:
    """A well-formed command; `index` numbers it among the comment's command attempts."""

    name: CommandName
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
_CANDIDATE = re.compile(r"^ {0,3}/([A-Za-z][A-Za-z0-9_-]*)(?:[ \t]+(.*))?$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}(?!.*`)|~{3,})")
_QUOTE = re.compile(r"^ {0,3}>")
_PAIR = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.:-]*)=(\S+)$")
_NOTE_SEPARATOR = re.compile(r"(?:^|\s)--(?:\s|$)")
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$")
_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})
_NULL = frozenset({"null", "n/a"})


def display_name(name: str) -> str:
    """How a command is written: `/score`, or `/rubricate help`."""
    return "/rubricate help" if name == "help" else f"/{name}"


def parse_commands(body: str) -> list[ParseResult]:
    """Every command attempt in a comment body, in order; never raises."""
    lines = visible_lines(body)
    found: list[ParseResult] = []
    for position, (line_no, text) in enumerate(lines):
        match = _CANDIDATE.match(text)
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


def visible_lines(body: str) -> list[tuple[int, str]]:
    """`(line number, text)` of the lines left after stripping code, quotes and HTML comments."""
    kept: list[tuple[int, str]] = []
    fence: str | None = None
    in_comment = False
    for line_no, raw in enumerate(re.split(r"\r\n|\r|\n", body), start=1):
        if fence is not None:
            if _closes_fence(raw, fence):
                fence = None
            continue
        text = raw
        if in_comment:
            end = text.find("-->")
            if end < 0:
                continue
            text, in_comment = text[end + 3 :], False
        text, in_comment = _strip_html_comments(text)
        opening = _FENCE_OPEN.match(text)
        if opening is not None:
            fence = opening.group(1)
            continue
        if not _QUOTE.match(text):
            kept.append((line_no, text))
    return kept


def _strip_html_comments(text: str) -> tuple[str, bool]:
    """The text without complete comments, and whether a comment stays open at the end."""
    while True:
        start = text.find("<!--")
        if start < 0:
            return text, False
        end = text.find("-->", start + 4)
        if end < 0:
            return text[:start], True
        text = text[:start] + text[end + 3 :]


def _closes_fence(text: str, fence: str) -> bool:
    stripped = text.strip()
    indent = len(text) - len(text.lstrip(" "))
    run = len(stripped) - len(stripped.lstrip(fence[0]))
    return indent <= 3 and run >= len(fence) and stripped == fence[0] * run


def _continuation(lines: list[tuple[int, str]]) -> str:
    """The prose lines after a command, up to the next command attempt."""
    taken: list[str] = []
    for _, text in lines:
        if _CANDIDATE.match(text):
            break
        taken.append(text.rstrip())
    return "\n".join(taken).strip()


def _parse_one(
    typed: str, rest: str, following: str, index: int, line: int, raw: str
) -> ParseResult:
    name = _TYPED_NAMES.get(typed)
    if name is None:
        hint = did_you_mean(typed, _TYPED_NAMES)
        message = f"unknown command `/{typed}`{hint}; see `/rubricate help`"
        return CommandMistake(typed, index, line, raw, message)
    spec = SPECS[name]
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
    if len(text) < MIN_REASON:
        return f"the reason has {len(text)} characters; at least {MIN_REASON} are needed"
    return (), text, None


def _args_rating(rest: str, following: str) -> _Args | str:
    first, *tail = rest.split(maxsplit=1) or [""]
    note = tail[0] if tail else ""
    if first not in {"1", "2", "3", "4", "5"}:
        shown = f"`{first}`" if first else "nothing"
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
            return f"`{token}` is not ID=N"
        key, value_text = match.group(1), match.group(2)
        value = parse_value(value_text)
        if isinstance(value, str):
            return f"`{token}`: {value}"
        if key.lower() in seen:
            return f"`{key}` is given twice"
        seen.add(key.lower())
        pairs.append((key, value))
    return tuple(pairs)


def parse_value(text: str) -> ScoreValue | str:
    """A typed score value (number, true/false, null), or the reason it is not one."""
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    if lowered in _NULL:
        return None
    if _NUMBER.match(text):
        return float(text)
    return f"`{text}` is not a number, true/false or null"


def format_value(value: ScoreValue) -> str:
    """A score value as a command writes it (`4`, `3.5`, `true`, `null`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}"


def format_command(command: ParsedCommand) -> str:
    """The canonical text of a parsed command (what `parse_commands` reads back)."""
    pairs = " ".join(f"{key}={format_value(value)}" for key, value in command.scores)
    parts = [display_name(command.name), pairs]
    if command.name == "rate":
        parts.append(str(command.rating))
    if command.text:
        parts.append(f"-- {command.text}" if command.name == "score" else command.text)
    return " ".join(part for part in parts if part)
