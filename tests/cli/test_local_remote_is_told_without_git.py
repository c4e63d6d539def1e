"""A local `--remote` that is plainly a git directory (a bare repository, or a work tree whose
`.git` is one) is taken without starting `git ls-remote`; anything else is still asked of git,
which decides as before."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli import sources
from rubricate.errors import ConfigError


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The `git` commands `check_remote` runs (run for real)."""
    ran: list[list[str]] = []
    real = sources.run_git

    def run_git(args: list[str], *rest: Any, **options: Any) -> Any:
        ran.append(list(args))
        return real(args, *rest, **options)

    monkeypatch.setattr(sources, "run_git", run_git)
    return ran


def test_a_bare_repository_and_a_work_tree_need_no_probe(
    tmp_path: Path, probes: list[list[str]]
) -> None:
    _git("init", "--quiet", "--bare", str(tmp_path / "bare.git"))
    _git("init", "--quiet", str(tmp_path / "tree"))
    sources.check_remote(str(tmp_path / "bare.git"))
    sources.check_remote(str(tmp_path / "tree"))
    sources.check_remote(str(tmp_path / "tree" / ".git"))
    assert probes == []


def test_what_does_not_look_like_a_repository_is_asked_of_git(
    tmp_path: Path, probes: list[list[str]]
) -> None:
    fake = tmp_path / "fake"
    for part in ("objects", "refs"):
        (fake / part).mkdir(parents=True)
    (fake / "HEAD").write_text("not a ref\n")
    with pytest.raises(ConfigError, match="not a git repository"):
        sources.check_remote(str(fake))
    assert [args[0] for args in probes] == ["ls-remote"]
    (tmp_path / "plain").mkdir()
    with pytest.raises(ConfigError, match="not a git repository"):
        sources.check_remote(str(tmp_path / "plain"))
    assert len(probes) == 2


def test_a_format_or_head_git_may_refuse_is_asked_of_git(
    tmp_path: Path, probes: list[list[str]]
) -> None:
    newer = tmp_path / "newer.git"
    _git("init", "--quiet", "--bare", str(newer))
    _git("--git-dir", str(newer), "config", "core.repositoryformatversion", "99")
    with pytest.raises(ConfigError, match="not a git repository"):
        sources.check_remote(str(newer))
    extended = tmp_path / "extended.git"
    _git("init", "--quiet", "--bare", str(extended))
    _git("--git-dir", str(extended), "config", "extensions.unknownthing", "true")
    sources.check_remote(str(extended))  # git decides (it may accept it)
    endless = tmp_path / "endless.git"
    _git("init", "--quiet", "--bare", str(endless))
    (endless / "HEAD").unlink()
    (endless / "HEAD").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="not a git repository"):
        sources.check_remote(str(endless))
    assert [args[0] for args in probes] == ["ls-remote"] * 3
