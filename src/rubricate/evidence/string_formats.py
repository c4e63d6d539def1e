"""The formats that one regular expression decides: `relative-json-pointer` and `uuid` (pure).

`relative-json-pointer` is the grammar of draft-handrews-relative-json-pointer-01 section 3
(RFC 6901 for the pointer): a non-negative integer, `0` or ASCII digits without a leading
zero, then `#` or a JSON Pointer. jsonschema's checker refused any zero after another digit
(`100`, `120/a`), a wrong fail, and took non-ASCII digits (`١`). Draft 2020-12 names
draft-bhutton-relative-json-pointer-00, which lets an index manipulation follow the integer,
`+` or `-` and another (`0+1/foo`, `1-1#`). `uuid` is RFC 4122's string
form, 8-4-4-4-12 hex digits; jsonschema's checker read it with Python's `UUID`, which also
takes a trailing hyphen, underscores and non-ASCII digits.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import re

JSON_POINTER = "(?:/(?:[^~/]|~[01])*)*"
NON_NEGATIVE_INTEGER = "(?:0|[1-9][0-9]*)"
RELATIVE_JSON_POINTER = re.compile(f"{NON_NEGATIVE_INTEGER}(?:#|{JSON_POINTER})")
RELATIVE_JSON_POINTER_2020 = re.compile(
    f"{NON_NEGATIVE_INTEGER}(?:[+-]{NON_NEGATIVE_INTEGER})?(?:#|{JSON_POINTER})"
)
UUID = re.compile("-".join(f"[0-9A-Fa-f]{{{count}}}" for count in (8, 4, 4, 4, 12)))


def is_relative_json_pointer(instance: object) -> bool:
    """The `relative-json-pointer` format (other types pass)."""
    return not isinstance(instance, str) or RELATIVE_JSON_POINTER.fullmatch(instance) is not None


def is_relative_json_pointer_2020(instance: object) -> bool:
    """The `relative-json-pointer` format of draft 2020-12 (other types pass)."""
    return (
        not isinstance(instance, str) or RELATIVE_JSON_POINTER_2020.fullmatch(instance) is not None
    )


def is_uuid(instance: object) -> bool:
    """The `uuid` format (other types pass)."""
    return not isinstance(instance, str) or UUID.fullmatch(instance) is not None
