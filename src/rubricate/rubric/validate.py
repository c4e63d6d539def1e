"""Check one rubric or config file and report on it (pure: reads only through `read_file`;
the built-in rubrics are passed in).

A file is a config when it is named `rubricate.yml`/`rubricate.yaml`, or when it is a mapping
whose keys are all config keys or close misspellings of one (at least one spelt right). A
config's `rubric:` must resolve too, and each deliverable
schema must be a readable, valid JSON Schema whose `$ref`s all resolve; paths are read with
`read_file`, relative to the repository root. A grader whose criterion the rubric lacks is a
warning (it would score none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from rubricate.config import CONFIG_NAMES, Config, load_config
from rubricate.errors import (
    ConfigError,
    Diagnostic,
    RubricateError,
    ScoreError,
    SourceError,
    read_problem,
)
from rubricate.rubric.agentv.forms import form_name
from rubricate.rubric.agentv.refs import ReadFile
from rubricate.rubric.loader import find_rubric, load_rubrics
from rubricate.rubric.model import Rubric
from rubricate.rubric.scoring import resolve_criterion_id
from rubricate.suggest import did_you_mean
from rubricate.yamlsource import Locator, load_located, sorted_diagnostics


@dataclass(frozen=True)
class FileReport:
    """What `rubricate validate` says about one file."""

    path: str
    ok: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The diagnostics that make the file invalid."""
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        """The diagnostics that do not."""
        return tuple(d for d in self.diagnostics if d.severity != "error")

    def valid(self, *, strict: bool = False) -> bool:
        """No errors (and, when strict, no warnings)."""
        return not (self.diagnostics if strict else self.errors)

    def lines(self, *, strict: bool = False) -> list[str]:
        """The report lines: diagnostics, then `ok ...` lines when the file is valid (when
        strict, only with no warning either: the lines and the exit code agree)."""
        return [str(d) for d in self.diagnostics] + (
            list(self.ok) if self.valid(strict=strict) else []
        )


def is_config(text: str, path: str) -> bool:
    """True for a config file: by its name, or by having only config keys."""
    if PurePosixPath(path.replace("\\", "/")).name in CONFIG_NAMES:
        return True
    try:
        data, _ = load_located(text, path)
    except SourceError:
        return False
    if not isinstance(data, dict) or not data:
        return False
    keys, known = set(map(str, data)), config_keys()
    # A mistyped key (`deliverable:`) still makes a config of a file with a config key.
    return bool(keys & known) and all(k in known or did_you_mean(k, known) for k in keys)


def config_keys() -> set[str]:
    """The top-level keys of a config file."""
    return {field.alias or name for name, field in Config.model_fields.items()}


def check_text(
    text: str,
    path: str,
    read_file: ReadFile | None = None,
    read_near: ReadFile | None = None,
    builtins: Mapping[str, str] | None = None,
) -> FileReport:
    """Validate a rubric or config file's text (`read_near` reads the files a rubric names)."""
    if is_config(text, path):
        return check_config(text, path, read_file, builtins or {})
    return check_rubric(text, path, read_near)


def check_rubric(text: str, path: str, read_file: ReadFile | None = None) -> FileReport:
    """Validate a rubric file: one `ok` line per rubric (per case in a multi-case file)."""
    try:
        loaded = load_rubrics(text, path, read_file)
    except SourceError as exc:
        return FileReport(path, diagnostics=tuple(exc.diagnostics))
    dialect = form_name(loaded.dialect)
    several = len(loaded.rubrics) > 1
    ok = tuple(
        f"ok {path}#{r.case} ({dialect}, {_count(r.criteria)})"
        if several
        else f"ok {path} ({dialect}, {_count(r.criteria)})"
        for r in loaded.rubrics
    )
    return FileReport(path, ok, loaded.warnings)


def check_config(
    text: str, path: str, read_file: ReadFile | None, builtins: Mapping[str, str]
) -> FileReport:
    """Validate a config file and the rubric it names."""
    try:
        config = load_config(text, path)
    except SourceError as exc:
        return FileReport(path, diagnostics=tuple(exc.diagnostics))
    try:
        # listed names are valid whatever their values; validation needs none of them
        listed = dict.fromkeys(config.agentv.env)
        rubric = find_rubric(config.rubric, read_file, builtins, listed)
    except SourceError as exc:
        return FileReport(path, diagnostics=tuple(sorted_diagnostics(exc.diagnostics)))
    except RubricateError as exc:
        _, locator = load_located(text, path)
        return FileReport(path, diagnostics=(locator.diag(("rubric",), str(exc)),))
    _, locator = load_located(text, path)
    found = [
        *_schema_problems(config, locator, read_file),
        *_grader_problems(config, rubric, locator),
    ]
    return FileReport(path, (f"ok {path} (config)",), tuple(sorted_diagnostics(found)))


def _schema_problems(
    config: Config, locator: Locator, read_file: ReadFile | None
) -> list[Diagnostic]:
    """A located error for each deliverable schema that is missing, unreadable or invalid."""
    # Imported here: these pull jsonschema and referencing, which checking a rubric does not need.
    from rubricate.evidence.deliverable_schemas import compile_deliverable_schema
    from rubricate.evidence.schema_refs import SchemaFiles

    def read_bytes(path: str) -> bytes | None:
        try:
            return None if read_file is None else read_file(path).encode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    files = SchemaFiles(read_bytes)
    problems = []
    compiled: dict[str, str | None] = {}
    """Each schema file's problem (None when it compiles): checked once, however many globs."""
    for index, deliverable in enumerate(config.deliverables):
        schema = deliverable.schema_
        where = ("deliverables", index, "schema")
        if isinstance(schema, str) and schema in compiled:
            problem = compiled[schema]
            problems += [locator.diag(where, problem)] if problem is not None else []
            continue
        if isinstance(schema, str) and read_file is not None:
            try:
                read_file(schema)
            except (OSError, UnicodeDecodeError) as exc:
                problem = read_problem(exc)
                problems.append(locator.diag(where, f"schema {schema}: {problem}"))
                continue
        problem = None
        try:
            compile_deliverable_schema(index, deliverable, files)
        except ConfigError as exc:
            problem = str(exc)
            problems.append(locator.diag(where, problem))
        if isinstance(schema, str):
            compiled[schema] = problem
    return problems


def _grader_problems(config: Config, rubric: Rubric, locator: Locator) -> list[Diagnostic]:
    """A warning for each grader whose criterion the rubric does not have (it would score none)."""
    problems = []
    for index, grader in enumerate(config.graders):
        try:
            resolve_criterion_id(rubric, grader.criterion)
        except ScoreError as exc:
            where = ("graders", index, "criterion")
            problems.append(locator.diag(where, f"scores no criterion: {exc}", severity="warning"))
    return problems


def _count(items: tuple[object, ...]) -> str:
    return f"{len(items)} criterion" if len(items) == 1 else f"{len(items)} criteria"
