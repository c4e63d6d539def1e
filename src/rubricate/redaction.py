"""The one way a secret is kept out of logs, comments, errors and the ledger (pure: text only).

Every place a token, an API key or a credential inside a URL could reach text a person reads
goes through `redact` (or `redact_url`, which also masks the userinfo of a remote URL).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
MIN_SECRET = 8
"""Shorter values are not treated as secrets: masking `none` or `abc` would mangle any text."""
PLACEHOLDERS = frozenset(
    {
        "none",
        "null",
        "nil",
        "empty",
        "false",
        "true",
        "changeme",
        "change-me",
        "placeholder",
        "dummy",
        "test",
        "secret",
        "token",
        "xxx",
        "your-key",
        "your_api_key",
        "sk-xxx",
        "todo",
    }
)
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^@/?#]*)@")


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every secret (longest first; empty, short and placeholder values skipped)."""
    for secret in sorted({s for s in secrets if s and is_secret(s)}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def is_secret(value: str) -> bool:
    """True for a value that can be a real secret: long enough, and not a placeholder."""
    return len(value.strip()) >= MIN_SECRET and not is_placeholder(value)


def is_placeholder(value: str) -> bool:
    """True for a value that is obviously not a real key (`none`, `changeme`, `xxxxxxxx`...)."""
    clean = value.strip().lower()
    return clean in PLACEHOLDERS or len(set(clean)) <= 1 or len(clean) < MIN_SECRET


def url_credentials(url: str) -> tuple[str, ...]:
    """The user name and password a URL carries (`https://user:pass@host/...`), if any."""
    match = _USERINFO.match(url)
    if match is None:
        return ()
    user, _, password = match.group("userinfo").partition(":")
    return tuple(part for part in (user, password) if part)


def redact_url(text: str, url: str, token: str | None) -> str:
    """Text with the URL's credentials shown as `***@host`, and the token and password masked."""
    match = _USERINFO.match(url)
    if match is not None:
        text = text.replace(url, match.group("scheme") + MASK + "@" + url[match.end() :])
        password = match.group("userinfo").partition(":")[2]
        return redact(text, (token, password))
    return redact(text, (token,))
