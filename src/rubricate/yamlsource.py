"""YAML documents with the line and column of every node (pure: parses text it is given).

`load_located(text, path)` returns plain Python data and a `Locator` that maps a path of keys
and indexes (`("criteria", 2, "weight")`) to its 1-based line and column, so that validation
can report `path:line:col: message`. Duplicate mapping keys are errors, not silently merged;
a key that overrides one brought in by a YAML merge key (`<<: *anchor`) is not a duplicate.
`Problems` collects located errors and warnings.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from rubricate.errors import Diagnostic, SourceError

Loc = tuple[Any, ...]
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML has it (ten times faster), else the pure-Python one."""
MAX_SOURCE_BYTES = 1024 * 1024
"""Rubric and config files over this size are refused before they are parsed."""
SOURCE_LIMIT: ContextVar[int] = ContextVar("rubricate_source_limit", default=MAX_SOURCE_BYTES)
"""The limit in force; `rubricate validate --max-bytes` sets it for its run."""
MAX_NODES = 200_000
"""More nodes than this (aliases expand) is refused, so a small file cannot explode."""
MAX_DEPTH = 1000
"""Deeper nesting is refused before libyaml composes it (its composer recurses in C and crashes
the process on a few ten thousand levels; the Python builder stops near a thousand anyway)."""
_MERGE_TAG = "tag:yaml.org,2002:merge"
_OPENING = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSING = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


@dataclass
class Locator:
    """Line and column (1-based) of each value, and of each mapping key."""

    path: str
    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def at(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        """The position of `loc`, else of its nearest located ancestor."""
        table = self.keys if key else self.values
        probe = loc
        while probe:
            if probe in table:
                return table[probe]
            if probe in self.values:
                return self.values[probe]
            probe = probe[:-1]
        return self.values.get((), (1, 1))

    def diag(
        self, loc: Loc, message: str, *, key: bool = False, severity: str = "error"
    ) -> Diagnostic:
        """A diagnostic located at `loc` (at its key when `key` is true)."""
        line, col = self.at(loc, key=key)
        return Diagnostic(self.path, line, col, message, severity)


@dataclass
class Problems:
    """Located errors and warnings collected while checking one file."""

    locator: Locator
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)

    def error(self, loc: Loc, message: str, *, key: bool = False) -> None:
        """Record an error at `loc`."""
        self.errors.append(self.locator.diag(loc, message, key=key))

    def warn(self, loc: Loc, message: str, *, key: bool = False) -> None:
        """Record a warning at `loc`."""
        self.warnings.append(self.locator.diag(loc, message, key=key, severity="warning"))

    def raise_errors(self) -> None:
        """Raise `SourceError` with every error, in source order, if there is any."""
        if self.errors:
            raise SourceError(sorted_diagnostics(self.errors))


def sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics in source order, without exact repeats."""
    unique = dict.fromkeys(diagnostics)
    return sorted(unique, key=lambda d: (d.path, d.line, d.col))


class _Builder:
    """Turns a composed YAML node graph into plain data, recording positions."""

    def __init__(self, loader: yaml.SafeLoader, locator: Locator) -> None:
        self.loader = loader
        self.locator = locator
        self.problems: list[Diagnostic] = []
        self.nodes = 0

    def convert(self, node: yaml.Node, loc: Loc) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _TooLarge
        self.locator.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            return self.convert_mapping(node, loc)
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, (*loc, i)) for i, item in enumerate(node.value)]
        return self.scalar(node)

    def scalar(self, node: yaml.Node) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except (ValueError, TypeError, OverflowError) as exc:
            line, col = node.start_mark.line + 1, node.start_mark.column + 1
            self.problems.append(Diagnostic(self.locator.path, line, col, f"invalid value: {exc}"))
            return None

    def convert_mapping(self, node: yaml.MappingNode, loc: Loc) -> dict[Any, Any]:
        own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
        self.loader.flatten_mapping(node)
        merged = len(node.value) - own  # `<<: *anchor` pairs come first; later ones override
        from_merge: set[Any] = set()
        result: dict[Any, Any] = {}
        for index, (key_node, value_node) in enumerate(node.value):
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
            key = self.scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else []
            if not _hashable(key):
                self.problems.append(
                    Diagnostic(self.locator.path, line, col, "mapping keys must be scalars")
                )
                continue
            child = (*loc, key)
            if key in from_merge:  # a merged key is overridden by a later one, as YAML says
                from_merge.discard(key)
                del result[key]
            if key in result:
                first = self.locator.keys[child][0]
                message = f"duplicate key {key!r} (first at line {first})"
                self.problems.append(Diagnostic(self.locator.path, line, col, message))
                continue
            self.locator.keys[child] = (line, col)
            result[key] = self.convert(value_node, child)
            if index < merged:
                from_merge.add(key)
        return result


class _TooLarge(Exception):
    """The document expands to more than MAX_NODES nodes."""


def _hashable(key: Any) -> bool:
    if isinstance(key, (list, dict, set)):
        return False
    try:
        hash(key)
    except TypeError:
        return False
    return True


def load_located(
    text: str,
    path: str,
    *,
    max_bytes: int | Literal["default"] | None = "default",
    loader: type[yaml.SafeLoader] | None = None,
) -> tuple[Any, Locator]:
    """Parse one YAML document; raise `SourceError` on a syntax error or a duplicate key.

    A text over `max_bytes` (by default `SOURCE_LIMIT`: 1 MiB for rubric and config files) is
    refused before it is parsed; None parses any size. `loader` replaces PyYAML's safe loader
    (deliverables are read as YAML 1.2).
    """
    limit = SOURCE_LIMIT.get() if max_bytes == "default" else max_bytes
    if limit is not None:
        check_source_size(text, path, limit)
    locator = Locator(path)
    try:
        data, problems = _compose(text, locator, loader or _LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = f"YAML syntax error: {exc.problem or exc.context or 'invalid document'}"
        raise SourceError([Diagnostic(path, line, col, message)]) from None
    except yaml.reader.ReaderError as exc:
        line, col = _position(text, exc.position)
        char = chr(exc.character) if isinstance(exc.character, int) else exc.character
        message = f"character {char!r} is not allowed in YAML: {exc.reason}"
        raise SourceError([Diagnostic(path, line, col, message)]) from None
    except yaml.YAMLError as exc:
        raise SourceError([Diagnostic(path, 1, 1, f"YAML error: {exc}")]) from None
    except RecursionError:
        raise SourceError([Diagnostic(path, 1, 1, "YAML document is nested too deeply")]) from None
    except _TooLarge:
        message = f"YAML document is too large (more than {MAX_NODES} nodes once aliases expand)"
        raise SourceError([Diagnostic(path, 1, 1, message)]) from None
    if problems:
        raise SourceError(sorted_diagnostics(problems))
    return data, locator


def check_source_size(text: str, path: str, max_bytes: int = MAX_SOURCE_BYTES) -> None:
    """Refuse a rubric or config text over `max_bytes` before any parsing."""
    size = len(text) if len(text) > max_bytes else len(text.encode("utf-8", "replace"))
    if size > max_bytes:
        message = (
            f"file is too large: {size} bytes, over the {max_bytes}-byte limit for rubric and "
            "config files (refused before parsing)"
        )
        raise SourceError([Diagnostic(path, 1, 1, message)])


def _compose(
    text: str, locator: Locator, loader_class: type[yaml.SafeLoader]
) -> tuple[Any, list[Diagnostic]]:
    _check_depth(text)
    loader = loader_class(text)
    try:
        builder = _Builder(loader, locator)
        node = loader.get_single_node()
        data = None if node is None else builder.convert(node, ())
        return data, builder.problems
    finally:
        loader.dispose()


def _check_depth(text: str) -> None:
    """Raise RecursionError when collections nest deeper than MAX_DEPTH.

    A block level needs a column of its line, a flow level a bracket: text whose brackets and
    longest line cannot reach MAX_DEPTH is not scanned. Otherwise parser events are counted
    (libyaml's parser keeps its own stack) until the depth is known to be too large.
    """
    longest = max(map(len, text.splitlines()), default=0)
    if text.count("[") + text.count("{") + longest < MAX_DEPTH:
        return
    loader = _LOADER(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()  # type: ignore[no-untyped-call]
            depth += isinstance(event, _OPENING) - isinstance(event, _CLOSING)
            if depth > MAX_DEPTH:
                raise RecursionError(f"nested deeper than {MAX_DEPTH} levels")
    finally:
        loader.dispose()


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1
