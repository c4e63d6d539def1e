"""Resolving built-in names, paths and `PATH#CASE` references."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.cli.rubric_cmd import builtin_names, resolve_rubric
from rubricate.errors import ConfigError, SourceError
from rubricate.rubric_sources import builtin_rubrics

from .helpers import DATA, REPO, read_local


def test_builtin_names() -> None:
    assert builtin_names() == ("agent-run-quality", "agora-v3", "code-review")


@pytest.mark.parametrize("name", ["agora-v3", "code-review", "agent-run-quality"])
def test_builtins_load_without_warnings(name: str) -> None:
    from rubricate.rubric.loader import load_rubrics

    loaded = load_rubrics(builtin_rubrics()[name], name)
    assert loaded.warnings == ()
    assert resolve_rubric(name).id == name


def test_agora_builtin_matches_the_design() -> None:
    rubric = resolve_rubric("agora-v3")
    assert [(c.id, c.weight) for c in rubric.criteria] == [
        ("spec_adherence", 0.30),
        ("completeness", 0.20),
        ("quality", 0.25),
        ("verifiability", 0.15),
        ("format_correctness", 0.10),
    ]
    assert (rubric.scale.min, rubric.scale.max) == (1, 5)
    assert (rubric.pass_rule.min_total, rubric.pass_rule.min_each) == (3.5, 2)
    labels = ["Unusable", "Below bar", "Acceptable", "Meets spec", "Exceeds spec"]
    for criterion in rubric.criteria:
        assert [a.score for a in criterion.anchors] == [1, 2, 3, 4, 5]
        assert [a.label for a in criterion.anchors] == labels
        assert all(a.what for a in criterion.anchors)


def test_code_review_is_analytic_with_required_graders() -> None:
    rubric = resolve_rubric("code-review")
    assert rubric.scale.kind == "analytic"
    assert rubric.dialect == "agentv-assert"
    assert [(g.id, g.min_score) for g in rubric.graders if g.required] == [
        ("correctness", 0.7),
        ("tests", 0.5),
        ("security", 0.7),
    ]
    assert [c.id for c in rubric.criteria if c.required] == ["correctness", "tests", "security"]


def test_paths_are_read_only_through_a_reader() -> None:
    with pytest.raises(ConfigError, match="not found"):
        resolve_rubric(str(DATA / "native-minimal.yml"))


def test_agent_run_quality_has_nullable_and_request_axes() -> None:
    rubric = resolve_rubric("agent-run-quality")
    assert rubric.dialect == "axes"
    assert rubric.request_criteria == ("task_complexity",)
    assert [c.id for c in rubric.criteria if c.nullable] == [
        "subagent_orchestration",
        "self_extension",
    ]


def test_builtins_are_shipped_from_the_top_level_rubrics_directory() -> None:
    assert builtin_rubrics()["agora-v3"] == (REPO / "rubrics" / "agora-v3.yml").read_text(
        encoding="utf-8"
    )


def test_local_path() -> None:
    rubric = resolve_rubric(str(DATA / "native-minimal.yml"), read_local)
    assert rubric.id == "docs"


def test_read_file_is_used_for_paths() -> None:
    asked: list[str] = []

    def read(path: str) -> str:
        asked.append(path)
        return "rubrics:\n  - Contains the correct answer to the question\n"

    rubric = resolve_rubric(".github/rubric.yml", read)
    assert asked == [".github/rubric.yml"]
    assert rubric.id == "rubric"
    assert rubric.source == ".github/rubric.yml"


def test_missing_file_through_the_reader_is_a_clear_error() -> None:
    def read(path: str) -> str:
        raise FileNotFoundError(path)

    with pytest.raises(
        ConfigError, match=r"rubric 'nope\.yml' not found: no such file, and not a built-in"
    ):
        resolve_rubric("nope.yml", read)


def test_unknown_name_suggests_a_builtin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"did you mean 'agora-v3'\?"):
        resolve_rubric("agora-v4")


def test_directory_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        resolve_rubric(str(tmp_path), read_local)
    binary = tmp_path / "r.yml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8"):
        resolve_rubric(str(binary), read_local)


def test_invalid_rubric_files_raise_source_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("criteria: []\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"bad.yml:1:11: criteria should have at least 1 item"):
        resolve_rubric(str(bad), read_local)


def test_multi_case_needs_a_case() -> None:
    path = str(DATA / "agentv-graders.yml")
    with pytest.raises(
        ConfigError, match=r"has 2 cases; choose one as .*#CASE: code-quality, tool-use"
    ):
        resolve_rubric(path, read_local)
    assert resolve_rubric(f"{path}#tool-use", read_local).case == "tool-use"
    assert resolve_rubric(f"{path}#code-quality", read_local).id == "agentv-graders#code-quality"


def test_unknown_case_lists_the_cases() -> None:
    path = str(DATA / "agentv-graders.yml")
    with pytest.raises(
        ConfigError, match=r"no case 'tool-us' \(did you mean 'tool-use'\?\); cases: "
    ):
        resolve_rubric(f"{path}#tool-us", read_local)


def test_single_case_files_resolve_with_or_without_the_case() -> None:
    path = str(DATA / "agentv-plain.yml")
    whole = resolve_rubric(path, read_local)
    assert whole == resolve_rubric(f"{path}#quicksort-explain", read_local)


def test_case_on_a_file_without_cases() -> None:
    with pytest.raises(ConfigError, match="has no cases"):
        resolve_rubric("agora-v3#one")


def test_empty_reference() -> None:
    with pytest.raises(ConfigError, match="no rubric given"):
        resolve_rubric("#case")
