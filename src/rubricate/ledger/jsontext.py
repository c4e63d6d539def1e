"""JSON text as `json.dumps(value, indent=2, sort_keys=True)` writes it, two to three times
faster (pure: data in, text out).

The standard library writes indented JSON with its Python encoder, a generator per nested value;
`reputation.json` (hundreds of authors, a few nested objects each) is rewritten on every append,
so this writes the same characters with one list of parts and each scalar's text made at once.
A value it does not know exactly (a subclass of a JSON type, a non-string key) goes to
`json.dumps`, so the text is always the standard library's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring_ascii
from typing import Any

_INFINITY = float("inf")
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
"""The JSON string reader of `json.loads`: the string whose text starts after its quote."""


def _float(value: float) -> str:
    """A float as `json.dumps` writes it (NaN and the infinities as JavaScript names them)."""
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring_ascii,
    float: _float,
    int: int.__repr__,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}


class _Unknown(Exception):
    """A value this writer leaves to `json.dumps`."""


def indented(value: Any, known: Mapping[int, str] | None = None) -> str:
    """`json.dumps(value, indent=2, sort_keys=True)`.

    `known` gives the text of some of its objects (by `id`), as this writes them where they
    are (the same member of a text this wrote before, say): they are written as given.
    """
    parts: list[str] = []
    try:
        _writer(parts.append, known or {})(value, "\n")
    except (_Unknown, TypeError, RecursionError):  # a key that is not a string, or a cycle
        return json.dumps(value, indent=2, sort_keys=True)
    return "".join(parts)


def members(text: str, start: int = 0, depth: int = 0) -> dict[str, tuple[int, int]]:
    """Where each member's value is, in a text `indented` wrote, of the object whose `{` is at
    `start` and whose lines are indented by `depth` levels: key → (start, end) of its text.

    Its keys are its lines that are indented by one level more and open with a string; its
    end is the first line after `start` indented by `depth` levels that closes an object
    (deeper lines are indented more; no string holds a line break). ValueError when the text
    is not such an object."""
    if text.startswith("{}", start):
        return {}
    if text[start : start + 1] != "{":
        raise ValueError("not an object")
    pad = "\n" + "  " * depth
    close = text.index(pad + "}", start)
    lead = pad + '  "'
    found: dict[str, tuple[int, int]] = {}
    at = start + 1 if text.startswith(lead, start + 1) else -1
    while at != -1:
        key, after = _scanstring(text, at + len(lead))
        if text[after : after + 2] != ": ":
            raise ValueError("not a member")
        following = text.find("," + lead, after, close)
        found[key] = (after + 2, close if following == -1 else following)
        at = -1 if following == -1 else following + 1
    return found


def _writer(out: Callable[[str], None], known: Mapping[int, str]) -> Callable[[Any, str], None]:
    """What writes a value whose line is indented by `pad` (a newline and its spaces) to `out`."""
    scalar, string = _SCALARS.get, encode_basestring_ascii

    def write(value: Any, pad: str) -> None:
        kind = type(value)
        if kind is dict:
            given = known.get(id(value)) if known else None
            if given is not None:
                out(given)
                return
            if not value:
                out("{}")
                return
            inner = pad + "  "
            lead = "{" + inner
            for key in sorted(value):
                item = value[key]
                text = scalar(type(item))
                if text is None:
                    out(f"{lead}{string(key)}: ")
                    write(item, inner)
                else:
                    out(f"{lead}{string(key)}: {text(item)}")
                lead = "," + inner
            out(pad + "}")
        elif kind is list:
            if not value:
                out("[]")
                return
            inner = pad + "  "
            lead = "[" + inner
            for item in value:
                text = scalar(type(item))
                if text is None:
                    out(lead)
                    write(item, inner)
                else:
                    out(lead + text(item))
                lead = "," + inner
            out(pad + "]")
        else:
            text = scalar(kind)
            if text is None:
                raise _Unknown
            out(text(value))

    return write
