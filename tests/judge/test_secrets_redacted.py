"""The API key (and credentials in the base URL) never reach a report, error or cache
file, whatever the server echoes back; `openai` is never imported without a judge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from rubricate.config import JudgeConfig
from rubricate.evidence.results import ScoreReport
from rubricate.judge.service import judge_report

from .helpers import BASE, KEY, PARSER_LINE, MockServer, agora, answer, entry, report, snapshot

PASSWORD = "url-pass-5ecret"
ENV = {
    "OPENAI_API_KEY": KEY,
    "OPENAI_BASE_URL": BASE.replace("https://", f"https://bot:{PASSWORD}@"),
}
FAST = {"retry-after-ms": "1"}
ECHO = f"key {KEY} via https://bot:{PASSWORD}@judge.test"


def _valid_with(rationale: str) -> str:
    return json.dumps({cid: entry(5, [PARSER_LINE], rationale) for cid in agora().ids})


ECHOES = {
    "401-body": lambda: httpx2.Response(401, json={"error": {"message": ECHO}}),
    "500-body": lambda: httpx2.Response(500, json={"error": {"message": ECHO}}, headers=FAST),
    "refusal": lambda: answer("", refusal=ECHO),
    "unknown-id": lambda: answer(json.dumps({ECHO: entry(5)})),
    "rationale": lambda: answer(_valid_with(ECHO)),
}


def _judged(respond: Any, tmp_path: Path) -> ScoreReport:
    server = MockServer(lambda _r, _b: respond())
    return judge_report(
        report(agora(), {}), snapshot(), JudgeConfig(), mode="openai", model=None, env=ENV,
        cache_dir=str(tmp_path), http_client=server.client(),
    )  # fmt: skip


@pytest.mark.parametrize("respond", ECHOES.values(), ids=ECHOES.keys())
def test_secrets_echoed_by_the_server_are_redacted_everywhere(respond: Any, tmp_path: Path) -> None:
    result = _judged(respond, tmp_path)
    shown = repr(result) + json.dumps(result.judge)
    cached = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    for secret in (KEY, PASSWORD):
        assert secret not in shown
        assert secret not in cached
    assert "***" in shown


PROBE = """
import sys
from rubricate.cli.main import main
code = main(["score", "--repo", sys.argv[1], "--judge", sys.argv[2], "--base", "HEAD~1",
             "--no-graders", "--format", "json"])
print("OPENAI_LOADED=" + str("openai" in sys.modules), "EXIT=" + str(code), file=sys.stderr)
"""


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *ident, *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lazy")
    _git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# demo\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    (root / "src").mkdir()
    (root / "src" / "parser.py").write_text(f"{PARSER_LINE}\n    return []\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Add a CSV parser")
    return root


@pytest.mark.parametrize("mode", ["none", "auto"])
def test_score_without_a_judge_never_imports_openai(repo: Path, mode: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo), mode],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert "OPENAI_LOADED=False" in done.stderr, done.stderr
    assert json.loads(done.stdout)["rubric"]
