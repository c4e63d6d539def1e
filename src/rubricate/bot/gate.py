"""The merge gate of an open PR: the `rubricate/approval` status of a version (pure).

The gate of a version is its approval's: pending without one, success when it passes or is
overridden, failure when it fails without an override (DESIGN.md §5, "Views"). A head recorded
only in versions from before the PR's latest retarget is pending: approved, if at all, under
another base's rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from rubricate.bot.effects import SetStatus, StatusState
from rubricate.bot.jobstate import JobState
from rubricate.bot.markdown import number
from rubricate.rubric.model import Rubric

STATUS = {
    "pending": "Waiting for a reviewer's /approve of v{version}",
    "passed": "v{version} approved: {total}, the rubric passes",
    "overridden": "v{version} approved with an override: {total} fails the rubric",
    "failed": "v{version} approval fails the rubric ({total}); a maintainer can /override <reason>",
    "moved": "v{version} was recorded under another base: waiting for this head's run on this one",
}
STATUS_LIMIT = 140
"""GitHub keeps at most 140 characters of a commit status's description."""


@dataclass(frozen=True)
class Gate:
    """The commit status of the gate: its state and its description (at most 140 characters)."""

    state: StatusState
    description: str


def gate_of(job: JobState, rubric: Rubric, version: int | None = None) -> Gate:
    """The gate status of a version of the job (the current one by default)."""
    version = job.current_version if version is None else version
    approval = job.approvals.get(version)
    if approval is None:
        return _gate("pending", STATUS["pending"].format(version=version))
    total = f"{number(approval.weighted_total)}/{number(rubric.scale.max)}"
    if approval.override is not None:
        return _gate("success", STATUS["overridden"].format(version=version, total=total))
    if approval.verdict == "pass":
        return _gate("success", STATUS["passed"].format(version=version, total=total))
    return _gate("failure", STATUS["failed"].format(version=version, total=total))


def status(job: JobState, rubric: Rubric, sha: str) -> SetStatus:
    """The `rubricate/approval` gate status on a head commit: the gate of its own version;
    pending for a head recorded only before the PR moved to its base (`JobState.under_base`)."""
    version = job.version_of_head(sha)
    if version is not None and not job.under_base(version):
        return SetStatus(
            sha, "pending", status_text(STATUS["moved"].format(version=version.number))
        )
    gate = gate_of(job, rubric, version.number if version else None)
    return SetStatus(sha, gate.state, gate.description)


def status_text(text: str) -> str:
    """A status description cut to GitHub's 140 characters."""
    return text if len(text) <= STATUS_LIMIT else text[: STATUS_LIMIT - 1] + "…"


def _gate(state: StatusState, description: str) -> Gate:
    return Gate(state, status_text(description))


def gate_output(job: JobState, rubric: Rubric) -> str:
    """The `gate` job output: the final gate, `abandoned`, or the status state."""
    if job.final is not None:
        return job.final.gate or "bypassed"
    if job.abandoned:
        return "abandoned"
    return gate_of(job, rubric).state
