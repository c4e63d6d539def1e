"""The judge keeps `openai` lazy, and only its shell modules may do I/O."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

JUDGE = Path(__file__).resolve().parents[2] / "src" / "rubricate" / "judge"
SHELL_MODULES = ("cache", "client", "scan_processes", "service", "step")
SHELL_ONLY = {"openai", "github", "subprocess", "httpx", "httpx2", "socket", "requests"}

PROBE = """
import sys
from rubricate.cli.main import main
try:
    main(["--version"])
except SystemExit:
    pass
import rubricate.judge.service, rubricate.judge.prompt, rubricate.judge.reply
import rubricate.judge.scan, rubricate.judge.merge, rubricate.judge.runner
print("openai" in sys.modules)
"""


def _imports(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_version_and_judge_modules_never_import_openai() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_pure_judge_modules_import_no_shell_library() -> None:
    pure = [p for p in JUDGE.glob("*.py") if not p.name.startswith(SHELL_MODULES)]
    assert len(pure) >= 10
    for path in pure:
        text = path.read_text(encoding="utf-8")
        assert not _imports(ast.parse(text)) & SHELL_ONLY, path.name
        assert "(pure" in text.split('"""')[1], path.name


def test_client_imports_openai_only_inside_functions() -> None:
    tree = ast.parse((JUDGE / "adapter" / "client.py").read_text(encoding="utf-8"))
    top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert "openai" not in _imports(ast.Module(body=top_level, type_ignores=[]))
    assert "openai" in _imports(tree)
