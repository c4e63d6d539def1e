"""Parse JSON, YAML and TOML text and map JSON pointers to source lines (pure: text in, data out).

YAML is read as YAML 1.2 (`yaml12`: `off` and `yes` are strings, as validators and editors read
them). Line mapping: JSON is exact (a scanner walks the text to the pointer's value); YAML is exact
(composed nodes carry their marks); TOML is an approximation: the line of the first `key =`
or `[table]` header that names the pointer's last key, else unknown. YAML and TOML dates are
turned into ISO 8601 strings, so a schema sees the same value as in JSON.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from rubricate.errors import ParseProblem, SourceError
from rubricate.evidence.yaml12 import Yaml12Loader, without_prefix_boms
from rubricate.yamlsource import Locator, load_located

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PointerPath = Sequence[str | int]
_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class Parsed:
    """Parsed data, with what is needed to find the line of a JSON pointer."""

    kind: str
    data: Any
    text: str
    locator: Locator | None = None

    def line_of(self, pointer: PointerPath) -> int | None:
        """The 1-based line of the value at `pointer` (see the module note on accuracy)."""
        if self.kind == "json":
            return json_pointer_line(self.text, pointer)
        if self.kind == "yaml" and self.locator is not None:
            return self.locator.at(tuple(pointer))[0]
        return _toml_key_line(self.text, pointer)


def parse_structured(kind: str, text: str, path: str) -> Parsed:
    """Parse one JSON, YAML (single document) or TOML text; raise `ParseProblem`."""
    if kind == "json":
        return Parsed(kind, _load_json(text), text)
    if kind == "yaml":
        try:
            data, locator = load_located(
                without_prefix_boms(text), path, max_bytes=None, loader=Yaml12Loader
            )
        except SourceError as exc:
            first = exc.diagnostics[0]
            raise ParseProblem(first.message, first.line) from None
        return Parsed(kind, _plain_dates(data), text, locator)
    return Parsed(kind, _plain_dates(_load_toml(text)), text)


def check_syntax(kind: str, text: str) -> ParseProblem | None:
    """The syntax error of a JSON, YAML (any number of documents) or TOML text, or None."""
    try:
        if kind == "json":
            _load_json(text)
        elif kind == "yaml":
            _compose_all(text)
        else:
            _load_toml(text)
    except ParseProblem as problem:
        return problem
    return None


_JSON_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"?|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')
_JSON_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\\n])*"?|,(?=\s*[}\]])')


def json_dialect_removed(text: str) -> str:
    """JSON text without what the JSON-with-comments dialect adds (`//` and `/* */` comments,
    trailing commas), line numbers kept; strings are left as they are."""

    def blank(found: re.Match[str]) -> str:
        word = found.group()
        return word if word.startswith('"') else "\n" * word.count("\n")

    return _JSON_TRAILING_COMMA.sub(blank, _JSON_COMMENT.sub(blank, text))


def _load_json(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ParseProblem(f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise ParseProblem("invalid JSON: nested too deeply") from None


def _reject_constant(name: str) -> Any:
    raise ParseProblem(f"invalid JSON: {name} is not a JSON value")


def _compose_all(text: str) -> None:
    try:
        for _ in yaml.compose_all(without_prefix_boms(text), Loader=yaml.SafeLoader):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        reason = exc.problem or exc.context or "invalid document"
        raise ParseProblem(
            f"YAML syntax error: {reason}", mark.line + 1 if mark else None
        ) from None
    except yaml.YAMLError as exc:
        raise ParseProblem(f"YAML error: {exc}") from None
    except RecursionError:
        raise ParseProblem("YAML document is nested too deeply") from None


def _load_toml(text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_AT.search(str(exc))
        message = _TOML_AT.sub("", str(exc)).strip()
        raise ParseProblem(
            f"invalid TOML: {message}", int(found.group(1)) if found else None
        ) from None
    except RecursionError:
        raise ParseProblem("invalid TOML: nested too deeply") from None


def _plain_dates(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain_dates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_dates(v) for v in value]
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return value


def json_pointer_line(text: str, pointer: PointerPath) -> int | None:
    """The 1-based line where the value at `pointer` starts in JSON text, or None."""
    try:
        pos = _descend(text, _WS.match(text, 0).end(), list(pointer))  # type: ignore[union-attr]
    except (ValueError, IndexError):
        return None
    return None if pos is None else text.count("\n", 0, pos) + 1


def _descend(text: str, pos: int, pointer: list[str | int]) -> int | None:
    while pointer:
        step = pointer.pop(0)
        if text[pos] == "{":
            found = _member(text, pos, str(step))
        elif text[pos] == "[" and isinstance(step, int):
            found = _element(text, pos, step)
        else:
            return None
        if found is None:
            return None
        pos = found
    return pos


def _skip(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def _member(text: str, pos: int, key: str) -> int | None:
    found: int | None = None
    pos = _skip(text, pos + 1)
    while text[pos] != "}":
        name, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
        pos = _skip(text, _skip(text, pos) + 1)
        if name == key:
            found = pos
        pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return found


def _element(text: str, pos: int, index: int) -> int | None:
    pos = _skip(text, pos + 1)
    current = 0
    while text[pos] != "]":
        if current == index:
            return pos
        pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
        current += 1
    return None


def _toml_key_line(text: str, pointer: PointerPath) -> int | None:
    keys = [step for step in pointer if isinstance(step, str)]
    if not keys:
        return 1 if not pointer else None
    key = re.escape(keys[-1])
    pattern = re.compile(rf"^\s*(?:\[\[?[^\]]*\b{key}\]\]?|[\"']?{key}[\"']?\s*=)", re.M)
    found = pattern.search(text)
    return None if found is None else text.count("\n", 0, found.start()) + 1
