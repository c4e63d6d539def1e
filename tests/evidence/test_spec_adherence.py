"""The spec_adherence heuristic over real git changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.config import Config
from rubricate.evidence.results import CheckResult
from rubricate.evidence.spec import parse_spec
from rubricate.evidence.spec_adherence import spec_adherence_check

from .gitrepo import FileValue, config_of, snapshot_of

BASE: dict[str, FileValue] = {"README.md": "# p\n"}
SPEC = """\
- [ ] Add the loader in `src/loader.py`
- [ ] Add a command line flag for verbose output

## Deliverables
- `out/result.json`

## Scope
- `src/`
- `out/`
"""


def check(
    tmp_path: Path, head: dict[str, FileValue], *, spec: str = SPEC, config: Config | None = None
) -> CheckResult:
    snap = snapshot_of(tmp_path, BASE, head, spec=spec)
    return spec_adherence_check(snap, config or Config(), parse_spec(spec))


def test_full_coverage_in_scope(tmp_path: Path) -> None:
    head = {
        "src/loader.py": "def load():\n    return 1\n",
        "src/cli.py": "VERBOSE_FLAG = '--verbose'\n# command line output\n",
        "out/result.json": "{}\n",
    }
    result = check(tmp_path, head)
    assert (result.status, result.value) == ("pass", 1.0)
    assert result.evidence == (
        "2 of 2 open checklist items covered",
        "1 of 1 deliverables the spec names are in the change: out/result.json",
        "3 of 3 touched paths are in scope",
    )


def test_partial_coverage_and_out_of_scope(tmp_path: Path) -> None:
    head = {"src/loader.py": "x = 1\n", "README.md": "# p\nmore\n", "ci/job.yml": "a: 1\n"}
    result = check(tmp_path, head)
    assert [(f.severity, f.path, f.message) for f in result.findings] == [
        ("info", None, "not covered: Add a command line flag for verbose output"),
        ("warning", None, "deliverable not in the change: out/result.json"),
        ("warning", "README.md", "changed outside the declared scope"),
        ("warning", "ci/job.yml", "changed outside the declared scope"),
    ]
    assert [f.kind for f in result.findings] == ["note", "certain", "certain", "certain"]
    # the item matched by words alone is a note: it cannot take the value below what the
    # certain evidence (a missing deliverable, two paths out of scope) gives
    assert result.value == pytest.approx((2 / 3) * (1 - 0.5 * 2 / 3))


def test_config_scope_and_required_deliverables(tmp_path: Path) -> None:
    config = config_of('scope: [src]\ndeliverables:\n  - {glob: "out/*.csv", required: true}\n')
    result = check(
        tmp_path, {"src/a.py": "a = 1\n", "vendor/x.py": "b = 2\n"}, spec="", config=config
    )
    assert result.value == pytest.approx(0.0)
    assert [f.path for f in result.findings] == [None, "vendor/x.py"]


def test_out_of_scope_list(tmp_path: Path) -> None:
    spec = "## Out of scope\n- `vendor/`\n"
    result = check(tmp_path, {"src/a.py": "a = 1\n", "vendor/x.py": "b = 2\n"}, spec=spec)
    assert result.value == pytest.approx(0.75)
    assert [f.path for f in result.findings] == ["vendor/x.py"]


def test_no_spec_leaves_it_unscored(tmp_path: Path) -> None:
    result = check(tmp_path, {"src/a.py": "a = 1\n"}, spec="")
    assert (result.status, result.value) == ("skip", None)
