"""Badge files: shields.io endpoint JSON and SVG rendered by anybadge.

(pure: text in, bytes out; anybadge reads only its own packaged template, like an import.)
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import anybadge

from rubricate.ledger.paths import REPO_STEM as REPO_STEM
from rubricate.ledger.paths import author_stem as author_stem

NO_DATA = "no data"
AUTHOR_LABEL = "reputation"
REPO_LABEL = "rubric quality"
# (lowest value, shields.io colour name, its hex code), best first.
COLOR_STEPS: tuple[tuple[float, str, str], ...] = (
    (0.9, "brightgreen", "#44CC11"),
    (0.75, "green", "#97CA00"),
    (0.6, "yellowgreen", "#A4A61D"),
    (0.45, "yellow", "#DFB317"),
    (0.3, "orange", "#FE7D37"),
    (0.0, "red", "#E05D44"),
)
NO_DATA_COLOR = ("lightgrey", "#9F9F9F")
_UNSAFE = re.compile(r"[^A-Za-z0-9-]")


@dataclass(frozen=True)
class Badge:
    """One badge: its label, message and colour."""

    label: str
    message: str
    color: str
    hex_color: str

    def endpoint_json(self) -> bytes:
        """The shields.io endpoint format."""
        body = {
            "schemaVersion": 1,
            "label": self.label,
            "message": self.message,
            "color": self.color,
        }
        return (json.dumps(body, indent=2, sort_keys=True) + "\n").encode()

    def svg(self) -> bytes:
        """The badge drawn by anybadge."""
        return _render_svg(self.label, self.message, self.hex_color)


def value_badge(label: str, value: float | None) -> Badge:
    """A badge showing a value in [0, 1] with two decimals, coloured by thresholds."""
    if value is None:
        return Badge(label, NO_DATA, *NO_DATA_COLOR)
    name, code = next((n, c) for low, n, c in COLOR_STEPS if value >= low)
    return Badge(label, f"{value:.2f}", name, code)


def author_badge(entry: dict[str, Any]) -> Badge:
    """An author's reputation badge from their `reputation.json` entry."""
    return value_badge(AUTHOR_LABEL, entry.get("reputation"))


def repo_badge(entry: dict[str, Any]) -> Badge:
    """A repository's mean rubric_quality badge from its `reputation.json` entry."""
    return value_badge(REPO_LABEL, entry["rubric_quality"]["value"])


@lru_cache(maxsize=4096)
def _render_svg(label: str, message: str, hex_color: str) -> bytes:
    # anybadge reads numeric text as a number ("1.00" would show as "1.0"): keep two decimals.
    numeric = message.replace(".", "", 1).isdigit()
    value_format = "%.2f" if numeric else None
    badge = anybadge.Badge(label, message, default_color=hex_color, value_format=value_format)
    # anybadge numbers masks from a per-process counter; name it by content to stay reproducible.
    digest = hashlib.sha1(f"{label}|{message}|{hex_color}".encode(), usedforsecurity=False)
    badge.mask_str = f"rubricate_{digest.hexdigest()[:10]}"
    return str(badge.badge_svg_text).encode()
