"""A version's change bound to its base: the recorded id, and the one comparison with a head."""

from __future__ import annotations

from rubricate.bot.binding import BASE_CHANGE, Bound, base_change, same_change

RAW = "diff-raw-sha256:" + "0" * 64


def test_the_same_diff_on_two_bases_is_two_changes_that_fit_the_ledger() -> None:
    main, release = base_change("main", RAW), base_change("release-1", RAW)
    assert main != release
    assert main.startswith(BASE_CHANGE)
    assert len(main) <= 100
    assert base_change("main", RAW) == main


def test_a_bound_id_needs_its_base_and_an_old_id_keeps_the_diff_alone() -> None:
    recorded = base_change("release-1", RAW)
    assert same_change(recorded, "release-1", RAW)
    assert not same_change(recorded, "main", RAW)
    assert not same_change(recorded, None, RAW)
    assert same_change(RAW, "main", RAW)
    assert same_change(RAW, "release-1", RAW)
    assert not same_change(RAW, "main", RAW.replace("0", "1"))


def test_a_head_records_its_change_bound_to_its_base_and_holds_only_that() -> None:
    head = Bound("tree", RAW, "main")
    assert head.recorded == base_change("main", RAW)
    assert head.holds(base_change("main", RAW))
    assert not head.holds(base_change("release-1", RAW))
    assert not head.holds(None)
    assert not Bound("tree").holds(base_change("main", RAW))
    assert Bound("tree").recorded is None


def test_only_a_bound_id_says_a_change_is_on_this_base() -> None:
    head = Bound("tree", RAW, "main")
    assert head.on_base(base_change("main", RAW))
    assert not head.on_base(base_change("release-1", RAW))
    assert not head.on_base(RAW)
    assert not head.on_base(None)
