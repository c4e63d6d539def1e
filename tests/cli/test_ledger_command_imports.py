"""`rubricate ledger` loads what the ledger needs: no GitHub client, JSON Schema, LLM client,
report or judge, and the models it imports but does not use (the config file's, the rubrics')
are not built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import bare_remote

if TYPE_CHECKING:
    from rubricate.ledger.event import Event

PROBE = """
import json, sys
from rubricate.cli.main import build_parser
build_parser(["ledger", "append"])
import rubricate.ledger.plan
from rubricate.config import Config
from rubricate.rubric.model import Rubric
loaded = sorted({m.split(".")[0] for m in sys.modules} | set(sys.modules))
built = {"Config": Config.__pydantic_complete__, "Rubric": Rubric.__pydantic_complete__}
print(json.dumps({"loaded": loaded, "built": built}))
"""


def _probe(code: str) -> Any:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_ledger_commands_load_no_client_report_or_judge() -> None:
    loaded = _probe(PROBE)["loaded"]
    for heavy in ("github", "jsonschema", "openai", "pygal", "psycopg", "httpx2"):
        assert heavy not in loaded
    for part in ("rubricate.report", "rubricate.judge", "rubricate.action", "rubricate.evidence"):
        assert part not in loaded


def test_the_ledger_commands_load_no_rubric_sources() -> None:
    """Reading events from a file or standard input needs no packaged rubrics (the resources
    reader) nor a repository's file reader."""
    code = (
        "import sys, json\n"
        "from rubricate.cli.main import build_parser\n"
        "build_parser(['ledger', 'append'])\n"
        "import rubricate.ledger.plan\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = _probe(code)
    assert "rubricate.ledger.plan" in loaded
    assert "rubricate.rubric_sources" not in loaded
    assert "importlib.resources" not in loaded


def test_models_the_ledger_does_not_use_are_not_built() -> None:
    assert _probe(PROBE)["built"] == {"Config": False, "Rubric": False}


def test_the_ledger_check_reads_no_yaml() -> None:
    code = "import sys, json, rubricate.ledger.verify\nprint(json.dumps('yaml' in sys.modules))"
    assert _probe(code) is False


def test_an_append_without_config_loads_no_config_file_model_or_yaml() -> None:
    code = (
        "import sys, json\n"
        "from rubricate.cli.main import build_parser\n"
        "build_parser(['ledger', 'append'])\n"
        "import rubricate.ledger.plan\n"
        "print(json.dumps([m for m in ('yaml', 'rubricate.config') if m in sys.modules]))\n"
    )
    assert _probe(code) == []


APPEND = """
import json, sys
from rubricate.cli.main import main
code = main(["ledger", "append", "--remote", sys.argv[1], "-"])
pydantic = sorted(m for m in sys.modules if "pydantic" in m)
print(json.dumps({"code": code, "pydantic": pydantic, "anybadge": "anybadge" in sys.modules}))
"""


def test_an_append_to_a_ledger_loads_no_pydantic(tmp_path: Path) -> None:
    """Reading the branch's events, checking and writing new ones: canonical lines never need
    the events' pydantic model (`ledger.event_model`)."""
    remote = bare_remote(tmp_path)
    seeded = completed_job(1, [4, 3, 3, 3, 5], [5, 5, 5, 5, 5], author="bob")
    seeded.append(event("rated", 1, 30, "r", rating=5, author="bob", actor_role="maintain"))
    for events in (seeded, [event("abandoned", 2, 1, "x")]):
        assert _append(remote, events)["pydantic"] == []


def test_an_append_that_moves_no_badge_loads_no_badge_drawer(tmp_path: Path) -> None:
    """A badge is drawn (anybadge loaded) only when its value moves: a new open job moves no
    author's reputation, nor the repository's rubric quality."""
    remote = bare_remote(tmp_path)
    assert _append(remote, completed_job(1, [4, 3, 3, 3, 5], [5] * 5, author="bob"))["anybadge"]
    assert not _append(remote, [event("first_submission", 2, 40, "s2", author="bob")])["anybadge"]


def _append(remote: Path, events: list[Event]) -> Any:
    """`rubricate ledger append` of these events in a new process: its exit code and what it
    loaded."""
    lines = "".join(e.to_line() + "\n" for e in events)
    command = [sys.executable, "-c", APPEND, str(remote)]
    done = subprocess.run(command, input=lines, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["code"] == 0
    return found
