"""What every chart of the report shares (pure: text in, text out): the palette and sizes,
stable element ids, and each chart's CSS kept by a class named after its content (`STYLES`:
the pages link one `style.css`, since a strict CSP allows no inline style)."""

from __future__ import annotations

import hashlib
import re

PALETTE = ("#0b5cad", "#b3470c", "#1a7f37", "#8250df", "#9a6700", "#cf222e")
"""Colours with at least 4.5:1 contrast on white, told apart by hue and lightness."""
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"
WIDTH, HEIGHT = 640, 360
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]")
STYLES: dict[str, str] = {}
"""The charts' CSS by class (pages link one `style.css`; a strict CSP allows no inline style)."""
SCOPES: list[str] = []
"""The style classes of the charts drawn so far, in order."""


def element_id(text: str) -> str:
    """`text` as an HTML id and CSS selector that pygal's templates read literally: letters,
    digits, `-` and `_` only; anything else (a `{` in a criterion id, a space) is replaced, and a
    short hash of the whole text keeps two such ids apart."""
    safe = _UNSAFE_ID.sub("-", text)
    if safe == text:
        return text
    return f"{safe}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def shared_style(css: str, scope: str) -> str:
    """Keep a chart's CSS, scoped to a class named after its content, in `STYLES`."""
    digest = hashlib.sha1(css.replace(scope, "#").encode(), usedforsecurity=False).hexdigest()
    name = f"c{digest[:10]}"
    STYLES.setdefault(name, css.replace(scope, f".{name}"))
    SCOPES.append(name)
    return name


def stylesheet() -> str:
    """The CSS of every chart drawn so far (each distinct style once)."""
    return "\n".join(STYLES[name] for name in sorted(STYLES))
