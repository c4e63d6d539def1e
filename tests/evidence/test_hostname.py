"""`hostname` is RFC 1123 with valid A-labels; `idn-hostname` is IDNA2008 with the Bidi rule."""

from __future__ import annotations

import pytest
from jsonschema import Draft3Validator, Draft4Validator, Draft7Validator, Draft202012Validator

from rubricate.evidence.hostname import is_hostname, is_idn_hostname
from tests.evidence.format_verdicts import assert_verdict

HOSTNAMES = [
    ("www.example.com", True),
    ("hostname", True),
    ("1host", True),
    ("host-name", True),
    ("a--b.com", True),
    ("ab--cd.example", True),
    ("a" * 63 + ".com", True),
    (".".join(["a" * 63] * 3 + ["a" * 61]), True),
    ("xn--9n2bp8q.xn--9t4b11yi5a", True),
    ("XN--9N2BP8Q.example", True),
    ("", False),
    (".", False),
    (".example", False),
    ("example.", True),
    ("www.example.com.", True),
    (".".join(["a" * 63] * 3 + ["a" * 61]) + ".", True),
    ("example..", False),
    ("a..b", False),
    ("example\uff0ecom", False),
    ("-hostname", False),
    ("hostname-", False),
    ("host_name", False),
    ("a" * 64 + ".com", False),
    (".".join(["a" * 63] * 4), False),
    ("example.com\n", False),
    ("\u212aelvin.example.com", False),
    ("xn--X", False),
    ("xn--example-", False),
    ("XN--aa---o47jg78q", False),
    ("xn--hello-txk", False),
    ("xn--07jt112bpxg.xn--9t4b11yi5a", False),
    ("xn--al-0ea", False),
    ("xn--ll-0ea", True),
    ("실례.테스트", False),
]
IDN_HOSTNAMES = [
    ("실례.테스트", True),
    ("a\u3002b", True),
    ("a\uff0eb", True),
    ("a\uff61b", True),
    ("xn--ihqwcrb4cv8a8dqg056pqjye", True),
    ("l\u00b7l", True),
    ("\u0628\u064a\u200c\u0628\u064a", True),
    ("hostname", True),
    ("example.", True),
    ("\u5b9f\u4f8b\u3002\u30c6\u30b9\u30c8.", True),
    ("\u3002", False),
    ("example\u3002", False),
    ("example\uff61", False),
    ("example..", False),
    ("\uff0eexample", False),
    ("\u00fc." * 250_000, False),
    (".".join(["\u00fc" * 10] * 20), False),
    (".".join(["\u00fc" * 10] * 12), True),
    ("a..b", False),
    ("\u302e실례.테스트", False),
    ("a\u00b7l", False),
    ("\u0903hello", False),
    ("-hello", False),
    ("0a.\u05d0", False),
    ("0\u0627", False),
    ("a\u05d0", False),
    ("xn--7a", False),
    ("xn--0ca24w", False),
    ("\u00fc" * 60, False),
    ("-> $1.00 <--", False),
    ("a" * 64, False),
    (".".join(["a" * 63] * 4), False),
]


@pytest.mark.parametrize(("text", "valid"), HOSTNAMES)
def test_hostname(text: str, valid: bool) -> None:
    drafts = (Draft4Validator, Draft7Validator, Draft202012Validator)
    assert_verdict(is_hostname, "hostname", drafts, text, valid)
    assert_verdict(is_hostname, "host-name", (Draft3Validator,), text, valid)


@pytest.mark.parametrize(("text", "valid"), IDN_HOSTNAMES)
def test_idn_hostname(text: str, valid: bool) -> None:
    drafts = (Draft7Validator, Draft202012Validator)
    assert_verdict(is_idn_hostname, "idn-hostname", drafts, text, valid)


def test_other_types_pass() -> None:
    assert all(is_hostname(value) and is_idn_hostname(value) for value in (1, None, [], {}))
