"""One redaction helper: secrets and URL credentials never reach text a person reads."""

from __future__ import annotations

from rubricate.redaction import env_secrets, redact, redact_tokens, redact_url, url_credentials


def test_redact_masks_the_longest_secret_first_and_skips_empty_ones() -> None:
    secrets = ["sk-abcdefgh", "sk-abcdefgh-long", "", None]
    assert redact("key sk-abcdefgh and sk-abcdefgh-long", secrets) == "key *** and ***"


def test_short_and_placeholder_values_are_never_treated_as_secrets() -> None:
    text = '{"actor_role": "none", "x": "abc", "y": "xxxxxxxxxx"}'
    assert redact(text, ["none", "abc", "xxxxxxxxxx", "changeme"]) == text


def test_url_credentials_and_redact_url() -> None:
    url = "https://bot:hunter2@git.example.com/acme/data.git"
    assert url_credentials(url) == ("bot", "hunter2")
    assert url_credentials("https://git.example.com/a@b") == ()
    shown = redact_url(f"fatal: cannot reach {url} with ghp_x1234567", url, "ghp_x1234567")
    assert shown == "fatal: cannot reach https://***@git.example.com/acme/data.git with ***"


def test_github_token_shapes_are_masked_whoever_they_belong_to() -> None:
    kept = (
        "commit 5d2c0a08c51d46eece12355861e54a5f86b271ed, ghs_short, x_ghs_16C7e42F292c6912E7710c"
    )
    text = (
        "Bad credentials: token ghs_16C7e42F292c6912E7710c838347Ae178B4a, "
        "Bearer github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz; "
    )
    assert redact_tokens(text + kept) == "Bad credentials: token ***, Bearer ***; " + kept


def test_the_secrets_of_an_environment_are_the_tokens_and_keys_rubricate_reads() -> None:
    env = {
        "GITHUB_TOKEN": " ghs_x ",
        "INPUT_LEDGER-KEY": "k" * 32,
        "RUBRICATE_DATA_TOKEN": "",
        "HOME": "/root",
    }
    assert env_secrets(env) == ["ghs_x", "k" * 32]
