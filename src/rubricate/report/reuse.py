"""What a report keeps in its output folder for the next one, `.rubricate/report-state.json`
(shell: reads and writes that file).

It holds each job's file id and part, each author's series, the tally of every job's scores
(`tallies`) and the totals of every job's row (`summary`), the estimates the report used
(`memo`), how each author page was drawn (`workers.DrawnPage`) and what every page showed
besides its author's (`context`), under a digest of what all of them depend on (`inputs`:
rubricate's version, the reputation config, the ledger key's id). The file is a head line, then
one line a job (`kept_lines`) and one an author, their fields joined by tabs; a field is
canonical JSON text (`kept_json`), which holds no tab or newline. A job's line is written again
as it was read when the job did not change; its scores and its row are read only where they are
used (its row's author alone for the author pages' index), under a digest of all the job lines
that must match;
an author's series is its last point and the text of its points as report.json shows them, both
written again as they were read when the author did not change. A state of other inputs, or
one that does not read back, is not used (`take_state` says why). It is taken out of the folder
when a report starts and written back when it has finished, so a report that stops half-way
leaves none that would not hold. Its authors, counts and estimates are written in one order, so
that a report reusing the last one's and a `--full` one keep the same text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from rubricate import __version__
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.kept_json import KeptJSON, KeptRow, KeptSeries, canonical, row_text
from rubricate.report.kept_lines import job_line, read_job_lines
from rubricate.report.memo import Memo
from rubricate.report.model import Points, shown_point
from rubricate.report.refresh import Kept, page_order
from rubricate.report.summary import read_row_totals
from rubricate.report.tallies import read_tally

STATE_PATH = ".rubricate/report-state.json"
STATE_FORMAT = 9
"""Bumped whenever what a kept line means changes (9: a row's revisions leave out dismissals)."""


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


def state_inputs(config: ReputationConfig, key_id: str | None) -> str:
    """A digest of what the kept parts, series and pages depend on besides the ledger."""
    text = json.dumps(
        [STATE_FORMAT, __version__, config.model_dump(mode="json"), key_id], sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()


def take_state(out: Path, inputs: str) -> tuple[State | None, str]:
    """The state the last report left in `out`, taken out of it; or None and why the one there
    is not used ("" when there is none), when none was made for these `inputs` and reads back."""
    path = out / STATE_PATH
    try:
        text = path.read_text(encoding="utf-8")
        path.unlink()
    except FileNotFoundError:
        return None, ""  # a first report: nothing to say
    except (OSError, ValueError) as exc:
        return None, f"{path} cannot be read ({exc})"
    try:
        return _state(text, inputs), ""
    except _OtherInputs:
        return None, f"{path} was made by another rubricate version, config or ledger key"
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return None, f"{path} does not read back ({type(exc).__name__}: {exc})"


def save_state(out: Path, inputs: str, state: State) -> Path:
    """Write the state for the next report: a head line, then one line a job and one an
    author, their fields joined by tabs (kept JSON texts, which hold no tab or newline)."""
    kept = state.kept
    jobs = [
        job_line(key, kept.files[key], kept.parts[key])
        for key in sorted(kept.parts)
        if key in kept.files
    ]
    series = [  # in page order, as every report lists them, however they were made
        "\t".join(("S", json.dumps(key[0]), json.dumps(key[1]), *_series(kept.series[key])))
        for key in sorted(kept.series, key=page_order)
    ]
    styles = {n: css for p in state.pages.values() for n, css in p.styles.items()}
    head = {  # (its mappings sorted: the same state, the same text)
        "inputs": inputs,
        "jobs": len(jobs),
        "jobs_sha256": hashlib.sha256("\n".join(jobs).encode()).hexdigest(),
        "series": len(series),
        "tally": kept.tally.rows(),
        "totals": kept.totals.rows(),
        "memo": dict(sorted(kept.memo.used.items())),
        "styles": dict(sorted(styles.items())),
        "pages": {slug: [p.digest, sorted(p.styles)] for slug, p in sorted(state.pages.items())},
        "context": state.context,
    }
    path = out / STATE_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".new")
    lines = [json.dumps(head, separators=(",", ":")), *jobs, *series]
    temp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temp.replace(path)
    return path


def _series(points: Points | KeptSeries) -> tuple[str, str]:
    """A series as kept: its last point's text, and the text of every point as shown."""
    if isinstance(points, KeptSeries):
        return row_text(points.last), points.shown.text
    return canonical(points[-1]), canonical([shown_point(p) for p in points])


class _OtherInputs(Exception):
    """The state was made for other inputs."""


def _state(text: str, inputs: str) -> State:
    lines = text.split("\n")
    data = json.loads(lines[0])
    if data["inputs"] != inputs:
        raise _OtherInputs
    jobs, authors = int(data["jobs"]), int(data["series"])
    if len(lines) != jobs + authors + 2 or lines[-1]:
        raise ValueError("the state is cut short")
    texts = lines[1 : jobs + 1]
    start = len(lines[0]) + 1  # the job lines, as they are in `text`
    joined = text[start : start + sum(map(len, texts)) + max(jobs - 1, 0)]
    if hashlib.sha256(joined.encode()).hexdigest() != data["jobs_sha256"]:
        raise ValueError("a job line altered")
    files, parts = read_job_lines(texts)
    series: dict[tuple[str, str], Points | KeptSeries] = {}
    for line in lines[jobs + 1 : -1]:
        kind, repo, login, last, shown = line.split("\t")
        if kind != "S":
            raise ValueError("an author line out of place")
        author = (str(json.loads(repo)), str(json.loads(login)))
        series[author] = KeptSeries(KeptRow.read(last), KeptJSON(shown))
    css = data["styles"]
    pages = {
        str(slug): DrawnPage(str(d), {name: css[name] for name in names})
        for slug, (d, names) in data["pages"].items()
    }
    memo = Memo({str(digest): value for digest, value in data["memo"].items()})
    totals = read_row_totals(data["totals"])
    kept = Kept(files, parts, series, read_tally(data["tally"]), totals, memo)
    return State(kept, pages, str(data["context"]))
