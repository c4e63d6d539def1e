"""Check one rubric or config file and report on it (pure: reads only through `read_file`).

A file is a config when it is named `rubricate.yml`/`rubricate.yaml`, or when it is a mapping
whose keys are all config keys. A config's `rubric:` must resolve too; its path is read with
`read_file`, relative to the repository root.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from rubricate.config import CONFIG_NAMES, Config, load_config
from rubricate.errors import Diagnostic, RubricateError, SourceError
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.resolve import ReadFile, resolve_rubric
from rubricate.yamlsource import load_located, sorted_diagnostics


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

    def lines(self) -> list[str]:
        """The report lines: diagnostics, then `ok ...` lines when the file is valid."""
        return [str(d) for d in self.diagnostics] + (list(self.ok) if not self.errors else [])


def is_config(text: str, path: str) -> bool:
    """True for a config file: by its name, or by having only config keys."""
    if PurePosixPath(path.replace("\\", "/")).name in CONFIG_NAMES:
        return True
    try:
        data, _ = load_located(text, path)
    except SourceError:
        return False
    return isinstance(data, dict) and bool(data) and set(map(str, data)) <= config_keys()


def config_keys() -> set[str]:
    """The top-level keys of a config file."""
    return {field.alias or name for name, field in Config.model_fields.items()}


def check_text(text: str, path: str, read_file: ReadFile | None = None) -> FileReport:
    """Validate a rubric or config file's text."""
    if is_config(text, path):
        return check_config(text, path, read_file)
    return check_rubric(text, path)


def check_rubric(text: str, path: str) -> FileReport:
    """Validate a rubric file: one `ok` line per rubric (per case in a multi-case file)."""
    try:
        loaded = load_rubrics(text, path)
    except SourceError as exc:
        return FileReport(path, diagnostics=tuple(exc.diagnostics))
    dialect = loaded.dialect
    several = len(loaded.rubrics) > 1
    ok = tuple(
        f"ok {path}#{r.case} ({dialect}, {_count(r.criteria)})"
        if several
        else f"ok {path} ({dialect}, {_count(r.criteria)})"
        for r in loaded.rubrics
    )
    return FileReport(path, ok, loaded.warnings)


def check_config(text: str, path: str, read_file: ReadFile | None) -> FileReport:
    """Validate a config file and the rubric it names."""
    try:
        config = load_config(text, path)
    except SourceError as exc:
        return FileReport(path, diagnostics=tuple(exc.diagnostics))
    try:
        resolve_rubric(config.rubric, read_file)
    except SourceError as exc:
        return FileReport(path, diagnostics=tuple(sorted_diagnostics(exc.diagnostics)))
    except RubricateError as exc:
        _, locator = load_located(text, path)
        return FileReport(path, diagnostics=(locator.diag(("rubric",), str(exc)),))
    return FileReport(path, (f"ok {path} (config)",))


def _count(items: tuple[object, ...]) -> str:
    return f"{len(items)} criterion" if len(items) == 1 else f"{len(items)} criteria"
