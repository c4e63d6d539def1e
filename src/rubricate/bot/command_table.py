"""The slash commands, each declared once, and the repository roles they need (pure: data).

A `Command` names its grammar (`args`, read by `rubricate.bot.commands`), its default minimum
role, whether the PR author may use it on their own PR, and the moment it is valid. Parsing,
authorization, `/rubricate help`, docs/commands.md and the config's `commands.roles` (its
defaults and its schema) are all read from `COMMANDS`, at call time. A new command is one entry
here plus its handler in `rubricate.bot.apply`, marked `@handles("name")`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["admin", "maintain", "write", "triage", "read", "none"]
"""A repository role, as the collaborator-permission endpoint names it."""
ROLE_ORDER: tuple[Role, ...] = ("none", "read", "triage", "write", "maintain", "admin")
ArgKind = Literal["scores_note", "scores", "text", "reason", "rating", "none", "help"]
Moment = Literal["open", "merged", "any"]
MIN_REASON = 20


@dataclass(frozen=True)
class Command:
    """One slash command: its name, grammar, help text, default role, who and when."""

    name: str
    usage: str
    summary: str
    args: ArgKind
    moment: Moment
    role: Role
    by_author: bool
    typed: str = ""
    """The word after `/` when it is not the name (`/rubricate help`)."""

    @property
    def word(self) -> str:
        """The word typed after `/`."""
        return self.typed or self.name

    @property
    def shown(self) -> str:
        """How the command is written: `/score`, or `/rubricate help`."""
        return f"/{self.typed} {self.name}" if self.typed else f"/{self.name}"


COMMANDS: tuple[Command, ...] = (
    Command(
        "score",
        "/score ID=N [ID=N...] [-- note]",
        "Score criteria of the head version; partial scores merge into earlier ones.",
        "scores_note",
        "open",
        "write",
        by_author=False,
    ),
    Command(
        "approve",
        "/approve [ID=N...]",
        "Approve the head version with these and earlier scores; all criteria must be scored.",
        "scores",
        "open",
        "write",
        by_author=False,
    ),
    Command(
        "revise",
        "/revise <feedback>",
        "Request changes (feedback required).",
        "text",
        "open",
        "write",
        by_author=True,
    ),
    Command(
        "override",
        f"/override <reason of at least {MIN_REASON} characters>",
        "Turn a failing approval green; the reason is kept forever.",
        "reason",
        "open",
        "maintain",
        by_author=False,
    ),
    Command(
        "rate", "/rate 1-5 [note]", "Rate the merged work.", "rating", "merged", "write", False
    ),
    Command(
        "dispute",
        "/dispute <reason>",
        "Dispute the merged work.",
        "text",
        "merged",
        "maintain",
        by_author=True,
    ),
    Command("rubric", "/rubric", "Show the active rubric.", "none", "any", "none", True),
    Command("help", "/rubricate help", "Show this help.", "help", "any", "none", True, "rubricate"),
)


def command(name: str) -> Command | None:
    """The command with this name, if there is one."""
    return next((c for c in COMMANDS if c.name == name), None)


def typed_names() -> dict[str, str]:
    """The word typed after `/` → the command's name."""
    return {c.word: c.name for c in COMMANDS}


def display_name(name: str) -> str:
    """How a command is written: `/score`, or `/rubricate help`."""
    found = command(name)
    return found.shown if found else f"/{name}"


def default_roles() -> dict[str, Role]:
    """Each command's default minimum role."""
    return {c.name: c.role for c in COMMANDS}
