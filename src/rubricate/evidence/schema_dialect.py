"""The JSON Schema dialects a deliverable schema may declare, as real schemas are written (pure).

`$schema` picks the draft (4, 6, 7, 2019-09 or 2020-12; 2020-12 when absent; draft 3 is
read too). Regular expressions are ECMA-262, as JSON Schema says (`schema_patterns`). The
format checker is the draft's own with every format jsonschema knows, and the formats of
`OWN_FORMATS` checked by rubricate's modules, each as its RFC writes it where jsonschema's
checker (or the package it used) took wrong strings or refused valid ones, as the JSON Schema
Test Suite shows (`benchmarks/schema_test_suite.py`): `date-time`, `time`, `email`,
`idn-email`, `hostname`, `idn-hostname`, `uri`, `uri-reference`, `iri`, `iri-reference`,
`uri-template`, `relative-json-pointer`, `uuid`, `duration`, `regex`. The packages the other
formats need are core dependencies, so a file gets the same verdict on every install. A schema
is checked against its metaschema with the same checker, so an ECMA pattern is not a "bad
regex".

A draft-04 or draft-06 schema that uses `const`, `contains`, `propertyNames` or `if`/`then`/
`else`, which its own draft does not define, gets them with their draft-07 meaning, as ajv
and editors' JSON language services apply them: read as unknown keywords they would be
ignored, and a `oneOf` of `const` branches would match every value more than once. For the
same reason the keywords beside a `$ref` apply in every draft (draft 2019-09's reading; drafts
4 to 7 said to ignore them, yet schemas written for them put `required` or `type` there), and
drafts 2019-09 and 2020-12 keep draft 7's `dependencies`, which they split into
`dependentRequired` and `dependentSchemas` (their metaschemas still list it). Their
`unevaluatedProperties` is rubricate's (`unevaluated`).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from functools import cache
from operator import methodcaller
from typing import Any

import attrs
from jsonschema import (
    Draft3Validator,
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
    FormatChecker,
    validators,
)
from jsonschema.exceptions import SchemaError, best_match

from rubricate.errors import ConfigError
from rubricate.evidence.duration import is_duration
from rubricate.evidence.email_address import is_email, is_idn_email
from rubricate.evidence.hostname import is_hostname, is_idn_hostname
from rubricate.evidence.iri import is_iri, is_iri_reference, is_uri, is_uri_reference
from rubricate.evidence.rfc3339 import is_date_time, is_time
from rubricate.evidence.schema_patterns import (
    additional_properties,
    is_ecma_regex,
    pattern,
    pattern_properties,
)
from rubricate.evidence.string_formats import (
    is_relative_json_pointer,
    is_relative_json_pointer_2020,
    is_uuid,
)
from rubricate.evidence.unevaluated import unevaluated_properties
from rubricate.evidence.uri_template import is_uri_template

FORMATS = (
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
)
"""The formats of draft 2020-12 that every install checks (a test holds the install to it)."""
FROM_DRAFT_4 = (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
)
FROM_DRAFT_6 = FROM_DRAFT_4[1:]
FROM_DRAFT_7 = FROM_DRAFT_4[2:]
FROM_DRAFT_2019 = FROM_DRAFT_4[3:]
DRAFTS_7_AND_2019 = FROM_DRAFT_4[2:4]
OWN_FORMATS: tuple[tuple[str, Callable[[object], bool], tuple[Any, ...] | None], ...] = (
    ("regex", is_ecma_regex, None),
    ("date-time", is_date_time, None),
    ("time", is_time, FROM_DRAFT_7),
    ("iri", is_iri, FROM_DRAFT_7),
    ("iri-reference", is_iri_reference, FROM_DRAFT_7),
    ("uri", is_uri, None),
    ("uri-reference", is_uri_reference, FROM_DRAFT_6),
    ("relative-json-pointer", is_relative_json_pointer, DRAFTS_7_AND_2019),
    ("relative-json-pointer", is_relative_json_pointer_2020, (Draft202012Validator,)),
    ("uri-template", is_uri_template, FROM_DRAFT_6),
    ("duration", is_duration, None),
    ("uuid", is_uuid, None),
    ("email", is_email, None),
    ("idn-email", is_idn_email, FROM_DRAFT_7),
    ("hostname", is_hostname, FROM_DRAFT_4),
    ("host-name", is_hostname, (Draft3Validator,)),
    ("idn-hostname", is_idn_hostname, FROM_DRAFT_7),
)
"""The formats rubricate checks itself, and the drafts that define them (None: every draft)."""
LATER_KEYWORDS = ("const", "contains", "if", "propertyNames")
"""Draft-07 keywords applied in the older drafts that lack them."""
EARLIER_KEYWORDS = ("dependencies",)
"""Draft-07 keywords applied in drafts 2019-09 and 2020-12, which split them in two."""


@cache
def ecma_class(cls: Any) -> Any:
    """The draft's validator class with ECMA-262 patterns, the full format checker, the
    draft-07 keywords it lacks (`dependencies` in the drafts after 7), rubricate's
    `unevaluatedProperties` and the keywords beside `$ref` applied."""
    checker = format_checker(cls)
    later = {
        keyword: Draft7Validator.VALIDATORS[keyword]
        for keyword in LATER_KEYWORDS
        if keyword not in cls.VALIDATORS
    }
    if cls in FROM_DRAFT_2019:
        later |= {keyword: Draft7Validator.VALIDATORS[keyword] for keyword in EARLIER_KEYWORDS}
        later["unevaluatedProperties"] = unevaluated_properties
    keywords = {
        **cls.VALIDATORS,
        **later,
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
    extended: Any = validators.create(
        meta_schema=cls.META_SCHEMA,
        validators=keywords,
        type_checker=cls.TYPE_CHECKER,
        format_checker=checker,
        id_of=cls.ID_OF,
        applicable_validators=methodcaller("items"),
    )
    extended.__name__ = extended.__qualname__ = cls.__name__
    extended.evolve = _evolve
    return extended


def _evolve(self: Any, **changes: Any) -> Any:
    """jsonschema's `evolve`, except that a subschema declaring another draft (a `$ref`'d
    file's own `$schema`) gets that draft's ECMA class, not jsonschema's stock one."""
    schema = changes.setdefault("schema", self.schema)
    declared = validators.validator_for(schema, default=None)  # type: ignore[arg-type, unused-ignore]
    target = type(self) if declared is None else ecma_class(declared)
    for item in attrs.fields(target):
        if item.init and item.alias not in changes:
            changes[item.alias] = getattr(self, item.name)
    return target(**changes)


@cache
def format_checker(cls: Any) -> FormatChecker:
    """The draft's format checker with the formats of `OWN_FORMATS` ours."""
    checker: FormatChecker = copy.deepcopy(cls.FORMAT_CHECKER)
    for name, check, drafts in OWN_FORMATS:
        if drafts is None or cls in drafts:
            checker.checkers.pop(name, None)
            checker.checks(name)(check)
    return checker


def validator_class(schema: dict[str, Any] | bool, name: str) -> Any:
    """The validator class of the draft the schema declares (2020-12 when it declares none)."""
    if isinstance(schema, bool) or "$schema" not in schema:
        return ecma_class(Draft202012Validator)
    declared = schema["$schema"]
    found = None
    if isinstance(declared, str):
        scheme, _, rest = declared.partition("://")
        other = {"http": "https", "https": "http"}.get(scheme)
        for probe in (declared, f"{other}://{rest}" if other else declared):
            found = found or validators.validator_for(
                {"$schema": probe},
                default=None,  # type: ignore[arg-type, unused-ignore]
            )
    if found is None:
        raise ConfigError(
            f"schema {name} names an unknown $schema {declared!r}; "
            "use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#"
        )
    return ecma_class(found)


def check_schema(cls: Any, schema: Any, name: str) -> None:
    """The schema against its draft's metaschema (ECMA-262 `regex`); `ConfigError` if not.
    The verdict is kept by the schema's JSON text, when that text reads back as the very same
    schema (a worker checks the same schema file for every change it scores)."""
    try:
        text: str | None = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not JSON (a YAML date, mixed key types): not kept
        text = None
    if text is not None and json.loads(text) != schema:  # e.g. YAML's integer keys
        text = None
    key = (cls, text)
    problem = _checked.get(key, _UNCHECKED) if text is not None else _UNCHECKED
    if problem is _UNCHECKED:
        problem = _schema_problem(cls, schema)
        if text is not None:
            with _checked_lock:
                _checked[key] = problem
                while len(_checked) > CHECKED_SCHEMAS:
                    del _checked[next(iter(_checked))]
    if problem is not None:
        raise ConfigError(f"schema {name} is not a valid JSON Schema: {problem}")


CHECKED_SCHEMAS = 256
_UNCHECKED = object()
_checked: dict[tuple[Any, str | None], object] = {}
"""(validator class, schema JSON) -> the problem found, None when the schema is valid."""
_checked_lock = threading.Lock()


def _schema_problem(cls: Any, schema: Any) -> str | None:
    meta_cls = validators.validator_for(cls.META_SCHEMA, default=cls)
    meta = meta_cls(cls.META_SCHEMA, format_checker=format_checker(meta_cls))
    error = best_match(meta.iter_errors(schema))
    if error is None:
        return None
    exc = SchemaError.create_from(error)
    where = "/".join(str(part) for part in exc.absolute_path) or "(root)"
    return f"{exc.message} at {where}"
