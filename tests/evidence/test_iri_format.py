"""The `iri` and `iri-reference` formats follow RFC 3987 in full, without the grammar package
jsonschema's format-nongpl extra used (whose verdicts they keep but for its three narrow
readings); the formats rubricate does not check itself are jsonschema's own."""

from __future__ import annotations

import hashlib
import importlib.util
import ipaddress
from typing import Any

import pytest
from jsonschema import (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
)

from rubricate.evidence.iri import is_iri, is_iri_reference, is_uri, is_uri_reference
from rubricate.evidence.schema_dialect import FORMATS, format_checker
from tests.evidence.iri_cases import iri_cases

DRAFTS = (Draft4Validator, Draft6Validator, Draft7Validator, Draft201909Validator)
ALL_DRAFTS = (*DRAFTS, Draft202012Validator)
OURS = (
    "iri",
    "iri-reference",
    "regex",
    "duration",
    "date-time",
    "time",
    "relative-json-pointer",
    "uri-template",
    "uuid",
    "uri",
    "uri-reference",
    "email",
    "idn-email",
    "hostname",
    "host-name",
    "idn-hostname",
)

# (string, is an IRI, is an IRI reference): RFC 3987's verdicts.
FIXED = [
    ("https://example.org/a/b?c=d#e", True, True),
    ("HTTP://a", True, True),
    ("a:", True, True),
    ("urn:isbn:0451450523", True, True),
    ("https://例え.jp/パス?クエリ#断片", True, True),
    ("x:%41", True, True),
    ("x:\u00a0", True, True),
    ("http://1.2.3.256/", True, True),
    ("http://[1:2:3:4:5:6:7:8]/", True, True),
    ("http://[1:2:3:4:5:6:1.2.3.4]/", True, True),
    ("http://[1:2:3:4:5:6:7::]/", True, True),
    ("http://[1:2:3:4:5::7:8]/", True, True),
    ("http://[::2:3:4:5:6:7:8]/", True, True),
    ("http://[v1.x]/", True, True),
    ("http://ex.com/?\ue000", True, True),
    ("http://u:p@h:/p", True, True),
    ("a", False, True),
    ("", False, True),
    ("//a", False, True),
    ("a/b:c", False, True),
    ("./a:b", False, True),
    ("?q#f", False, True),
    ("http://[::1]/", True, True),
    ("http://[2001:db8::1]/", True, True),
    ("http://[::]/", True, True),
    ("http://[1::]/", True, True),
    ("http://[::1.2.3.4]/", True, True),
    ("http://[::1:2:3:4:5:6]/", True, True),
    ("http://[V1.x]/", True, True),
    ("http://ex.com/\U0001f600", True, True),
    ("http://ex.com/?\U000f0000", True, True),
    ("http://ex.com/#\ue000", False, False),
    ("http://ex.com/#\U000f0000", False, False),
    ("http://ex.com/\U000e0001", False, False),
    ("http://ex.com/\U0001fffe", False, False),
    ("http://[1:2:3:4:5:6:7:8:9]/", False, False),
    ("http://[1::2::3]/", False, False),
    ("http://[::1.2.3.04]/", False, False),
    ("http://[w1.x]/", False, False),
    ("http://a:80x", False, False),
    ("x:/a b", False, False),
    ("x:%zz", False, False),
    ("http://a/%", False, False),
    ("http://a@b@c", False, False),
    ("x:\ud800", False, False),
    ("x:\ufffe", False, False),
    (":a", False, False),
    ("1a:b", False, False),
    ("a:b\n", False, False),
]


@pytest.mark.parametrize(("text", "iri", "reference"), FIXED)
def test_iri_verdicts_are_the_rfcs(text: str, iri: bool, reference: bool) -> None:
    assert (is_iri(text), is_iri_reference(text)) == (iri, reference)
    for cls in (Draft7Validator, Draft201909Validator, Draft202012Validator):
        checker = format_checker(cls)
        assert (checker.conforms(text, "iri"), checker.conforms(text, "iri-reference")) == (
            iri,
            reference,
        )


URIS = [
    ("https://example.org/a?b#c", True, True),
    ("http://[::ffff:1.2.3.4]/", True, True),
    ("http://[V7.a:b]/", True, True),
    ("urn:isbn:0451450523", True, True),
    ("//host/path", False, True),
    ("rel/path#f", False, True),
    ("", False, True),
    ("http://[::ffff:01.2.3.4]", False, False),
    ("//[::ffff:192.168.0.01]/p", False, False),
    ("https://例え.jp/", False, False),
    ("http://a/b c", False, False),
    ("x:/\n", False, False),
    ("\\\\WINDOWS\\fileshare", False, False),
]


@pytest.mark.parametrize(("text", "uri", "reference"), URIS)
def test_uri_is_an_ascii_iri(text: str, uri: bool, reference: bool) -> None:
    assert (is_uri(text), is_uri_reference(text)) == (uri, reference)
    for cls in (Draft6Validator, Draft202012Validator):
        checker = format_checker(cls)
        assert (checker.conforms(text, "uri"), checker.conforms(text, "uri-reference")) == (
            uri,
            reference,
        )


def test_iri_formats_pass_other_types() -> None:
    assert all(is_iri(value) and is_iri_reference(value) for value in (1, None, [], {}))
    assert all(is_uri(value) and is_uri_reference(value) for value in (1, None, [], {}))


@pytest.mark.parametrize("cls", [Draft4Validator, Draft6Validator])
def test_drafts_without_iri_formats_leave_them_unchecked(cls: Any) -> None:
    checker = format_checker(cls)
    assert "iri" not in checker.checkers
    assert checker.conforms("http://[::1]/", "iri")


def test_a_long_iri_is_judged_whole() -> None:
    path = "/seg" * 20_000
    assert is_iri(f"https://example.org{path}?q#f")
    assert not is_iri(f"https://example.org{path} ")
    assert not is_iri_reference("a" * 40_000 + ":" + "%" * 3)


# sha256 of the verdicts on `iri_cases(150)`, two digits a string ("1" valid): (iri,
# iri-reference). The earlier checker (rfc3987-syntax 1.1.0) differed on 70 of them, each an
# IPv6 literal with "::" that it refused: every difference made a valid IRI pass.
VERDICTS = "d848c3e14455540ef90ea007932bcf9164cd315bf090d09d98736349208a43cb"


def verdict_digits(cases: list[str]) -> str:
    return "".join(f"{int(is_iri(text))}{int(is_iri_reference(text))}" for text in cases)


def test_iri_verdicts_on_generated_strings_are_the_recorded_ones() -> None:
    digits = verdict_digits(iri_cases(150))
    assert len(digits) == 2 * 1093
    assert hashlib.sha256(digits.encode()).hexdigest() == VERDICTS


def test_ipv6_literals_are_what_pythons_ipaddress_reads() -> None:
    literals = [
        text[len("http://[") : -2]
        for text in iri_cases(0)
        if text.startswith("http://[") and text.endswith("]/") and text[8] not in "vV"
    ]
    assert len(literals) > 50
    for literal in literals:
        try:
            expected = ipaddress.IPv6Address(literal) is not None
        except ValueError:
            expected = False
        assert is_iri(f"http://[{literal}]/") == expected, literal


@pytest.mark.skipif(
    importlib.util.find_spec("rfc3987_syntax") is None,
    reason="rfc3987-syntax, the earlier checker, is not installed",
)
def test_iri_verdicts_differ_from_the_earlier_checker_only_by_accepting() -> None:
    from rfc3987_syntax import is_valid_syntax  # only here: its import builds a grammar

    cases = iri_cases(150)
    refused = [
        text
        for text in cases
        if (is_valid_syntax("iri", text) and not is_iri(text))
        or (is_valid_syntax("iri_reference", text) and not is_iri_reference(text))
    ]
    assert refused == []
    assert sum(map(is_iri, cases)) > 100


OTHER_STRINGS = [
    *iri_cases(50, seed=7),
    "2024-02-29T12:00:00Z",
    "2024-02-30T12:00:00Z",
    "2024-02-29",
    "12:00:00+02:00",
    "25:00:00Z",
    "a@example.org",
    "no email",
    "P1DT2H",
    "P1D2H",
    "/a/b~1c",
    "/a/~2",
    "0/a",
    "1#",
    "https://x.org/{id}",
    "https://x.org/{id",
    "123e4567-e89b-12d3-a456-426614174000",
    "192.0.2.1",
    "256.0.0.1",
    "2001:db8::1",
    "example.org",
    "-bad-.org",
    "例え.jp",
    "xn--r8jz45g.jp",
    "#fff",
    "red",
]


@pytest.mark.parametrize("cls", ALL_DRAFTS)
def test_every_other_format_is_jsonschemas_own(cls: Any) -> None:
    ours = format_checker(cls)
    stock = cls.FORMAT_CHECKER
    others = sorted(set(stock.checkers) - set(OURS))
    assert set(ours.checkers) - set(OURS) == set(others)
    for fmt in others:
        assert ours.checkers[fmt] == stock.checkers[fmt]
        for text in OTHER_STRINGS:
            assert ours.conforms(text, fmt) == stock.conforms(text, fmt), (fmt, text)


def test_formats_list_holds_the_iri_formats() -> None:
    assert {"iri", "iri-reference"} <= set(FORMATS)
