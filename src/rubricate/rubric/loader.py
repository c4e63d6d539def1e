"""Load rubric text in any of the four dialects into `Rubric`s, and find a rubric by built-in
name or path, or `PATH#CASE` (pure: parses the text it is given, reads through `read`).

`load_rubrics(text, source, read=...)` detects the dialect from the top-level keys (native:
weighted `criteria:` on one scale, Agora-style; axes: anchored axes on an open 0..100+ scale;
the AgentV forms), checks the file's shape and
meaning, and returns one rubric per case. Every problem is reported together,
as `path:line:col: message`, in one `SourceError`. Files an AgentV file refers to (`include:`,
`tests: file://...`) are read only through the caller's `read`, inside the repository.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rubricate.errors import ConfigError, Diagnostic, SourceError
from rubricate.rubric.agentv.eval_file import agentv_rubrics
from rubricate.rubric.agentv.forms import DIALECT_OF_FORM, MARKERS, detect_form
from rubricate.rubric.agentv.refs import ReadFile
from rubricate.rubric.agentv.templates import Env
from rubricate.rubric.build import (
    Draft,
    Identity,
    Shape,
    build_rubric,
    check_pass_rule,
    identity_of,
    pass_rule_of,
)
from rubricate.rubric.files import AxesFile, NativeFile, RubricHeader
from rubricate.rubric.located import Located, describe_value, validate_located
from rubricate.rubric.model import TOLERANCE, Dialect, PassRule, Rubric, Scale
from rubricate.suggest import did_you_mean
from rubricate.yamlsource import Locator, Problems, load_located, sorted_diagnostics

Builder = Callable[[Any, Identity, Problems], list[Rubric]]

SUFFIX = ".yml"
TYPO_CUTOFF = 0.7
"""How close a key must be to a rubric key to be named as a typo of it."""


AGORA_SCALE = Scale(min=1, max=5, kind="points")
AGORA_PASS = PassRule(min_total=3.5, min_each=2)


def native_rubrics(file: NativeFile, identity: Identity, problems: Problems) -> list[Rubric]:
    """The one rubric of a native file."""
    scale = _scale(file, problems)
    rule = _pass_rule(file, scale, problems)
    _check_weight_sum(file, problems)
    drafts = [Draft(("criteria", i), spec) for i, spec in enumerate(file.criteria)]
    rubric = build_rubric(problems, identity, Shape("native", scale, rule), drafts, None)
    return [] if rubric is None else [rubric]


def _scale(file: NativeFile, problems: Problems) -> Scale:
    if file.scale is None:
        return AGORA_SCALE
    if file.scale.min >= file.scale.max:
        problems.error(
            ("scale",),
            f"scale.min ({file.scale.min:g}) must be below scale.max ({file.scale.max:g})",
        )
        return AGORA_SCALE
    return Scale(min=file.scale.min, max=file.scale.max, kind="points")


def _pass_rule(file: NativeFile, scale: Scale, problems: Problems) -> PassRule:
    if file.pass_ is None and scale != AGORA_SCALE:
        problems.error(
            ("scale",), "a native rubric with its own scale needs a `pass:` rule", key=True
        )
    rule = pass_rule_of(file.pass_, AGORA_PASS)
    check_pass_rule(rule, scale, problems)
    return rule


def _check_weight_sum(file: NativeFile, problems: Problems) -> None:
    total = math.fsum(c.weight for c in file.criteria)
    if abs(total - 1.0) > TOLERANCE:
        message = f"native criterion weights must sum to 1.00, but they sum to {total:.10g}"
        problems.error(("criteria",), message, key=True)


AXES_SCALE = Scale(min=0, max=100, open=True, kind="open")
AXES_PASS = PassRule(min_total=50)


def axes_rubrics(file: AxesFile, identity: Identity, problems: Problems) -> list[Rubric]:
    """The one rubric of an axes file; each axis id is its key."""
    rule = pass_rule_of(file.pass_, AXES_PASS)
    if rule.min_total is None:
        rule = PassRule(min_total=AXES_PASS.min_total, min_each=rule.min_each)
    check_pass_rule(rule, AXES_SCALE, problems)
    drafts = [Draft(("axes", name), spec, key=name) for name, spec in file.axes.items()]
    rubric = build_rubric(problems, identity, Shape("axes", AXES_SCALE, rule), drafts, None)
    return [] if rubric is None else [rubric]


@dataclass(frozen=True)
class _DialectSpec:
    markers: tuple[str, ...]
    model: type[RubricHeader]
    build: Builder


DIALECTS: dict[Dialect, _DialectSpec] = {
    "native": _DialectSpec(("criteria",), NativeFile, native_rubrics),
    "axes": _DialectSpec(("axes",), AxesFile, axes_rubrics),
}
AGENTV = "agentv"


@dataclass(frozen=True)
class LoadedFile:
    """A loaded rubric file: its dialect, one rubric per case, and its warnings."""

    dialect: Dialect
    rubrics: tuple[Rubric, ...]
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def cases(self) -> tuple[str, ...]:
        """The case ids, in file order (empty for a file without cases)."""
        return tuple(r.case for r in self.rubrics if r.case is not None)


def load_rubrics(
    text: str, source: str, read: ReadFile | None = None, env: Env | None = None
) -> LoadedFile:
    """Load every rubric in a file; raise `SourceError` with every located problem.

    `read(path)` returns the text of a file the rubric file refers to (a path inside the
    repository, relative to its root); without it, such references are errors. `env` holds the
    values of the names an AgentV file may use as `{{ env.X }}` (config `agentv.env`); any
    other name is an error.
    """
    data, locator = load_located(text, source)
    if data is None:
        raise SourceError([locator.diag((), "the rubric file is empty")])
    if not isinstance(data, dict):
        message = f"a rubric file must be a mapping of keys to values, got {describe_value(data)}"
        raise SourceError([locator.diag((), message)])
    dialect = detect_dialect(data, locator)
    problems = Problems(locator)
    form = detect_form(data)
    if form is not None and dialect == DIALECT_OF_FORM[form]:
        header = RubricHeader.model_validate(_header(data))
        identity = identity_of(header, text, source, problems)
        root = Located(data, (), problems)
        rubrics, others = agentv_rubrics(form, root, identity, read, env)
        found = [problems, *others]
    else:
        spec = DIALECTS[dialect]
        file = validate_located(spec.model, data, locator)
        identity = identity_of(file, text, source, problems)
        rubrics, found = spec.build(file, identity, problems), [problems]
    errors = [d for p in found for d in p.errors]
    warnings = [d for p in found for d in p.warnings]
    if errors:
        raise SourceError(sorted_diagnostics([*errors, *warnings]))
    return LoadedFile(dialect, tuple(rubrics), tuple(sorted_diagnostics(warnings)))


def _header(data: dict[Any, Any]) -> dict[str, Any]:
    """The id, name, version and description of an AgentV file, where they are text."""
    header = {k: data[k] for k in ("id", "name", "description") if isinstance(data.get(k), str)}
    if isinstance(data.get("version"), (str, int, float)) and not isinstance(data["version"], bool):
        header["version"] = data["version"]
    return header


def find_rubric(
    ref: str, read_file: ReadFile | None, builtins: Mapping[str, str], env: Env | None = None
) -> Rubric:
    """The rubric named by a built-in name, a path, or `PATH#CASE_ID`.

    `builtins` maps each built-in rubric's name to its YAML text; every other file is read
    with `read_file` (the bot reads the base ref; the command line reads the working tree),
    and so are the files a rubric file refers to."""
    path, _, case = ref.partition("#")
    path = path.strip()
    if not path:
        raise ConfigError(f"no rubric given in {ref!r}")
    if path in builtins:
        loaded = _load_builtin(path, builtins[path])
    else:
        loaded = load_rubrics(_read(path, read_file, tuple(builtins)), path, read_file, env)
    return select_case(loaded, path, case.strip() or None)


def select_case(loaded: LoadedFile, path: str, case: str | None) -> Rubric:
    """The rubric of one case; a file with several cases needs `#CASE`."""
    cases = loaded.cases
    if case is None:
        if len(loaded.rubrics) == 1:
            return loaded.rubrics[0]
        raise ConfigError(
            f"{path} has {len(cases)} cases; choose one as {path}#CASE: {', '.join(cases)}"
        )
    for rubric in loaded.rubrics:
        if rubric.case == case:
            return rubric
    if not cases:
        raise ConfigError(f"{path} has no cases, so it cannot be addressed as {path}#{case}")
    raise ConfigError(
        f"{path} has no case {case!r}{did_you_mean(case, cases)}; cases: {', '.join(cases)}"
    )


def _read(path: str, read_file: ReadFile | None, builtins: Iterable[str]) -> str:
    if read_file is None:
        raise ConfigError(_not_found(path, builtins))
    try:
        return read_file(path)
    except FileNotFoundError:
        raise ConfigError(_not_found(path, builtins)) from None
    except IsADirectoryError:
        raise ConfigError(f"rubric {path!r} is a directory, not a file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"rubric {path!r} is not UTF-8 text") from None
    except PermissionError:
        raise ConfigError(f"rubric {path!r} is outside the repository or not readable") from None
    except OSError as exc:
        raise ConfigError(f"cannot read rubric {path!r}: {exc.strerror or exc}") from None


def _not_found(name: str, builtins: Iterable[str]) -> str:
    names = tuple(sorted(builtins))
    hint = did_you_mean(name, names)
    return f"rubric {name!r} not found: no such file, and not a built-in{hint} ({', '.join(names)})"


@functools.cache
def _load_builtin(name: str, text: str) -> LoadedFile:
    return load_rubrics(text, f"{name}{SUFFIX}")


def detect_dialect(data: dict[Any, Any], locator: Locator) -> Dialect:
    """The one dialect whose marker keys the file uses."""
    found: dict[Dialect, str | None] = {
        name: _marker(spec, data) for name, spec in DIALECTS.items()
    }
    form = detect_form(data)
    if form is not None:
        found[DIALECT_OF_FORM[form]] = next((k for k in MARKERS if k in data), "execution")
    matches = [(name, marker) for name, marker in found.items() if marker is not None]
    if len(matches) == 1:
        return matches[0][0]
    if not matches:
        raise SourceError([_no_dialect(data, locator)])
    names = " and ".join(f"`{marker}:` ({name})" for name, marker in matches)
    message = f"this file mixes rubric dialects: {names}; use one"
    raise SourceError([locator.diag((matches[1][1],), message, key=True)])


def _marker(spec: _DialectSpec, data: dict[Any, Any]) -> str | None:
    for key in spec.markers:
        if key not in data:
            continue
        if key == "criteria" and isinstance(data[key], str):
            continue
        if key == "execution" and not (isinstance(data[key], dict) and "evaluators" in data[key]):
            continue
        return key
    return None


def _no_dialect(data: dict[Any, Any], locator: Locator) -> Diagnostic:
    markers = [m for spec in DIALECTS.values() for m in spec.markers] + list(MARKERS)
    if "criteria" in data:  # a text `criteria:` describes an AgentV case; it lists no criteria
        got = describe_value(data["criteria"])
        return locator.diag(("criteria",), f"criteria should be a list of criteria, got {got}")
    if "execution" in data:
        message = "execution should hold an `evaluators:` or `assertions:` list to be a rubric"
        return locator.diag(("execution",), message, key=True)
    for key in data:
        close = difflib.get_close_matches(str(key), markers, n=1, cutoff=TYPO_CUTOFF)
        if close:
            message = f"unknown key {key!r} (did you mean {close[0]!r}?)"
            return locator.diag((key,), message, key=True)
    groups: list[tuple[str, tuple[str, ...]]] = [
        (name, spec.markers) for name, spec in DIALECTS.items()
    ]
    groups.append((AGENTV, ("tests", "assert", "assertions", "evalcases")))
    keys = ", ".join(f"{'/'.join(f'`{m}:`' for m in marks)} ({name})" for name, marks in groups)
    return locator.diag((), f"no criteria: the file has none of the rubric keys {keys}")
