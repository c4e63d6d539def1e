"""Bar charts for the report, drawn by pygal (pure: numbers in, SVG text out).

pygal's scripts, tooltip data and comments are left out, its `<style>` is kept in
`chart_styles.STYLES` under a class named after its content, its random id is replaced by a
stable one, and the `<svg>` gets `role="img"`, a `<title>` and a `<desc>`. Only a chart that is
drawn loads this module (and pygal): `charts` takes the others from the last report's memo.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pygal.style import Style

from rubricate.report.chart_styles import FONT, HEIGHT, PALETTE, WIDTH, element_id, shared_style
from rubricate.report.pygal_quick import Bar, quick_drawing

STYLE_OPTIONS: dict[str, Any] = dict(  # noqa: C408 (Style's own keywords)
    background="#ffffff",
    plot_background="#ffffff",
    foreground="#1f2328",
    foreground_strong="#1f2328",
    foreground_subtle="#57606a",
    font_family=FONT,
    label_font_size=12,
    major_label_font_size=12,
    title_font_size=15,
    legend_font_size=12,
    value_font_size=11,
    no_data_font_size=18,
    guide_stroke_color="#d0d7de",
    major_guide_stroke_color="#afb8c1",
    opacity=".85",
    opacity_hover=".95",
    stroke_width="2",
)
STYLE = Style(**STYLE_OPTIONS, colors=PALETTE)


def grouped_bars(
    chart_id: str,
    title: str,
    desc: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    x_title: str,
    y_title: str,
    formatter: Callable[[float], str] = lambda v: f"{v:g}",
    value_range: tuple[float, float] | None = None,
    counts: bool = False,
    rotate: int = 0,
    colours: Sequence[str] | None = None,
) -> str:
    """Bars for each label, one colour per series (`colours`, else the palette's in order;
    `counts`: whole-number ticks)."""
    extra: dict[str, Any] = {"range": value_range} if value_range is not None else {}
    extra["style"] = _style(colours)
    if rotate:
        extra["x_label_rotation"] = rotate
    if counts:
        top = max(1, math.ceil(max((v or 0 for vs in series.values() for v in vs), default=0)))
        step = min(c * 10**e for c in (1, 2, 5) for e in range(10) if top / (c * 10**e) <= 6)
        extra["y_labels"] = list(range(0, top + step, step))  # whole numbers, about 6 of them
    chart = Bar(**_config(x_title=x_title, y_title=y_title, value_formatter=formatter, **extra))
    chart.x_labels = list(labels)
    for name, values in series.items():
        chart.add(name, list(values))
    return render(chart, chart_id, title, desc)


def intervals(
    chart_id: str,
    title: str,
    desc: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[tuple[float, float, float] | None]],
    *,
    y_title: str,
    colours: Sequence[str] | None = None,
) -> str:
    """Bars with 95% intervals drawn as error bars: `(value, low, high)` per label."""
    options = {"x_label_rotation": 20, "range": (-1, 1), "value_formatter": lambda v: f"{v:.2f}"}
    options["style"] = _style(colours)
    chart = Bar(**_config(x_title="criterion", y_title=y_title, **options))
    chart.x_labels = list(labels)
    for name, values in series.items():
        chart.add(name, [_with_interval(v) for v in values])
    return render(chart, chart_id, title, desc)


def _config(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "style": STYLE,
        "width": WIDTH,
        "height": HEIGHT,
        "js": [],
        "disable_xml_declaration": True,
        "explicit_size": False,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": 3,
        "truncate_legend": -1,
        "truncate_label": -1,
        "margin": 16,
        "margin_right": 36,
        "show_x_guides": False,
        "no_data_text": "No data yet",
    }
    return {**base, **extra}


def render(chart: Any, chart_id: str, title: str, desc: str) -> str:
    """The chart as inline SVG: no scripts, a stable id, a title and a description."""
    chart_id = element_id(chart_id)
    chart.uuid = chart_id
    chart.config.title = None
    series = len(chart.raw_series)
    chart.config.show_legend = series > 1
    # pygal counts legend rows as series // columns: keep that at least 1.
    chart.config.legend_at_bottom_columns = series if series <= 4 else 3

    def accessible(root: Any) -> Any:
        for node in [c for c in root if not isinstance(c.tag, str) or c.tag == "title"]:
            root.remove(node)  # comments, and pygal's title (ours is put in below)
        css = []
        for defs in root.iter("defs"):
            for node in [s for s in defs if s.tag in ("script", "style")]:
                css += [node.text or ""] if node.tag == "style" else []
                defs.remove(node)
        for parent in root.iter():
            for child in [c for c in parent if c.get("class") == "plot tooltip-overlay"]:
                parent.remove(child)  # the tooltip is scripted, and styled inline
        root.set("role", "img")
        root.set("aria-labelledby", f"{chart_id}-title {chart_id}-desc")
        scope = shared_style("\n".join(css), f"#chart-{chart_id}")
        root.set("class", f"{root.get('class', '')} chart-svg {scope}".strip())
        for tag, text in (("desc", desc), ("title", title)):
            node = root.makeelement(tag, {"id": f"{chart_id}-{tag}"})
            node.text = text
            root.insert(0, node)
        return root

    chart.add_xml_filter(accessible)
    with quick_drawing():
        return str(chart.render(is_unicode=True))


def _style(colours: Sequence[str] | None) -> Style:
    return STYLE if colours is None else Style(**STYLE_OPTIONS, colors=tuple(colours))


def _with_interval(value: tuple[float, float, float] | None) -> Any:
    return None if value is None else {"value": value[0], "ci": {"low": value[1], "high": value[2]}}
