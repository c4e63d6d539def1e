"""YAML documents with the line and column of every node (pure: parses text it is given).

`load_located(text, path)` returns plain Python data and a `Locator` that maps a path of keys
and indexes (`("criteria", 2, "weight")`) to its 1-based line and column, so that validation
can report `path:line:col: message`. Duplicate mapping keys are errors, not silently merged.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from rubricate.errors import Diagnostic, SourceError

Loc = tuple[str | int, ...]


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

    def diag(self, loc: Loc, message: str, *, key: bool = False, severity: str = "error") -> Diagnostic:
        """A diagnostic located at `loc` (at its key when `key` is true)."""
        line, col = self.at(loc, key=key)
        return Diagnostic(self.path, line, col, message, severity)


def load_located(text: str, path: str) -> tuple[Any, Locator]:
    """Parse one YAML document; raise `SourceError` on a syntax error or a duplicate key."""
    locator = Locator(path)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, locator
        problems: list[Diagnostic] = []
        data = _convert(loader, node, (), locator, problems)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = f"YAML syntax error: {exc.problem or exc.context or 'invalid document'}"
        raise SourceError([Diagnostic(path, line, col, message)]) from None
    except yaml.YAMLError as exc:
        raise SourceError([Diagnostic(path, 1, 1, f"YAML error: {exc}")]) from None
    except RecursionError:
        raise SourceError([Diagnostic(path, 1, 1, "YAML document is nested too deeply")]) from None
    finally:
        loader.dispose()
    if problems:
        raise SourceError(problems)
    return data, locator


def _convert(
    loader: yaml.SafeLoader, node: yaml.Node, loc: Loc, locator: Locator, problems: list[Diagnostic]
) -> Any:
    locator.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        return _convert_mapping(loader, node, loc, locator, problems)
    if isinstance(node, yaml.SequenceNode):
        return [_convert(loader, item, (*loc, i), locator, problems) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def _convert_mapping(
    loader: yaml.SafeLoader, node: yaml.MappingNode, loc: Loc, locator: Locator, problems: list[Diagnostic]
) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, (list, dict)):
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
            problems.append(Diagnostic(locator.path, line, col, "mapping keys must be scalars"))
            continue
        child = (*loc, key)
        line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
        if key in result:
            first = locator.keys[child][0]
            problems.append(Diagnostic(locator.path, line, col, f"duplicate key {key!r} (first at line {first})"))
            continue
        locator.keys[child] = (line, col)
        result[key] = _convert(loader, value_node, child, locator, problems)
    return result


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest choice, or an empty string."""
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
