"""The `hostname` and `idn-hostname` formats: RFC 1123 names and IDNA2008 labels (pure).

A `hostname` is dot-separated labels of ASCII letters, digits and hyphens, 1 to 63 each, not
starting or ending with a hyphen, 253 characters at most (RFC 1123 section 2.1 and RFC 1034
section 3.1), and may end with one dot, the root's, as a fully qualified name is written in
zone files, DNS tools and Kubernetes (the JSON Schema Test Suite calls it invalid: a
deliberate departure). A label that starts with `xn--` is an A-label (RFC 5890), which must
decode to a valid U-label that encodes back to itself; other labels with `--` in their 3rd
and 4th places (`ab--cd`) are plain RFC 1123 labels.
An `idn-hostname` (drafts 7 on) is labels split by any of the four IDNA dots (only `.` may
end the name), each an ASCII label as above or a U-label the `idna` package accepts (RFC
5891/5892: code points, joiners and their context rules), 253 octets at most as A-labels; an
A-label is longer than its U-label, so a longer name is refused before any label is encoded.
In either, once any label is right-to-left, every label must keep RFC 5893's Bidi rule.
jsonschema's checkers (the fqdn and idna packages) let pass a trailing newline, a Kelvin sign
read as `K`, broken Punycode and a left-to-right label of a right-to-left name that starts
with a digit.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import re
import unicodedata

import idna

LDH_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
OTHER_IDNA_DOTS = "\u3002\uff0e\uff61"
"""The label separators IDNA takes besides `.` (RFC 3490 section 3.1)."""
IDNA_DOTS = re.compile(f"[.{OTHER_IDNA_DOTS}]")
MAX_NAME = 253
MAX_LABEL = 63
RTL_CLASSES = frozenset(("R", "AL", "AN"))


def is_hostname(instance: object) -> bool:
    """The `hostname` format (other types pass)."""
    if not isinstance(instance, str):
        return True
    name = _without_root_dot(instance)
    if not name.isascii() or len(name) > MAX_NAME:
        return False
    unicode_labels = [_ascii_label(label) for label in name.split(".")]
    return all(label is not None for label in unicode_labels) and _bidi_ok(
        [label for label in unicode_labels if label is not None]
    )


def is_idn_hostname(instance: object) -> bool:
    """The `idn-hostname` format of drafts 7 to 2020-12 (other types pass)."""
    if not isinstance(instance, str):
        return True
    name = _without_root_dot(instance)
    if len(name) > MAX_NAME:  # as A-labels it would be longer still
        return False
    found: list[str] = []
    length = 0
    for label in IDNA_DOTS.split(name):
        a_label = label if label.isascii() else _a_label(label)
        unicode_label = _ascii_label(label) if label.isascii() else _u_label(label, a_label)
        if unicode_label is None:
            return False
        found.append(unicode_label)
        length += len(a_label) + 1
    return length - 1 <= MAX_NAME and _bidi_ok(found)


def _without_root_dot(name: str) -> str:
    """The name without its one trailing `.` (the root's), as a fully qualified name ends."""
    return name[:-1] if name.endswith(".") else name


def _ascii_label(label: str) -> str | None:
    """The label as Unicode (an A-label decoded), or None when it is not a valid label."""
    if LDH_LABEL.fullmatch(label) is None:
        return None
    if label[:4].lower() != "xn--":
        return label
    try:
        decoded = idna.decode(label)
        canonical = idna.encode(decoded).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return None
    if decoded.isascii() or canonical != label.lower():
        return None
    return decoded


def _u_label(label: str, a_label: str) -> str | None:
    """The label when it is a valid U-label whose A-label has at most 63 octets, else None."""
    if len(a_label) > MAX_LABEL:
        return None
    try:
        idna.check_label(label)
    except (idna.IDNAError, UnicodeError, ValueError):
        return None
    return label


def _a_label(label: str) -> str:
    return "xn--" + label.encode("punycode").decode("ascii")


def _bidi_ok(labels: list[str]) -> bool:
    """RFC 5893: in a name with a right-to-left label, every label keeps the Bidi rule."""
    if not any(unicodedata.bidirectional(char) in RTL_CLASSES for lb in labels for char in lb):
        return True
    try:
        return all(idna.check_bidi(label, check_ltr=True) for label in labels)
    except idna.IDNABidiError:
        return False
