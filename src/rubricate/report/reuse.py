"""What a report keeps in its output folder for the next one, `.rubricate/report-state.json`
(shell: reads and writes that file).

It holds each job's file id and part, each author's series, the tally of every job's scores
(`tallies`), the estimates the report used (`memo`), how each author page was drawn
(`workers.DrawnPage`) and what every page showed besides its author's (`context`), under a
digest of what all of them depend on (`inputs`: rubricate's version, the reputation config, the
ledger key's id). A job's scores are kept as JSON text, read only for a job that changed; each
author's series too, written again as it was read when the author did not change. A state of
other inputs, or one that does not read back, is not used. It is taken out of the folder when a
report starts and written back when it has finished, so a report that stops half-way leaves none
that would not hold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from rubricate import __version__
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.kept_json import KeptJSON, KeptRow, KeptSeries, canonical, row_text
from rubricate.report.memo import Memo
from rubricate.report.model import JobPart, Points, shown_point
from rubricate.report.refresh import Kept
from rubricate.report.scores import Scored
from rubricate.report.tallies import read_tally

STATE_PATH = ".rubricate/report-state.json"
STATE_FORMAT = 5


@dataclass(frozen=True)
class DrawnPage:
    """What an author page was drawn from (a digest of its inputs) and the CSS its charts use."""

    digest: str
    styles: dict[str, str]


@dataclass(frozen=True)
class State:
    """Everything a report keeps for the next one."""

    kept: Kept
    pages: dict[str, DrawnPage] = field(default_factory=dict)
    context: str = ""
    """What every page showed besides its author's (`workers.page_context`)."""


class KeptScores(Sequence[Scored]):
    """A job's latest scores as the last report kept them: read from their JSON text when first
    used (the scores of a job that did not change are never read)."""

    def __init__(self, key: tuple[str, int], text: str):
        self.key, self.text = key, text
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


def state_inputs(config: ReputationConfig, key_id: str | None) -> str:
    """A digest of what the kept parts, series and pages depend on besides the ledger."""
    text = json.dumps(
        [STATE_FORMAT, __version__, config.model_dump(mode="json"), key_id], sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()


def take_state(out: Path, inputs: str) -> State | None:
    """The state the last report left in `out`, taken out of it; None when there is none that
    was made for these `inputs` and reads back."""
    path = out / STATE_PATH
    try:
        data = json.loads(path.read_bytes())
        path.unlink()
    except (OSError, ValueError):
        return None
    try:
        return None if data["inputs"] != inputs else _state(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def save_state(out: Path, inputs: str, state: State) -> Path:
    """Write the state for the next report."""
    jobs = [
        [repo, pr, state.kept.files[(repo, pr)], *_part(state.kept.parts[(repo, pr)])]
        for repo, pr in sorted(state.kept.parts)
        if (repo, pr) in state.kept.files
    ]
    data = {
        "inputs": inputs,
        "jobs": jobs,
        "series": [[*key, *_series(points)] for key, points in state.kept.series.items()],
        "tally": state.kept.tally.rows(),
        "memo": state.kept.memo.used,
        "styles": {n: css for p in state.pages.values() for n, css in p.styles.items()},
        "pages": {slug: [p.digest, sorted(p.styles)] for slug, p in sorted(state.pages.items())},
        "context": state.context,
    }
    path = out / STATE_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".new")
    temp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    temp.replace(path)
    return path


def _part(part: JobPart) -> list[Any]:
    if isinstance(part.scored, KeptScores):
        scored = part.scored.text
    else:
        rows = [[s.version, s.criterion, s.source, s.value, s.scale] for s in part.scored]
        scored = json.dumps(rows, separators=(",", ":"))
    return [row_text(part.row), scored, {k: v for k, v in part.audit.items() if v}]


def _series(points: Points | KeptSeries) -> list[str]:
    """A series as kept: its last point's text, and the text of every point as shown."""
    if isinstance(points, KeptSeries):
        return [canonical(points.last), points.shown.text]
    return [canonical(points[-1]), canonical([shown_point(p) for p in points])]


def _state(data: dict[str, Any]) -> State:
    files: dict[tuple[str, int], str] = {}
    parts: dict[tuple[str, int], JobPart] = {}
    for repo, pr, file_id, row, scored, audit in data["jobs"]:
        key = (str(repo), int(pr))
        files[key] = str(file_id)
        if not isinstance(scored, str):
            raise ValueError("a job's scores are kept as JSON text")
        parts[key] = JobPart(
            KeptRow.read(row),
            KeptScores(key, scored),
            {name: list(audit.get(name, [])) for name in ("overrides", "bypassed", "disputes")},
        )
    series: dict[tuple[str, str], Points | KeptSeries] = {}
    for repo, login, last, shown in data["series"]:
        if not isinstance(shown, str):
            raise ValueError("a series is kept as JSON text")
        series[(str(repo), str(login))] = KeptSeries(dict(json.loads(last)), KeptJSON(shown))
    css = data["styles"]
    pages = {
        str(slug): DrawnPage(str(d), {name: css[name] for name in names})
        for slug, (d, names) in data["pages"].items()
    }
    memo = Memo({str(digest): value for digest, value in data["memo"].items()})
    kept = Kept(files, parts, series, read_tally(data["tally"]), memo)
    return State(kept, pages, str(data["context"]))
