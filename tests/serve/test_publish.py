"""The publish job on PostgreSQL and the fake GitHub: a status another, unfinished publish may
have left on GitHub is sent again (`rubricate.serve.publish`, `outbox.states_dropped`)."""

from __future__ import annotations

import pytest

from rubricate.bot.effects import SetStatus
from rubricate.serve import outbox
from rubricate.serve.handle import handle_delivery
from rubricate.serve.publish import publish_pr
from tests.action.payloads import REPO
from tests.action.scenario import PR
from tests.serve.conftest import WorkerSetup
from tests.serve.test_worker import _gate, _leave
from tests.serve.world import pr_delivery


def test_a_lowering_an_unfinished_publish_sent_is_lifted_by_the_green_after_it(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate published green; a dismissal's lowering published and the publish killed
    before its commit (GitHub pending, the view state still green); the job then settles on
    green: the next publish sends it, though the view state says green already."""
    sc, fake = world.scenario, world.scenario.fake
    guid = pr_delivery(world, "g-open")
    handle_delivery(world.ctx, guid, now=sc.clock)
    green = SetStatus(sha=sc.heads[-1], state="success", description="approved")
    _leave(world, guid, green)
    publish_pr(world.ctx, REPO, PR)
    assert _gate(world) == "success"
    _leave(world, guid, SetStatus(sha=sc.heads[-1], state="pending", description="lowered"))

    def killed(*_args: object) -> None:
        raise SystemExit("killed after GitHub's writes, before the commit")

    monkeypatch.setattr(outbox, "mark_published", killed)
    with pytest.raises(SystemExit):
        publish_pr(world.ctx, REPO, PR)
    monkeypatch.undo()
    assert _gate(world) == "pending"
    _leave(world, guid, green)
    publish_pr(world.ctx, REPO, PR, again=True)
    assert fake.statuses[-1]["state"] == "success"
