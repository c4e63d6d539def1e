"""The lock files cover pyproject.toml, agree with each other, and are what the README's test
command and `.ci/run` install (a dependency added without `requirements/refresh` fails here)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the dev extra installs tomli on 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ROOT / "requirements"
EXTRAS = ("test", "dev", "report")
INSTALL = "pip install -r requirements/dev.lock && pip install --no-deps -e ."


def _name(requirement: str) -> str:
    """A requirement's project name, normalized as PEP 503 does."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def _pins(lock: str) -> dict[str, str]:
    text = (LOCKS / lock).read_text(encoding="utf-8")
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", text, re.M)
    return {_name(name): version for name, version in pins}


def _project() -> dict[str, list[str]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = data["optional-dependencies"]
    return {"runtime": data["dependencies"], **{extra: optional[extra] for extra in EXTRAS}}


@pytest.mark.parametrize(
    ("lock", "groups"), [("action.lock", ("runtime",)), ("dev.lock", ("runtime", *EXTRAS))]
)
def test_each_lock_pins_every_dependency_it_installs(lock: str, groups: tuple[str, ...]) -> None:
    pinned = _pins(lock)
    project = _project()
    missing = sorted({_name(r) for g in groups for r in project[g]} - set(pinned))
    assert not missing, f"run requirements/refresh: {lock} lacks {', '.join(missing)}"


def test_every_pin_has_hashes() -> None:
    for lock in ("action.lock", "dev.lock"):
        text = (LOCKS / lock).read_text(encoding="utf-8")
        blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
        assert blocks
        for block in blocks:
            assert "--hash=sha256:" in block, block.splitlines()[0]


def test_the_tests_install_what_the_action_installs() -> None:
    action, dev = _pins("action.lock"), _pins("dev.lock")
    differ = {n: (v, dev[n]) for n, v in action.items() if n in dev and dev[n] != v}
    assert not differ, f"run requirements/refresh: the locks disagree on {differ}"


def test_the_readme_and_ci_install_from_the_lock() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"{INSTALL} && pytest" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "install --quiet -r requirements/dev.lock" in ci
    assert "install --quiet --no-deps -e ." in ci
