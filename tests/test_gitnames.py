"""Repository full names: one check for the ledger, the Action's settings and the command line."""

from __future__ import annotations

import pytest

from rubricate.action.settings import settings_from_env
from rubricate.errors import ConfigError
from rubricate.gitnames import is_full_name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("octo-org/widgets", True),
        ("a_b.c/d-e.f", True),
        ("widgets", False),
        ("a/b/c", False),
        ("/b", False),
        ("a/", False),
        ("../b", False),
        ("a/..", False),
        ("a b/c", False),
        ("a/b\nc", False),
    ],
)
def test_a_full_name_is_owner_slash_name(name: str, expected: bool) -> None:
    assert is_full_name(name) is expected


@pytest.mark.parametrize("repository", ["octo org/widgets", "octo/..", "octo/wid?gets"])
def test_the_action_rejects_a_repository_the_ledger_would_reject(repository: str) -> None:
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": "e.json"}
    with pytest.raises(ConfigError, match="GITHUB_REPOSITORY must look like owner/name"):
        settings_from_env({**env, "GITHUB_REPOSITORY": repository})
