"""The inputs check: what the change contains and which files could not be inspected (pure).

It feeds no criterion. Binary files, files over 1 MiB (size-checked, not parsed), symlinks,
submodules and non-UTF-8 text are listed as info findings, so that a reader knows what the
other checks did not see; renames and deletions are counted in the evidence.
"""

from __future__ import annotations

from collections import Counter

from rubricate.evidence.report_model import CheckResult, Finding, check_result
from rubricate.evidence.snapshot import Snapshot

CHECK_ID = "inputs"
MAX_FINDINGS = 50


def inputs_check(snapshot: Snapshot) -> CheckResult:
    """Summarize the change and list the files the checks could not read."""
    counts = Counter(change.status for change in snapshot.changes)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    evidence = [f"{len(snapshot.changes)} files changed" + (f" ({summary})" if summary else "")]
    unreadable = [
        (change.path, reason)
        for change in snapshot.changes
        if (reason := change.unreadable_reason) is not None and reason != "deleted"
    ]
    findings = [
        Finding(CHECK_ID, f"not inspected: {reason}", path, None, "info")
        for path, reason in unreadable[:MAX_FINDINGS]
    ]
    if len(unreadable) > MAX_FINDINGS:
        more = len(unreadable) - MAX_FINDINGS
        findings.append(
            Finding(CHECK_ID, f"... and {more} more files not inspected", severity="info")
        )
    for change in snapshot.changes:
        if change.status == "renamed" and change.old_path:
            evidence.append(f"renamed: {change.old_path} -> {change.path}")
    return check_result(CHECK_ID, findings, evidence=evidence[:20])
