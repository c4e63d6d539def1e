"""The pictures in docs/images show what the current code draws (`python -m tests.docs_images`
redraws them when this fails)."""

from __future__ import annotations

import json

from tests.docs_images import IMAGES, SOURCES, digests, sources


def test_the_pictures_are_drawn_from_the_current_code() -> None:
    recorded = json.loads(SOURCES.read_text(encoding="utf-8"))
    current = digests(sources())
    stale = sorted(name for name in current if recorded.get(name) != current[name])
    assert not stale, f"docs/images/{stale} are out of date: run python -m tests.docs_images"
    for name in current:
        assert (IMAGES / f"{name}.png").stat().st_size > 10_000


def test_the_pr_picture_shows_the_comment_the_bot_writes() -> None:
    found = sources()
    assert "rubricate/approval" in found["pr-comment"]
    assert "<table>" in found["pr-comment"]  # the markdown table rendered, not shown raw
    assert "<table>" in found["check-run"]
    assert "2,111" in found["report-index"]  # the demo ledger's events
