"""What a ledger event's `delivery` says of where it came from (pure, no third-party imports:
the report reads it too).

A command's delivery is `comment:<id>#<n>` or `review:<id>#<n>`; a review's dismissal is
`review:<id>#dismissed`, the withdrawal of what that review gave (`rubricate.bot.dismissal`).
"""

from __future__ import annotations

DISMISSED = "#dismissed"
"""The tail of a review's dismissal's delivery (`review:<id>#dismissed`)."""


def delivery_group(delivery: str | None) -> str:
    """The comment or review a delivery belongs to (`comment:12` of `comment:12#3`)."""
    return (delivery or "").partition("#")[0]


def dismissal(delivery: str | None) -> bool:
    """Whether the delivery is a review's dismissal (a withdrawal, not a `/revise`)."""
    return (delivery or "").endswith(DISMISSED)
