"""A bar chart taken from the last report's memo is not drawn: pygal is loaded only to draw one."""

from __future__ import annotations

import subprocess
import sys

DRAW_TWICE = """
import sys
from rubricate.report import charts
from rubricate.report.memo import Memo

def bars():
    return charts.grouped_bars("b", "t", "d", ["a"], {"x": [1.0]}, x_title="x", y_title="y")

memo = Memo()
with charts.kept_charts(memo):
    first = bars()
loaded = "pygal" in sys.modules
for name in [n for n in sys.modules if n.startswith(("pygal", "rubricate.report"))]:
    del sys.modules[name]  # a new process, as the next report is
from rubricate.report import charts
from rubricate.report.memo import Memo

with charts.kept_charts(Memo(memo.used)):
    again = bars()
print(loaded, "pygal" in sys.modules, again == first)
"""


def test_a_bar_chart_from_the_memo_does_not_load_pygal() -> None:
    found = subprocess.run(
        [sys.executable, "-c", DRAW_TWICE], capture_output=True, text=True, check=True
    )
    assert found.stdout.split() == ["True", "False", "True"]
