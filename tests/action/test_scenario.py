"""A whole PR life through the real PyGithub adapter, the real data-branch store and real git.

open → /score by a writer → push changing the tree → /revise → push → /approve failing →
/override with a reason → merge. Every REST exchange is validated against GitHub's OpenAPI
description (when ../shared is present) and counted against the ceilings.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.scenario import AUTHOR, PR, TOKEN, Scenario, ceiling, pr_life


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def test_a_pr_from_open_to_merge(scenario: Scenario) -> None:
    steps = pr_life(scenario)
    for step in steps.values():
        assert step.code == 0, f"{step.name} exited {step.code}:\n{step.log}"
        assert len(step.calls) <= ceiling(step), f"{step.name}: {step.calls}"
    fake = scenario.fake
    assert steps["opened"].calls == [  # a first attempt: no sticky comment to look for yet
        "GET /repos/octo/widgets/issues/12",
        "POST /repos/octo/widgets/issues/7/comments",
        "POST /repos/octo/widgets/check-runs",
        f"POST /repos/octo/widgets/statuses/{scenario.heads[0]}",
    ]
    sticky_id = next(c["id"] for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login)
    first_check = next(iter(fake.check_runs.values()))
    assert first_check["conclusion"] == "neutral"
    assert first_check["name"] == "rubricate"
    assert any(a["path"] == "out/report.json" for a in fake.annotations[first_check["id"]])
    assert f"PATCH /repos/octo/widgets/issues/comments/{sticky_id}" in steps["score"].calls
    assert all("/issues/7/comments" not in line for line in steps["score"].calls)
    replies = [
        c["body"]
        for c in fake.comments_on(PR)
        if c["id"] != sticky_id and c["user"]["type"] == "Bot"
    ]
    assert any("/override <reason>" in body for body in replies)
    assert any("too short" in body or "20 characters" in body for body in replies)
    _check_ledger(scenario)
    _check_views(scenario, sticky_id)


def _check_ledger(scenario: Scenario) -> None:
    events = scenario.ledger_events()
    kinds = [
        (e["kind"], e["version"], e.get("source")) for e in sorted(events, key=lambda e: e["at"])
    ]
    assert kinds[0] == ("first_submission", 1, "auto")
    assert ("review_scored", 1, "reviewer") in kinds
    assert (
        "first_submission",
        1,
        "reviewer",
    ) in kinds
    assert ("revision_requested", 2, None) in [(k, v, None) for k, v, _ in kinds]
    assert max(v for _, v, _ in kinds) == 3
    final = next(e for e in events if e["kind"] == "final_approval")
    assert final["gate"] == "overridden"
    assert final["version"] == 3
    assert final["override"]["reason"].startswith("the schema gap is tracked")
    assert final["deadline"] == "2026-03-20T00:00:00Z"
    assert final["scores"] == {
        "spec_adherence": 3,
        "completeness": 2,
        "quality": 2,
        "verifiability": 2,
        "format_correctness": 2,
    }
    assert len({e["id"] for e in events}) == len(events)
    assert all(TOKEN not in json.dumps(e) for e in events)
    reputation = json.loads(scenario.data_file("reputation.json") or b"{}")
    assert AUTHOR in json.dumps(reputation)


def _check_views(scenario: Scenario, sticky_id: int) -> None:
    fake = scenario.fake
    ours = [
        c
        for c in fake.comments_on(PR)
        if c["user"]["login"] == fake.bot_login and "rubricate:sticky" in c["body"]
    ]
    assert [c["id"] for c in ours] == [sticky_id]
    assert fake.comment_edits
    assert all(cid == sticky_id for cid, _ in fake.comment_edits)
    bodies = [body for _, body in fake.comment_edits]
    assert all(a != b for a, b in itertools.pairwise(bodies))
    final_body = fake.comments[sticky_id]["body"]
    assert "the schema gap is tracked in \\#13 and ships next sprint" in final_body
    assert TOKEN not in final_body
    states = [(s["state"], s["sha"][:7]) for s in fake.statuses]
    heads = [h[:7] for h in scenario.heads]
    assert states[0] == ("pending", heads[0])
    assert ("pending", heads[1]) in states
    assert ("pending", heads[2]) in states
    assert states[-2:] == [("failure", heads[2]), ("success", heads[2])]
    assert all(s["context"] == "rubricate/approval" for s in fake.statuses)
    comment_ids = [c["id"] for c in fake.comments_on(PR) if c["user"]["login"] != fake.bot_login]
    replies = [c["body"] for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login]
    for cid in comment_ids:  # each command comment is answered once: a reply, else a 👍
        mine = [content for rid, content in fake.reactions if rid == cid]
        replied = any(f"<!-- rubricate:reply comment:{cid} -->" in body for body in replies)
        assert mine == ([] if replied else ["+1"]), (cid, mine)
    short = next(c["id"] for c in fake.comments_on(PR) if c["body"] == "/override too short")
    assert [c for rid, c in fake.reactions if rid == short] == []
    views = json.loads(scenario.data_file(f"views/octo/widgets/{PR}.json") or b"{}")
    assert views["sticky"]["id"] == sticky_id
    assert views["pull"]["head_sha"] == scenario.heads[-1]
