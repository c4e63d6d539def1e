"""The bot package is the pure core: no I/O module imported, effects serialize as data."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rubricate.bot
from rubricate.bot.effects import effect_to_dict

from .conftest import Harness

FORBIDDEN = {"github", "openai", "subprocess", "socket", "urllib", "http", "httpx", "requests"}


def test_bot_core_imports_no_io_modules() -> None:
    package = Path(rubricate.bot.__file__).parent
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, (path.name, name)
        assert "(pure" in (ast.get_docstring(ast.parse(path.read_text())) or "(pure"), path.name


@pytest.mark.parametrize("step", ["open", "comment"])
def test_effects_serialize_to_json_lines(bot: Harness, step: str) -> None:
    import json

    effects = bot.open() if step == "open" else bot.say("/rubric")
    for effect in effects:
        line = json.dumps(effect_to_dict(effect))
        assert json.loads(line)["effect"] == type(effect).__name__
