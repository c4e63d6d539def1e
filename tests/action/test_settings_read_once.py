"""The settings a run reads once: the ledger key as bytes (kept secret), and the data branch, the
input's else the config's, never a branch the code lives on."""

from __future__ import annotations

import pytest

from rubricate.action.settings import data_branch, settings_from_env
from rubricate.config import Config
from rubricate.errors import ConfigError

ENV = {
    "GITHUB_EVENT_NAME": "pull_request",
    "GITHUB_EVENT_PATH": "/tmp/event.json",
    "GITHUB_REPOSITORY": "octo/widgets",
}
KEY = "k" * 32


def test_the_ledger_key_is_parsed_once_as_bytes_and_kept_secret() -> None:
    settings = settings_from_env({**ENV, "INPUT_LEDGER-KEY": f" {KEY} "})
    assert settings.ledger_key == KEY.encode()
    assert KEY in settings.secrets
    fallback = settings_from_env({**ENV, "RUBRICATE_LEDGER_KEY": KEY})
    assert fallback.ledger_key == KEY.encode()
    assert settings_from_env(ENV).ledger_key is None


def test_a_short_ledger_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="ledger-key: the ledger key must be at least"):
        settings_from_env({**ENV, "INPUT_LEDGER-KEY": "short"})


def test_the_data_branch_is_the_input_else_the_config_else_the_default() -> None:
    plain = settings_from_env(ENV)
    assert data_branch(plain) == Config().data_branch
    assert data_branch(plain, Config(data_branch="scores")) == "scores"
    given = settings_from_env({**ENV, "INPUT_DATA-BRANCH": "ledger"})
    assert data_branch(given, Config(data_branch="scores")) == "ledger"


@pytest.mark.parametrize(("default", "base"), [("main", None), (None, "main"), ("main", "main")])
def test_a_data_branch_the_code_lives_on_is_refused(default: str | None, base: str | None) -> None:
    settings = settings_from_env({**ENV, "INPUT_DATA-BRANCH": "main"})
    with pytest.raises(ConfigError, match="data_branch 'main' is"):
        data_branch(settings, Config(), default_branch=default, base_ref=base)
