"""`rubricate init` in hostile or odd repositories: committed symlinks, `#` in names, no git."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.init_steps import docs_url, next_steps
from rubricate.cli.main import main
from tests.evidence.gitrepo import commit, git

PIN = "acme/rubricate@" + "1" * 40


def _repo(root: Path, links: dict[str, str], files: dict[str, str] | None = None) -> Path:
    """A git repository with `links` (path -> target) committed as real symlinks."""
    root.mkdir(parents=True)
    git(root, "init", "--quiet", "-b", "main")
    for path, text in (files or {"README.md": "x\n"}).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    for path, target in links.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).symlink_to(target)
    commit(root, {}, "setup")
    assert git(root, "ls-files", "-s", *links).count("120000") == len(links)
    return root


def _init(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, str]:
    code = main(["init", "--repo", str(root), *extra])
    return code, capsys.readouterr().err


def test_a_symlinked_config_is_not_overwritten_even_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere.yml"
    elsewhere.write_text("mine: true\n", encoding="utf-8")
    repo = _repo(tmp_path / "repo", {".github/rubricate.yml": str(elsewhere)})
    code, err = _init(capsys, repo, "--force")
    assert code == 2
    assert ".github/rubricate.yml is a symbolic link" in err
    assert elsewhere.read_text(encoding="utf-8") == "mine: true\n"
    assert not (repo / ".github/workflows").exists()  # nothing is written at all


def test_a_dangling_symlink_creates_no_file_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "outside" / "planted.yml"
    target.parent.mkdir()
    repo = _repo(tmp_path / "repo", {".github/rubricate.yml": str(target)})
    code, err = _init(capsys, repo)
    assert code == 2
    assert "is a symbolic link" in err
    assert not target.exists()


def test_a_symlinked_workflows_folder_receives_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = _repo(tmp_path / "repo", {".github/workflows": str(outside)})
    code, err = _init(capsys, repo, "--force", "--graders")
    assert code == 2
    assert "refusing to write .github/workflows/rubricate.yml: .github/workflows is a" in err
    assert list(outside.iterdir()) == []


def test_a_symlink_within_the_repository_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path / "repo", {".github": "docs"}, {"docs/README.md": "x\n"})
    code, err = _init(capsys, repo)
    assert code == 2
    assert ".github is a symbolic link" in err
    assert sorted(p.name for p in (repo / "docs").iterdir()) == ["README.md"]


def test_a_folder_that_is_not_a_git_repository_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _init(capsys, tmp_path)
    assert code == 2
    assert f"not a git repository: {tmp_path}" in err
    assert not (tmp_path / ".github").exists()


def test_a_schema_named_with_a_hash_is_proposed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "out/b#x.schema.json": json.dumps({"type": "object", "required": ["a"]}),
        "out/b#x.json": '{"a": 1}',
        "data/c?1.json": json.dumps({"$schema": "../schemas/s[1].json", "a": 1}),
        "data/c?2.json": json.dumps({"$schema": "../schemas/s[1].json", "a": 2}),
        "data/other.json": "{}",
        "schemas/s[1].json": json.dumps({"type": "object", "required": ["a"]}),
    }
    repo = _repo(tmp_path / "repo", {}, files)
    code = main(["init", "--repo", str(repo)])
    out = capsys.readouterr().out
    assert code == 0, out
    config = (repo / ".github/rubricate.yml").read_text(encoding="utf-8")
    assert '#   - glob: "out/b#x.json"\n#     schema: "out/b#x.schema.json"' in config
    assert '#   - glob: "data/c[?]1.json"\n#     schema: "schemas/s[1].json"' in config
    assert "Schemas: 2 found that files pair with or name; 2 covered by 3 proposed" in out
    # the proposal, uncommented, validates and selects exactly those files
    (repo / ".github/rubricate.yml").write_text(
        config.replace("# deliverables:", "deliverables:")
        .replace("#   ", "  ")
        .replace("#     ", "    "),
        encoding="utf-8",
    )
    assert main(["validate", str(repo / ".github/rubricate.yml")]) == 0


def test_next_steps_link_rubricates_own_docs() -> None:
    assert (
        docs_url("SECURITY.md", PIN)
        == f"https://github.com/acme/rubricate/blob/{'1' * 40}/SECURITY.md"
    )
    pinned = next_steps(PIN)
    assert f"https://github.com/acme/rubricate/blob/{'1' * 40}/docs/workflows.md" in pinned
    assert "see docs/" not in pinned
    assert " SECURITY.md" not in pinned
    assert "https://github.com/x/rubricate/blob/HEAD/docs/badges.md" in next_steps(
        None, "https://github.com/x/rubricate"
    )
    assert "Replace OWNER in https://github.com/OWNER/rubricate" in next_steps(None)
