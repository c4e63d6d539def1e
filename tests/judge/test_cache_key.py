"""The cache key: a content hash of everything a judgment depends on, nothing else."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rubricate.judge import cache as cache_key_module
from rubricate.judge.cache import JudgeCache, cache_key

from .helpers import agora, snapshot


def _key(**changes: object) -> str:
    rubric = changes.pop("rubric", agora())
    model = str(changes.pop("model", "m"))
    tokens = int(changes.pop("tokens", 32000))  # type: ignore[call-overload]
    return cache_key(replace(snapshot(), **changes), rubric, model, tokens)  # type: ignore[arg-type]


def test_same_inputs_same_key() -> None:
    assert _key() == _key()
    assert len(_key()) == 64


@pytest.mark.parametrize(
    "change",
    [
        {"head_tree": "x" * 40},
        {"base_tree": "y" * 40},
        {"spec": "another spec"},
        {"body": "another body"},
        {"title": "another title"},
        {"model": "other"},
        {"tokens": 16000},
        {"rubric": agora().model_copy(update={"version": "3.1"})},
    ],
    ids=lambda c: next(iter(c)),
)
def test_each_input_changes_the_key(change: dict[str, object]) -> None:
    assert _key(**change) != _key()


def test_prompt_version_changes_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _key()
    monkeypatch.setattr(cache_key_module, "PROMPT_VERSION", "next")
    assert _key() != before


def test_the_injection_detector_version_changes_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _key()
    monkeypatch.setattr(cache_key_module, "DETECTOR_VERSION", "rubricate-injection-next")
    assert _key() != before


def test_without_tree_ids_the_patches_stand_in() -> None:
    bare = replace(snapshot(), head_tree="")
    edited = replace(bare, changes=bare.changes[:1])
    assert cache_key(bare, agora(), "m", 1) != cache_key(edited, agora(), "m", 1)
    assert cache_key(bare, agora(), "m", 1) == cache_key(bare, agora(), "m", 1)


def test_cache_round_trip_and_misses(tmp_path: object) -> None:
    from pathlib import Path

    cache = JudgeCache(Path(str(tmp_path)) / "c")
    assert cache.get("ab" * 32) is None
    assert cache.put("ab" * 32, {"x": 1}) is None
    assert cache.get("ab" * 32) == {"x": 1}
    cache.path("cd" * 32).parent.mkdir(parents=True)
    cache.path("cd" * 32).write_text("[1, 2")
    assert cache.get("cd" * 32) is None
    assert not list((Path(str(tmp_path)) / "c").rglob("*.tmp"))
