"""Validate recorded REST exchanges against GitHub's published OpenAPI description.

Pitfalls handled (see ../shared/github/PROVENANCE.md): the description is loaded with `json.load`
and `Config(spec_validator_cls=None)` once per session; `nullable` enums get `None` appended;
multi-segment path parameters are percent-encoded; a GHES prefix (`/api/v3`) and the explicit
`:443` port PyGithub adds are removed before matching.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import responses

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
OPENAPI_PATH = SHARED / "github" / "openapi" / "api.github.com.json"
_MULTI_SEGMENT = ("/contents/", "/git/refs/", "/git/ref/", "/git/matching-refs/")


def load_openapi(path: Path = OPENAPI_PATH) -> Any:
    """The OpenAPI object, or None when the description is not available."""
    if not path.is_file():
        return None
    from openapi_core import Config, OpenAPI

    with path.open(encoding="utf-8") as handle:
        spec = json.load(handle)
    _allow_null_in_nullable_enums(spec)
    return OpenAPI.from_dict(spec, config=Config(spec_validator_cls=None))


def _allow_null_in_nullable_enums(node: Any) -> None:
    if isinstance(node, dict):
        enum = node.get("enum")
        if node.get("nullable") is True and isinstance(enum, list) and None not in enum:
            enum.append(None)
        for value in node.values():
            _allow_null_in_nullable_enums(value)
    elif isinstance(node, list):
        for value in node:
            _allow_null_in_nullable_enums(value)


def api_path(url: str, api_prefix: str = "") -> str:
    """The request path as the description spells it (prefix removed, multi-segments encoded)."""
    path = urlsplit(url).path
    if api_prefix and path.startswith(api_prefix):
        path = path[len(api_prefix) :]
    for marker in _MULTI_SEGMENT:
        head, sep, tail = path.partition(marker)
        if sep:
            return head + sep + quote(tail, safe="")
    return path


def validate_calls(openapi: Any, calls: list[responses.Call], api_prefix: str = "") -> int:
    """Validate every REST request and its response (GraphQL is checked elsewhere)."""
    from openapi_core.testing import MockRequest, MockResponse

    for call in calls:
        request, response = call.request, call.response
        url = str(request.url)
        if urlsplit(url).path.endswith("/graphql"):
            continue
        body = request.body if isinstance(request.body, bytes) else (request.body or "").encode()
        mock_request = MockRequest(
            "https://api.github.com",
            str(request.method).lower(),
            api_path(url, api_prefix),
            args=dict(parse_qsl(urlsplit(url).query)),
            data=body or None,
            content_type="application/json",
        )
        where = f"{request.method} {urlsplit(url).path}"
        _check(openapi.validate_request, (mock_request,), f"request {where}")
        if response is None or isinstance(response, BaseException):  # a lost answer
            continue
        mock_response = MockResponse(
            response.content,
            status_code=response.status_code,
            headers=dict(response.headers),
            content_type="application/json",
        )
        _check(
            openapi.validate_response,
            (mock_request, mock_response),
            f"response {where}",
            undocumented_ok=response.status_code >= 400,
        )
    return len(calls)


def _check(run: Any, args: tuple[Any, ...], what: str, *, undocumented_ok: bool = False) -> None:
    """Run one validation; an error status the description does not list is accepted."""
    from openapi_core.templating.responses.exceptions import ResponseNotFound

    try:
        run(*args)
    except ResponseNotFound:
        if not undocumented_ok:
            raise
    except Exception as exc:
        causes = getattr(exc, "__cause__", None)
        detail = getattr(causes, "schema_errors", None) or causes or exc
        raise AssertionError(f"OpenAPI contract violated by {what}: {exc}: {detail}") from exc
