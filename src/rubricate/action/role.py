"""The commenter's role on the repository, asked of the API once when a command needs one
(shell: one API read)."""

from __future__ import annotations

from rubricate.action.handles import RunHandles
from rubricate.bot.events import CommentEvent, ReviewEvent
from rubricate.config import Config
from rubricate.errors import RoleUnreadable


def actor_role(
    handles: RunHandles, event: CommentEvent | ReviewEvent, config: Config
) -> tuple[str, str | None]:
    """The commenter's role, asked once, when any command attempt (a mistaken one too) needs
    one, and why it could not be read, when it could not (`none` then; the replies say so)."""
    roles = config.commands.roles
    if all(roles.get(c.name, "none") == "none" for c in event.commands):
        return "none", None
    if handles.api is None:
        handles.runtime.log(f"role of {event.actor} not read (no token): treated as none")
        return "none", None
    try:
        return handles.api.collaborator_role(event.actor), None
    except RoleUnreadable as exc:
        handles.runtime.annotate("warning", f"rubricate: role of {event.actor} not read: {exc}")
        return "none", str(exc)
