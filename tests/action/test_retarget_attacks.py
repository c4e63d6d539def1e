"""A green given under a lenient base's rules never survives a retarget to a stricter base.

A version's change is bound to the PR's base (`rubricate.bot.binding`): no push after a
retarget (a force-push back, a new commit with the approved change, a push whose run comes
before the retarget's, or one after a failed retarget run) brings back a version approved under
the old base; and a re-run of a recorded retarget keeps the new version and its approval.
Real git repositories, the real PyGithub adapter and the fake GitHub.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rubricate.action import main as main_module
from tests.action.payloads import pull_request_event
from tests.action.scenario import AUTHOR, PR, START, WRITER, Scenario, Step, git
from tests.action.test_attack_config import LOW, _gate, _lenient_release, _pr, scenario

__all__ = ["scenario"]
MOVED = {"base": {"ref": {"from": "release-1"}}}


def test_a_new_commit_with_the_approved_diff_on_the_new_base_is_a_new_version(
    scenario: Scenario,
) -> None:
    """v1 approved on release-1; retarget to main (v2 pending); push another change (v3); push a
    new commit whose diff is v1's again (the same against both bases): v1's change is bound to
    release-1, so this is a new version under main's rules."""
    main, release = _lenient_release(scenario)
    first = scenario.heads[-1]
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    assert _pr(scenario, "edited", "main", main, MOVED).code == 0
    assert _gate(scenario) == "pending"
    scenario.push({"extra.txt": "x\n"}, "More")
    assert _pr(scenario, "synchronize", "main", main).code == 0
    assert _gate(scenario) == "pending"
    git(scenario.work, "rm", "--quiet", "extra.txt")
    git(scenario.work, "commit", "--quiet", "-m", "Back")
    assert git(scenario.work, "rev-parse", "HEAD^{tree}") == git(
        scenario.work, "rev-parse", f"{first}^{{tree}}"
    )
    scenario.push_head()
    step = _pr(scenario, "synchronize", "main", main)
    assert step.code == 0, step.log
    assert _gate(scenario) != "success", step.log


def _moved_to_main(scenario: Scenario, head: str, main: str) -> Any:
    """The retarget to main of the PR at this head, now, as a payload held back for later."""
    payload = pull_request_event(
        "edited",
        number=PR,
        author=AUTHOR,
        created=START,
        head_sha=head,
        base_sha=main,
        at=scenario.tick(),
    )
    payload["pull_request"]["base"]["ref"] = "main"
    payload["changes"] = MOVED
    return payload


def test_a_push_whose_run_comes_before_the_retargets_does_not_keep_the_old_green(
    scenario: Scenario,
) -> None:
    """Retarget at t1, then a push that keeps the change (new commit, same diff) at t2; the
    synchronize run happens first (delivery order, or the edited run failed and is re-run)."""
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    payload = _moved_to_main(scenario, scenario.heads[-1], main)
    step = _reword(scenario, main)
    late = scenario.deliver("edited late", "pull_request_target", payload)
    assert late.code == 0, late.log
    assert _gate(scenario) != "success", step.log + late.log


def test_a_failed_retarget_then_a_push_keeping_the_change(scenario: Scenario) -> None:
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    away = scenario.remote.rename(scenario.root / "away.git")
    step = _pr(scenario, "edited", "main", main, MOVED)
    assert step.code == 1
    assert _gate(scenario) == "failure"
    away.rename(scenario.remote)
    step = _reword(scenario, main)
    assert _gate(scenario) != "success", step.log


def test_a_rerun_of_a_recorded_retarget_keeps_the_new_versions_approval(
    scenario: Scenario,
) -> None:
    """A re-run (or a redelivery) of a retarget run that succeeded: not a second retarget."""
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    step = _pr(scenario, "edited", "main", main, MOVED)
    assert step.code == 0
    assert scenario.comment(WRITER, "/approve spec=5 comp=5 qual=5 ver=5 format=5").code == 0
    green = _gate(scenario)
    assert green == "success", green
    files = sorted(scenario.root.glob("event-*.json"))
    edited = next(f for f in files if json.loads(f.read_text()).get("action") == "edited")
    again = scenario.deliver("re-run", "pull_request_target", json.loads(edited.read_text()))
    assert again.code == 0, again.log
    assert _gate(scenario) == green, again.log


def test_a_force_push_back_to_the_approved_head_after_a_retarget(scenario: Scenario) -> None:
    """Approved H1 on release-1; push H2 (another change); retarget to main; force-push H1:
    H1 was recorded in v1 under release-1's rules, which does not bring v1 back on main."""
    main, _ = _approved_then_moved(scenario)
    step = _pr(scenario, "synchronize", "main", main)
    assert step.code == 0, step.log
    assert _gate(scenario) != "success", step.log


def _reword(scenario: Scenario, main: str) -> Step:
    """A new head commit that keeps the change (its message reworded), pushed and run on main."""
    git(scenario.work, "commit", "--quiet", "--amend", "-m", "Add (reworded)")
    scenario.push_head()
    step = _pr(scenario, "synchronize", "main", main)
    assert step.code == 0, step.log
    return step


def test_a_retarget_run_cancelled_before_it_reads_anything_leaves_no_green(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retarget's run is cancelled (or times out) while it fetches, before any failure
    handling can run: the head's gate went down first, so the old base's green does not stand;
    a re-run sets the new version's gate."""
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"

    def cancelled(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # what a cancelled job's SIGINT raises in Python

    real = main_module.locate
    monkeypatch.setattr(main_module, "locate", cancelled)
    with pytest.raises(KeyboardInterrupt):
        _pr(scenario, "edited", "main", main, MOVED)
    assert _gate(scenario) == "pending"
    monkeypatch.setattr(main_module, "locate", real)
    step = scenario.deliver("re-run", "pull_request_target", _last_payload(scenario))
    assert step.code == 0, step.log
    assert _gate(scenario) == "pending"
    assert "v2" in scenario.fake.statuses[-1]["description"]


def _last_payload(scenario: Scenario) -> Any:
    """The payload of the last delivery (its run did not finish)."""
    files = sorted(scenario.root.glob("event-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    return json.loads(files[-1].read_text())


def _approved_then_moved(scenario: Scenario) -> tuple[str, str]:
    """H1 approved on release-1 (lenient), H2 pushed (v2), the PR moved to main (v3), then a
    force-push back to H1 whose run never comes. Main's commit and H1."""
    main, release = _lenient_release(scenario)
    first = scenario.heads[-1]
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    scenario.push({"extra.txt": "x\n"}, "More")
    assert _pr(scenario, "synchronize", "release-1", release).code == 0
    assert _pr(scenario, "edited", "main", main, MOVED).code == 0
    git(scenario.work, "reset", "--quiet", "--hard", first)
    scenario.push_head()
    return main, first


def test_a_merge_at_a_head_recorded_only_before_the_retarget_is_bypassed(
    scenario: Scenario,
) -> None:
    """The force-push back to H1 is never run; the PR is merged into main at H1: the merge is
    placed by its head commit alone (no change is read at a close), and H1 was recorded only in
    v1, under release-1's rules: not an approval on main."""
    _, first = _approved_then_moved(scenario)
    assert scenario.heads[-1] == first
    step = scenario.pr_event("closed", merged=True, merged_by=WRITER)
    assert step.code == 0, step.log
    [final] = [e for e in scenario.ledger_events() if e["kind"] == "final_approval"]
    assert final["gate"] == "bypassed", final


def test_a_head_approved_before_the_retarget_loses_its_green_at_the_retarget(
    scenario: Scenario,
) -> None:
    """H1's green (v1, release-1's rules) is taken down by the retarget's run, so the
    force-push back to H1 finds no green on it while its own run is pending."""
    _approved_then_moved(scenario)
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == scenario.heads[-1]]
    assert states[-1] != "success", states


def test_a_rerun_of_an_old_retarget_leaves_the_approved_heads_green(scenario: Scenario) -> None:
    """Approved on release-1; moved to main (R1); back to release-1 (R2), approved again; R1's
    run re-run: its lowering takes the green down, and its core, finding R1 older than the
    latest head event, sets the head's gate again, as the ledger has it."""
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _pr(scenario, "edited", "main", main, MOVED).code == 0
    first = _last_payload(scenario)
    back = {"base": {"ref": {"from": "main"}}}
    assert _pr(scenario, "edited", "release-1", release, back).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    again = scenario.deliver("R1 re-run", "pull_request_target", first)
    assert again.code == 0, again.log
    assert "older than the latest head event" in again.log
    assert _gate(scenario) == "success", again.log


def test_a_late_retarget_never_puts_back_a_green_on_a_head_the_pr_has_left(
    scenario: Scenario,
) -> None:
    """Approved at H1 on release-1; moved to main at t1, its delivery held back; H2 pushed and
    run on main; then the held retarget runs: its core finds it older than the latest head event
    and its lowering of H1 stays, for H1 is no longer the PR's head (a green there, given under
    release-1's rules, would come back with a force-push to H1)."""
    main, release = _lenient_release(scenario)
    first = scenario.heads[-1]
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    payload = _moved_to_main(scenario, first, main)
    scenario.push({"extra.txt": "x\n"}, "More")
    assert _pr(scenario, "synchronize", "main", main).code == 0
    late = scenario.deliver("edited late", "pull_request_target", payload)
    assert late.code == 0, late.log
    assert "older than the latest head event" in late.log
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == first]
    assert states[-1] == "pending", states
