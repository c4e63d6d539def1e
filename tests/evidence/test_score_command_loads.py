"""`rubricate score` on the bundled example loads what scoring needs: no GitHub, LLM, report or
database client, no IRI grammar package; the AgentV rubric models and the IRI patterns, which a
native rubric and a schema without IRI formats never use, are not built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROBE = """
import contextlib, io, json, re, sys
from rubricate.evidence import iri
iri_patterns = []
compile_pattern = re.compile
def spy(pattern, *args, **kwargs):
    if pattern in (iri.IRI, iri.IRELATIVE_REF):
        iri_patterns.append(pattern)
    return compile_pattern(pattern, *args, **kwargs)
re.compile = spy
from rubricate.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["score", "--repo", sys.argv[1], "--no-graders", "--format", "json"])
from rubricate.rubric.agentv import criteria, forms
models = [forms.RubricGrader, forms.AssertFile, forms.AssertionsFile, forms.EvaluatorFile,
          criteria._One]
print(json.dumps({
    "code": code,
    "loaded": sorted({m.split(".")[0] for m in sys.modules} | set(sys.modules)),
    "built": sorted(m.__name__ for m in models if m.__pydantic_complete__),
    "iri_patterns": len(iri_patterns),
}))
"""


@pytest.fixture(scope="module")
def loads(tmp_path_factory: pytest.TempPathFactory) -> Any:
    demo = tmp_path_factory.mktemp("demo") / "repo"
    script = EXAMPLES / "make-example-repo.sh"
    subprocess.run(["bash", str(script), str(demo)], check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(demo)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_score_runs_and_loads_no_client(loads: Any) -> None:
    assert loads["code"] == 0
    for heavy in ("github", "openai", "pygal", "psycopg", "lark", "rfc3987_syntax"):
        assert heavy not in loads["loaded"]
    for part in ("rubricate.report", "rubricate.action", "rubricate.serve"):
        assert part not in loads["loaded"]


def test_score_builds_no_agentv_model_for_a_native_rubric(loads: Any) -> None:
    assert loads["built"] == []


def test_score_compiles_no_iri_pattern_for_a_schema_without_iri_formats(loads: Any) -> None:
    assert loads["iri_patterns"] == 0
