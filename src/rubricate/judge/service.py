"""`judge_report`: the judge step of `rubricate score` and the bot (shell: network, files, clock).

It checks the mode and the key; a keyed run goes on in `judge/step.py`. The modes and what a
judge fault does are in DESIGN.md §7 and README.md ("The LLM judge").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from rubricate.config import JudgeConfig
from rubricate.errors import ConfigError
from rubricate.evidence.results import ScoreReport
from rubricate.evidence.snapshot import Snapshot

MODES = ("auto", "none", "openai")
KEY_VAR = "OPENAI_API_KEY"
BASE_URL_VAR = "OPENAI_BASE_URL"
NO_KEY_NOTE = "no judge: OPENAI_API_KEY is not set"
MISSING_KEY = (
    "--judge openai needs the OPENAI_API_KEY environment variable (and optionally"
    " OPENAI_BASE_URL for another OpenAI-compatible server); use --judge auto or none to score"
    " without a judge"
)


def judge_report(
    report: ScoreReport,
    snapshot: Snapshot,
    settings: JudgeConfig,
    *,
    mode: str,
    model: str | None,
    env: Mapping[str, str],
    cache_dir: str | None,
    http_client: Any = None,
    new_marker: Callable[[], str] | None = None,
) -> ScoreReport:
    """The report with the judge's scores merged in, or unchanged when there is no judge.

    The cache (and the memory of what each server accepted) lives in `cache_dir`; the random
    wrapper marker of each call comes from `new_marker` (a fresh random hex by default)."""
    if mode not in MODES:
        raise ConfigError(f"unknown judge mode {mode!r}; use one of {', '.join(MODES)}")
    if mode == "none":
        return report
    api_key = (env.get(KEY_VAR) or "").strip()
    if not api_key:
        if mode == "openai":
            raise ConfigError(MISSING_KEY)
        return _with_notes(report, [NO_KEY_NOTE])
    # The keyed step loads the judge, the openai adapter and the detector: a run without a key
    # (every dry run) never does.
    from rubricate.judge.step import Call, judged

    base_url = (env.get(BASE_URL_VAR) or "").strip() or None
    call = Call(api_key, base_url, model or settings.model, cache_dir, http_client, new_marker)
    merged, notes = judged(report, snapshot, settings, call, env)
    return _with_notes(merged, notes)


def _with_notes(report: ScoreReport, notes: list[str]) -> ScoreReport:
    """The report with notes added, each said once."""
    merged = tuple(dict.fromkeys([*report.notes, *notes]))
    return report if merged == report.notes else replace(report, notes=merged)
