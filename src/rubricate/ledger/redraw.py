"""Which badges, and which authors' entries of reputation.json, an incremental append draws
again (pure: data in, bytes out).

An append moves the totals of a few authors, and their badges only when the value a badge shows
moves. The tip's badges are what its reputation.json entries give (the fold cache's head
verified every derived file), so a badge whose label, message and colour did not change keeps
its file: it is neither drawn (anybadge is not even loaded) nor written, and the files are those
a full rebuild writes.

Likewise an author's entry that `reputation.repo_entry` kept as the tip has it (no mean moved,
nor the author's totals) is written as the tip's text has it (`kept_texts`): the tip's
reputation.json is what the writer gave for the same entry, so the bytes are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from rubricate.ledger.derive import Badge, author_badge, repo_badge
from rubricate.ledger.jsontext import members
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


def kept_texts(
    data: bytes,
    before: Mapping[str, dict[str, Any] | None],
    after: Mapping[str, dict[str, Any]],
) -> dict[int, str]:
    """The text in `data`, the tip's reputation.json whose repository entries are `before`
    (parsed from it), of each author entry that `after` keeps (the same object), by `id`;
    none when the text is not laid out as the writer lays it out."""
    text = data.decode("utf-8", "surrogateescape")
    found: dict[int, str] = {}
    try:
        repos = members(text, members(text)["repos"][0], 1)
        for repo, entry in after.items():
            old = before.get(repo)
            kept = {
                login: value
                for login, value in entry["authors"].items()
                if old is not None and old["authors"].get(login) is value
            }
            if not kept:
                continue
            start = members(text, repos[repo][0], 2)["authors"][0]
            spans = members(text, start, 3)
            for login, value in kept.items():
                found[id(value)] = text[slice(*spans[login])]
    except (KeyError, ValueError):
        return {}
    return found
