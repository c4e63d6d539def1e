"""`relative-json-pointer` and `uuid`, each one regular expression."""

from __future__ import annotations

import pytest
from jsonschema import Draft7Validator, Draft201909Validator, Draft202012Validator

from rubricate.evidence.schema_dialect import format_checker
from rubricate.evidence.string_formats import (
    is_relative_json_pointer,
    is_relative_json_pointer_2020,
    is_uuid,
)
from tests.evidence.format_verdicts import assert_verdict

POINTERS = [
    ("0", True),
    ("1", True),
    ("100", True),
    ("120/foo/bar", True),
    ("0/foo/bar", True),
    ("2/0/baz/1/zip", True),
    ("0#", True),
    ("0//", True),
    ("0/a~0b~1c", True),
    ("", False),
    ("/foo/bar", False),
    ("-1/foo", False),
    ("+1/foo", False),
    ("01/a", False),
    ("01#", False),
    ("0##", False),
    ("1#/foo", False),
    ("0/~2", False),
    ("0/foo~", False),
    ("\u0661/foo", False),
    ("1\n", False),
]
UUIDS = [
    ("2eb8aa08-aa98-11ea-b4aa-73b441d16380", True),
    ("2EB8AA08-AA98-11EA-B4AA-73B441D16380", True),
    ("00000000-0000-0000-0000-000000000000", True),
    ("2eb8aa08-aa98-11ea-b4aa-73b441d16380-", False),
    ("2eb8aa08-aa98-11ea-b4aa-73b441d1_380", False),
    ("\u09e8eb8aa08-aa98-11ea-b4aa-73b441d16380", False),
    ("2eb8aa08aa9811eab4aa73b441d16380", False),
    ("{2eb8aa08-aa98-11ea-b4aa-73b441d16380}", False),
    ("urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380", False),
    ("2eb8aa08-aa98-11ea-b4aa-73b441d1638", False),
    ("2eb8aa0-8aa98-11ea-b4aa-73b441d16380", False),
]


INDEX_MANIPULATIONS = [
    ("0+1/foo", True),
    ("1-1#", True),
    ("2+10/a/b", True),
    ("0-0", True),
    ("0+01/foo", False),
    ("0+/foo", False),
    ("0+-1", False),
    ("0+1+1", False),
]


@pytest.mark.parametrize(("text", "valid"), POINTERS)
def test_relative_json_pointer(text: str, valid: bool) -> None:
    drafts = (Draft7Validator, Draft201909Validator)
    assert_verdict(is_relative_json_pointer, "relative-json-pointer", drafts, text, valid)
    drafts = (Draft202012Validator,)
    assert_verdict(is_relative_json_pointer_2020, "relative-json-pointer", drafts, text, valid)


@pytest.mark.parametrize(("text", "valid"), INDEX_MANIPULATIONS)
def test_index_manipulation_only_in_draft_2020_12(text: str, valid: bool) -> None:
    drafts = (Draft202012Validator,)
    assert_verdict(is_relative_json_pointer_2020, "relative-json-pointer", drafts, text, valid)
    assert not is_relative_json_pointer(text)
    assert not format_checker(Draft201909Validator).conforms(text, "relative-json-pointer")


@pytest.mark.parametrize(("text", "valid"), UUIDS)
def test_uuid(text: str, valid: bool) -> None:
    assert_verdict(is_uuid, "uuid", (Draft201909Validator, Draft202012Validator), text, valid)


def test_other_types_pass() -> None:
    assert all(
        check(v)
        for check in (is_relative_json_pointer, is_relative_json_pointer_2020, is_uuid)
        for v in (1, None, [], {})
    )


def test_uuid_is_checked_in_draft_7_too() -> None:
    assert not format_checker(Draft7Validator).conforms("not a uuid", "uuid")
