"""The pinned-dependencies heuristic: which manifest lines a lockfile resolves."""

from __future__ import annotations

from pathlib import Path

from rubricate.evidence.verifiability import verifiability_check

from .gitrepo import FileValue, snapshot_of

PACKAGE = (
    '{\n  "name": "v",\n  "dependencies": {\n    "a": "^1.0.0"\n  },\n'
    '  "peerDependencies": {\n    "b": "^1.0.0"\n  },\n'
    '  "peerDependenciesMeta": {\n    "b": {\n      "optional": true\n    }\n  }\n}\n'
)
BASE: dict[str, FileValue] = {"package.json": PACKAGE, "pnpm-lock.yaml": "lockfileVersion: '9.0'\n"}


def rules(tmp_path: Path, package: str) -> list[str]:
    snapshot = snapshot_of(tmp_path, BASE, {"package.json": package})
    return [f.rule for f in verifiability_check(snapshot).findings]


def test_a_peer_range_needs_no_lockfile_change(tmp_path: Path) -> None:
    """A peer range states what a consumer may bring; no lockfile of the package resolves it."""
    assert rules(tmp_path, PACKAGE.replace('"b": "^1.0.0"', '"b": "^1.0.0 || ^2.0.0"')) == []


def test_a_dependency_range_still_needs_its_lockfile(tmp_path: Path) -> None:
    widened = PACKAGE.replace('"a": "^1.0.0"', '"a": "^2.0.0"')
    assert rules(tmp_path / "a", widened) == ["pinned-dependencies"]
    added = PACKAGE.replace(
        '"optional": true\n    }\n  }\n}',
        '"optional": true\n    }\n  },\n  "devDependencies": {\n    "c": "^3.0.0"\n  }\n}',
    )
    assert rules(tmp_path / "b", added) == ["pinned-dependencies"]


ONE_LINE = (
    '{\n  "name": "v",\n  "description": "a\u2028b\u2028c",\n'
    '  "peerDependencies": {"b": "^1.0.0"}, "dependencies": {\n    "a": "^1.0.0"\n  }\n}\n'
)


def test_a_section_opened_after_a_one_line_peer_block_is_locked(tmp_path: Path) -> None:
    base = {**BASE, "package.json": ONE_LINE}
    bumped = snapshot_of(
        tmp_path / "a", base, {"package.json": ONE_LINE.replace('^1.0.0"\n', '^2.0.0"\n')}
    )
    assert [f.rule for f in verifiability_check(bumped).findings] == ["pinned-dependencies"]
    peer = ONE_LINE.replace('{"b": "^1.0.0"}', '{\n    "b": "^2.0.0"\n  }')
    widened = snapshot_of(tmp_path / "b", base, {"package.json": peer})
    assert verifiability_check(widened).findings == ()
