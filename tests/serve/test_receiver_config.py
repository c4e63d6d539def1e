"""`rubricate serve` runs its receiver on httptools' HTTP parser and, where it exists, uvloop's
event loop (each several times cheaper per delivery than uvicorn's pure-Python defaults)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys

import pytest
from starlette.applications import Starlette
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from rubricate.serve.server import receiver_config


def test_the_receiver_parses_http_with_httptools() -> None:
    config = receiver_config(Starlette(), "127.0.0.1", 8080)
    config.load()
    assert config.http_protocol_class is HttpToolsProtocol


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop does not exist on Windows")
def test_the_receiver_runs_on_uvloop() -> None:
    assert importlib.util.find_spec("uvloop") is not None  # a dependency of the server extra
    factory = receiver_config(Starlette(), "127.0.0.1", 8080).get_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        assert type(loop).__module__.startswith("uvloop")
        assert not isinstance(loop, asyncio.SelectorEventLoop)
    finally:
        loop.close()
