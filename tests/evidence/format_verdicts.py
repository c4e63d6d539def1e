"""One format's verdict on a string, from its own function and from each draft's checker."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rubricate.evidence.schema_dialect import format_checker


def assert_verdict(
    check: Callable[[object], bool], name: str, drafts: Iterable[Any], text: str, valid: bool
) -> None:
    """`check(text)` is `valid`, and so is the format `name` in every draft of `drafts`."""
    assert check(text) is valid, text
    for cls in drafts:
        assert format_checker(cls).conforms(text, name) is valid, (cls.__name__, text)
