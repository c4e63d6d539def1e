"""One redaction helper: secrets and URL credentials never reach text a person reads."""

from __future__ import annotations

from rubricate.redaction import redact, redact_url, url_credentials


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
