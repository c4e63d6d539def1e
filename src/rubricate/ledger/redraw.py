"""Which badges an incremental append draws again (pure: data in, bytes out).

An append moves the totals of a few authors, and their badges only when the value a badge shows
moves. The tip's badges are what its reputation.json entries give (the fold cache's head
verified every derived file), so a badge whose label, message and colour did not change keeps
its file: it is neither drawn (anybadge is not even loaded) nor written, and the files are those
a full rebuild writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from rubricate.ledger.derive import Badge, author_badge, repo_badge
from rubricate.ledger.paths import Layout


def moved_badges(
    before: Mapping[str, dict[str, Any] | None],
    after: Mapping[str, dict[str, Any]],
    layout: Layout,
    authors: Mapping[str, set[str]],
) -> dict[str, bytes]:
    """The badge files of these repositories and of their touched `authors` whose badge (label,
    message, colour) moved from `before`, their reputation.json entries at the tip. The tip's
    badges are those entries' (the cache head verified the derived files), so a badge that did
    not move keeps its file, and nothing is drawn."""
    files: dict[str, bytes] = {}

    def draw(path: Callable[[str], str], badge: Badge, was: Badge | None) -> None:
        if badge != was:
            files[path("json")] = badge.endpoint_json()
            files[path("svg")] = badge.svg()

    for repo, entry in after.items():
        old = before.get(repo)
        draw(partial(layout.repo_badge, repo), repo_badge(entry), repo_badge(old) if old else None)
        known = old["authors"] if old else {}
        for login in sorted(authors.get(repo, set()) & entry["authors"].keys()):
            badge, was = author_badge(entry["authors"][login]), known.get(login)
            draw(partial(layout.author_badge, repo, login), badge, was and author_badge(was))
    return files
