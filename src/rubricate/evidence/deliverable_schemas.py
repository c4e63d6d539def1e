"""Compile the JSON Schemas of the deliverables, once each (pure: data in, validators out).

A schema is a file read at the BASE ref (`Snapshot.base_files`) or inline in the config. Its
`$schema` picks the draft (see `schema_dialect`: 2020-12 when absent; 2019-09, 7, 6 and 4 too,
with ECMA-262 regular expressions and every format checked). A schema that is missing, does not
parse or is not a valid schema is a `ConfigError` naming the schema file for `rubricate
validate`; when scoring, it is a `CompiledSchema` with a `problem`, which the format check
reports on that deliverable's files alone. `$ref`s to other files of the base tree are resolved
with `referencing` (see `schema_refs`), all of them when the schema is compiled; `base_files`
may be a lazy mapping that reads the base tree on demand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from referencing.exceptions import Unresolvable
from referencing.jsonschema import specification_with

from rubricate.config import CONFIG_PATH, Config, Deliverable
from rubricate.errors import ConfigError, SchemaRefError
from rubricate.evidence.schema_dialect import check_schema, validator_class
from rubricate.evidence.schema_patterns import LONE_SURROGATE
from rubricate.evidence.schema_refs import (
    ROOT,
    SchemaFiles,
    check_refs,
    file_uri,
)


@dataclass(frozen=True)
class SchemaIssue:
    """One way an instance breaks its schema: where (a JSON pointer path) and why."""

    path: tuple[str | int, ...]
    message: str

    @property
    def pointer(self) -> str:
        """The RFC 6901 JSON pointer of the failing value; a lone surrogate in a key (JSON's
        `\\ud800` escape), which no output can encode, is written as that escape."""
        escaped = (str(p).replace("~", "~0").replace("/", "~1") for p in self.path)
        return LONE_SURROGATE.sub(_escape, "/" + "/".join(escaped))


@dataclass(frozen=True)
class CompiledSchema:
    """A ready validator and the name a user knows the schema by, or why there is none."""

    name: str
    validator: Any
    problem: str | None = None
    """Why the schema cannot be used (the validator is then None)."""

    def issues(self, instance: Any) -> list[SchemaIssue]:
        """Every schema error of an instance, in document order of their paths.

        `ConfigError` when the schema cannot be used (see `problem`) or fails on the way."""
        if self.validator is None:
            raise ConfigError(self.problem or f"schema {self.name} cannot be used")
        try:
            errors = list(self.validator.iter_errors(instance))
        except Unresolvable as exc:
            raise ConfigError(f"schema {self.name}: cannot resolve a $ref ({exc})") from None
        except ConfigError as exc:
            raise ConfigError(f"schema {self.name}: {exc}") from None
        except RecursionError:
            raise ConfigError(
                f"schema {self.name}: validation went round in circles (a $ref cycle that "
                'never moves into the data, such as {"$ref": "#"}), or a chain of $refs or '
                "the data nests too deeply to check"
            ) from None
        except (AttributeError, TypeError):  # `referencing` met a subschema that is a list
            raise ConfigError(
                f"schema {self.name}: a subschema it reaches is neither an object nor a boolean"
            ) from None
        found = [SchemaIssue(tuple(e.absolute_path), str(e.message)) for e in errors]
        return sorted(found, key=lambda issue: [str(part) for part in issue.path])


def _escape(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def schema_paths(config: Config) -> tuple[str, ...]:
    """The schema files the config names; the caller reads them at the base ref."""
    return tuple(sorted({d.schema_ for d in config.deliverables if isinstance(d.schema_, str)}))


def compile_deliverable_schemas(
    config: Config, base_files: Mapping[str, bytes]
) -> dict[int, CompiledSchema]:
    """A compiled schema for each deliverable (by index) that has one; each file compiled once.

    A schema that cannot be compiled is kept with its `problem`: it concerns its own
    deliverable's files, never the others'."""
    files = SchemaFiles(base_files)
    by_file: dict[str, CompiledSchema] = {}
    compiled: dict[int, CompiledSchema] = {}
    for index, deliverable in enumerate(config.deliverables):
        schema = deliverable.schema_
        if isinstance(schema, str) and schema in by_file:
            compiled[index] = by_file[schema]
            continue
        try:
            found = compile_deliverable_schema(index, deliverable, files)
        except ConfigError as exc:
            name = schema if isinstance(schema, str) else _inline_name(index)
            found = CompiledSchema(name, None, str(exc))
        if found is not None:
            compiled[index] = found
            if isinstance(schema, str):
                by_file[schema] = found
    return compiled


def compile_deliverable_schema(
    index: int, deliverable: Deliverable, files: SchemaFiles | Mapping[str, bytes]
) -> CompiledSchema | None:
    """The compiled schema of one deliverable rule (None without one); `ConfigError` if bad."""
    schema = deliverable.schema_
    if schema is None:
        return None
    files = files if isinstance(files, SchemaFiles) else SchemaFiles(files)
    if isinstance(schema, str):
        return compile_schema(_read_schema(schema, files), schema, files, schema)
    return compile_schema(schema, _inline_name(index), files)


def _inline_name(index: int) -> str:
    return f"{CONFIG_PATH} (deliverables[{index}].schema)"


def _read_schema(path: str, files: SchemaFiles) -> Any:
    found = files.contents(path)
    if found is None:
        raise ConfigError(
            f"schema {path} is not in the repository at the base ref "
            "(schemas are read from the base, never from the change)"
        )
    return found


def compile_schema(
    schema: Any, name: str, files: SchemaFiles | None = None, path: str | None = None
) -> CompiledSchema:
    """Check a schema against its metaschema, resolve its `$ref`s, and build its validator.

    A schema nested deeper than the checks can recurse is a `ConfigError` too."""
    if not isinstance(schema, (dict, bool)):
        raise ConfigError(f"schema {name} is not a JSON Schema: expected an object or a boolean")
    try:
        return _compiled(schema, name, files, path)
    except RecursionError:
        raise ConfigError(f"schema {name} nests too deeply to check") from None


def _compiled(
    schema: dict[str, Any] | bool, name: str, files: SchemaFiles | None, path: str | None
) -> CompiledSchema:
    cls = validator_class(schema, name)
    check_schema(cls, schema, name)
    checker = cls.FORMAT_CHECKER
    if isinstance(schema, bool):
        return CompiledSchema(name, cls(schema, format_checker=checker))
    files = files or SchemaFiles({})
    meta = cls.META_SCHEMA
    spec = specification_with(str(meta.get("$id") or meta.get("id")))
    uri = file_uri(path) if path else ROOT + "(inline)"
    root_id = schema.get("id" if "id" in meta else "$id")
    resource = spec.create_resource(schema)
    files.use_root(path or "", root_id if isinstance(root_id, str) else None)
    registry = _crawled(files.registry(spec).with_resource(uri, resource))
    try:
        check_refs(registry, resource, uri, spec, files.checked)
    except SchemaRefError as exc:
        raise ConfigError(f"schema {name}: {exc}") from None
    absolute = isinstance(root_id, str) and bool(urlsplit(root_id).scheme)
    wrapper = {"$ref": root_id if absolute else uri}  # so that the root's own `$id` is its base
    return CompiledSchema(name, cls(wrapper, registry=registry, format_checker=checker))


def _crawled(registry: Any) -> Any:
    """The registry crawled, so that a `$ref` can name a subschema by its own `$id` (or draft
    4's `id`); as it is when a keyword mixes schemas with other values (draft 4-7
    `dependencies`), which `referencing` cannot crawl."""
    try:
        return registry.crawl()
    except (AttributeError, TypeError):
        return registry


def deliverable_label(index: int, deliverable: Deliverable) -> str:
    """A short name of a deliverable rule for messages: its glob."""
    return f"deliverables[{index}] {deliverable.glob!r}"
