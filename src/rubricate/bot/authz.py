"""Who may run which command (pure: decides from the role the shell looked up).

Roles come from the collaborator-permission endpoint, never `author_association`, and are
ordered none < read < triage < write < maintain < admin. The command table says which commands
the PR author may use on their own PR, and each command's default role. Bots are ignored before
this is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rubricate.bot.command_table import command, display_name
from rubricate.config import ROLE_ORDER, Role


@dataclass(frozen=True)
class Decision:
    """Whether a command may run, and why (the reason is shown to the actor when refused)."""

    allowed: bool
    reason: str


def role_rank(role: str) -> int:
    """The position of a role in the order; unknown roles rank as `none`."""
    return ROLE_ORDER.index(role) if role in ROLE_ORDER else 0


def known_role(role: str) -> Role:
    """The role itself when it is one of the ordered roles, else `none`."""
    return ROLE_ORDER[role_rank(role)]


def authorize(
    command_name: str, actor: str, actor_role: str, pr_author: str, roles: Mapping[str, Role]
) -> Decision:
    """Decide whether `actor` (with `actor_role`) may run a command on a PR by `pr_author`."""
    shown = display_name(command_name)
    spec = command(command_name)
    if spec is None:
        return Decision(False, f"`{shown}` is not a rubricate command")
    if not spec.by_author and actor.lower() == pr_author.lower():
        return Decision(False, f"the author of a pull request cannot use `{shown}` on it")
    needed = roles.get(command_name, spec.role)
    if role_rank(actor_role) < role_rank(needed):
        have = known_role(actor_role)
        return Decision(False, f"`{shown}` needs the {needed} role or higher; you have {have}")
    return Decision(True, "allowed")
