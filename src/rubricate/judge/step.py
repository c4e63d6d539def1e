"""The keyed judge step: the judgment cache, the openai client, the run, the injection scan and
the merge into the report (shell: network, files, clock).

`judge/service.py` calls it once the mode and the key are checked. A judge fault never raises:
its criteria are `not assessed` (DESIGN.md §7).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rubricate.config import JudgeConfig
from rubricate.errors import ReplyError
from rubricate.evidence.results import ScoreReport
from rubricate.evidence.snapshot import Snapshot
from rubricate.judge.adapter.client import Deadline, JudgeCallError, OpenAIJudgeClient
from rubricate.judge.adapter.faults import secrets_of
from rubricate.judge.adapter.server_modes import ServerModes
from rubricate.judge.budget import Budget
from rubricate.judge.cache import JudgeCache, cache_key, resolve_cache_dir
from rubricate.judge.client_detector import load_detector
from rubricate.judge.known_answer import FAILED, NOT_CHECKED, failed_finding
from rubricate.judge.merge import merge_run
from rubricate.judge.reply import parse_reply
from rubricate.judge.reports import MALFORMED_NOTE, NOT_FOUND_NOTE
from rubricate.judge.runner import CallSettings, JudgeRun, run_judge
from rubricate.judge.scan_processes import scan_change
from rubricate.redaction import redact
from rubricate.rubric.model import Rubric

KNOWN_ANSWER_NOT_RUN = "the judge's known-answer check could not run: the PR's text was not checked"

MAX_RETRIES = 2
"""The client retries 429, 5xx, timeouts and connection faults at most this many times a call,
and only while the wait and the next attempt fit in the judge step's deadline."""
_CORRUPT = (KeyError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError)
"""What a corrupt cache entry can raise while it is read (and `ReplyError`): each one is a miss."""
STEP_DEADLINE_FACTOR = 4
"""The whole judge step may take this many times `judge.timeout_s`."""


@dataclass(frozen=True)
class Call:
    """What one keyed judge step is called with."""

    api_key: str
    base_url: str | None
    model: str
    cache_dir: str | None
    http_client: Any = None
    new_marker: Callable[[], str] | None = None


def judged(
    report: ScoreReport,
    snapshot: Snapshot,
    settings: JudgeConfig,
    call: Call,
    env: Mapping[str, str],
) -> tuple[ScoreReport, list[str]]:
    """The report with the judge's scores merged in, and the notes to add to it."""

    directory = resolve_cache_dir(call.cache_dir, env)
    cache = JudgeCache(directory)
    key = cache_key(snapshot, report.rubric, call.model, settings.max_input_tokens)
    run = _cached_run(cache.get(key), report.rubric, call.model, settings.open_scale_ceiling)
    notes: list[str] = []
    if run is None:
        connection = _Connection(
            call.api_key, call.base_url, call.http_client, ServerModes(directory)
        )
        fresh = _fresh_run(
            report.rubric,
            snapshot,
            settings,
            call.model,
            connection,
            call.new_marker or _new_marker,
        )
        run = _redacted(fresh, secrets_of(call.api_key, call.base_url))
        failure = cache.put(key, run.as_cache()) if run.ok else None
        notes += [failure] if failure else []
    findings = scan_change(snapshot, load_detector())
    findings += [report.finding() for report in run.reports]
    if run.reports_ignored:
        notes.append(NOT_FOUND_NOTE.format(count=run.reports_ignored))
    if run.reports_malformed:
        notes.append(MALFORMED_NOTE.format(count=run.reports_malformed))
    if run.known_answer == FAILED:
        findings.append(failed_finding(run.known_answer_reply))
    elif run.known_answer == NOT_CHECKED:
        notes.append(KNOWN_ANSWER_NOT_RUN)
    return merge_run(report, run, findings), notes


@dataclass(frozen=True)
class _Connection:
    api_key: str
    base_url: str | None
    http_client: Any
    modes: ServerModes


def _fresh_run(
    rubric: Rubric,
    snapshot: Snapshot,
    settings: JudgeConfig,
    model: str,
    connection: _Connection,
    new_marker: Callable[[], str],
) -> JudgeRun:
    """Call the judge; a client that cannot even be built is a run error, not a crash."""
    try:
        client = OpenAIJudgeClient(
            connection.api_key,
            connection.base_url,
            timeout_s=settings.timeout_s,
            max_retries=MAX_RETRIES,
            http_client=connection.http_client,
            modes=connection.modes,
        )
    except JudgeCallError as exc:
        ids = rubric.ids
        return JudgeRun(model, not_assessed=ids, errors=(f"the judge client failed: {exc}",))
    call = CallSettings(model, settings.temperature, settings.seed)
    deadline = Deadline(settings.timeout_s * STEP_DEADLINE_FACTOR)
    budget = Budget.from_settings(settings)
    return run_judge(
        client, rubric, snapshot, budget, call, deadline, new_marker, known_answer=True
    )


def _cached_run(
    data: dict[str, Any] | None, rubric: Rubric, model: str, ceiling: float
) -> JudgeRun | None:
    """A cached run, re-validated against the rubric; None when absent, corrupt or unusable."""
    if data is None:
        return None
    try:
        run = JudgeRun.from_cache(data)
        valid = parse_reply(_as_reply(run), rubric, rubric.ids, ceiling).by_id()
    except (*_CORRUPT, ReplyError):
        return None
    if run.model != model or any(not set(j.verified) <= set(j.evidence) for j in run.judgments):
        return None
    judgments = tuple(
        replace(valid[j.id], verified=j.verified, input_flagged=j.input_flagged)
        for j in run.judgments
    )
    return replace(run, judgments=judgments)


def _as_reply(run: JudgeRun) -> str:
    """The cached judgments as the judge's reply, repeated ids kept so that they are caught."""
    fields = ("score", "rationale", "evidence")
    entries = [
        f"{json.dumps(j.id)}: {json.dumps({k: j.as_dict()[k] for k in fields})}"
        for j in run.judgments
    ]
    return "{" + ", ".join(entries) + "}"


def _redacted(run: JudgeRun, hidden: tuple[str, ...]) -> JudgeRun:
    """The run with every secret removed from what it reports and caches (errors, rationales,
    quotes, reports): a server may echo the key in any text it returns."""

    def clean(texts: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(redact(t, hidden) for t in texts)

    judgments = tuple(
        replace(
            j,
            rationale=redact(j.rationale, hidden),
            evidence=clean(j.evidence),
            verified=clean(j.verified),
        )
        for j in run.judgments
    )
    reports = tuple(replace(r, quote=redact(r.quote, hidden)) for r in run.reports)
    return replace(run, errors=clean(run.errors), judgments=judgments, reports=reports)


def _new_marker() -> str:
    return secrets.token_hex(8)
