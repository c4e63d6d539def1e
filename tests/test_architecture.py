"""The pure core imports none of github, openai or subprocess; heavy imports stay lazy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rubricate"
FORBIDDEN = {
    "github",
    "openai",
    "subprocess",
    "httpx",
    "httpx2",
    "requests",
    "socket",
    "urllib.request",
}
SHELL_PREFIXES = (
    "github/",
    "gitio/",
    "cli/",
    "judge/client",
    "judge/service",
    "ledger/store",
    "ledger/backends",
    "evidence/graders_run",
    "action",
    "schemas",
    "__main__",
)


def _is_shell(relative: str) -> bool:
    return relative.startswith(SHELL_PREFIXES)


def _imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _core_modules() -> list[Path]:
    return [p for p in SRC.rglob("*.py") if not _is_shell(p.relative_to(SRC).as_posix())]


@pytest.mark.parametrize("path", _core_modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_core_module_does_no_io_imports(path: Path) -> None:
    imported = _imported_modules(ast.parse(path.read_text(encoding="utf-8")))
    bad = {m for m in imported if m.split(".")[0] in FORBIDDEN or m in FORBIDDEN}
    assert not bad, f"{path.name} imports {sorted(bad)}; the core must stay pure"


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_core_modules_say_they_are_pure() -> None:
    unmarked = [
        p.relative_to(SRC).as_posix()
        for p in _core_modules()
        if p.name != "__init__.py" and "(pure" not in _docstring(p)
    ]
    assert not unmarked, f"core modules without a '(pure: ...)' docstring: {unmarked}"


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_version_does_not_import_heavy_clients() -> None:
    loaded = _modules_after(
        "from rubricate.cli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert "openai" not in loaded
    assert "github" not in loaded


def test_rubric_scoring_does_not_import_heavy_clients() -> None:
    loaded = _modules_after(
        "from rubricate.cli.main import main\n"
        "main(['rubric', 'score', 'agora-v3', 'spec=4', 'comp=3', 'qual=3', 'ver=3', 'format=5'])"
    )
    assert "openai" not in loaded
    assert "github" not in loaded
