"""SVG charts for the report: bar charts drawn by pygal, line charts over time by `line_chart`
(pure: numbers in, SVG text out).

Every chart is script-free, with no inline CSS (a strict CSP allows neither). A line chart's CSS
is kept in `STYLES` as a bar chart's is. For bar charts, pygal's scripts,
tooltip data and comments are left out, its `<style>` is kept in `STYLES` under a class named
after its content (all go to `style.css`), its random id is replaced by a stable one, and the
`<svg>` gets `role="img"`, a `<title>` and a `<desc>`. The data table is the page's job."""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar, cast

from pygal.style import Style

from rubricate.ledger.event import parse_time
from rubricate.ledger.reputation import COMPONENTS
from rubricate.report.line_chart import Frame, Line, chart_css, line_chart
from rubricate.report.memo import Memo
from rubricate.report.pygal_quick import Bar, quick_drawing

PALETTE = ("#0b5cad", "#b3470c", "#1a7f37", "#8250df", "#9a6700", "#cf222e")
"""Colours with at least 4.5:1 contrast on white, told apart by hue and lightness."""
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"
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
SOURCE_COLOURS = {"judge": PALETTE[0], "heuristic": PALETTE[1], "reviewer": PALETTE[2]}
"""One colour per source of scores, in every chart that shows them."""
DASHES = ("none", "9,5", "3,4", "12,3,3,3", "6,3")
"""A dash pattern per reputation component: lines are told apart by more than colour, and two
components with the same values both stay visible, the later one's gaps showing the other (an
author who missed no deadline and had no dispute has both at 1.00 all along)."""
SWATCH_WIDTH = 28
"""A line chart's legend shows a stretch of each line this wide: long enough for its dashes."""
WIDTH, HEIGHT = 640, 360
WIDE = 1100
MAX_POINTS = 60
_SCOPE = "%scope%"
"""Where a chart's CSS names its class, until the class is named after the CSS."""
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]")
STYLES: dict[str, str] = {}
"""The charts' CSS by class (pages link one `style.css`; a strict CSP allows no inline style)."""
_MEMOS: list[Memo] = []
"""The memo charts are drawn through (`kept_charts`), innermost last."""
_SCOPES: list[str] = []
"""The style classes of the charts drawn so far, in order."""
Draw = TypeVar("Draw", bound=Callable[..., str])


@contextmanager
def kept_charts(memo: Memo | None) -> Iterator[None]:
    """Within: a chart drawn from the same inputs as one in `memo` is taken from it, not drawn
    again (pygal takes most of a page's time); those drawn are put in it."""
    _MEMOS.append(memo or Memo())
    try:
        yield
    finally:
        _MEMOS.pop()
        _SCOPES.clear()


def _kept(draw: Draw) -> Draw:
    """`draw`, through the memo of `kept_charts` when there is one (inputs that are functions,
    formatters, are the same for the same chart id)."""

    @functools.wraps(draw)
    def drawn(*args: Any, **kwargs: Any) -> str:
        if not _MEMOS:
            return draw(*args, **kwargs)

        def make() -> list[Any]:
            start = len(_SCOPES)
            svg = draw(*args, **kwargs)
            return [svg, {name: STYLES[name] for name in _SCOPES[start:]}]

        shown = {k: v for k, v in kwargs.items() if not callable(v)}
        svg, styles = _MEMOS[-1].recall(["chart", draw.__name__, args, shown], make)
        STYLES.update(styles)
        return str(svg)

    return cast(Draw, drawn)


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
        scope = _shared_style("\n".join(css), f"#chart-{chart_id}")
        root.set("class", f"{root.get('class', '')} chart-svg {scope}".strip())
        for tag, text in (("desc", desc), ("title", title)):
            node = root.makeelement(tag, {"id": f"{chart_id}-{tag}"})
            node.text = text
            root.insert(0, node)
        return root

    chart.add_xml_filter(accessible)
    with quick_drawing():
        return str(chart.render(is_unicode=True))


def element_id(text: str) -> str:
    """`text` as an HTML id and CSS selector that pygal's templates read literally: letters,
    digits, `-` and `_` only; anything else (a `{` in a criterion id, a space) is replaced, and a
    short hash of the whole text keeps two such ids apart."""
    safe = _UNSAFE_ID.sub("-", text)
    if safe == text:
        return text
    return f"{safe}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def _shared_style(css: str, scope: str) -> str:
    """Keep a chart's CSS, scoped to a class named after its content, in `STYLES`."""
    digest = hashlib.sha1(css.replace(scope, "#").encode(), usedforsecurity=False).hexdigest()
    name = f"c{digest[:10]}"
    STYLES.setdefault(name, css.replace(scope, f".{name}"))
    _SCOPES.append(name)
    return name


def stylesheet() -> str:
    """The CSS of every chart drawn so far (each distinct style once)."""
    return "\n".join(STYLES[name] for name in sorted(STYLES))


@_kept
def reputation_over_time(chart_id: str, points: Sequence[Mapping[str, Any]], desc: str) -> str:
    """Reputation and its five components over time, one line each."""
    shown = thin(points)
    stamps = [_time(p["at"]) for p in shown]
    overall = list(zip(stamps, [p["reputation"] for p in shown], strict=True))
    lines = [Line("reputation", overall, 3, dots=3)]
    for name, dashes in zip(COMPONENTS, DASHES, strict=True):
        values = zip(stamps, [p["components"][name]["value"] for p in shown], strict=True)
        lines.append(Line(name.replace("_", " "), list(values), 1.5, dashes))
    frame = Frame(
        WIDE, 400, "time (UTC)", "value (0–1)", *_time_axis(stamps), lambda v: f"{v:.2f}", (0, 1)
    )
    return draw_lines(chart_id, "Reputation over time", desc, lines, frame)


def draw_lines(chart_id: str, title: str, desc: str, lines: Sequence[Line], frame: Frame) -> str:
    """A line chart (`line_chart`), its CSS kept in `STYLES`."""
    chart_id = element_id(chart_id)
    scope = _shared_style(chart_css(_SCOPE, lines, PALETTE), _SCOPE)
    return line_chart(chart_id, title, desc, lines, frame, scope)


@_kept
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


@_kept
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


@_kept
def growth(chart_id: str, points: Sequence[Mapping[str, Any]], threshold: int, desc: str) -> str:
    """Jobs with both signals over time, against the threshold."""
    stamps = [_time(p["at"]) for p in points]
    lines = [Line("jobs", [(t, p["jobs"]) for t, p in zip(stamps, points, strict=True)], dots=3)]
    if stamps:
        line = [(stamps[0], float(threshold)), (stamps[-1], float(threshold))]
        lines.append(Line(f"threshold (~{threshold})", line, 2, "6,4"))
    frame = Frame(
        WIDTH, HEIGHT, "time (UTC)", "jobs", *_time_axis(stamps), lambda v: f"{v:.0f}", None, True
    )
    title = "Jobs with rubric_quality and a rating"
    return draw_lines(chart_id, title, desc, lines, frame)


def thin(points: Sequence[Mapping[str, Any]], limit: int = MAX_POINTS) -> list[Mapping[str, Any]]:
    """At most `limit` evenly spread points, always with the first and the last."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _time_axis(
    stamps: Sequence[datetime], labels: int = 5
) -> tuple[list[datetime], Callable[[datetime], str]]:
    """At most `labels` evenly spaced times and how they read: dates, or times when the span is
    short."""
    if not stamps:
        return [], _date
    first, last = min(stamps), max(stamps)
    span = last - first
    count = 1 if not span else labels
    ticks = [first + span * i / max(count - 1, 1) for i in range(count)]
    return ticks, (_hour if span.total_seconds() < 3 * 86400 else _date)


def _date(at: datetime) -> str:
    return at.strftime("%Y-%m-%d")


def _hour(at: datetime) -> str:
    return at.strftime("%m-%d %H:%M")


def _style(colours: Sequence[str] | None) -> Style:
    return STYLE if colours is None else Style(**STYLE_OPTIONS, colors=tuple(colours))


def _with_interval(value: tuple[float, float, float] | None) -> Any:
    return None if value is None else {"value": value[0], "ci": {"low": value[1], "high": value[2]}}


def _time(stamp: str) -> datetime:
    return (parse_time(stamp) or datetime.min).replace(tzinfo=None)  # `stamp` is a time
