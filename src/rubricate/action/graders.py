"""The privileged side of the graders hand-off: artifact to verified event (shell: API reads).

A completed graders run names its PR only through its artifact, which the PR's own code wrote.
So the artifact is downloaded with a cap, read in memory as untrusted data (never extracted,
never run), and the PR it names is checked against the API: its current head must be the commit
the graders ran on. Anything that does not fit is ignored with a log line and a warning; the
run itself fails only when GitHub cannot be asked.
"""

from __future__ import annotations

from rubricate.action.handles import GitHubClient, RunHandles
from rubricate.bot.events import GradersEvent, GradersRun, Ignored
from rubricate.errors import HandoffRefused
from rubricate.evidence.graders_handoff import ARTIFACT_NAME, Handoff, HandoffLimits, read_handoff


def graders_event(
    handles: RunHandles, run: GradersRun, limits: HandoffLimits | None = None
) -> GradersEvent | Ignored:
    """The verified graders event of a run, or why the run is ignored."""
    limits = limits or HandoffLimits()
    api = handles.api
    if api is None:
        return Ignored(f"graders run {run.run_id}: no token, so its artifact cannot be read")
    where = f"graders run {run.run_id} at {run.head_sha[:12]}"
    artifact = api.run_artifact(run.run_id, ARTIFACT_NAME)
    if artifact is None or artifact.expired:
        missing = "has expired" if artifact else "is missing"
        return Ignored(f"{where} ({run.conclusion}): the {ARTIFACT_NAME} artifact {missing}")
    try:
        if artifact.size_in_bytes > limits.max_zip_bytes:
            raise HandoffRefused(
                f"the artifact is {artifact.size_in_bytes} bytes, over {limits.max_zip_bytes}"
            )
        handoff = read_handoff(api.artifact_zip(artifact, limits.max_zip_bytes), limits)
    except HandoffRefused as exc:
        return _refused(handles, f"{where}: artifact {artifact.id} refused: {exc}")
    handles.runtime.log(
        f"{where}: artifact {artifact.id} read: PR #{handoff.pr} claimed, "
        f"{len(handoff.checks)} grader checks"
    )
    return _verified(handles, api, run, handoff, where)


def _verified(
    handles: RunHandles, api: GitHubClient, run: GradersRun, handoff: Handoff, where: str
) -> GradersEvent | Ignored:
    """The event, when the PR the artifact names really is at the run's head."""
    if handoff.head_sha != run.head_sha:
        return _refused(
            handles, f"{where}: pull.json names head {handoff.head_sha[:12]}, not the run's head"
        )
    pull = api.pull_or_none(handoff.pr)
    if pull is None:
        return _refused(handles, f"{where}: pull.json names PR #{handoff.pr}, which does not exist")
    head = str(pull.get("head", {}).get("sha") or "")
    if head != run.head_sha:
        return Ignored(
            f"{where}: PR #{handoff.pr} is now at {head[:12] or 'an unknown head'}; results of "
            "another commit (stale, or pull.json names a PR it does not belong to) are ignored"
        )
    base = pull.get("base", {})
    return GradersEvent(
        run=run,
        number=handoff.pr,
        base_sha=str(base.get("sha") or ""),
        base_ref=str(base.get("ref") or ""),
        checks=handoff.checks,
        notes=handoff.dropped,
    )


def _refused(handles: RunHandles, reason: str) -> Ignored:
    """An artifact that is not what the graders job writes: a warning, and nothing recorded."""
    handles.runtime.annotate("warning", f"rubricate: {reason}")
    return Ignored(reason)
