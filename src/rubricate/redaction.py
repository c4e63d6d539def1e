"""The one way a secret is kept out of logs, comments, errors and the ledger (pure: text only).

Every place a token, an API key or a credential inside a URL could reach text a person reads
goes through `redact` (or `redact_url`, which also masks the userinfo of a remote URL).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

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
SECRET_ENV = (
    "GITHUB_TOKEN",
    "RUBRICATE_DATA_TOKEN",
    "RUBRICATE_LEDGER_KEY",
    "OPENAI_API_KEY",
    "INPUT_GITHUB-TOKEN",
    "INPUT_GITHUB_TOKEN",
    "INPUT_OPENAI-API-KEY",
    "INPUT_OPENAI_API_KEY",
    "INPUT_LEDGER-KEY",
    "INPUT_LEDGER_KEY",
)
"""The environment variables rubricate reads a token or a key from."""
TOKEN_SHAPE = re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})")
"""GitHub's token formats (personal, OAuth, user, installation and refresh tokens; fine-grained
personal tokens): masked wherever they appear, whoever's they are."""
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^@/?#]*)@")


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every secret (longest first; empty, short and placeholder values skipped)."""
    for secret in sorted({s for s in secrets if s and is_secret(s)}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def env_secrets(env: Mapping[str, str]) -> list[str]:
    """The tokens and keys set in this environment (`SECRET_ENV`), to pass to `redact`."""
    return [env[name].strip() for name in SECRET_ENV if env.get(name, "").strip()]


def redact_tokens(text: str) -> str:
    """Text with anything shaped like a GitHub token masked (e.g. echoed in an API error body)."""
    return TOKEN_SHAPE.sub(MASK, text)


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
