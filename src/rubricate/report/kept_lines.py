"""What a report keeps of each job, as one line of text (pure: parts to text and back).

A job's line holds its key, its job file's id and its part (`model.JobPart`): `J`, the repo,
the number, the file id, the row, the latest scores and the audit entries, joined by tabs; each
field is canonical JSON text (`kept_json`), which holds no tab or newline. The report's state
(`reuse`) keeps one such line a job, and a first report's groups (`cached`) send theirs back as
such lines. A line read back keeps its text: it is written again as it was read while its job's
file is the same, and its row and scores are read only where they are used (`KeptRow`'s text
for report.json, its author alone for the author pages' index).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, overload

from rubricate.report.kept_json import UnreadRow, row_text
from rubricate.report.model import AUDITS, JobKey, JobPart
from rubricate.report.scores import Scored

NO_AUDIT = "{}"
"""The audit field of a job with no audit entry (most jobs)."""


class KeptScores(Sequence[Scored]):
    """A job's latest scores as kept: read from their JSON text when first used (the scores of a
    job that did not change are never read). `line`: the job's whole line it was read from,
    written again as it is while the job's file is `file_id`."""

    __slots__ = ("_read", "file_id", "key", "line", "text")

    def __init__(self, key: JobKey, text: str, file_id: str = "", line: str = ""):
        self.key, self.text = key, text
        self.file_id, self.line = file_id, line
        self._read: tuple[Scored, ...] | None = None

    def _scores(self) -> tuple[Scored, ...]:
        if self._read is None:
            make, key = Scored._make, self.key
            self._read = tuple(
                make((*key, version, criterion, source, value, scale and (*scale,)))
                for version, criterion, source, value, scale in json.loads(self.text)
            )
        return self._read

    @overload
    def __getitem__(self, index: int) -> Scored: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Scored]: ...
    def __getitem__(self, index: int | slice) -> Scored | Sequence[Scored]:
        return self._scores()[index]

    def __len__(self) -> int:
        return len(self._scores())


def job_line(key: JobKey, file_id: str, part: JobPart) -> str:
    """A job's line: as it was read when the job did not change (nor its file)."""
    kept = part.scored
    if isinstance(kept, KeptScores) and kept.line and kept.file_id == file_id:
        return kept.line
    return "\t".join(("J", json.dumps(key[0]), str(key[1]), file_id, *_fields(part)))


def _fields(part: JobPart) -> tuple[str, str, str]:
    if isinstance(part.scored, KeptScores):
        scored = part.scored.text
    else:
        rows = [[s.version, s.criterion, s.source, s.value, s.scale] for s in part.scored]
        scored = json.dumps(rows, separators=(",", ":"))
    audit = {k: v for k, v in part.audit.items() if v}
    audited = json.dumps(audit, separators=(",", ":")) if audit else NO_AUDIT
    return row_text(part.row), scored, audited


def read_job_lines(lines: Iterable[str]) -> tuple[dict[JobKey, str], dict[JobKey, JobPart]]:
    """Each job's file id and part from its line (ValueError, KeyError, TypeError or
    IndexError when a line is not one, or a job comes twice)."""
    files: dict[JobKey, str] = {}
    parts: dict[JobKey, JobPart] = {}
    names: dict[str, str] = {}  # each repository's JSON text, read once
    for line in lines:
        fields = line.split("\t")
        if len(fields) != 7 or fields[0] != "J":
            raise ValueError("a job line out of place")
        _, repo, pr, file_id, row, scored, audit = fields
        if not (row.startswith("{") and row.endswith("}")):
            raise ValueError("a kept row is a JSON object")
        if repo not in names:
            names[repo] = str(json.loads(repo))
        key = (names[repo], int(pr))
        if key in files:
            raise ValueError("a job twice")
        files[key] = file_id
        if audit == NO_AUDIT:
            listed: dict[str, list[Any]] = {"overrides": [], "bypassed": [], "disputes": []}
        else:
            found = json.loads(audit)
            listed = {name: list(found.get(name, [])) for name in AUDITS}
        parts[key] = JobPart(UnreadRow(row), KeptScores(key, scored, file_id, line), listed)
    return files, parts
