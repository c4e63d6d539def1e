"""A made-up ledger to see the report without a history of one's own (pure: a seed in, ledger
shards out).

`rubricate report --demo` draws the report from it. The ledger is the same for the same seed:
`JOBS` pull requests of `AUTHORS` authors on `REPO` over about eleven months, each with the
automatic first score (judge and heuristics), a reviewer's scores, revisions, a final approval
(passed, overridden or bypassed) or an abandoned job, ratings and the odd dispute. Every event
is a real ledger event: it is written and read back by the ledger's own code.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Any

from rubricate.ledger.codec import shard_path
from rubricate.ledger.event import CriterionRef, Event, RubricRef, ScaleRef
from rubricate.ledger.trust import natural_key

REPO = "demo/widgets"
JOBS = 440
AUTHORS = 72
START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
RUBRIC = RubricRef(
    id="agora-v3",
    version="3",
    scale=ScaleRef(min=1, max=5),
    criteria={
        "spec_adherence": CriterionRef(weight=0.30),
        "completeness": CriterionRef(weight=0.20),
        "quality": CriterionRef(weight=0.25),
        "verifiability": CriterionRef(weight=0.15),
        "format_correctness": CriterionRef(weight=0.10),
    },
)
CRITERIA = tuple(RUBRIC.criteria or {})
JUDGED = CRITERIA[:3]
"""The criteria the judge scores; the heuristics score the rest."""
_SYLLABLES = ("ka", "lo", "mi", "ren", "sa", "to", "vi", "ne", "da", "ru", "el", "po")
_REVIEWERS = ("maintainer-a", "maintainer-b", "maintainer-c")
_REASONS = (
    "the failing check is a known flaky network test",
    "hotfix for the release: the missing tests follow in the next pull request",
)


def demo_shards(seed: int = 1) -> dict[str, str]:
    """The demo ledger as shard texts, path → JSON lines."""
    shards: dict[str, list[str]] = {}
    for event in demo_events(seed):
        shards.setdefault(shard_path(event.at), []).append(event.to_line())
    return {path: "\n".join(lines) + "\n" for path, lines in sorted(shards.items())}


def demo_events(seed: int = 1) -> list[Event]:
    """Every event of the demo ledger, in time order."""
    rng = random.Random(seed)
    authors = _logins(rng)
    skills = {login: rng.uniform(2.0, 4.6) for login in authors}
    weights = [1 / (rank + 1) ** 0.8 for rank in range(AUTHORS)]  # a few prolific authors
    events: list[Event] = []
    for pr in range(1, JOBS + 1):
        author = authors[pr - 1] if pr <= AUTHORS else rng.choices(authors, weights)[0]
        events += _job(pr, author, skills[author], rng)
    return sorted(events, key=lambda e: (e.at, e.id))


def _logins(rng: random.Random) -> list[str]:
    logins: list[str] = []
    while len(logins) < AUTHORS:
        name = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        name += rng.choice(("", "", "-dev", str(rng.randint(1, 99))))
        if name not in logins:
            logins.append(name)
    return logins


def _job(pr: int, author: str, skill: float, rng: random.Random) -> list[Event]:
    start = START + timedelta(hours=pr * 19 + rng.uniform(0, 12))
    truth = [_clamp(skill + rng.gauss(0, 0.8)) for _ in CRITERIA]
    machine = [
        _clamp(t + rng.choice((0, 0, 0, 1)) if c in JUDGED else t + rng.choice((-1, 0, 0, 1)))
        for c, t in zip(CRITERIA, truth, strict=True)
    ]
    new = _Maker(pr, author, start)
    evidence = [{"type": "criterion", "id": c, "source": "judge"} for c in JUDGED]
    out = [
        new("first_submission", 0, "a", scores=machine, source="auto", evidence=evidence),
        new("review_scored", 2 + rng.uniform(0, 20), "b", scores=truth, source="reviewer"),
    ]
    revisions = rng.choices((0, 1, 2, 3), weights=(5, 3, 2, 1))[0]
    for n in range(revisions):
        out.append(new("revision_requested", 24 + 30 * n, f"r{n}", feedback="please add tests"))
    version = 1 + revisions
    if rng.random() < 0.06:
        out.append(new("abandoned", 40 + 30 * revisions, "x", version=version))
        return out
    final = [_clamp(t + rng.choice((0, 0, 1))) for t in truth]
    hours = 30 + 30 * revisions + rng.uniform(0, 72)
    fields: dict[str, Any] = {"gate": "passed", "deadline": start + timedelta(hours=120)}
    if rng.random() < 0.04:
        fields = {"gate": "overridden", "override": {"reason": rng.choice(_REASONS)}}
    elif rng.random() < 0.02:
        fields = {"gate": "bypassed"}
    out.append(new("final_approval", hours, "f", scores=final, version=version, **fields))
    for n in range(rng.choice((0, 1, 1, 2))):
        rating = _clamp(sum(final) / len(final) + rng.choice((-1, 0, 0, 1)))
        out.append(new("rated", hours + 48 + n, f"s{n}", rating=rating, actor=_REVIEWERS[n]))
    if rng.random() < 0.03:
        out.append(new("disputed", hours + 96, "y", feedback="reverted: broke the release build"))
    return out


class _Maker:
    """Events of one job."""

    def __init__(self, pr: int, author: str, start: datetime) -> None:
        self.pr, self.author, self.start = pr, author, start

    def __call__(self, kind: str, hours: float, tag: str, **fields: Any) -> Event:
        version = fields.pop("version", 1)
        delivery = f"demo-{self.pr}-{tag}"
        scores = fields.pop("scores", None)
        automatic = fields.get("source") == "auto"
        values: dict[str, Any] = {
            "id": natural_key(kind, REPO, self.pr, version, delivery),
            "kind": kind,
            "repo": REPO,
            "pr": self.pr,
            "author": self.author,
            "actor": "rubricate[bot]" if automatic else fields.pop("actor", _REVIEWERS[0]),
            "actor_role": "bot" if automatic else "maintain",
            "at": self.start + timedelta(hours=hours),
            "version": version,
            "delivery": delivery,
            **fields,
        }
        if scores is not None:
            values["rubric"] = RUBRIC
            values["scores"] = dict(zip(CRITERIA, scores, strict=True))
        return Event.model_validate(values)


def _clamp(value: float) -> int:
    return int(min(5, max(1, round(value))))
