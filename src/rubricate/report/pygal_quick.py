"""pygal, drawing faster and without scripts (pure: changes only how pygal draws, in memory).

pygal looks every attribute up through a recursive `__getattribute__`, lists the series options
with `dir()` once per option of every series, and puts a script with the chart's whole
configuration in each SVG. The classes here give the same answers without the repeated work, and
leave out the tooltip descriptions and the script (there is no script to read them): a chart is
drawn a few times faster, with nothing a strict Content-Security-Policy would block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import pygal
from pygal.graph import base as pygal_base

_get = object.__getattribute__


class _Quick:
    """pygal's attribute lookup (the render state first, then the chart) without its recursive
    `__getattribute__`: the same answers, several times faster."""

    def __getattribute__(self, name: str) -> Any:
        state = _get(self, "__dict__").get("state")
        if state is not None and name != "state" and not name.startswith("__"):
            values = state.__dict__
            if name in values:
                return values[name]
        return _get(self, name)

    def _tooltip_data(self, *args: Any, **kwargs: Any) -> None:
        """None of the `<desc>`s pygal puts on each point for its tooltip script (there is none:
        each chart is one image, `role="img"`, with its data in the page's table)."""


class _Svg(pygal_base.Svg):
    """pygal's SVG without the script of the chart's whole configuration, as JSON."""

    def add_scripts(self) -> None:
        if self.graph.js:
            super().add_scripts()


class _SerieConfig(pygal_base.SerieConfig):
    """pygal's series options, listing their names once: pygal calls `dir()` on a fresh one
    for every chart option of every series (a fifth of a small chart's drawing time)."""

    _listed: ClassVar[list[str]] = []

    def __dir__(self) -> list[str]:
        _SerieConfig._listed = _SerieConfig._listed or sorted(object.__dir__(self))
        return _SerieConfig._listed


class Bar(_Quick, pygal.Bar):
    """`pygal.Bar` with the quick attribute lookup."""


_PYGAL_SERIE_CONFIG, _PYGAL_SVG = pygal_base.SerieConfig, pygal_base.Svg


@contextmanager
def quick_drawing() -> Iterator[None]:
    """pygal's series options and SVG replaced by the quick ones while one chart is drawn."""
    vars(pygal_base).update(SerieConfig=_SerieConfig, Svg=_Svg)
    try:
        yield
    finally:
        vars(pygal_base).update(SerieConfig=_PYGAL_SERIE_CONFIG, Svg=_PYGAL_SVG)
