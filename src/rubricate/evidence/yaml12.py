"""A PyYAML loader that reads YAML 1.2 (core schema), as schema validators and editors do (pure).

PyYAML implements YAML 1.1, where `yes`, `no`, `on`, `off` are booleans, `012` is octal,
`1_000` and `1:30` are numbers and `2024-01-01` is a date. In YAML 1.2's core schema only
`true`/`false` (in three casings) are booleans, `null`/`~`/empty are null, integers are
decimal, `0o` octal or `0x` hexadecimal, floats are the JSON-like forms plus `.inf`/`.nan`,
and everything else is a string. `Yaml12Loader` is PyYAML's safe loader (libyaml's parser
when present) with exactly those implicit resolvers; merge keys (`<<`) still merge.

YAML 1.2 lets a byte order mark start any document prefix, so a BOM may follow leading comment
lines (a file whose first line was put before its BOM); PyYAML accepts one only as the stream's
first character. `without_prefix_boms` drops a BOM that starts a line of a document prefix.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import yaml

_BOM = "\ufeff"
_PREFIX_LINE = re.compile(r"[ \t]*(?:#.*)?")
_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"
_RESOLVERS = [
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (_NULL, r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        _FLOAT,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    (_MERGE, r"^(?:<<)$", "<"),
]


class Yaml12Loader(_BASE):  # type: ignore[valid-type, misc]
    """PyYAML's safe loader with YAML 1.2 core-schema scalars."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {}


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _construct_bool(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> bool:
    return str(loader.construct_scalar(node)).lower() == "true"


for _tag, _pattern, _first in _RESOLVERS:
    Yaml12Loader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))
Yaml12Loader.add_constructor(_INT, _construct_int)
Yaml12Loader.add_constructor(_BOOL, _construct_bool)


def without_prefix_boms(text: str) -> str:
    """The text without the byte order marks that start a line of a document prefix (the
    comment and blank lines before a document's content), as YAML 1.2 allows; line numbers
    are unchanged."""
    if _BOM not in text:
        return text
    lines = text.split("\n")
    in_prefix = True
    for number, line in enumerate(lines):
        if line.startswith(_BOM) and in_prefix:
            line = lines[number] = line.lstrip(_BOM)
        if line.rstrip("\r") == "...":
            in_prefix = True
        elif not _PREFIX_LINE.fullmatch(line.rstrip("\r")):
            in_prefix = False
    return "\n".join(lines)
