"""`X-Hub-Signature-256`: GitHub's published test vector, rotation, and the secrets file."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.errors import ConfigError
from rubricate.serve.signature import read_secrets, sign, verify

# From GitHub's "Validating webhook deliveries" page (Testing the webhook payload validation).
VECTOR_SECRET = b"It's a Secret to Everybody"
VECTOR_PAYLOAD = b"Hello, World!"
VECTOR_HEADER = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def test_githubs_test_vector_signs_and_verifies() -> None:
    assert sign(VECTOR_SECRET, VECTOR_PAYLOAD) == VECTOR_HEADER
    assert verify([VECTOR_SECRET], VECTOR_PAYLOAD, VECTOR_HEADER)


def test_any_secret_of_the_rotation_passes() -> None:
    assert verify([b"the new one", VECTOR_SECRET], VECTOR_PAYLOAD, VECTOR_HEADER)
    assert verify([VECTOR_SECRET, b"the new one"], VECTOR_PAYLOAD, VECTOR_HEADER)
    assert not verify([b"the new one"], VECTOR_PAYLOAD, VECTOR_HEADER)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        VECTOR_HEADER.removeprefix("sha256="),
        "sha1=" + VECTOR_HEADER.removeprefix("sha256="),
        VECTOR_HEADER[:-1] + "f",
        VECTOR_HEADER.upper(),
        VECTOR_HEADER + "00",
        "sha256=é",
    ],
)
def test_a_wrong_or_missing_signature_fails(header: str | None) -> None:
    assert not verify([VECTOR_SECRET], VECTOR_PAYLOAD, header)


def test_a_changed_body_fails() -> None:
    assert not verify([VECTOR_SECRET], VECTOR_PAYLOAD + b" ", VECTOR_HEADER)


def test_the_secrets_file_holds_one_secret_a_line(tmp_path: Path) -> None:
    path = tmp_path / "secrets"
    path.write_text("  It's a Secret to Everybody  \n\nthe next one\n")
    assert read_secrets(str(path)) == (VECTOR_SECRET, b"the next one")


def test_a_missing_or_empty_secrets_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--webhook-secret-file .*no such file"):
        read_secrets(str(tmp_path / "absent"))
    empty = tmp_path / "empty"
    empty.write_text("\n  \n")
    with pytest.raises(ConfigError, match="no secret in it"):
        read_secrets(str(empty))
