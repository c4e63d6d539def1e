"""The report's own line charts: the SVG's points are the series' values at their times."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta

from rubricate.ledger.reputation import COMPONENTS
from rubricate.report import chart_styles, charts
from rubricate.report.line_chart import Frame, Line, line_chart

SVG = "{http://www.w3.org/2000/svg}"
START = datetime(2024, 1, 1)


def _frame(**extra: object) -> Frame:
    options: dict[str, object] = {
        "width": 640,
        "height": 360,
        "x_title": "time",
        "y_title": "value",
        "ticks": [START, START + timedelta(days=10)],
        "time_label": lambda d: d.strftime("%Y-%m-%d"),
        "value_label": lambda v: f"{v:.2f}",
        **extra,
    }
    return Frame(**options)  # type: ignore[arg-type]


def _scale(root: ET.Element) -> tuple[dict[str, float], float, float]:
    """Each y label's height, and the x of the first and last time tick."""
    axis_y = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "axis y")
    heights = {}
    for path, text in zip(axis_y.findall(f"{SVG}path"), axis_y.findall(f"{SVG}text"), strict=True):
        heights[str(text.text)] = float(str(path.get("d")).split()[1])
    axis_x = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "axis x")
    xs = [float(str(t.get("x"))) for t in axis_x.findall(f"{SVG}text")]
    return heights, xs[0], xs[-1]


def _points(root: ET.Element, serie: int) -> list[list[tuple[float, float]]]:
    """The pieces of a series' line, as SVG coordinates."""
    group = next(
        g for g in root.iter(f"{SVG}g") if g.get("class") == f"series serie-{serie} color-{serie}"
    )
    path = group.find(f"{SVG}path")
    assert path is not None
    pieces = re.findall(r"M[^M]*", str(path.get("d")))
    return [
        [(float(x), float(y)) for x, y in re.findall(r"[ML]([\d.-]+) ([\d.-]+)", piece)]
        for piece in pieces
    ]


def test_the_points_drawn_are_the_values_at_their_times() -> None:
    times = [START + timedelta(days=d) for d in (0, 1, 4, 10)]
    values = [0.25, 0.5, 0.875, 0.1]
    lines = [Line("a", list(zip(times, values, strict=True)), dots=3)]
    root = ET.fromstring(line_chart("t", "title", "desc", lines, _frame(value_range=(0, 1)), "s"))
    heights, first, last = _scale(root)
    zero, one = heights["0.00"], heights["1.00"]
    (drawn,) = _points(root, 0)
    assert len(drawn) == len(values)
    for (x, y), at, value in zip(drawn, times, values, strict=True):
        assert abs((zero - y) / (zero - one) - value) < 1e-4
        share = (at - START) / (times[-1] - START)
        assert abs(x - (first + share * (last - first))) < 0.01
    assert len(root.findall(f".//{SVG}circle")) == len(values)


def test_a_missing_value_breaks_the_line_and_the_range_follows_the_values() -> None:
    times = [START + timedelta(days=d) for d in range(5)]
    values = [3.0, 7.0, None, 12.0, 40.0]
    lines = [Line("jobs", list(zip(times, values, strict=True)))]
    svg = line_chart("t", "title", "desc", lines, _frame(from_zero=True), "s")
    root = ET.fromstring(svg)
    heights, _, _ = _scale(root)
    assert min(map(float, heights)) == 0
    assert max(map(float, heights)) >= 40
    before, after = _points(root, 0)
    assert (len(before), len(after)) == (2, 2)
    zero, top = heights["0.00"], max(heights.items(), key=lambda kv: float(kv[0]))
    for (_, y), value in zip(before + after, (3.0, 7.0, 12.0, 40.0), strict=True):
        assert abs((zero - y) / (zero - top[1]) * float(top[0]) - value) < 1e-3
    assert svg == line_chart("t", "title", "desc", lines, _frame(from_zero=True), "s")


def test_a_reputation_chart_carries_every_line_its_legend_and_its_css() -> None:
    points = [
        {
            "at": f"2024-0{m}-01T00:00:00Z",
            "reputation": m / 10,
            "components": {n: {"value": (m + i) / 20} for i, n in enumerate(COMPONENTS)},
        }
        for m in (1, 2, 3, 4)
    ]
    chart_styles.STYLES.clear()
    root = ET.fromstring(charts.reputation_over_time("rep", points, "four points"))
    assert root.get("role") == "img"
    assert [t.text for t in root.findall(f"{SVG}title")] == ["Reputation over time"]
    heights, _, _ = _scale(root)
    zero, one = heights["0.00"], heights["1.00"]
    for serie, name in enumerate(("reputation", *COMPONENTS)):
        (drawn,) = _points(root, serie)
        for (_, y), point in zip(drawn, points, strict=True):
            wanted = point["reputation"] if serie == 0 else point["components"][name]["value"]
            assert abs((zero - y) / (zero - one) - float(wanted)) < 1e-4  # type: ignore[arg-type]
    legend = [t.text for g in root.iter(f"{SVG}g") if g.get("class") == "legend" for t in g]
    assert "rubric quality" in [t for t in legend if t]
    scope = next(c for c in str(root.get("class")).split() if re.fullmatch(r"c[0-9a-f]{10}", c))
    assert f".{scope} .color-5{{stroke:{chart_styles.PALETTE[5]}" in chart_styles.stylesheet()
