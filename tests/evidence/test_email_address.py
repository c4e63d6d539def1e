"""`email` is RFC 5321's Mailbox; `idn-email` also takes non-ASCII (RFC 6531)."""

from __future__ import annotations

import pytest
from jsonschema import Draft4Validator, Draft7Validator, Draft202012Validator

from rubricate.evidence.email_address import is_email, is_idn_email
from rubricate.evidence.schema_dialect import format_checker
from tests.evidence.format_verdicts import assert_verdict

EMAILS = [
    ("joe.bloggs@example.com", True),
    ("te~st@example.com", True),
    ("~test@example.com", True),
    ("a+tag@sub.example.co.uk", True),
    ("user@localhost", True),
    ('"joe bloggs"@example.com', True),
    ('"joe..bloggs"@example.com', True),
    ('"joe@bloggs"@example.com', True),
    ('"a\\"b"@example.com', True),
    ("joe.bloggs@[127.0.0.1]", True),
    ("joe.bloggs@[IPv6:::1]", True),
    ("joe@[tag:any-thing]", True),
    ("a@[01.2.3.4]", True),
    ("a@[001.2.3.4]", True),
    ("a@[255.255.255.255]", True),
    ("a@[256.2.3.4]", False),
    ("a@[1.2.3.4.5]", False),
    ("a@[1.2.3]", False),
    ("user@example.com.", False),
    ("user@xn--abc.com", False),
    ("user@xn--ls8h.la", False),
    ("user@" + "a" * 64 + ".com", False),
    ("41898696+github-actions[bot]@users.noreply.github.com", False),
    ("user@\u00e9xample.com", False),
    ("2962", False),
    (".test@example.com", False),
    ("test.@example.com", False),
    ("te..st@example.com", False),
    ("joe.bloggs@invalid=domain.com", False),
    ("joe@-example.com", False),
    ("joe@example-.com", False),
    ("joe@example..com", False),
    ("joe.bloggs@[127.0.0.300]", False),
    ("joe.bloggs@[IPv6:::g]", False),
    ("joe.bloggs@[IPv6:1::2::3]", False),
    ("user1@oceania.org, user2@oceania.org", False),
    ('"Winston Smith" <winston.smith@recdep.minitrue> (Records Department)', False),
    ("@example.com", False),
    ("joe.bloggs@", False),
    ("joe bloggs@example.com", False),
    ("joe@example.com\n", False),
    ("δοκιμή@example.com", False),
]
IDN_EMAILS = [
    ("δοκιμή@example.com", True),
    ('"δοκιμή"@example.com', True),
    ("user@cafe\u0301.com", True),
    ("\u0085@example.com", True),
    ("\U0001d54f@example.com", True),
    ("실례@실례.테스트", True),
    ("user@\u00e9xample.com", True),
    ("user\uff20example.com", False),
    ("user@\u2603.com", False),
    ("user@xn--ls8h.la", False),
    ("user@\u00e9xample.com.", False),
    ("user@\u00e9xample\u3002com", False),
    ("2962", False),
    (".δ@example.com", False),
]


@pytest.mark.parametrize(("text", "valid"), EMAILS)
def test_email(text: str, valid: bool) -> None:
    drafts = (Draft4Validator, Draft7Validator, Draft202012Validator)
    assert_verdict(is_email, "email", drafts, text, valid)


@pytest.mark.parametrize(("text", "valid"), IDN_EMAILS)
def test_idn_email(text: str, valid: bool) -> None:
    drafts = (Draft7Validator, Draft202012Validator)
    assert_verdict(is_idn_email, "idn-email", drafts, text, valid)


def test_ascii_addresses_are_idn_emails_too() -> None:
    for text, valid in EMAILS:
        if text.isascii():
            assert is_idn_email(text) is valid, text


def test_other_types_pass() -> None:
    assert all(is_email(value) and is_idn_email(value) for value in (1, None, [], {}))
    assert format_checker(Draft4Validator).conforms("δ@x", "idn-email")
