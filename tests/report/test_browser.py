"""The generated site in a real headless browser: charts, text, layout, console, contrast."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from tests.report.cdp import Page, browser, chromium_path
from tests.report.sample import sample_events, write_ledger

CHECKS = (Path(__file__).parent / "checks.js").read_text(encoding="utf-8")
SHOTS = Path(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir()) / "rubricate-screenshots"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    write_ledger(root / "data", sample_events(), {"ledger/2024-03.jsonl": "{broken"})
    assert main(["report", "--data", str(root / "data"), "--out", str(root / "site")]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report a maintainer reads: 2,000+ events by 72 authors (`rubricate report --demo`)."""
    root = tmp_path_factory.mktemp("demo")
    assert main(["report", "--demo", "--out", str(root)]) == 0
    return root


@pytest.fixture(scope="module")
def chromium() -> str:
    found = chromium_path()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it with apt-get)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


@pytest.fixture(scope="module")
def tab(chromium: str) -> Iterator[Page]:
    with browser(chromium) as page:
        yield page


@pytest.mark.parametrize(
    ("which", "page"),
    [
        ("site", "index.html"),
        ("site", "authors/alice.html"),
        ("demo_site", "index.html"),
        ("demo_site", "authors/<busiest>"),
        ("demo_site", "authors-by-reputation.html"),
    ],
)
def test_page_renders_cleanly(
    which: str, page: str, tab: Page, request: pytest.FixtureRequest
) -> None:
    site: Path = request.getfixturevalue(which)
    if page == "authors/<busiest>":  # the author page with the most rows
        busiest = max((site / "authors").glob("*.html"), key=lambda p: p.stat().st_size)
        page = f"authors/{busiest.name}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.errors.clear()
    tab.open((site / page).as_uri(), 1280, 800)
    shot = tab.screenshot(SHOTS / f"{which}-{page.replace('/', '-')[:-5]}.png")
    result: dict[str, Any] = tab.evaluate(CHECKS)
    violations = tab.violations()
    errors = list(tab.errors)
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000
    assert result["charts"] >= (0 if page.startswith("authors-by") else 1)
    assert result["scripts"] == 0
    assert result["problems"] == []
    assert violations == []
    assert errors == []


def test_pages_declare_a_strict_policy_that_catches_inline_style(
    site: Path, tab: Page, tmp_path: Path
) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    assert "unsafe" not in policy[1]
    assert "default-src 'none'" in policy[1]
    for name in ("index.html", "style.css"):
        (tmp_path / name).write_text((site / name).read_text(encoding="utf-8"), encoding="utf-8")
    broken = page.replace("<main>", '<main><p style="color:red">inline</p><style>p{}</style>', 1)
    (tmp_path / "index.html").write_text(broken, encoding="utf-8")
    tab.errors.clear()
    tab.open((tmp_path / "index.html").as_uri())
    violations = tab.violations()
    assert any(v.startswith("style-src-attr") for v in violations), violations
    assert any(v.startswith("style-src-elem") for v in violations), violations
    assert tab.errors


def test_checks_catch_a_broken_chart(site: Path, tab: Page, tmp_path: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    wide = "<span>" + "overflowing" * 60 + "</span>"  # one unbreakable word
    broken = page.replace('class="axis x', 'class="axis-gone x', 1)
    broken = broken.replace('<div class="card"><b>', f'<div class="card">{wide}<b>', 1)
    (tmp_path / "index.html").write_text(broken, encoding="utf-8")
    (tmp_path / "style.css").write_text((site / "style.css").read_text(encoding="utf-8"))
    tab.open((tmp_path / "index.html").as_uri())
    result = tab.evaluate(CHECKS)
    assert any("no x axis" in p for p in result["problems"])
    assert any(p.startswith(("overflow", "page is wider")) for p in result["problems"])
