"""The check run, and what the bot last wrote to a PR's views (pure: data).

The check run is a pure function of the job state folded from the ledger (and of the automatic
report, when the shell computed one), so a re-run rebuilds it identically. It is neutral: the
automatic score never gates.

The view state is kept per PR as `views/<owner>/<repo>/<pr>.json` on the data branch (so one
data remote can serve several repositories): the sticky comment's id and digest, each head
SHA's check run and status, the PR's base and head as last seen in a pull_request event, and the
comments and reviews already answered (`comment:<id>`, `review:<id>`; the last 500), so a re-run
never answers one twice. The views themselves stay pure functions of the ledger; the view state
only saves REST calls. Writes merge the answered ids found at the tip (`merged_with`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from rubricate.bot.effects import Annotation, SetCheckRun
from rubricate.bot.markdown import CHECK_NOTE, number, truncate
from rubricate.bot.render import criteria_table, findings_section, gate_line
from rubricate.evidence.render import render_markdown
from rubricate.gitnames import ref_error, sha_error

if TYPE_CHECKING:
    from rubricate.bot.gate import AutoScore
    from rubricate.bot.jobstate import JobState
    from rubricate.evidence.results import ScoreReport
    from rubricate.rubric.model import Rubric

MAX_ANNOTATIONS = 1000
AnnotationLevel = Literal["notice", "warning", "failure"]
_LEVELS: dict[str, AnnotationLevel] = {"error": "failure", "warning": "warning", "info": "notice"}
CHECK_LIMIT = 65_535


def check_run(job: JobState, rubric: Rubric, sha: str, report: ScoreReport | None) -> SetCheckRun:
    """The `rubricate` check run: neutral, since the automatic score never gates."""
    auto = job.auto.get(job.current_version)
    return SetCheckRun(
        head_sha=sha,
        title=check_title(job, rubric),
        summary=check_summary(job, rubric, report),
        conclusion="neutral",
        text=check_text(auto, report),
        annotations=finding_annotations(report),
    )


def finding_annotations(report: ScoreReport | None) -> tuple[Annotation, ...]:
    """Check-run annotations for the located findings of the report."""
    if report is None:
        return ()
    found = [
        Annotation(
            path=finding.path,
            line=finding.line,
            message=finding.message,
            level=_LEVELS.get(finding.severity, "warning"),
            title=check.id,
        )
        for check in report.checks
        for finding in check.findings
        if finding.path and finding.line and finding.line > 0
    ]
    return tuple(found[:MAX_ANNOTATIONS])


def recorded_annotations(auto: AutoScore | None) -> tuple[Annotation, ...]:
    """Check-run annotations of the located findings recorded for a version."""
    found = []
    for entry in auto.evidence if auto else ():
        line, path = entry.get("line"), entry.get("path")
        if entry.get("type") != "finding" or not path or not isinstance(line, int) or line < 1:
            continue
        title = str(entry.get("check", ""))
        found.append(
            Annotation(
                path=str(path),
                line=line,
                message=str(entry.get("message", "")),
                level=_LEVELS.get(str(entry.get("severity")), "warning"),
                title=f"{title} (untrusted graders run)" if entry.get("untrusted") else title,
            )
        )
    return tuple(found[:MAX_ANNOTATIONS])


def check_title(job: JobState, rubric: Rubric) -> str:
    """The check run's title: the automatic score of the current version."""
    version = job.current_version
    auto = job.auto.get(version)
    moment = "FIRST_SUBMISSION v1" if version == 1 else f"v{version} automatic score"
    if auto is None or auto.weighted_total is None:
        return f"{moment}: no automatic score"
    total = f"{number(auto.weighted_total)}/{number(rubric.scale.max)}"
    return f"{moment}: {total} · {auto.verdict} (informational)"


def check_summary(job: JobState, rubric: Rubric, report: ScoreReport | None) -> str:
    """The check run's summary: the note, the gate and the report, cut under the limit."""
    scores = render_markdown(report) if report is not None else criteria_table(job, rubric)
    parts = [CHECK_NOTE, gate_line(job, rubric), scores]
    return truncate("\n\n".join(parts), CHECK_LIMIT, "; see the job's step summary")


def check_text(auto: AutoScore | None, report: ScoreReport | None) -> str:
    """The check run's text: the recorded findings, when the summary has no report to show."""
    if report is not None:
        return ""
    return truncate(findings_section(auto), CHECK_LIMIT, "; see the job's step summary")


KEEP_SHAS = 20
KEEP_ANSWERED = 500


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class StickyState(_Model):
    """The sticky comment: its id and a digest of the body last written."""

    id: int
    digest: str = ""


class CheckState(_Model):
    """A check run on one head SHA: its id, and digests of its output and its annotations."""

    id: int
    digest: str = ""
    annotations: str = ""


class StatusView(_Model):
    """The commit status last set on one SHA."""

    state: str
    description: str


class PullState(_Model):
    """The PR's base and head as of the last pull_request event handled."""

    base_sha: str
    base_ref: str = ""
    head_sha: str

    @field_validator("base_sha", "head_sha")
    @classmethod
    def _full_sha(cls, value: str) -> str:
        problem = sha_error(value, "view state: pull SHA")
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("base_ref")
    @classmethod
    def _safe_ref(cls, value: str) -> str:
        problem = ref_error(value, "view state: pull base_ref") if value else None
        if problem:
            raise ValueError(problem)
        return value


class ViewState(_Model):
    """Everything known about one PR's views."""

    pr: int
    sticky: StickyState | None = None
    checks: dict[str, CheckState] = {}
    statuses: dict[str, StatusView] = {}
    pull: PullState | None = None
    answered: list[str] = []

    def trimmed(self) -> ViewState:
        """A copy keeping only the most recent SHAs' entries and answered ids."""
        return self.model_copy(
            update={
                "checks": _last(self.checks),
                "statuses": _last(self.statuses),
                "answered": self.answered[-KEEP_ANSWERED:],
            }
        )

    def with_answered(self, prefix: str) -> ViewState:
        """A copy that also names this comment or review as answered."""
        if prefix in self.answered:
            return self
        return self.model_copy(update={"answered": [*self.answered, prefix]})

    def writer(self) -> Callable[[bytes | None], bytes | None]:
        """What to write over the tip's state: this one, keeping the ids another run answered
        meanwhile (None when the tip already holds it)."""

        def write(tip: bytes | None) -> bytes | None:
            data = encode_views(self.merged_with(decode_views(tip, self.pr)))
            return None if data == tip else data

        return write

    def merged_with(self, tip: ViewState) -> ViewState:
        """This state, keeping the ids another run answered meanwhile (found at the tip)."""
        ours = set(self.answered)
        theirs = [prefix for prefix in tip.answered if prefix not in ours]
        return self.model_copy(update={"answered": [*theirs, *self.answered]})


def _last(mapping: dict[str, Any]) -> dict[str, Any]:
    return dict(list(mapping.items())[-KEEP_SHAS:])


def view_path(repo: str, pr: int) -> str:
    """The data-branch path of a PR's view state."""
    safe = "/".join(re.sub(r"[^A-Za-z0-9._-]", "_", part) or "_" for part in repo.split("/"))
    return f"views/{safe}/{pr}.json"


def decode_views(data: bytes | None, pr: int) -> ViewState:
    """The stored state, or an empty one when missing or unreadable (it is only a cache).

    A `pull` entry with a SHA or ref that git could mistake for an option is dropped, and
    the rest of the state kept.
    """
    if not data:
        return ViewState(pr=pr)
    try:
        state = ViewState.model_validate_json(data)
    except ValidationError:
        state = _without_pull(data, pr)
    return state if state.pr == pr else ViewState(pr=pr)


def _without_pull(data: bytes, pr: int) -> ViewState:
    try:
        raw = json.loads(data)
        if isinstance(raw, dict):
            raw.pop("pull", None)
        return ViewState.model_validate(raw)
    except (ValueError, ValidationError):
        return ViewState(pr=pr)


def encode_views(state: ViewState) -> bytes:
    """Canonical JSON bytes, so an unchanged state is byte-identical."""
    data = state.trimmed().model_dump(mode="json", exclude_none=True)
    return (json.dumps(data, sort_keys=True, indent=2) + "\n").encode()


def digest(value: Any) -> str:
    """A short, stable digest of text or JSON-ready data."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
