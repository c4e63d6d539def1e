"""A small Chrome DevTools Protocol driver for headless Debian chromium (loopback only)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import websocket

VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`);
});
"""
"""Records every Content-Security-Policy violation of the page (DevTools' script, not the
page's: the page itself runs none)."""
LISTENING = re.compile(r"DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)")


def chromium_path() -> str | None:
    """The Debian chromium binary, when installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Page:
    """One browser tab: navigate, evaluate, screenshot, and the console errors seen."""

    def __init__(self, socket: websocket.WebSocket) -> None:
        self.socket = socket
        self.next_id = 0
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its reply, keeping events that arrive meanwhile."""
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            self._event(message)

    def wait_for(self, method: str, timeout: float = 30.0) -> None:
        """Wait until an event named `method` arrives."""
        deadline = time.monotonic() + timeout
        if any(e.get("method") == method for e in self.events):
            return
        while time.monotonic() < deadline:
            message = json.loads(self.socket.recv())
            self._event(message)
            if message.get("method") == method:
                return
        raise TimeoutError(method)

    def open(self, url: str, width: int = 1280, height: int = 800) -> None:
        """Load a page at a given viewport size and wait for it."""
        self.events.clear()
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"]))
        return result["result"].get("value")

    def violations(self) -> list[str]:
        """The Content-Security-Policy violations the page reported since it was opened."""
        return list(self.evaluate("window.__violations || []"))

    def screenshot(self, path: Path) -> Path:
        """A PNG of the viewport."""
        import base64

        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def _event(self, message: dict[str, Any]) -> None:
        self.events.append(message)
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(str(params.get("exceptionDetails", {}).get("text")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(str(params.get("args")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(str(params["entry"].get("text")))


@contextmanager
def browser(binary: str) -> Iterator[Page]:
    """Headless chromium on a loopback debugging port, with one tab attached."""
    profile = tempfile.mkdtemp(prefix="rubricate-chromium-")
    args = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-scrollbars",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    process = subprocess.Popen(
        args, stderr=subprocess.PIPE, text=True, env={**os.environ, "LANG": "C.UTF-8"}
    )
    try:
        port = _port(process)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
            targets = json.load(reply)
        url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
        socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        page = Page(socket)
        for domain in ("Page", "Runtime", "Log"):
            page.call(f"{domain}.enable")
        page.call("Page.addScriptToEvaluateOnNewDocument", source=VIOLATIONS)
        try:
            yield page
        finally:
            socket.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)


def _port(process: subprocess.Popen[str]) -> int:
    assert process.stderr is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line and process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode}")
        match = LISTENING.search(line)
        if match:
            return int(match.group(2))
    raise TimeoutError("chromium did not open its debugging port")
