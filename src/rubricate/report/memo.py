"""The bootstrap's settings, its estimate, and the estimates a report keeps for the next one
(pure: no numpy, which only drawing an estimate needs).

A bootstrap estimate (calibration's kappa, the weights' ρ), or a chart, costs far more than a
digest of what it is drawn from. A report keeps each one it used under that digest (`Memo`), and
the next report takes it instead of drawing it again when its inputs are the same (`reuse`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rubricate.errors import ConfigError

RESAMPLES = 1000
SEED = 20240601


def extra_missing(detail: str) -> ConfigError:
    """The error for a package of the `report` extra that is missing or cannot be imported (numpy
    is imported only when an estimate is drawn, so a broken one shows there)."""
    return ConfigError(
        f"rubricate report needs the optional extra: pip install 'rubricate[report]' ({detail})"
    )


def numpy_unusable(exc: ImportError) -> ConfigError:
    """The error for an installed numpy that cannot be imported (where an estimate is drawn)."""
    return extra_missing(f"numpy cannot be imported: {exc}")


@dataclass(frozen=True)
class Estimate:
    """A statistic with its 95% bootstrap interval (None where undefined)."""

    value: float | None
    low: float | None
    high: float | None


class Memo:
    """Estimates by a digest of their inputs: those the last report kept (`known`), and those
    this one used (`used`, kept for the next)."""

    def __init__(self, known: Mapping[str, Any] | None = None):
        self.known = dict(known or {})
        self.used: dict[str, Any] = {}

    def recall(self, inputs: Any, make: Callable[[], Any]) -> Any:
        """The value kept for these inputs (JSON-ready), or `make()`'s (JSON-ready too; not kept
        when the inputs are not)."""
        try:
            text = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):
            return make()
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        value = self.known[digest] if digest in self.known else make()
        self.used[digest] = value
        return value
