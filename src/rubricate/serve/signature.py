"""Webhook signatures: the secrets file and the `X-Hub-Signature-256` check (shell: reads a file).

GitHub signs each delivery's body with HMAC-SHA256 under the App's webhook secret. The secrets
file holds one secret a line, so a new secret can be added before GitHub is told of it and the
old one removed after: a delivery passes when any secret signs it. Comparisons are constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from pathlib import Path

from rubricate.errors import ConfigError, read_problem

PREFIX = "sha256="


def read_secrets(path: str) -> tuple[bytes, ...]:
    """The secrets of the file at `path`, one a non-blank line; a clear error otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--webhook-secret-file {path}: {read_problem(exc)}") from None
    secrets = tuple(line.strip().encode() for line in text.splitlines() if line.strip())
    if not secrets:
        raise ConfigError(f"--webhook-secret-file {path}: no secret in it (one a line)")
    return secrets


def sign(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body`."""
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secrets: Sequence[bytes], body: bytes, header: str | None) -> bool:
    """True when one of the secrets signs `body` as `header` says (every secret is tried, so the
    time taken does not tell which one matched)."""
    if not header or not header.startswith(PREFIX):
        return False
    given = header.encode("ascii", "replace")
    matched = False
    for secret in secrets:
        matched |= hmac.compare_digest(sign(secret, body).encode(), given)
    return matched
