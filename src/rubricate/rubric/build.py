"""From criteria as written to checked criteria and rubrics, shared by every dialect (pure: no I/O).

A `Draft` is one criterion as written (a plain string or a criterion object) with its place
in the file. `build_rubric` numbers plain strings `rubric-<n>` over the whole combined list,
checks ids and the `judged_from` order, adds the style warnings, and returns the `Rubric`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from rubricate.rubric.files import (
    AgentVCriterion,
    AxisSpec,
    NativeCriterion,
    PassSpec,
    RubricHeader,
)
from rubricate.rubric.levels import parse_anchors, parse_score_ranges, scale_text
from rubricate.rubric.model import (
    Anchor,
    Criterion,
    Dialect,
    PassRule,
    Rubric,
    Scale,
    ScoreRange,
)
from rubricate.yamlsource import Loc, Problems

Spec = str | NativeCriterion | AgentVCriterion | AxisSpec
_WITH_ID = (NativeCriterion, AgentVCriterion)
SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
VAGUE_ID = re.compile(r"^[A-Za-z]{1,6}[0-9]+$")
MIN_OUTCOME_WORDS = 4
_OUTCOME_KEYS = ("outcome", "description", "expected_outcome", "criteria")


@dataclass(frozen=True)
class Draft:
    """One criterion as written, where it was written, and how a plain string is read."""

    loc: Loc
    spec: Spec
    key: str | None = None
    plain_required: bool = False


@dataclass(frozen=True)
class Identity:
    """The id, version, description and source path shared by a file's rubrics."""

    id: str
    version: str
    description: str
    source: str


@dataclass(frozen=True)
class Shape:
    """A rubric's dialect, scale and pass rule."""

    dialect: Dialect
    scale: Scale
    pass_rule: PassRule


def identity_of(header: RubricHeader, text: str, source: str, problems: Problems) -> Identity:
    """Id from `id`, `name` or the file stem; version from `version`, else a content hash."""
    given_id = (header.id or header.name or "").strip()
    stem = PurePosixPath(source.replace("\\", "/")).stem
    version = header.version
    if isinstance(version, float):
        problems.warn(
            ("version",), f"version {version!r} is a number; quote it to keep it as written"
        )
    if version is None or str(version).strip() == "":
        version = "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:12]
    description = (header.description or "").strip()
    return Identity(given_id or stem or "rubric", str(version).strip(), description, source)


def pass_rule_of(spec: PassSpec | None, default: PassRule) -> PassRule:
    """The file's pass bars (a bar it leaves out is not checked), else the default rule."""
    if spec is None:
        return default
    return PassRule(min_total=spec.min_total, min_each=spec.min_each)


def check_pass_rule(rule: PassRule, scale: Scale, problems: Problems) -> None:
    """Each pass bar must lie on the scale."""
    for name in ("min_total", "min_each"):
        bar = getattr(rule, name)
        if bar is not None and not (scale.min <= bar and (scale.open or bar <= scale.max)):
            message = f"pass.{name} {bar:g} is outside the scale {scale_text(scale)}"
            problems.error(("pass", name), message)


def build_rubric(
    problems: Problems,
    identity: Identity,
    shape: Shape,
    drafts: list[Draft],
    case: tuple[str, Loc] | None,
) -> Rubric | None:
    """Check the combined criteria and make the rubric (None when any error was found)."""
    before = len(problems.errors)
    if not drafts:
        where = case[1] if case else ()
        problems.error(where, "no criteria: a rubric needs at least one criterion")
        return None
    built = [(build_criterion(problems, d, n, shape.scale), d) for n, d in enumerate(drafts, 1)]
    criteria = [(c, d) for c, d in built if c is not None]
    _check_unique(criteria, problems)
    check_request_first(criteria, problems)
    if len(problems.errors) > before:
        return None
    case_id = case[0] if case else None
    return Rubric(
        id=identity.id if case_id is None else f"{identity.id}#{case_id}",
        version=identity.version,
        dialect=shape.dialect,
        scale=shape.scale,
        pass_rule=shape.pass_rule,
        criteria=tuple(c for c, _ in criteria),
        source=identity.source,
        case=case_id,
        description=identity.description,
    )


def build_criterion(
    problems: Problems, draft: Draft, number: int, scale: Scale
) -> Criterion | None:
    """One checked criterion; a plain string gets the id `rubric-<number>`."""
    spec = draft.spec
    if isinstance(spec, str):
        _warn_vague_outcome(problems, draft.loc, spec)
        return _plain(spec, number, draft, problems)
    before = len(problems.errors)
    anchors, ranges = _levels(problems, draft, scale)
    criterion = Criterion(
        id=_criterion_id(problems, draft, number),
        outcome=_outcome(problems, draft),
        weight=spec.weight,
        required=spec.required,
        min_score=spec.min_score,
        anchors=anchors,
        score_ranges=ranges,
        nullable=spec.nullable,
        judged_from=spec.judged_from,
        name=spec.name.strip(),
        operator=getattr(spec, "operator", None),
    )
    return criterion if len(problems.errors) == before else None


def _levels(
    problems: Problems, draft: Draft, scale: Scale
) -> tuple[tuple[Anchor, ...], tuple[ScoreRange, ...]]:
    """The checked anchors and score ranges of a criterion object."""
    anchors = getattr(draft.spec, "anchors", None)
    ranges = getattr(draft.spec, "score_ranges", None)
    return (
        () if anchors is None else parse_anchors(anchors, (*draft.loc, "anchors"), problems, scale),
        ()
        if ranges is None
        else parse_score_ranges(ranges, (*draft.loc, "score_ranges"), problems),
    )


def _plain(text: str, number: int, draft: Draft, problems: Problems) -> Criterion | None:
    if not text.strip():
        problems.error(draft.loc, "a criterion must not be empty")
        return None
    return Criterion(id=f"rubric-{number}", outcome=text.strip(), required=draft.plain_required)


def _criterion_id(problems: Problems, draft: Draft, number: int) -> str:
    spec = draft.spec
    given: str | None = draft.key
    loc, key = draft.loc, True
    if given is None:
        given = spec.id if isinstance(spec, _WITH_ID) else None
        loc, key = (*draft.loc, "id"), False
    if given is None:
        return f"rubric-{number}"
    if not SLUG.match(given):
        message = (
            f"criterion id {given!r} should be an ASCII slug: A-Z, a-z, 0-9, '-', '_' and '.', "
            "starting with a letter or digit"
        )
        problems.error(loc, message, key=key)
    elif VAGUE_ID.match(given):
        message = f"criterion id {given!r} does not say what it checks; use a descriptive id"
        problems.warn(loc, message, key=key)
    return given


def _outcome(problems: Problems, draft: Draft) -> str:
    given = [(k, v) for k in _OUTCOME_KEYS if isinstance(v := getattr(draft.spec, k, None), str)]
    if len(given) > 1:
        message = f"give either {given[0][0]!r} or {given[1][0]!r}, not both"
        problems.error((*draft.loc, given[1][0]), message, key=True)
    if not given:
        main = "description" if isinstance(draft.spec, AxisSpec) else "outcome"
        problems.error(
            draft.loc, f"missing required key {main!r}: say what the criterion checks", key=True
        )
        return ""
    key, text = given[0]
    if not text.strip():
        problems.error((*draft.loc, key), f"{key} must not be empty")
    else:
        _warn_vague_outcome(problems, (*draft.loc, key), text)
    return text.strip()


def _warn_vague_outcome(problems: Problems, loc: Loc, text: str) -> None:
    words = text.split()
    if 0 < len(words) < MIN_OUTCOME_WORDS:
        problems.warn(
            loc,
            f"outcome {text.strip()!r} is under {MIN_OUTCOME_WORDS} words; say what is checked",
        )


def _id_line(problems: Problems, draft: Draft) -> int:
    loc, key = _id_loc(draft)
    return problems.locator.at(loc, key=key)[0]


def _id_loc(draft: Draft) -> tuple[Loc, bool]:
    if draft.key is not None:
        return draft.loc, True
    if not isinstance(draft.spec, _WITH_ID) or draft.spec.id is None:
        return draft.loc, False
    return (*draft.loc, "id"), False


def _check_unique(criteria: list[tuple[Criterion, Draft]], problems: Problems) -> None:
    first_line: dict[str, int] = {}
    for criterion, draft in criteria:
        folded = criterion.id.lower()
        if folded not in first_line:
            first_line[folded] = _id_line(problems, draft)
            continue
        loc, key = _id_loc(draft)
        message = (
            f"duplicate criterion id {criterion.id!r} (first defined at line {first_line[folded]})"
        )
        problems.error(loc, message, key=key)


def check_request_first(criteria: list[tuple[Criterion, Draft]], problems: Problems) -> None:
    """Criteria judged from the request must come before those judged from the submission."""
    submission: tuple[Criterion, Draft] | None = None
    for criterion, draft in criteria:
        if criterion.judged_from == "submission":
            submission = submission or (criterion, draft)
        elif submission is not None:
            message = (
                f"criterion {criterion.id!r} is judged from the request, so it must come before "
                f"{submission[0].id!r} (line {_id_line(problems, submission[1])}), "
                "which is judged from the submission"
            )
            problems.error((*draft.loc, "judged_from"), message, key=True)
