"""Located YAML parsing and the config model."""

from __future__ import annotations

import pytest
import yaml

from rubricate import yamlsource
from rubricate.config import Config, load_config
from rubricate.errors import SourceError
from rubricate.yamlsource import load_located

from .helpers import DATA


@pytest.fixture(params=["libyaml", "python"], autouse=True)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every test with libyaml's parser (when present) and the pure-Python one."""
    if request.param == "python":
        monkeypatch.setattr(yamlsource, "_LOADER", yaml.SafeLoader)
    elif not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML was built without libyaml")


def test_both_parsers_give_the_same_data_and_positions() -> None:
    text = (DATA / "evaluator-code-review.yml").read_text(encoding="utf-8")
    data, locator = load_located(text, "f.yml")
    assert data == yaml.safe_load(text)
    assert locator.at(("evalcases", 0, "input", 0, "content")) == (34, 18)


def _error(text: str) -> str:
    with pytest.raises(SourceError) as caught:
        load_located(text, "f.yml")
    return str(caught.value)


def test_positions_of_values_and_keys() -> None:
    data, locator = load_located("a:\n  - x\n  - {b: 2}\n", "f.yml")
    assert data == {"a": ["x", {"b": 2}]}
    assert locator.at(("a", 1, "b")) == (3, 9)
    assert locator.at(("a", 1, "b"), key=True) == (3, 6)
    assert locator.at(("a", 7)) == (2, 3)


def test_alias_bombs_are_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    assert "too large" in _error("\n".join(lines) + "\n")


def test_recursive_aliases_are_refused() -> None:
    assert _error("a: &x [*x]\n") == "f.yml:1:1: YAML document is nested too deeply"


def test_bad_scalars_are_located() -> None:
    assert _error("a: 1\nb: 2001-13-45\n").startswith("f.yml:2:4: invalid value")


def test_non_scalar_and_unhashable_keys() -> None:
    assert "mapping keys must be scalars" in _error("? [a]\n: 1\n")
    assert "mapping keys must be scalars" in _error("? !!set {a}\n: 1\n")


def test_control_characters_are_located() -> None:
    assert _error("a: 1\nb: \x1f\n").startswith("f.yml:2:4: character '\\x1f' is not allowed")


def test_empty_config_is_the_default() -> None:
    assert load_config("") == Config()
    assert load_config("# nothing\n").rubric == "agora-v3"


def test_config_errors_are_located_with_suggestions() -> None:
    text = (
        "rubric: agora-v3\n"
        "judge: {modle: gpt}\n"
        "data_brnch: x\n"
        "commands: {roles: {scor: write}}\n"
        "reputation: {weights: {rating_score: -1}}\n"
    )
    with pytest.raises(SourceError) as caught:
        load_config(text)
    assert [str(d) for d in caught.value.diagnostics] == [
        ".github/rubricate.yml:2:9: unknown key 'modle' (did you mean 'model'?)",
        ".github/rubricate.yml:3:1: unknown key 'data_brnch' (did you mean 'data_branch'?)",
        ".github/rubricate.yml:4:19: roles: unknown command 'scor' (did you mean 'score'?)",
        ".github/rubricate.yml:5:38: rating_score should be greater than or equal to 0, got -1",
    ]


def test_config_must_be_a_mapping() -> None:
    with pytest.raises(
        SourceError, match="1:1: the config must be a mapping of keys to values, got a list"
    ):
        load_config("- a\n")


def test_config_values() -> None:
    config = load_config(
        "rubric: rubrics/mine.yml#case\n"
        "deliverables:\n  - {glob: 'out/*.json', schema: schemas/result.schema.json}\n"
        "commands: {roles: {override: admin}}\n"
    )
    assert config.rubric == "rubrics/mine.yml#case"
    assert config.deliverables[0].schema_ == "schemas/result.schema.json"
    assert config.commands.roles["override"] == "admin"
    assert config.commands.roles["score"] == "write"
