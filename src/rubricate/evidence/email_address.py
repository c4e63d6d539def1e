"""The `email` and `idn-email` formats: RFC 5321's `Mailbox` and RFC 6531's extension (pure).

An address is a local part (dot-separated atoms, or a quoted string), `@`, and a domain or an
address literal in brackets (an IPv4 address of four `Snum`s, 1 to 3 digits up to 255, `IPv6:`
and an IPv6 address, or a tag, `:` and text). The domain of an `email` is a `hostname`, and of
an `idn-email` (drafts 7 on) an `idn-hostname` once in Unicode NFC (the suite takes
`user@cafe\u0301.com`) with `.` its only dot, and neither ends with a dot (RFC 5321's `Domain`
has no root dot, unlike a host name). `idn-email` also takes any non-ASCII character in the
local part (RFC 6531's `UTF8-non-ascii`). Lengths are not checked but the domain's. So a
GitHub bot's noreply address (`1+app[bot]@users.noreply.github.com`) is not an `email`, nor is
an address with a raw non-ASCII domain (that is an `idn-email`). jsonschema's checker took any
string with an `@`: `.a@x`, `a..b@x`, `@x`, `a@`, `a b@x` and whole `From:` headers passed.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable

from rubricate.evidence.hostname import OTHER_IDNA_DOTS, is_hostname, is_idn_hostname

ATEXT = r"A-Za-z0-9!#$%&'*+\-/=?^_`{|}~"
QTEXT = r"\x20\x21\x23-\x5b\x5d-\x7e"  # printable ASCII but `"` and `\`
NON_ASCII = "\u0080-\U0010ffff"
MAX_SNUM = 255
LITERAL = re.compile(
    r"\[(?:(?P<ipv4>[0-9]{1,3}(?:\.[0-9]{1,3}){3})|IPv6:(?P<ipv6>[0-9A-Fa-f:.]+)"
    r"|(?!IPv6:)[A-Za-z0-9-]*[A-Za-z0-9]:[\x21-\x5a\x5e-\x7e]+)\]"
)
"""RFC 5321's `address-literal`: IPv4 (`Snum` is 1*3DIGIT), IPv6, or a general one."""


def _mailbox(extra: str) -> re.Pattern[str]:
    """RFC 5321's local part and `@`, with `extra` characters allowed where RFC 6531 allows
    them; the rest of the address is the group `domain`."""
    atom = f"[{ATEXT}{extra}]+"
    quoted = rf'"(?:[{QTEXT}{extra}]|\\[\x20-\x7e])*"'
    return re.compile(rf"(?:{atom}(?:\.{atom})*|{quoted})@(?P<domain>[^@]+)")


EMAIL = _mailbox("")
IDN_EMAIL = _mailbox(NON_ASCII)


def is_email(instance: object) -> bool:
    """The `email` format (other types pass)."""
    if not isinstance(instance, str):
        return True
    found = EMAIL.fullmatch(instance)
    return found is not None and _domain_ok(found["domain"], is_hostname)


def is_idn_email(instance: object) -> bool:
    """The `idn-email` format of drafts 7 to 2020-12 (other types pass)."""
    if not isinstance(instance, str):
        return True
    found = IDN_EMAIL.fullmatch(instance)
    if found is None:
        return False
    domain = unicodedata.normalize("NFC", found["domain"])
    return not any(dot in domain for dot in OTHER_IDNA_DOTS) and _domain_ok(domain, is_idn_hostname)


def _domain_ok(domain: str, is_name: Callable[[object], bool]) -> bool:
    """A host name without the root's dot, or a valid address literal."""
    if not domain.startswith("["):
        return not domain.endswith(".") and is_name(domain)
    literal = LITERAL.fullmatch(domain)
    if literal is None:
        return False
    if literal["ipv4"] is not None:
        return all(int(snum) <= MAX_SNUM for snum in literal["ipv4"].split("."))
    if literal["ipv6"] is not None:
        try:
            ipaddress.IPv6Address(literal["ipv6"])
        except ValueError:
            return False
    return True
