"""The view state's signing rule: with a ledger key, only a state signed with it is read."""

from __future__ import annotations

import json

import pytest

from rubricate.bot.view_state import StatusView, ViewState, decode_views, encode_views

KEY = b"k" * 32
SHA = "a" * 40


def _state() -> ViewState:
    return ViewState(
        pr=7,
        statuses={f"rubricate/approval@{SHA}": StatusView(state="success", description="ok")},
        answered=["comment:1"],
    )


def test_a_signed_state_is_read_back_with_its_key_and_without_one() -> None:
    data = encode_views(_state(), KEY)
    assert "sig" in json.loads(data)
    assert decode_views(data, 7, KEY) == _state()
    assert decode_views(data, 7) == _state()
    assert "sig" not in json.loads(encode_views(_state()))


def _edited(data: bytes) -> bytes:
    raw = json.loads(data)
    raw["answered"].append("comment:2")
    return json.dumps(raw).encode()


def _unsigned(data: bytes) -> bytes:
    raw = json.loads(data)
    del raw["sig"]
    return json.dumps(raw).encode()


def _non_ascii(data: bytes) -> bytes:
    raw = json.loads(data)
    raw["sig"] = "\u00e9" * 16
    return json.dumps(raw).encode()


def _not_json(data: bytes) -> bytes:
    return data[:-5]


@pytest.mark.parametrize("change", [_edited, _unsigned, _non_ascii, _not_json])
def test_with_a_key_a_state_not_signed_with_it_is_empty(change: object) -> None:
    assert callable(change)
    data = change(encode_views(_state(), KEY))
    assert decode_views(data, 7, KEY) == ViewState(pr=7)


def test_a_state_signed_with_another_key_or_of_another_pr_is_empty() -> None:
    assert decode_views(encode_views(_state(), b"o" * 32), 7, KEY) == ViewState(pr=7)
    assert decode_views(encode_views(_state(), KEY), 8, KEY) == ViewState(pr=8)
