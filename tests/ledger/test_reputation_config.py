"""The reputation config is read without pydantic when a recorded value is canonical, and gives
exactly what the section's pydantic model gives (the model is built from the same fields) for
every value: the same settings, or the same `ValidationError`."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import ValidationError

from rubricate.ledger.reputation_config import (
    ReputationConfig,
    ReputationWeights,
    TrustWeights,
    section_model,
)

NUMBERS: list[Any] = [0, 1, 5, 0.0, 0.25, 2.5, -1, -0.5, 1e308, 10**400, -(10**400), True, False]
NUMBERS += [float("inf"), float("nan"), "3", "0.5", "ten", None, [], {}, [1], {"a": 1}]


def _outcome(read: Any, data: Any) -> tuple[str, Any]:
    try:
        return "ok", read(data).model_dump(mode="json")
    except ValidationError as exc:
        return "error", str(exc)


def _both(cls: Any, data: Any) -> None:
    expected = _outcome(section_model(cls).model_validate, data)
    assert _outcome(cls.model_validate, data) == expected, data


@pytest.mark.parametrize("cls", [ReputationWeights, TrustWeights, ReputationConfig])
def test_every_setting_reads_as_the_model_reads_it(cls: Any) -> None:
    for name in cls().model_dump():
        for value in NUMBERS:
            _both(cls, {name: value})


def test_sections_and_sums_read_as_the_model_reads_them() -> None:
    for weights, trust in itertools.product(
        [None, 1, [], {}, {"rating_score": 1e308, "rubric_quality": 1e308}, {"x": 1}, {"admin": 2}],
        [None, {}, {"write": "0.3"}, {"admin": 1e308, "maintain": 1e308}, {"rating_score": 1}],
    ):
        _both(ReputationConfig, {"weights": weights, "trust": trust})
    for data in [None, 5, [], "x", {"sla": 1}, {"sla_hours": 1, "prior_jobs": 0}]:
        _both(ReputationConfig, data)


def test_a_float_setting_holds_a_float_and_a_bad_one_is_refused_when_made() -> None:
    config = ReputationConfig(weights=ReputationWeights(completion_rate=1), sla_hours=2)
    assert config.model_dump(mode="json")["weights"]["completion_rate"] == 1.0
    assert json.dumps(config.model_dump(mode="json")["sla_hours"]) == "2.0"
    with pytest.raises(ValidationError, match="sla_hours\n  Input should be greater than 0"):
        ReputationConfig(sla_hours=-1)
    with pytest.raises(ValidationError, match="too large: their sum is not a finite number"):
        TrustWeights(admin=1e308, maintain=1e308)
    assert ReputationConfig.model_validate(config.model_dump(mode="json")) == config


def test_a_recorded_canonical_config_builds_no_model() -> None:
    code = (
        "import json, sys\n"
        "from rubricate.ledger.reputation_config import BUILT_MODELS, ReputationConfig\n"
        "dumped = ReputationConfig(sla_hours=3, prior_jobs=0).model_dump(mode='json')\n"
        "ReputationConfig.model_validate(json.loads(json.dumps(dumped)))\n"
        "print(json.dumps([len(BUILT_MODELS), 'pydantic' in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [0, False]
