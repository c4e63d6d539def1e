"""Work is packed into groups of about equal cost, the costliest first, as the processes that
take the groups would have it."""

from __future__ import annotations

from rubricate.report.packing import packed


def test_the_costliest_go_first_each_to_the_least_loaded_group() -> None:
    costs = {"a": 1, "b": 5, "c": 3, "d": 3, "e": 2}
    assert packed(costs, 2) == [["b", "e"], ["c", "d", "a"]]
    assert packed(costs, 1) == [["b", "c", "d", "e", "a"]]
    assert packed({"a": 1}, 3) == [["a"], [], []]


def test_equal_costs_keep_the_order_given() -> None:
    assert packed(dict.fromkeys("zyx", 1), 3) == [["z"], ["y"], ["x"]]


def test_what_is_sent_away_costs_more_there() -> None:
    costs = {"a": 10, "b": 10, "c": 4}
    assert packed(costs, 2) == [["a", "c"], ["b"]]
    assert packed({"a": 10, "b": 6, "c": 6}, 2, sent=2.0) == [["a", "c"], ["b"]]
    assert packed({"a": 10, "b": 6, "c": 6}, 2) == [["a"], ["b", "c"]]
