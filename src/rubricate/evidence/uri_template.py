"""The `uri-template` format: RFC 6570 section 2's syntax as one regular expression (pure).

Each name below is the ABNF rule of RFC 6570 that it spells. One reading is wider than the
RFC's letter: an apostrophe is a literal character, as the JSON Schema Test Suite reads it (the
RFC's ranges leave `'` out, which nothing else in URIs does). jsonschema's checker
(the uri-template package) refused a variable name that starts with a percent-encoded triplet
(`{%41}`) and a four-digit prefix length (`{v:1000}`), wrong fails of valid templates, and
accepted spaces in literals and `{a..b}`, `{a,}`, `{var=def}`.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import re

from rubricate.evidence.iri import IPRIVATE, PCT_ENCODED, UCSCHAR

LITERAL = rf"(?:[!#$&'(-;=?-\[\]_a-z~{UCSCHAR}{IPRIVATE}]|{PCT_ENCODED})"
VARCHAR = f"(?:[A-Za-z0-9_]|{PCT_ENCODED})"
VARNAME = rf"{VARCHAR}(?:\.?{VARCHAR})*"
MODIFIER = r"(?::[1-9][0-9]{0,3}|\*)?"  # prefix (a max-length below 10000) or explode
VARSPEC = f"{VARNAME}{MODIFIER}"
OPERATOR = r"[+#./;?&=,!@|]?"  # op-level2, op-level3 and op-reserve
EXPRESSION = rf"\{{{OPERATOR}{VARSPEC}(?:,{VARSPEC})*\}}"
URI_TEMPLATE = re.compile(f"(?:{LITERAL}|{EXPRESSION})*")


def is_uri_template(instance: object) -> bool:
    """The `uri-template` format (other types pass)."""
    return not isinstance(instance, str) or URI_TEMPLATE.fullmatch(instance) is not None
