"""SVG charts for the report: bar charts drawn by pygal (`bar_chart`), line charts over time by
`line_chart` (pure: numbers in, SVG text out), each taken from the last report's memo when its
inputs are the same (`kept_charts`).

Every chart is script-free, with no inline CSS (a strict CSP allows neither): each chart's CSS
is kept in `chart_styles.STYLES` (all go to `style.css`). The data table is the page's job."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rubricate.ledger.event import parse_time
from rubricate.ledger.reputation import COMPONENTS
from rubricate.report.chart_styles import (
    HEIGHT,
    PALETTE,
    SCOPES,
    STYLES,
    WIDTH,
    element_id,
    shared_style,
)
from rubricate.report.line_chart import Frame, Line, chart_css, line_chart
from rubricate.report.memo import Memo

SOURCE_COLOURS = {"judge": PALETTE[0], "heuristic": PALETTE[1], "reviewer": PALETTE[2]}
"""One colour per source of scores, in every chart that shows them."""
DASHES = ("none", "9,5", "3,4", "12,3,3,3", "6,3")
"""A dash pattern per reputation component: lines are told apart by more than colour, and two
components with the same values both stay visible, the later one's gaps showing the other (an
author who missed no deadline and had no dispute has both at 1.00 all along)."""
SWATCH_WIDTH = 28
"""A line chart's legend shows a stretch of each line this wide: long enough for its dashes."""
WIDE = 1100
MAX_POINTS = 60
_SCOPE = "%scope%"
"""Where a chart's CSS names its class, until the class is named after the CSS."""
_MEMOS: list[Memo] = []
"""The memo charts are drawn through (`kept_charts`), innermost last."""
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
        SCOPES.clear()


def _kept(draw: Draw) -> Draw:
    """`draw`, through the memo of `kept_charts` when there is one (inputs that are functions,
    formatters, are the same for the same chart id)."""

    @functools.wraps(draw)
    def drawn(*args: Any, **kwargs: Any) -> str:
        if not _MEMOS:
            return draw(*args, **kwargs)

        def make() -> list[Any]:
            start = len(SCOPES)
            svg = draw(*args, **kwargs)
            return [svg, {name: STYLES[name] for name in SCOPES[start:]}]

        shown = {k: v for k, v in kwargs.items() if not callable(v)}
        svg, styles = _MEMOS[-1].recall(["chart", draw.__name__, args, shown], make)
        STYLES.update(styles)
        return str(svg)

    return cast(Draw, drawn)


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
    scope = shared_style(chart_css(_SCOPE, lines, PALETTE), _SCOPE)
    return line_chart(chart_id, title, desc, lines, frame, scope)


def _bar_chart(name: str) -> Callable[..., str]:
    """`bar_chart`'s function `name`, through the memo of `kept_charts`."""

    def draw(*args: Any, **kwargs: Any) -> str:
        # pygal loads only to draw a bar chart: a report that takes them all from its memo skips it
        from rubricate.report import bar_chart

        made: str = getattr(bar_chart, name)(*args, **kwargs)
        return made

    draw.__name__ = draw.__qualname__ = name  # the memo knows a chart by its function's name
    return _kept(draw)


if TYPE_CHECKING:
    from rubricate.report.bar_chart import grouped_bars as grouped_bars
    from rubricate.report.bar_chart import intervals as intervals
else:
    grouped_bars = _bar_chart("grouped_bars")
    intervals = _bar_chart("intervals")


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


def _time(stamp: str) -> datetime:
    return (parse_time(stamp) or datetime.min).replace(tzinfo=None)  # `stamp` is a time
