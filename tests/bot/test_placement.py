"""Where a head lands among a job's versions when the PR's base changes."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from rubricate.bot.binding import Bound, base_change
from rubricate.bot.jobstate import JobState, VersionInfo
from rubricate.bot.placement import Placement, merge_choice, place_head, retarget

from .conftest import REPO

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)
RAW = "diff-raw-sha256:" + "0" * 64
H1, H2 = "a" * 40, "b" * 40


def _job(*versions: tuple[int, tuple[str, ...], str | None], current: int) -> JobState:
    infos = tuple(
        VersionInfo(n, heads[0], "tree", heads, T0, T0, change_id)
        for n, heads, change_id in versions
    )
    return JobState(REPO, 7, versions=infos, current_number=current, head_at=T0)


def test_a_head_recorded_under_another_base_is_a_new_version() -> None:
    job = _job(
        (1, (H1,), base_change("release-1", RAW)),
        (2, (H2,), base_change("release-1", "other")),
        (3, (H2,), base_change("main", "other")),
        current=3,
    )
    assert place_head(job, H1, Bound("tree", RAW, "main")) == Placement(4, True, True)
    back = place_head(job, H1, Bound("tree", RAW, "release-1"))
    assert back == Placement(1, False, False, reactivated=True)


def test_without_a_change_a_head_returns_to_its_version_as_before() -> None:
    job = _job((1, (H1,), base_change("release-1", RAW)), (2, (H2,), None), current=2)
    assert place_head(job, H1, Bound()) == Placement(1, False, False, reactivated=True)


def test_a_version_recorded_before_the_binding_holds_the_diff_on_any_base() -> None:
    job = _job((1, (H1,), RAW), current=1)
    assert place_head(job, H2, Bound("tree", RAW, "main")) == Placement(1, False, True)


def test_a_retarget_already_recorded_keeps_its_version_and_any_other_is_new() -> None:
    job = _job(
        (1, (H1,), base_change("release-1", RAW)), (2, (H1,), base_change("main", RAW)), current=2
    )
    assert retarget(job, H1, Bound("tree", RAW, "main")) == Placement(2, False, False)
    assert retarget(job, H1, Bound("tree", RAW, "release-1")) == Placement(3, True, True)
    assert retarget(job, H1, Bound()) == Placement(3, True, True)
    old = _job((1, (H1,), RAW), current=1)
    assert retarget(old, H1, Bound("tree", RAW, "main")) == Placement(2, True, True)


OTHER = "diff-raw-sha256:" + "1" * 64
H3 = "c" * 40


def test_a_version_recorded_before_the_binding_never_comes_back_after_another() -> None:
    """Approved on release-1 before the upgrade (v1, an unbound id); then a push and a retarget
    to main: neither a head with v1's diff nor the approved head itself brings v1 back."""
    job = _job(
        (1, (H1,), RAW),
        (2, (H2,), base_change("release-1", OTHER)),
        (3, (H2,), base_change("main", OTHER)),
        current=3,
    )
    assert place_head(job, H3, Bound("tree", RAW, "main")) == Placement(4, True, True)
    assert place_head(job, H1, Bound("tree", RAW, "main")) == Placement(4, True, True)
    # a change bound to this very base still brings its version back
    bound = _job((1, (H1,), base_change("main", RAW)), (2, (H2,), OTHER), current=2)
    assert place_head(bound, H3, Bound("tree", RAW, "main")) == Placement(
        1, False, True, reactivated=True
    )


def test_a_head_known_by_its_commit_alone_never_brings_back_a_version_from_before_a_move() -> None:
    """A merge (or catch-up, or git off) places a head without its change: H1, recorded only
    in v1 before the PR moved (v3 opened by the retarget), is a new version; a head recorded
    since the move, or the current one, keeps its version."""
    job = _job(
        (1, (H1,), base_change("release-1", RAW)),
        (2, (H2,), base_change("release-1", OTHER)),
        (3, (H2,), base_change("main", OTHER)),
        current=3,
    )
    moved = replace(job, base_since=3)
    assert place_head(job, H1, Bound()) == Placement(1, False, False, reactivated=True)
    assert place_head(moved, H1, Bound()) == Placement(4, True, True)
    assert merge_choice(moved, H1, Bound())[0] == 4
    assert place_head(moved, H2, Bound()) == Placement(3, False, False)
    back = replace(moved, current_number=1)  # v1 made current again by its change on this base
    assert place_head(back, H1, Bound()) == Placement(1, False, False)
