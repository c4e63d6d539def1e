"""`uri-template` is RFC 6570's syntax, an apostrophe allowed in literals."""

from __future__ import annotations

import pytest
from jsonschema import Draft4Validator, Draft6Validator, Draft202012Validator

from rubricate.evidence.schema_dialect import format_checker
from rubricate.evidence.uri_template import is_uri_template
from tests.evidence.format_verdicts import assert_verdict

TEMPLATES = [
    ("", True),
    ("http://example.com/dictionary/{term:1}/{term}", True),
    ("https://api.github.com/repos/{owner}/{repo}/issues{?state,labels}{&page}", True),
    ("{+var}{#var}{.var}{/var}{;var}{?var}{&var}", True),
    ("{var*}{x,y}{a.b}{%41}{v:1}{v:1000}{v:9999}", True),
    ("a%41b", True),
    ("a'b", True),
    ("a\U0001f600b/\u00e9", True),
    ("http://example.com/dictionary/{term:1}/{term", False),
    ("{}", False),
    ("{a,,b}", False),
    ("{a,}", False),
    ("{v:0}", False),
    ("{v:01}", False),
    ("{v:10000}", False),
    ("{a..b}", False),
    ("{.a}{a.}", False),
    ("{var=def}", False),
    ("{,+var}", False),
    ("{a-b}", False),
    ("foo}bar", False),
    ("a b", False),
    ("a\x7fb", False),
    ("a%4", False),
    ("a<b>", False),
]


@pytest.mark.parametrize(("text", "valid"), TEMPLATES)
def test_uri_template(text: str, valid: bool) -> None:
    drafts = (Draft6Validator, Draft202012Validator)
    assert_verdict(is_uri_template, "uri-template", drafts, text, valid)


def test_other_types_and_draft_4_pass() -> None:
    assert all(is_uri_template(value) for value in (1, None, [], {}))
    assert format_checker(Draft4Validator).conforms("a b", "uri-template")
