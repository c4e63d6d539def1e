"""A realistic synthetic ledger for the report tests (judge, heuristics, reviewers, audits), and
what the tests compare reports by."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rubricate.ledger.backends import DirectoryStore
from rubricate.ledger.event import Event
from rubricate.report import pool
from tests.ledger.factory import AGORA_IDS, event, scored

AUTHORS = ("alice", "bob-the-builder", "carol", "dependabot[bot]", "erin")


def sample_events(jobs: int = 120, seed: int = 7) -> list[Event]:
    """`jobs` jobs over several months by five authors, with every kind of event."""
    rng = random.Random(seed)
    events: list[Event] = []
    for pr in range(1, jobs + 1):
        events += _job(pr, rng)
    return events


def _job(pr: int, rng: random.Random) -> list[Event]:
    author = AUTHORS[pr % len(AUTHORS)]
    start = pr * 20.0
    skill = 2 + (pr % len(AUTHORS)) * 0.5
    truth = [min(5, max(1, round(skill + rng.gauss(0, 0.8)))) for _ in AGORA_IDS]
    heur = [min(5, max(1, t + rng.choice((-1, 0, 0, 1)))) for t in truth]
    judge = [min(5, max(1, t + rng.choice((0, 0, 0, 1)))) for t in truth]
    common: dict[str, Any] = {"author": author}
    sources = [{"type": "criterion", "id": c, "source": "judge"} for c in AGORA_IDS[:3]]
    mixed = dict(zip(AGORA_IDS, judge[:3] + heur[3:], strict=True))
    out = [
        scored(
            "first_submission",
            pr,
            start,
            f"d{pr}a",
            mixed,
            source="auto",
            evidence=sources,
            actor="rubricate[bot]",
            actor_role="bot",
            **common,
        ),
        scored("first_submission", pr, start + 2, f"d{pr}b", truth, **common),
    ]
    revisions = rng.choice((0, 0, 1, 2))
    for n in range(revisions):
        out.append(
            event(
                "revision_requested",
                pr,
                start + 3 + n,
                f"d{pr}r{n}",
                feedback="please add tests",
                **common,
            )
        )
    version = 1 + revisions
    final = [min(5, t + rng.choice((0, 1))) for t in truth]
    if pr % 9 == 0:
        out.append(event("abandoned", pr, start + 12, f"d{pr}x", **common))
        return out
    fields: dict[str, Any] = {"gate": "passed", "deadline": _deadline(start + 48)}
    if pr % 11 == 0:
        fields = {
            "gate": "overridden",
            "override": {"reason": "the failing check is a known flaky network test"},
        }
    elif pr % 17 == 0:
        fields = {"gate": "bypassed"}
    out.append(
        scored(
            "final_approval",
            pr,
            start + 8 + 6 * revisions + rng.random() * 40,
            f"d{pr}f",
            final,
            version=version,
            **fields,
            **common,
        )
    )
    out.append(
        event(
            "rated",
            pr,
            start + 60,
            f"d{pr}s",
            rating=min(5, max(1, round(sum(truth) / 5 + rng.choice((-1, 0, 0, 1))))),
            actor_role="maintain",
            **common,
        )
    )
    if pr % 13 == 0:
        out.append(
            event(
                "disputed",
                pr,
                start + 70,
                f"d{pr}y",
                feedback="reverted: broke the release build",
                actor_role="maintain",
                **common,
            )
        )
    return out


def _deadline(hours: float) -> Any:
    from tests.ledger.factory import at

    return at(hours)


def write_ledger(
    root: Path, events: list[Event], extra_lines: dict[str, str] | None = None
) -> Path:
    """A data-branch directory holding these events (and any extra raw lines per shard)."""
    shards: dict[str, list[str]] = {}
    for item in events:
        shards.setdefault(f"ledger/{item.at:%Y-%m}.jsonl", []).append(item.to_line())
    for path, line in (extra_lines or {}).items():
        shards.setdefault(path, []).append(line)
    for path, lines in shards.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def with_derived_files(root: Path) -> Path:
    """The data directory with its derived files (the fold cache among them)."""
    with DirectoryStore(str(root)) as store:
        store.rebuild()
    return root


def site_files(out: Path) -> dict[str, str]:
    """Every file a report wrote in `out` (its kept state left out) → sha256."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not p.relative_to(out).as_posix().startswith(".rubricate/")
    }


def parses_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets an item each time a report parses the ledger's lines (every field of
    each line checked)."""
    calls: list[int] = []
    real: Callable[..., Any] = pool.parse_in_parallel

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr("rubricate.cli.report_cmd.parse_in_parallel", counted)
    return calls
