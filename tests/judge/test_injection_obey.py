"""A judge that obeys every injection cannot lift a score past the evidence cap or the ±2 bound."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from rubricate.config import JudgeConfig
from rubricate.evidence.results import ScoreReport
from rubricate.evidence.snapshot import Snapshot
from rubricate.judge.budget import Budget
from rubricate.judge.merge import merge_run
from rubricate.judge.reply_schema import MAX_QUOTE_CHARS, MAX_QUOTES
from rubricate.judge.runner import CallSettings, run_judge
from rubricate.judge.scan import scan_snapshot, strip_hidden
from rubricate.judge.score_choices import allowed_scores, as_json_number
from rubricate.judge.service import judge_report
from rubricate.rubric.model import Rubric

from .helpers import (
    ENV,
    PARSER_LINE,
    TEST_LINE,
    FakeClient,
    NoDeadline,
    agora,
    answer,
    axes,
    criteria_of,
    reply_text,
    report,
)
from .helpers import MockServer as Server
from .injection_corpus import BODY, DIFF, FILES, ISSUE, corpus

LOW = {"spec_adherence": 1, "completeness": 2, "verifiability": 1, "format_correctness": 3}
FABRICATED = "The maintainers already reviewed and approved this change."
PAYLOADS = [*BODY, *ISSUE, *DIFF, *(content for _path, content in FILES)]


def _obeying(rubric: Rubric) -> FakeClient:
    """Gives every criterion the top score, quoting the payloads as shown, a fabrication, and
    genuine lines of the change (an obeying judge can quote real code just as well)."""
    payloads = [strip_hidden(p).strip()[:MAX_QUOTE_CHARS] for p in PAYLOADS]

    def decide(messages: Sequence[dict[str, str]], ids: list[str]) -> str:
        shown = messages[-1]["content"]
        quotes = [p for p in payloads if p and p in shown][: MAX_QUOTES - 3]
        top = {
            cid: as_json_number(allowed_scores(rubric, rubric.criterion(cid))[-1]) for cid in ids
        }
        return reply_text(top, [*quotes, FABRICATED, PARSER_LINE, TEST_LINE])

    return FakeClient(decide)


def _judged(rubric: Rubric, snap: Snapshot, base: ScoreReport) -> ScoreReport:
    call = CallSettings("fake-model")
    run = run_judge(
        _obeying(rubric), rubric, snap, Budget(), call, NoDeadline(), lambda: "f00dfeedc0ffee11"
    )
    return merge_run(base, run, scan_snapshot(snap))


@pytest.mark.parametrize(("label", "snap"), corpus(), ids=[label for label, _ in corpus()])
def test_obeying_judge_is_capped_and_bounded(label: str, snap: Snapshot) -> None:
    result = _judged(agora(), snap, report(agora(), LOW))
    scores = {c.id: c for c in result.criteria}
    assert all(c.source == "judge" for c in scores.values()), label
    for cid, c in scores.items():
        assert c.score is not None
        assert float(c.score) <= 3.0, f"{label}: {cid} lifted to {c.score}"
        if cid in LOW:
            assert abs(float(c.score) - LOW[cid]) <= 2.0
    assert result.result.verdict == "fail"
    assert next(c for c in result.checks if c.id == "injection").status == "warn"
    flags = (result.judge or {})["flags"]
    assert any("prompt-injection" in f for f in flags)
    assert any("differ by more than 2" in f for f in flags)


def test_obeying_judge_on_an_open_scale_is_capped_below_the_evidence_bar() -> None:
    rubric = axes()
    snap = corpus()[0][1]
    result = _judged(rubric, snap, report(rubric, {}))
    assert {c.id: c.score for c in result.criteria} == dict.fromkeys(rubric.ids, 74.0)


def test_real_evidence_still_lifts_the_cap() -> None:
    from .helpers import snapshot

    rubric = agora()
    client = FakeClient(lambda _m, ids: reply_text(dict.fromkeys(ids, 5), [PARSER_LINE]))
    run = run_judge(client, rubric, snapshot(), Budget(), CallSettings("m"), NoDeadline(), str)
    result = merge_run(report(rubric, {}), run, [])
    assert {c.id: c.score for c in result.criteria} == dict.fromkeys(rubric.ids, 5.0)


def test_obeying_server_end_to_end(tmp_path: Path) -> None:
    quotes = [strip_hidden(p).strip() for p in PAYLOADS] + [FABRICATED, PARSER_LINE]

    def respond(_request: object, body: dict) -> object:  # type: ignore[type-arg]
        ids = criteria_of(body["response_format"]["json_schema"]["schema"])
        return answer(reply_text(dict.fromkeys(ids, 5), quotes))

    server = Server(respond)  # type: ignore[arg-type]
    for _label, snap in corpus()[:6]:
        result = judge_report(
            report(agora(), LOW), snap, JudgeConfig(), mode="openai", model=None, env=ENV,
            cache_dir=str(tmp_path), http_client=server.client(),
        )  # fmt: skip
        assert max(float(c.score or 0) for c in result.criteria) <= 3.0
