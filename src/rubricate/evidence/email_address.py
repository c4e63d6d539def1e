"""The `email` and `idn-email` formats: RFC 5321's `Mailbox` and RFC 6531's extension (pure).

An address is a local part (dot-separated atoms, or a quoted string), `@`, and a domain (a
host name of letters, digits and inner hyphens) or an address literal in brackets (an IPv4
address, `IPv6:` and an IPv6 address, or a tag, `:` and text). `idn-email` (drafts 7 on)
also takes any non-ASCII character in the local part and in domain labels (RFC 6531's
`UTF8-non-ascii`). Lengths are not checked. jsonschema's checker took any string with an `@`:
`.a@x`, `a..b@x`, `@x`, `a@`, `a b@x` and whole `From:` headers passed.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import ipaddress
import re

ATEXT = r"A-Za-z0-9!#$%&'*+\-/=?^_`{|}~"
QTEXT = r"\x20\x21\x23-\x5b\x5d-\x7e"  # printable ASCII but `"` and `\`
NON_ASCII = "\u0080-\U0010ffff"
SNUM = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[0-9]{1,2})"
IPV4 = rf"{SNUM}(?:\.{SNUM}){{3}}"
GENERAL_LITERAL = r"(?!IPv6:)[A-Za-z0-9-]*[A-Za-z0-9]:[\x21-\x5a\x5e-\x7e]+"


def _mailbox(extra: str) -> re.Pattern[str]:
    """RFC 5321's `Mailbox`, with `extra` characters allowed where RFC 6531 allows them."""
    atom = f"[{ATEXT}{extra}]+"
    quoted = rf'"(?:[{QTEXT}{extra}]|\\[\x20-\x7e])*"'
    let_dig = f"[A-Za-z0-9{extra}]"
    sub_domain = rf"{let_dig}(?:[A-Za-z0-9{extra}-]*{let_dig})?"
    domain = rf"{sub_domain}(?:\.{sub_domain})*"
    literal = rf"\[(?P<literal>{IPV4}|IPv6:(?P<ipv6>[0-9A-Fa-f:.]+)|{GENERAL_LITERAL})\]"
    return re.compile(rf"(?:{atom}(?:\.{atom})*|{quoted})@(?:{domain}|{literal})")


EMAIL = _mailbox("")
IDN_EMAIL = _mailbox(NON_ASCII)


def is_email(instance: object) -> bool:
    """The `email` format (other types pass)."""
    return not isinstance(instance, str) or _valid(EMAIL.fullmatch(instance))


def is_idn_email(instance: object) -> bool:
    """The `idn-email` format of drafts 7 to 2020-12 (other types pass)."""
    return not isinstance(instance, str) or _valid(IDN_EMAIL.fullmatch(instance))


def _valid(found: re.Match[str] | None) -> bool:
    if found is None:
        return False
    ipv6 = found["ipv6"]
    if ipv6 is None:
        return True
    try:
        ipaddress.IPv6Address(ipv6)
    except ValueError:
        return False
    return True
