"""`rubricate action` runs around the happy path: replays, heals, errors, dry runs, fallbacks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rubricate.action.main import run_action
from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import settings_from_env
from tests.action.contract import SHARED
from tests.action.fake_github import FakeGitHub, pull
from tests.action.payloads import REPO, issue_comment_event, review_event
from tests.action.scenario import AUTHOR, PR, TOKEN, WRITER, Scenario, git

REPORT = '{"widgets": ["a"], "total": 1}\n'
SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"


@pytest.fixture
def opened(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    scenario = Scenario(tmp_path, fake_github)
    scenario.push({"out/report.json": REPORT}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    return scenario


def _ledger_ids(scenario: Scenario) -> list[str]:
    return sorted(e["id"] for e in scenario.ledger_events())


def test_the_same_delivery_twice_records_nothing_new(opened: Scenario) -> None:
    first = opened.comment(WRITER, SCORE)
    assert first.code == 0
    ids = _ledger_ids(opened)
    comment_id = opened.fake.comments_on(PR)[-1]["id"]
    again = opened.comment(WRITER, SCORE, comment_id=comment_id)
    assert again.code == 0
    assert _ledger_ids(opened) == ids
    assert "already applied" in again.log
    assert not any(
        line.startswith(("PATCH", "POST /repos/octo/widgets/issues/7/comments"))
        for line in again.calls
    )


def test_a_rerun_heals_a_half_applied_run(opened: Scenario) -> None:
    fake = opened.fake
    sticky = next(c for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login)
    fake.failures[f"PATCH /repos/octo/widgets/issues/comments/{sticky['id']}"] = 1
    broken = opened.comment(WRITER, SCORE)
    assert broken.code == 1
    assert "::error::rubricate: some effects failed: UpsertComment" in broken.log
    failing = list(fake.check_runs.values())[-1]
    assert failing["conclusion"] == "failure"
    assert "502" in failing["output"]["summary"]
    comment_id = next(c["id"] for c in fake.comments_on(PR) if c["body"] == SCORE)
    assert (comment_id, "confused") in fake.reactions
    ids = _ledger_ids(opened)
    healed = opened.comment(WRITER, SCORE, comment_id=comment_id)
    assert healed.code == 0
    assert _ledger_ids(opened) == ids
    assert "3" in fake.comments[sticky["id"]]["body"]
    assert fake.comment_edits[-1][0] == sticky["id"]


def test_a_bad_config_fails_the_check_with_its_location(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    scenario = Scenario(tmp_path, fake_github)
    scenario.base_sha = scenario.break_config(push=False)
    scenario.push({"out/report.json": REPORT}, "Add the report")
    step = scenario.pr_event("opened")
    assert step.code == 2
    assert ".github/rubricate.yml:3:3: unknown key 'modle'" in step.log
    check = list(fake_github.check_runs.values())[-1]
    assert check["conclusion"] == "failure"
    assert "modle" in check["output"]["summary"]
    assert check["head_sha"] == scenario.heads[-1]
    assert fake_github.statuses == []


def test_dry_run_reads_but_writes_nothing(opened: Scenario) -> None:
    before = git(opened.root, "--git-dir", str(opened.remote), "rev-parse", "rubricate-data")
    comment = opened.fake.add_comment(PR, SCORE, WRITER)
    payload = issue_comment_event(
        comment_id=comment["id"],
        body=SCORE,
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        at=opened.tick(),
    )
    step = opened.deliver("dry run", "issue_comment", payload, dry_run=True)
    assert step.code == 0
    assert all(line.startswith("GET ") for line in step.calls)
    effects = [json.loads(line)["effect"] for line in step.stdout.splitlines()]
    assert effects[0] == "AppendEvents"
    assert "UpsertComment" in effects
    assert (
        git(opened.root, "--git-dir", str(opened.remote), "rev-parse", "rubricate-data") == before
    )
    assert TOKEN not in step.stdout
    assert TOKEN not in step.log  # outside Actions there is no runner to mask it: never printed


def test_a_comment_before_any_pr_event_asks_the_api_for_the_base(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    scenario = Scenario(tmp_path, fake_github)
    head = scenario.push({"out/report.json": REPORT}, "Add the report")
    fake_github.pulls[PR] = pull(REPO, PR, author=AUTHOR, head_sha=head, base_sha=scenario.base_sha)
    step = scenario.comment(WRITER, "/rubric")
    assert step.code == 0
    assert f"GET /repos/octo/widgets/pulls/{PR}" in step.calls
    assert "GET /repos/octo/widgets/collaborators/bob/permission" not in step.calls
    assert "spec_adherence" in fake_github.comments_on(PR)[-1]["body"]


def test_a_review_body_is_read_for_commands_and_acknowledged(opened: Scenario) -> None:
    payload = review_event(
        review_id=88,
        body=f"Looks fine.\n\n{SCORE}",
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        head_sha=opened.heads[-1],
        base_sha=opened.base_sha,
        at=opened.tick(),
    )
    step = opened.deliver("review", "pull_request_review", payload)
    assert step.code == 0, step.log
    assert opened.fake.node_reactions == [("PRR_88", "THUMBS_UP")]
    assert "GET /repos/octo/widgets/collaborators/bob/permission" in step.calls
    assert all("/pulls/" not in line for line in step.calls)
    kinds = [
        e["kind"] for e in opened.ledger_events() if e.get("delivery", "").startswith("review:")
    ]
    assert sorted(kinds) == ["first_submission", "review_scored"]


def test_the_review_reaction_mutation_matches_the_published_schema() -> None:
    from rubricate.github.adapter import ADD_REACTION, GRAPHQL_REACTIONS

    schema_path = SHARED / "github" / "graphql" / "schema.graphql"
    if not schema_path.is_file():
        pytest.skip(f"{schema_path} is not available")
    sdl = schema_path.read_text(encoding="utf-8")
    assert "  addReaction(\n" in sdl
    input_type = sdl.split("input AddReactionInput {", 1)[1].split("}", 1)[0]
    assert "content: ReactionContent!" in input_type
    assert "subjectId: ID!" in input_type
    assert (
        "implements Comment & Deletable & Minimizable & Node & Reactable"
        in sdl.split("type PullRequestReview ", 1)[1].split("{", 1)[0]
    )
    reactions = sdl.split("enum ReactionContent {", 1)[1].split("}", 1)[0].split()
    assert set(GRAPHQL_REACTIONS.values()) <= set(reactions)
    assert "addReaction(input: {subjectId: $subject, content: $content})" in ADD_REACTION


def test_ignored_events_log_one_line(opened: Scenario) -> None:
    payload = issue_comment_event(
        comment_id=5,
        body=SCORE,
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        at=opened.tick(),
        action="edited",
    )
    step = opened.deliver("edited", "issue_comment", payload)
    assert step.code == 0
    assert step.calls == []
    assert step.log.strip().splitlines()[-1].startswith("rubricate: ignored issue_comment:")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "is not a JSON object"),
        (None, "cannot read the event payload"),
    ],
)
def test_unreadable_payloads_are_usage_errors(
    opened: Scenario, content: str | None, message: str
) -> None:
    path = opened.root / "bad.json"
    if content is not None:
        path.write_text(content)
    settings = settings_from_env(opened.env("pull_request", path))
    log = io.StringIO()
    assert run_action(settings, runtime=ActionsRuntime(stream=log)) == 2
    assert message in log.getvalue()


def test_without_a_token_a_real_run_is_refused(opened: Scenario) -> None:
    path = opened.root / "event-0.json"
    env = {
        k: v
        for k, v in opened.env("pull_request_target", path).items()
        if k != "INPUT_GITHUB-TOKEN"
    }
    log = io.StringIO()
    assert run_action(settings_from_env(env), runtime=ActionsRuntime(stream=log)) == 2
    assert "no GitHub token" in log.getvalue()
