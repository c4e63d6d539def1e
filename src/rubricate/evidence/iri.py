"""The `uri`, `uri-reference`, `iri` and `iri-reference` formats: RFC 3986's and RFC 3987's
syntax as compiled regular expressions (pure).

Each name below is the ABNF rule of RFC 3987 section 2.2 (or RFC 3986, which it builds on)
that it spells, in full. The checker jsonschema used before (rfc3987-syntax) read the RFC
narrowly in three places, each a wrong fail of a valid IRI that the JSON Schema Test Suite
checks: `ucschar` and `iprivate` were their Basic Multilingual Plane ranges only (no emoji, no
plane-15/16 private use); an IPv6 literal with "::" needed exactly as many groups before it
as the RFC allows at most (`[2001:db8::1]` and `[::1]` failed); IPvFuture's "v" was lower case
only. Here they follow the RFC.
Rules: DESIGN.md §4 (the pure core) and §9 (style).
"""

from __future__ import annotations

import re
from functools import cache

HEXDIG = "[0-9A-Fa-f]"
H16 = f"{HEXDIG}{{1,4}}"
DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
IPV4ADDRESS = rf"{DEC_OCTET}(?:\.{DEC_OCTET}){{3}}"
LS32 = f"(?:{H16}:{H16}|{IPV4ADDRESS})"
IPV6_FORMS: tuple[tuple[int | None, int, str], ...] = (
    (None, 6, LS32),
    (0, 5, LS32),
    (1, 4, LS32),
    (2, 3, LS32),
    (3, 2, LS32),
    (4, 1, LS32),
    (5, 0, LS32),
    (6, 0, H16),
    (7, 0, ""),
)
"""RFC 3986's nine IPv6address alternatives: the most `h16` groups before "::" (None: no
"::"), the `h16 ":"` groups after it, and the tail."""


def _ipv6_form(before: int | None, after: int, tail: str) -> str:
    groups_after = f"(?:{H16}:){{{after}}}{tail}"
    if before is None:
        return groups_after
    # The RFC's `[ *n( h16 ":" ) h16 ]`: up to n + 1 groups before "::", or none.
    lead = f"(?:(?:{H16}:){{0,{before - 1}}}{H16})?" if before else ""
    return f"{lead}::{groups_after}"


IPV6ADDRESS = "(?:" + "|".join(_ipv6_form(*form) for form in IPV6_FORMS) + ")"
UNRESERVED = "A-Za-z0-9._~-"
SUB_DELIMS = "!$&'()*+,;="
UCSCHAR = "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef" + "".join(
    f"{chr((plane << 16) + (0x1000 if plane == 14 else 0))}-{chr((plane << 16) + 0xFFFD)}"
    for plane in range(1, 15)
)
"""RFC 3987's `ucschar`: the BMP ranges, then planes 1 to 13 but for each plane's last two
code points, and plane 14 from U+E1000."""
IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
PCT_ENCODED = f"%{HEXDIG}{HEXDIG}"
IPVFUTURE = rf"[vV]{HEXDIG}+\.[{SUB_DELIMS}:{UNRESERVED}]+"
IP_LITERAL = rf"\[(?:{IPV6ADDRESS}|{IPVFUTURE})\]"


def _grammar(ucschar: str, iprivate: str) -> tuple[str, str]:
    """RFC 3987's `IRI` and `irelative-ref` over these `ucschar` and `iprivate` ranges; with
    none, RFC 3986's `URI` and `relative-ref`."""

    def chars(extra: str) -> str:
        """One `iunreserved / pct-encoded / sub-delims` character, or one of `extra`."""
        return f"(?:[{ucschar}{SUB_DELIMS}{extra}{UNRESERVED}]|{PCT_ENCODED})"

    def then_segments(first: str) -> str:
        """`first *( "/" isegment )`: the shape of every path rule."""
        return f"{first}(?:/{chars(':@')}*)*"

    host = f"(?:{IP_LITERAL}|{IPV4ADDRESS}|{chars('')}*)"  # IP-literal / IPv4address / reg-name
    authority = f"(?:{chars(':')}*@)?{host}(?::[0-9]*)?"  # [ userinfo "@" ] host [ ":" port ]
    absolute = f"/(?:{then_segments(chars(':@') + '+')})?"  # ipath-absolute

    def part(path: str) -> str:
        """`ihier-part` or `irelative-part`: an authority and path, or `path`, or nothing."""
        return f"(?://{authority}{then_segments('')}|{absolute}|{path}|)"

    hier_part = part(then_segments(chars(":@") + "+"))  # ipath-rootless
    relative_part = part(then_segments(chars("@") + "+"))  # ipath-noscheme
    # [ "?" iquery ] [ "#" ifragment ]; iquery may hold iprivate, ifragment not
    tail = rf"(?:\?{chars(':@/?' + iprivate)}*)?(?:#{chars(':@/?')}*)?"
    return f"{SCHEME}:{hier_part}{tail}", f"{relative_part}{tail}"


SCHEME = "[A-Za-z][A-Za-z0-9+.-]*"
IRI, IRELATIVE_REF = _grammar(UCSCHAR, IPRIVATE)
URI, RELATIVE_REF = _grammar("", "")


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """A pattern compiled on first use: an IRI's Unicode classes take tens of milliseconds to
    compile, which a schema without the IRI formats never needs (a URI's, ASCII only, a few:
    every metaschema check reads `$id` and `$ref` as URI references)."""
    return re.compile(pattern)


def is_iri(instance: object) -> bool:
    """The `iri` format: an IRI with a scheme (other types pass)."""
    return not isinstance(instance, str) or compiled(IRI).fullmatch(instance) is not None


def is_iri_reference(instance: object) -> bool:
    """The `iri-reference` format: an IRI or a relative reference (other types pass)."""
    return (
        not isinstance(instance, str)
        or compiled(IRI).fullmatch(instance) is not None
        or compiled(IRELATIVE_REF).fullmatch(instance) is not None
    )


def is_uri(instance: object) -> bool:
    """The `uri` format: a URI with a scheme (other types pass)."""
    return not isinstance(instance, str) or compiled(URI).fullmatch(instance) is not None


def is_uri_reference(instance: object) -> bool:
    """The `uri-reference` format: a URI or a relative reference (other types pass)."""
    return (
        not isinstance(instance, str)
        or compiled(URI).fullmatch(instance) is not None
        or compiled(RELATIVE_REF).fullmatch(instance) is not None
    )
