"""Which PR a merged revert undoes, the way GitHub's revert button writes it (pure: event in).

GitHub's "Revert" button opens a PR titled `Revert "<title>"` whose body says
`Reverts owner/repo#N`. Both must be there: the title, and the line naming a PR of the same
repository in the visible body (fenced code, inline code, HTML comments and quotes are skipped).
Anything else records no dispute; a maintainer can always `/dispute` the merged PR.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rubricate.bot.visible import visible_lines, without_inline_code

if TYPE_CHECKING:
    from rubricate.bot.payload import PullRequestEvent

REVERT_TITLE = 'Revert "'
_REVERTS = re.compile(r"^\s*Reverts\s+(?:([\w.-]+/[\w.-]+))?#(\d+)\b")


def reverted_pr(event: PullRequestEvent) -> int | None:
    """The PR of the same repository a revert PR undoes, or None when it is no revert."""
    if not event.title.startswith(REVERT_TITLE):
        return None
    for _, line in visible_lines(event.body):
        match = _REVERTS.match(without_inline_code(line))
        if match is None:
            continue
        repo, number = match.group(1), int(match.group(2))
        if (repo is None or repo.lower() == event.repo.lower()) and number != event.number:
            return number
    return None
