"""AgentV templates: per-test `vars` rendered at load; `{{ env.X }}` only for allowed names."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rubricate.config import load_config
from rubricate.errors import SourceError
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.validate import check_text
from tests.rubric.test_cli import Capture, run

VARS = """\
tests:
  - id: "capital-{{ country }}"
    vars: {country: France, city: Paris, facts: [capital, river]}
    assert:
      - Answers {{ vars.country }} correctly with {{ city }}
      - type: llm-rubric
        value: "Names the {{ facts }} and the {{ missing | default('sea') }}{{ nothing }}"
      - type: rubrics
        criteria: "{{ facts }}"
"""


def test_vars_are_rendered_into_the_test_as_agentv_renders_them() -> None:
    (rubric,) = load_rubrics(VARS, "v.yaml").rubrics
    assert rubric.case == "capital-France"
    outcomes = [c.outcome for c in rubric.criteria]
    assert outcomes == [
        "Answers France correctly with Paris",
        "Names the capital,river and the sea",
        "capital",
        "river",
    ]


def test_other_template_syntax_is_left_as_written_with_a_warning() -> None:
    text = "tests:\n  - id: a\n    vars: {x: 1}\n    assert:\n      - 'Says {{ x | upper }} once'\n"
    loaded = load_rubrics(text, "t.yaml")
    assert loaded.rubrics[0].criteria[0].outcome == "Says {{ x | upper }} once"
    assert any("left as written" in w.message for w in loaded.warnings)


ENV = """\
assert:
  - "Replies in {{ env.REPLY_LANG | default('English') }} to {{ env.AUDIENCE }}"
"""


def test_an_unlisted_env_name_is_an_error_that_names_it() -> None:
    with pytest.raises(SourceError, match=r"AUDIENCE is not listed under `agentv.env`"):
        load_rubrics(ENV, "e.yaml", env={"REPLY_LANG": "French"})
    with pytest.raises(SourceError, match=r"REPLY_LANG is not listed"):
        load_rubrics(ENV, "e.yaml")


def test_listed_env_names_are_rendered_with_their_default() -> None:
    (rubric,) = load_rubrics(ENV, "e.yaml", env={"REPLY_LANG": None, "AUDIENCE": "admins"}).rubrics
    assert rubric.criteria[0].outcome == "Replies in English to admins"


def test_github_expressions_are_left_alone() -> None:
    text = "assert:\n  - 'Uses ${{ env.TOKEN }} nowhere in {{ env.TOKEN }} form'\n"
    (rubric,) = load_rubrics(text, "g.yaml").rubrics
    assert "${{ env.TOKEN }}" in rubric.criteria[0].outcome


def test_a_secret_looking_name_cannot_be_listed() -> None:
    with pytest.raises(SourceError, match="looks like a secret"):
        load_config("agentv:\n  env: [OPENAI_API_KEY]\n", "c.yml")
    assert load_config("agentv:\n  env: [REPLY_LANG]\n", "c.yml").agentv.env == ("REPLY_LANG",)
    assert load_config("", "c.yml").agentv.env == ()


def test_the_config_allows_names_for_validate_and_score(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "e.yaml").write_text(ENV)
    config = tmp_path / ".github" / "rubricate.yml"
    config.write_text("rubric: evals/e.yaml\nagentv:\n  env: [REPLY_LANG]\n")
    report = check_text(config.read_text(), str(config), lambda p: (tmp_path / p).read_text())
    assert not report.valid()
    assert "AUDIENCE is not listed" in "\n".join(report.lines())
    config.write_text("rubric: evals/e.yaml\nagentv:\n  env: [REPLY_LANG, AUDIENCE]\n")
    monkeypatch.setenv("AUDIENCE", "operators")
    monkeypatch.setenv("SECRET_THING", "hunter2")
    monkeypatch.chdir(tmp_path)
    out = run(capsys, "rubric", "show", "--json")[1]
    assert "Replies in English to operators" in out
    assert "hunter2" not in out


def test_case_file_templates_follow_the_same_rule(tmp_path: Path) -> None:
    cases = textwrap.dedent(
        """\
        - id: one
          assert:
            - "Greets {{ env.AUDIENCE }}"
        """
    )
    files = {"cases.yaml": cases}
    text = "tests: file://cases.yaml\n"
    with pytest.raises(SourceError, match="AUDIENCE is not listed"):
        load_rubrics(text, "e.yaml", files.__getitem__)
    (rubric,) = load_rubrics(text, "e.yaml", files.__getitem__, {"AUDIENCE": "admins"}).rubrics
    assert rubric.criteria[0].outcome == "Greets admins"
