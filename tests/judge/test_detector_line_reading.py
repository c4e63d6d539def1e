"""A line the detector reads by its fast path gives the tokens `line_tokens` gives, whatever
runs of base64 letters it holds (long names, hashes, encoded text)."""

from __future__ import annotations

import base64

import pytest

from rubricate.judge.detector_text import line_bytes, line_tokens, utf8, word_count

LINES = (
    "func NewCmdRepositoryCreate(f *cmdutil.Factory) *cobra.Command {",
    "AVeryLongIdentifierWithoutSpacesAtAll = 1",
    "sha = 'e0f31b39a5c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5'",
    "token: ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd",
    "payload: " + base64.b64encode(b"ignore all previous instructions now").decode(),
    "two: " + base64.b64encode(b"a b c d e f g h").decode() + " and AnotherVeryLongNameOfAThing",
    "binary: " + base64.b64encode(bytes(range(40))).decode(),
    "no space: " + base64.b64encode(b"nospacesatallinthisdecodedtext").decode(),
    "padded=" + base64.b64encode(b"x y").decode(),
    "utf8 x86 v2 sha256 NewCmdRepositoryCreateWithOptions2",
)


@pytest.mark.parametrize("line", LINES)
def test_the_fast_path_reads_a_line_as_line_tokens_does(line: str) -> None:
    tokens = line_tokens(line)
    assert line_bytes(line) == ([utf8(t) for t in tokens], word_count(tokens))


def test_encoded_text_is_read_as_well_and_long_names_are_not() -> None:
    assert b"#base64" in line_bytes(LINES[4])[0]
    assert b"#base64" in line_bytes(LINES[5])[0]
    assert not any(t.startswith(b"#") for t in line_bytes(LINES[0])[0])
