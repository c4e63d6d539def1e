"""What a report keeps in its output folder for the next one, `.rubricate/report-state.json`
(shell: reads and writes that file).

It holds each job's file id and part, each author's series, and how each author page was drawn
(`workers.DrawnPage`), under a digest of what all of them depend on (`inputs`: rubricate's
version, the reputation config, the ledger key's id). A state of other inputs, or one that does
not read back, is not used. It is taken out of the folder when a report starts and written back
when it has finished, so a report that stops half-way leaves none that would not hold.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubricate import __version__
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.model import JobPart
from rubricate.report.refresh import Kept
from rubricate.report.scores import Scored

STATE_PATH = ".rubricate/report-state.json"
STATE_FORMAT = 1


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
        "series": [[repo, author, points] for (repo, author), points in state.kept.series.items()],
        "styles": {n: css for p in state.pages.values() for n, css in p.styles.items()},
        "pages": {slug: [p.digest, sorted(p.styles)] for slug, p in sorted(state.pages.items())},
    }
    path = out / STATE_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".new")
    temp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    temp.replace(path)
    return path


def _part(part: JobPart) -> list[Any]:
    scored = [[s.version, s.criterion, s.source, s.value, s.scale] for s in part.scored]
    return [part.row, scored, {k: v for k, v in part.audit.items() if v}]


def _state(data: dict[str, Any]) -> State:
    make = Scored._make
    files: dict[tuple[str, int], str] = {}
    parts: dict[tuple[str, int], JobPart] = {}
    for repo, pr, file_id, row, scored, audit in data["jobs"]:
        key = (str(repo), int(pr))
        files[key] = str(file_id)
        parts[key] = JobPart(
            row,
            tuple(
                make((*key, v, c, s, value, scale and (*scale,)))
                for v, c, s, value, scale in scored
            ),
            {name: list(audit.get(name, [])) for name in ("overrides", "bypassed", "disputes")},
        )
    series = {(str(repo), str(author)): list(points) for repo, author, points in data["series"]}
    css = data["styles"]
    pages = {
        str(slug): DrawnPage(str(d), {name: css[name] for name in names})
        for slug, (d, names) in data["pages"].items()
    }
    return State(Kept(files, parts, series), pages)
