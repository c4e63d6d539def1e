"""The collector is paused over bulk work, what lives to the end is frozen after it, and a
block that draws collects only what it makes; each restores the collector as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from rubricate.bulk import gc_paused, kept_to_the_end, only_new_collected


@pytest.fixture(autouse=True)
def restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_kept_to_the_end_pauses_then_freezes_what_was_made() -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    with kept_to_the_end():
        assert not gc.isenabled()
        made = [[n] for n in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(made)


def test_only_new_collected_freezes_what_was_there_and_collects_in_the_block() -> None:
    with gc_paused():
        with only_new_collected():
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
        assert not gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_only_new_collected_keeps_what_was_kept_to_the_end_frozen() -> None:
    with kept_to_the_end():
        kept = [[n] for n in range(1000)]
    frozen = gc.get_freeze_count()
    assert frozen >= len(kept)
    with only_new_collected():
        drawn = [[n] for n in range(10)]
    assert drawn
    assert gc.get_freeze_count() >= frozen
