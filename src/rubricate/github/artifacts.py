"""Workflow-run artifacts: pick one from a listing, download its zip with a cap (shell: network).

`GET .../actions/artifacts/{id}/zip` answers with a redirect to a short-lived signed URL on
another host. The adapter asks for it through PyGithub's requester (with the token), and the
zip is then fetched here from the signed URL *without* the token, streamed, and cut off as soon
as it passes the cap. A SHA-256 digest, when GitHub lists one, must match the bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

from rubricate.errors import HandoffRefused

CHUNK = 64 * 1024


@dataclass(frozen=True)
class ArtifactInfo:
    """An artifact of a workflow run, as the REST API lists it."""

    id: int
    name: str
    size_in_bytes: int
    expired: bool
    digest: str | None = None


def named(listing: Any, name: str) -> ArtifactInfo | None:
    """The newest unexpired artifact called `name` in a `list-workflow-run-artifacts` answer."""
    items = listing.get("artifacts") if isinstance(listing, Mapping) else None
    found = [
        _info(item)
        for item in items or ()
        if isinstance(item, Mapping)
        and item.get("name") == name
        and isinstance(item.get("id"), int)
    ]
    found.sort(key=lambda info: (not info.expired, info.id))
    return found[-1] if found else None


def _info(item: Mapping[str, Any]) -> ArtifactInfo:
    digest = item.get("digest")
    return ArtifactInfo(
        id=int(item["id"]),
        name=str(item.get("name") or ""),
        size_in_bytes=int(item.get("size_in_bytes") or 0),
        expired=bool(item.get("expired")),
        digest=digest if isinstance(digest, str) and digest else None,
    )


def download(
    location: str | None, max_bytes: int, *, timeout: float, allow_http: bool = False
) -> bytes:
    """The bytes behind a signed download URL (no token sent), refused past `max_bytes`."""
    if not location:
        raise HandoffRefused("GitHub gave no download location for the artifact")
    scheme = urlsplit(location).scheme
    if scheme != "https" and not (allow_http and scheme == "http"):
        raise HandoffRefused(f"the artifact's download URL is not https ({scheme or 'none'})")
    with requests.get(location, stream=True, timeout=timeout) as response:
        response.raise_for_status()
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise HandoffRefused(f"the artifact is {declared} bytes, over the cap of {max_bytes}")
        return _capped(response, max_bytes)


def _capped(response: requests.Response, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_content(CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise HandoffRefused(f"the artifact is over the cap of {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def check_digest(data: bytes, digest: str | None) -> None:
    """Refuse bytes that do not match the artifact's `sha256:<hex>` digest (when it has one)."""
    if digest is None or not digest.startswith("sha256:"):
        return
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest.removeprefix("sha256:").lower():
        raise HandoffRefused("the downloaded artifact does not match its digest")
