"""Held-out attacks on the gate through `rubricate action`: what a reader cannot see, who may
approve, and which rules grade a PR (real git repositories, the fake GitHub, real payload shapes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.ledger.trust import KEY_ENV
from tests.action.fake_github import FakeGitHub, pull
from tests.action.payloads import REPO
from tests.action.scenario import AUTHOR, CONFIG, OVERRIDE, PR, WRITER, Scenario, git
from tests.action.test_attack_config import LENIENT_RUBRIC

TEAM = LENIENT_RUBRIC.replace("id: lenient", "id: team").replace("min_total: 1.0", "min_total: 4.5")

SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"
APPROVE = "/approve spec=5 comp=5 qual=5 ver=5 format=5"
MARKUP_HIDES = {
    "an image's alt text over lines": f'<img src="x.png" alt="\n{APPROVE}\n">',
    "a link title over lines": f'see <a href="#" title="\n{APPROVE}\n">this</a>',
    "a div's attributes over lines": f"<div\n{APPROVE}\n></div>",
    "a hidden div whose tag spans lines": f"<div\nhidden>\n\n{APPROVE}\n\n</div>",
    "a details tag split over lines": f"<details\n>\n\n{APPROVE}\n\n</details>",
    "an attribute that never closes": f'<p title="\n\n{APPROVE}\n',
    "a link's title over lines": f'see [the spec](https://example.com "the\n{APPROVE}\n")',
    "an image's title over lines": f'![chart](chart.png "a\n{APPROVE}\n")',
    "a link definition's title over lines": f'[spec]: https://example.com "\n{APPROVE}\n"',
    "a link definition's title on its own lines": f"[spec]:\n  https://e.com\n  '\n{APPROVE}\n'",
}


@pytest.mark.parametrize("body", sorted(MARKUP_HIDES))
def test_a_command_inside_markup_that_spans_lines_is_not_applied(
    opened: Scenario, body: str
) -> None:
    step = opened.comment(WRITER, MARKUP_HIDES[body])
    assert step.code == 0, step.log
    assert "approved" not in [e["kind"] for e in opened.ledger_events()]


@pytest.mark.parametrize(
    "before",
    [
        '<img src="x.png"\n  alt="a chart">\n\n',
        "[the spec](https://example.com)\n",
        '[a](https://example.com "an unclosed title\n',
        "[spec]: https://example.com\n\n",
    ],
)
def test_a_command_after_markup_that_closes_is_applied(opened: Scenario, before: str) -> None:
    body = before + SCORE
    step = opened.comment(WRITER, body)
    assert step.code == 0, step.log
    assert [e["kind"] for e in opened.ledger_events()].count("review_scored") == 1


def test_an_edited_comment_that_adds_an_approval_is_not_applied(opened: Scenario) -> None:
    comment = opened.fake.add_comment(PR, "LGTM", WRITER)
    comment["body"] = APPROVE
    payload = opened.comment_payload(WRITER, APPROVE, comment_id=comment["id"])
    payload["action"] = "edited"
    payload["changes"] = {"body": {"from": "LGTM"}}
    step = opened.deliver("comment edited", "issue_comment", payload)
    assert step.code == 0, step.log
    assert "approved" not in [e["kind"] for e in opened.ledger_events()]


@pytest.mark.parametrize("who", [AUTHOR, "rita", "tess"])
def test_the_author_and_readers_cannot_approve(opened: Scenario, who: str) -> None:
    opened.fake.roles.update({AUTHOR: "admin", "rita": "read", "tess": "triage"})
    step = opened.comment(who, APPROVE)
    assert step.code == 0, step.log
    assert "approved" not in [e["kind"] for e in opened.ledger_events()]
    assert opened.fake.statuses[-1]["state"] == "pending"


def _on_main(scenario: Scenario, files: dict[str, str]) -> str:
    """A commit of these files on main, pushed; the PR branch is left as it is."""
    work = scenario.work
    git(work, "checkout", "--quiet", "-B", "rules", "main")
    git(
        work,
        "reset",
        "--quiet",
        "--hard",
        git(work, "ls-remote", str(scenario.remote), "main")[:40],
    )
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "rules")
    git(work, "push", "--quiet", str(scenario.remote), "rules:main")
    sha = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "--quiet", "feature")
    return sha


def test_roles_tightened_on_main_apply_to_a_pr_opened_before(opened: Scenario) -> None:
    """The PR was opened when writers could approve; main now asks for maintainers. The PR's
    recorded base is main's older commit: the rules are still main's current ones."""
    _on_main(
        opened, {".github/rubricate.yml": CONFIG + "commands:\n  roles: {approve: maintain}\n"}
    )
    step = opened.comment(WRITER, APPROVE)
    assert step.code == 0, step.log
    assert "approved" not in [e["kind"] for e in opened.ledger_events()]


def test_a_rubric_file_the_pr_edits_does_not_grade_it(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    scenario = Scenario(tmp_path, fake_github)
    _on_main(
        scenario, {".github/rubricate.yml": "rubric: rubrics/team.yml\n", "rubrics/team.yml": TEAM}
    )
    git(scenario.work, "rebase", "--quiet", "main")
    scenario.base_sha = git(scenario.work, "rev-parse", "main")
    lenient = TEAM.replace("min_total: 4.5", "min_total: 1.0")
    scenario.push({"rubrics/team.yml": lenient, "out/report.json": "{}\n"}, "Make it pass")
    assert scenario.pr_event("opened").code == 0
    step = scenario.comment(WRITER, "/approve spec=2 comp=2 qual=2 ver=2 format=2")
    assert step.code == 0, step.log
    assert scenario.fake.statuses[-1]["state"] == "failure"


LEDGER_KEY = "a-ledger-key-of-32-characters-ok"


def _forged_approval(scenario: Scenario) -> str:
    """An approval of v1 with a correct natural-key id and no signature, as anyone who can push
    to the data branch can write it (here with `rubricate ledger append`, without the key)."""
    first = next(e for e in scenario.ledger_events() if e["kind"] == "first_submission")
    forged = {k: v for k, v in first.items() if k not in ("id", "sig")}
    forged.update(
        kind="approved",
        delivery="comment:4242#0",
        actor=WRITER,
        actor_role="write",
        source="reviewer",
        verdict="pass",
        scores=dict.fromkeys(first["scores"], 5),
    )
    path = scenario.root / "forged.jsonl"
    path.write_text(json.dumps(forged) + "\n")
    return str(path)


def _opened_with_key(
    tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> tuple[Scenario, dict[str, str]]:
    """PR #7 opened by a run with the ledger key; the environment added to every run (clear
    it to take the key away)."""
    scenario = Scenario(tmp_path, fake_github)
    keyed = scenario.env
    extra = {"INPUT_LEDGER-KEY": LEDGER_KEY}
    monkeypatch.setattr(scenario, "env", lambda name, path: {**keyed(name, path), **extra})
    scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    return scenario, extra


def test_a_signed_ledger_read_without_its_key_fails_closed(
    tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs that had the ledger key signed the job; a forged, unsigned approval is appended;
    then a run whose key is missing (the secret removed, a job without the input) must not
    trust it, nor write unsigned events that the keyed runs would later refuse."""
    scenario, extra = _opened_with_key(tmp_path, fake_github, monkeypatch)
    assert all("sig" in e for e in scenario.ledger_events())
    monkeypatch.delenv(KEY_ENV, raising=False)
    appended = main(
        ["ledger", "append", "--remote", str(scenario.remote), _forged_approval(scenario)]
    )
    assert appended == 0
    before = scenario.ledger_events()
    extra.clear()
    for step in (scenario.pr_event("synchronize"), scenario.comment(WRITER, SCORE)):
        assert step.code == 1, step.log
        assert "with a ledger key (signed events, its fold cache), but this run has none" in (
            step.log
        )
    assert all(s["state"] != "success" for s in scenario.fake.statuses)
    assert scenario.ledger_events() == before


def test_a_run_without_the_key_on_a_new_pr_of_a_keyed_ledger_fails_closed(
    tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PR with no event yet: its own events say nothing of the key, the ledger's fold cache
    does; a keyless run must write no unsigned event that keyed runs would then refuse."""
    scenario, extra = _opened_with_key(tmp_path, fake_github, monkeypatch)
    before = scenario.ledger_events()
    extra.clear()
    other = scenario.pr_payload("opened")
    other["number"] = other["pull_request"]["number"] = 8
    step = scenario.deliver("pull_request opened #8", "pull_request_target", other)
    assert step.code == 1, step.log
    assert "but this run has none" in step.log
    assert scenario.ledger_events() == before


def test_a_fork_pr_that_lowers_the_roles_in_its_own_config_is_judged_by_main(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """A PR from a fork (its head only at `refs/pull/7/head`, its branch named `main` in the
    fork) lets readers approve in its own `.github/rubricate.yml`: main's rules still judge."""
    scenario = Scenario(tmp_path, fake_github)
    lenient = CONFIG + "commands:\n  roles: {approve: read, override: read}\n"
    scenario.push({".github/rubricate.yml": lenient, "out/report.json": "{}\n"}, "Lower the bar")
    payload = scenario.pr_payload("opened")
    fork = {"full_name": "mallory/widgets", "name": "widgets", "fork": True}
    payload["pull_request"]["head"].update(ref="main", repo=fork)
    assert scenario.deliver("fork opened", "pull_request_target", payload).code == 0
    scenario.fake.roles["rita"] = "read"
    step = scenario.comment("rita", APPROVE)
    assert step.code == 0, step.log
    assert "approved" not in [e["kind"] for e in scenario.ledger_events()]
    assert scenario.fake.statuses[-1]["state"] == "pending"


def _tamper_views(scenario: Scenario, change: Any) -> None:
    """A commit on the data branch that edits PR #7's view state, as a data-branch writer can."""
    work = scenario.root / "data-work"
    git(
        scenario.root,
        "clone",
        "--quiet",
        "--branch",
        "rubricate-data",
        str(scenario.remote),
        str(work),
    )
    path = work / "views" / "octo" / "widgets" / f"{PR}.json"
    views = json.loads(path.read_text())
    change(views)
    path.write_text(json.dumps(views, sort_keys=True, indent=2) + "\n")
    git(work, "commit", "--quiet", "-am", "views")
    git(work, "push", "--quiet", "origin", "rubricate-data")


def _pending_already(views: dict[str, Any]) -> None:
    for key in views["statuses"]:
        views["statuses"][key] = {
            "state": "pending",
            "description": "Waiting for a reviewer's /approve of v1",
        }


def _answered_ahead(views: dict[str, Any]) -> None:
    views["answered"] += [f"comment:{n}" for n in range(1000, 1100)]


@pytest.mark.parametrize("edit", ["statuses", "answered", "replayed"])
def test_with_a_key_an_edited_view_state_never_keeps_a_green(
    tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    """The view state only saves REST calls; edited by a data-branch writer (it claims the gate
    is already pending, or that future comments were answered), or an older validly signed
    state put back, a `/revise` must still lower the green."""
    scenario = Scenario(tmp_path, fake_github)
    keyed = scenario.env
    monkeypatch.setattr(
        scenario, "env", lambda name, path: {**keyed(name, path), "INPUT_LEDGER-KEY": LEDGER_KEY}
    )
    scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    first = json.loads(scenario.data_file(f"views/octo/widgets/{PR}.json") or b"{}")
    assert "sig" in first

    def replayed(views: dict[str, Any]) -> None:  # the signed state of the PR's first run
        views.clear()
        views.update(first)

    change = {"statuses": _pending_already, "answered": _answered_ahead}.get(edit, replayed)
    assert scenario.comment(WRITER, "/approve spec=3 comp=2 qual=2 ver=2 format=2").code == 0
    assert scenario.comment("mia", OVERRIDE).code == 0
    head = scenario.heads[-1]
    assert [s for s in scenario.fake.statuses if s["sha"] == head][-1]["state"] == "success"
    _tamper_views(scenario, change)
    # a view state refused is empty: the run asks GitHub for the PR's base and head
    scenario.fake.pulls[PR] = pull(
        REPO, PR, author=AUTHOR, head_sha=head, base_sha=scenario.base_sha
    )
    step = scenario.comment(WRITER, "/revise please document the report format")
    assert step.code == 0, step.log
    assert [s for s in scenario.fake.statuses if s["sha"] == head][-1]["state"] == "pending"
