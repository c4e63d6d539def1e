"""AgentV `include:` entries of an assertion list, spliced in within a budget (pure: no I/O).

AgentV splices each `- include: NAME` entry's `assert:` list in its place, at most 3 levels
deep, and a cycle is an error (EntityProcess/agentv at 58f316c,
`packages/core/src/evaluation/loaders/grader-parser.ts` 313-447). AgentV sets no limit on how
many entries includes may fan out to; rubricate does: at most `MAX_INCLUDED_ENTRIES` entries
spliced in per eval file (over every test, since each test splices its lists again), so a small
file cannot make validation run for minutes. A file over the budget is an error that says so.
"""

from __future__ import annotations

from rubricate.rubric.agentv.draft import Context
from rubricate.rubric.agentv.refs import MAX_INCLUDE_DEPTH, RefError
from rubricate.rubric.located import Located

MAX_INCLUDED_ENTRIES = 2000
"""The most assertion entries `include:` may splice into one eval file, over all its tests."""


def expand_includes(entries: Located, ctx: Context) -> list[Located]:
    """The entries of a list with every `include:` spliced in, in order."""
    return _expand(entries, ctx, 0, ())


def _expand(entries: Located, ctx: Context, depth: int, chain: tuple[str, ...]) -> list[Located]:
    found: list[Located] = []
    for item in entries.items():
        value = item.value
        if (
            isinstance(value, dict)
            and set(value) == {"include"}
            and isinstance(value["include"], str)
        ):
            found += _include(item, ctx, depth, chain)
        else:
            found.append(item)
    return found


def _include(item: Located, ctx: Context, depth: int, chain: tuple[str, ...]) -> list[Located]:
    name = item.value["include"]
    if depth + 1 > MAX_INCLUDE_DEPTH:
        item.error(f"include depth exceeds {MAX_INCLUDE_DEPTH} ({' -> '.join((*chain, name))})")
        return []
    refs = ctx.refs
    if refs.included > MAX_INCLUDED_ENTRIES:
        return []  # over the budget: said once, where it was crossed
    try:
        path, loaded = refs.template(item.problems.locator.path, name)
    except RefError as exc:
        item.error(f"include {name!r}: {exc}", "include")
        return []
    if path in chain:
        item.error(f"include cycle: {' -> '.join((*chain, path))}", "include")
        return []
    key = "assert" if ctx.form == "assert" else "assertions"
    data = loaded.value
    listed = next(
        (k for k in (key, "assert", "assertions") if isinstance(data, dict) and k in data), None
    )
    if listed is None:
        item.error(f"include {name!r}: {path} has no top-level `{key}:` list", "include")
        return []
    spliced = _expand(loaded.child(listed), ctx, depth + 1, (*chain, path))
    before = refs.included
    refs.included += len(spliced)
    if refs.included > MAX_INCLUDED_ENTRIES >= before:
        item.error(
            f"include {name!r}: includes fan out to more than {MAX_INCLUDED_ENTRIES} assertion "
            "entries in this file (each test splices its lists again); rubricate refuses such "
            "a file so that it cannot take minutes to check: include less, or share graders "
            "through `default_test`",
            "include",
        )
        return []
    return spliced if refs.included <= MAX_INCLUDED_ENTRIES else []
