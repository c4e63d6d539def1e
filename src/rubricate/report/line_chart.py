"""Line charts over time as SVG, written directly (pure: points in, SVG text out).

The report's line charts (reputation over time on every author page, the weights' growth on the
index) are drawn here rather than by pygal, which took about 20 ms a chart: with one chart per
author that was most of a site's drawing time. The SVG has the structure and classes the report's
bar charts (pygal's) have — `g.axis.x`, `g.axis.y`, `text.title`, `g.series.serie-N.color-N`
with a `path.line`, `circle.dot`, `g.legend` entries drawn as a stretch of their line — and no
script or inline style: its CSS (`chart_css`) is scoped to a class the SVG carries (`charts`
keeps it in `style.css`). The same points give the same bytes; coordinates have two decimals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import TypeVar

FONT_SIZE = 12
TITLE_SIZE = 15
CHAR_WIDTH = 0.6
"""A generous mean glyph width, in font sizes (labels are laid out without measuring text)."""
MARGIN = 16
MARGIN_RIGHT = 36
LEGEND_ROW = 18
SWATCH = 28
PAD = 0.02
"""The share of the plot's width left empty before the first time and after the last."""


@dataclass(frozen=True)
class Line:
    """One line: its legend name, its `(time, value)` points (a None value breaks the line), its
    stroke width and dash pattern (None: solid), and whether each point gets a dot."""

    name: str
    points: Sequence[tuple[datetime, float | None]]
    width: float = 2
    dashes: str | None = None
    dots: float = 0
    """The dots' radius (0: no dots)."""


@dataclass(frozen=True)
class Frame:
    """What surrounds the lines: the size, the axes' titles, the value range (None: from the
    values, with 0 included when `from_zero`), the time ticks and how values and times read."""

    width: int
    height: int
    x_title: str
    y_title: str
    ticks: Sequence[datetime]
    time_label: Callable[[datetime], str]
    value_label: Callable[[float], str]
    value_range: tuple[float, float] | None = None
    from_zero: bool = False


def line_chart(
    chart_id: str, title: str, desc: str, lines: Sequence[Line], frame: Frame, scope: str
) -> str:
    """The chart of `lines` in `frame`: an `<svg>` of class `scope` (its CSS: `chart_css`) with
    `role="img"`, `title` and `desc`."""
    values = [v for line in lines for _, v in line.points if v is not None]
    low, high = _value_span(values, frame)
    y_ticks = _value_ticks(low, high)
    low, high = min(low, y_ticks[0]), max(high, y_ticks[-1])
    label_chars = max((len(frame.value_label(t)) for t in y_ticks), default=1)
    left = MARGIN + TITLE_SIZE + 8 + label_chars * FONT_SIZE * CHAR_WIDTH + 8
    columns = len(lines) if len(lines) <= 4 else 3
    rows = math.ceil(len(lines) / columns) if len(lines) > 1 else 0
    bottom = MARGIN + rows * LEGEND_ROW + (8 if rows else 0) + TITLE_SIZE + 8 + FONT_SIZE + 10
    plot_w = frame.width - left - MARGIN_RIGHT
    plot_h = frame.height - MARGIN - bottom
    stamps = [t for line in lines for t, _ in line.points] + list(frame.ticks)
    first = min(stamps, default=datetime(1970, 1, 1))
    span = (max(stamps, default=first) - first).total_seconds()

    def x(at: datetime) -> float:
        share = (at - first).total_seconds() / span if span else 0.5
        return plot_w * (PAD + (1 - 2 * PAD) * share)

    def y(value: float) -> float:
        return plot_h * (1 - (value - low) / (high - low))

    x_of, y_of = _written(x), _written(y)  # the lines share their times and many values

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="chart-{chart_id}" '
        f'class="line-chart chart-svg {scope}" viewBox="0 0 {frame.width} {frame.height}" '
        f'role="img" aria-labelledby="{chart_id}-title {chart_id}-desc">'
        f'<title id="{chart_id}-title">{escape(title)}</title>'
        f'<desc id="{chart_id}-desc">{escape(desc)}</desc>'
        f'<rect x="0" y="0" width="{frame.width}" height="{frame.height}" class="background"/>'
        f'<g transform="translate({_n(left)} {MARGIN})" class="plot">'
        f'<g class="axis y">'
    ]
    for tick in y_ticks:
        at = y(tick)
        major = " major" if tick in (low, high) or tick == 0 else ""
        parts.append(
            f'<path d="M0 {_n(at)} h{_n(plot_w)}" class="guide line{major}"/>'
            f'<text x="-6" y="{_n(at + FONT_SIZE / 3)}">{escape(frame.value_label(tick))}</text>'
        )
    parts.append(f'</g><g class="axis x"><path d="M0 0 v{_n(plot_h)}" class="line"/>')
    for stamp in frame.ticks:
        parts.append(
            f'<text x="{_n(x(stamp))}" y="{_n(plot_h + FONT_SIZE + 4)}">'
            f"{escape(frame.time_label(stamp))}</text>"
        )
    parts.append("</g>")
    for n, line in enumerate(lines):
        parts.append(f'<g class="series serie-{n} color-{n}">')
        path = _path([(t, v) for t, v in line.points], x_of, y_of)
        if path:
            parts.append(f'<path d="{path}" class="line reactive nofill"/>')
        if line.dots:
            parts += [
                f'<circle cx="{x_of(t)}" cy="{y_of(v)}" r="{line.dots:g}" class="dot reactive"/>'
                for t, v in line.points
                if v is not None
            ]
        parts.append("</g>")
    middle = plot_h + FONT_SIZE + 4 + 10 + TITLE_SIZE
    parts.append(
        f'</g><text x="{_n(left + plot_w / 2)}" y="{_n(MARGIN + middle)}" class="title">'
        f"{escape(frame.x_title)}</text>"
        f'<text x="{MARGIN + TITLE_SIZE}" y="{_n(MARGIN + plot_h / 2)}" class="title" '
        f'transform="rotate(-90 {MARGIN + TITLE_SIZE} {_n(MARGIN + plot_h / 2)})">'
        f"{escape(frame.y_title)}</text>"
    )
    if rows:
        top = MARGIN + middle + 8
        column = (frame.width - 2 * MARGIN) / columns
        parts.append(f'<g transform="translate({MARGIN} {_n(top)})" class="legends">')
        for n, line in enumerate(lines):
            left_at, row_at = column * (n % columns), LEGEND_ROW * (n // columns) + 6
            parts.append(
                f'<g class="legend"><g class="series serie-{n} color-{n}">'
                f'<path d="M{_n(left_at)} {_n(row_at)} h{SWATCH}" class="line reactive nofill"/>'
                f'</g><text x="{_n(left_at + SWATCH + 5)}" y="{_n(row_at + FONT_SIZE / 3)}">'
                f"{escape(line.name)}</text></g>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def chart_css(s: str, lines: Sequence[Line], colours: Sequence[str] = ()) -> str:
    """The CSS of a line chart whose selector is `s`: text, axes, and each line's colour (from
    `colours`, in order), width and dashes."""
    rules = [
        f"{s}{{font-family:{_FONT};background-color:#ffffff}}",
        f"{s} .background{{fill:#ffffff}}",
        f"{s} text{{fill:#1f2328;stroke:none;font-size:{FONT_SIZE}px}}",
        f"{s} .title{{font-size:{TITLE_SIZE}px;text-anchor:middle}}",
        f"{s} .axis.x text{{text-anchor:middle}}",
        f"{s} .axis.y text{{text-anchor:end}}",
        f"{s} .axis .line{{stroke:#1f2328}}",
        f"{s} .axis .guide.line{{stroke:#d0d7de;stroke-dasharray:4,4}}",
        f"{s} .axis .major.guide.line{{stroke:#afb8c1;stroke-dasharray:6,6}}",
        f"{s} .nofill{{fill:none}}",
        f"{s} .reactive{{stroke-opacity:.8;fill-opacity:.85}}",
        f"{s} .dot{{stroke-width:1px;fill-opacity:1;stroke-opacity:1}}",
    ]
    for n, line in enumerate(lines):
        colour = colours[n % len(colours)] if colours else "#1f2328"
        rules.append(f"{s} .color-{n}{{stroke:{colour};fill:{colour}}}")
        dashes = "" if line.dashes is None else f";stroke-dasharray:{line.dashes}"
        rules.append(f"{s} .series.serie-{n}{{stroke-width:{line.width:g}{dashes}}}")
    return "".join(rules)


_FONT = "system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif"


def _path(
    points: Sequence[tuple[datetime, float | None]],
    x: Callable[[datetime], str],
    y: Callable[[float], str],
) -> str:
    """An SVG path through the points (`x`, `y`: a coordinate as written), broken where a value
    is None."""
    parts: list[str] = []
    move = True
    for at, value in points:
        if value is None:
            move = True
            continue
        parts.append(f"{'M' if move else 'L'}{x(at)} {y(value)}")
        move = False
    return " ".join(parts)


Key = TypeVar("Key", datetime, float)


def _written(place: Callable[[Key], float]) -> Callable[[Key], str]:
    """`_n(place(key))`, each key's made once (a zero of either sign lands on the same spot)."""
    made: dict[Key, str] = {}

    def text(key: Key) -> str:
        found = made.get(key)
        if found is None:
            found = made[key] = _n(place(key))
        return found

    return text


def _value_span(values: Sequence[float], frame: Frame) -> tuple[float, float]:
    """The values' range: the frame's, else from the values (0 included when `from_zero`)."""
    if frame.value_range is not None:
        return frame.value_range
    low, high = min(values, default=0.0), max(values, default=1.0)
    if frame.from_zero:
        low, high = min(low, 0.0), max(high, 0.0)
    if low == high:
        low, high = low - 1, high + 1
    return low, high


def _value_ticks(low: float, high: float, most: int = 11) -> list[float]:
    """Round ticks from `low` to `high` (widened to the ticks), at most `most` of them."""
    span = high - low
    step = next(
        c * 10.0**e
        for e in range(math.floor(math.log10(span)) - 1, math.floor(math.log10(span)) + 2)
        for c in (1, 2, 5)
        if span / (c * 10.0**e) <= most - 1
    )
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(i * step, 12) for i in range(first, last + 1)]


def _n(value: float) -> str:
    """A coordinate with two decimals, without trailing zeros (`-0` written as `0`)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
