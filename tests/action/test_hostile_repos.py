"""Held-out attacks from hostile repositories through `rubricate action`: symlinks out of the
tree, huge files, a YAML bomb, a rubric with thousands of criteria, and a config that points
outside the repository (real git repositories, the fake GitHub)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.scenario import WRITER, Scenario, git
from tests.action.test_attack_config import LENIENT_RUBRIC
from tests.action.test_gate_attacks import _on_main

MARKER = "OUTSIDE-THE-TREE-7f3a"
LIMIT = 65_535


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def _published(scenario: Scenario) -> str:
    """Everything the run wrote where people read it: comments, check runs, statuses, ledger."""
    fake = scenario.fake
    texts = [c["body"] for c in fake.comments.values()]
    texts += [json.dumps(check.get("output", {})) for check in fake.check_runs.values()]
    texts += [json.dumps(status) for status in fake.statuses]
    texts += [json.dumps(event) for event in scenario.ledger_events()]
    return "\n".join(texts)


def _within_github_limits(scenario: Scenario) -> None:
    for comment in scenario.fake.comments.values():
        assert len(comment["body"]) <= LIMIT
    for check in scenario.fake.check_runs.values():
        output = check.get("output") or {}
        assert len(output.get("summary") or "") <= LIMIT
        assert len(output.get("text") or "") <= LIMIT


@pytest.mark.parametrize("target", ["absolute", "relative"])
def test_a_symlinked_deliverable_is_never_followed_out_of_the_tree(
    scenario: Scenario, target: str
) -> None:
    outside = scenario.root / "outside.json"
    outside.write_text(json.dumps({"widgets": [MARKER], "total": 1}))
    link = scenario.work / "out" / "report.json"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside if target == "absolute" else Path("../..") / outside.name)
    git(scenario.work, "add", "-A")
    git(scenario.work, "commit", "--quiet", "-m", "A report that points elsewhere")
    scenario.push_head()
    step = scenario.pr_event("opened")
    assert step.code == 0, step.log
    assert MARKER not in _published(scenario)
    assert MARKER not in step.log


def test_a_huge_deliverable_and_many_files_are_read_within_limits(scenario: Scenario) -> None:
    files = {f"data/part-{i:04}.txt": f"line {i}\n" for i in range(3000)}
    files["out/report.json"] = '{"widgets": [' + '"w",' * 6_000_000 + '"w"], "total": 1}\n'
    scenario.push(files, "A very large change")
    step = scenario.pr_event("opened")
    assert step.code == 0, step.log
    _within_github_limits(scenario)
    assert scenario.fake.statuses[-1]["state"] == "pending"


BOMB = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
rubric: agora-v3
"""


@pytest.mark.parametrize("where", [".github/rubricate.yml", "rubrics/bomb.yml"])
def test_a_yaml_bomb_fails_the_run_with_a_clear_error(scenario: Scenario, where: str) -> None:
    files = {where: BOMB}
    if where != ".github/rubricate.yml":
        files[".github/rubricate.yml"] = f"rubric: {where}\n"
    _on_main(scenario, files)
    scenario.base_sha = git(scenario.work, "rev-parse", "rules")
    scenario.push({"out/report.json": "{}\n"}, "Add")
    step = scenario.pr_event("opened")
    assert step.code != 0
    assert "too large" in step.log
    assert "Traceback" not in step.log
    assert all(s["state"] != "success" for s in scenario.fake.statuses)


def _many_criteria(count: int) -> str:
    rows = "".join(
        f"  - {{id: c{i:05}, weight: 1, outcome: the {i}th thing is done}}\n" for i in range(count)
    )
    return f'id: many\nversion: "1"\nscale: {{min: 1, max: 5}}\ncriteria:\n{rows}'


def test_a_rubric_with_thousands_of_criteria_keeps_every_view_within_github_limits(
    scenario: Scenario,
) -> None:
    _on_main(
        scenario,
        {
            ".github/rubricate.yml": "rubric: rubrics/many.yml\n",
            "rubrics/many.yml": _many_criteria(5000),
        },
    )
    scenario.base_sha = git(scenario.work, "rev-parse", "rules")
    scenario.push({"out/report.json": "{}\n"}, "Add")
    step = scenario.pr_event("opened")
    assert "Traceback" not in step.log
    _within_github_limits(scenario)
    step = scenario.comment(WRITER, "/approve " + " ".join(f"c{i:05}=5" for i in range(5000)))
    assert "Traceback" not in step.log
    _within_github_limits(scenario)


@pytest.mark.parametrize("kind", ["absolute", "dot-dot"])
def test_a_config_that_points_outside_the_repository_reads_nothing_there(
    scenario: Scenario, kind: str
) -> None:
    outside = scenario.root / "lenient.yml"
    outside.write_text(LENIENT_RUBRIC)
    named = str(outside) if kind == "absolute" else "../lenient.yml"
    _on_main(scenario, {".github/rubricate.yml": f"rubric: {named}\n"})
    scenario.base_sha = git(scenario.work, "rev-parse", "rules")
    scenario.push({"out/report.json": "{}\n"}, "Add")
    step = scenario.pr_event("opened")
    assert step.code == 2, step.log
    assert f"rubric {named!r}" in step.log, step.log
    assert "Traceback" not in step.log
    assert scenario.data_file("reputation.json") is None
    assert scenario.fake.statuses == []


def test_a_schema_that_points_outside_the_repository_is_never_read(scenario: Scenario) -> None:
    """A deliverable schema named by an absolute path, or whose `$ref` is a `file:` URL or a
    path that climbs out of the repository: the file there would fail the report if read."""
    outside = scenario.root / "outside.schema.json"
    outside.write_text(json.dumps({"type": "object", "required": [MARKER]}))
    config = 'rubric: agora-v3\ndeliverables:\n  - glob: "out/*.json"\n    schema: schemas/a.json\n'
    config += '  - glob: "out/*.json"\n    schema: schemas/b.json\n'
    config += f'  - glob: "out/*.json"\n    schema: {outside}\n'
    _on_main(
        scenario,
        {
            ".github/rubricate.yml": config,
            "schemas/a.json": json.dumps({"$ref": outside.as_uri()}),
            "schemas/b.json": json.dumps({"$ref": f"../../../../..{outside}"}),
        },
    )
    scenario.base_sha = git(scenario.work, "rev-parse", "rules")
    scenario.push({"out/report.json": '{"widgets": [], "total": 0}\n'}, "Add")
    step = scenario.pr_event("opened")
    assert step.code == 0, step.log
    assert MARKER not in _published(scenario)
    assert MARKER not in step.log
