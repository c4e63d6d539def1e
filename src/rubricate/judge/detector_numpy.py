"""The injection detector's span margins computed with numpy (pure: no I/O).

The same arithmetic as `Detector._margins`, in the same order, so every margin is equal bit
for bit: running sums over the tokens (`numpy.cumsum` adds one element after another, as
`itertools.accumulate` does), then each span's sum as a difference of two of them, divided by
the square root of its feature count (IEEE operations numpy and Python both round
correctly). The exponential of the sigmoid stays with `math.exp` in `judge.detector`.
numpy is an optional extra; `judge.detector` imports this module only for a long text and
only when numpy can be imported (see DESIGN.md section 7).
"""

from __future__ import annotations

import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

_Word = tuple[float, int, int, int]


def margins(
    words: Sequence[_Word],
    rows: Iterable[int],
    size: int,
    bounds: list[int],
    runs: list[tuple[int, int]],
    doubled: array.array[float],
    bias: float,
    weight_from: float,
    paired_from: float,
) -> tuple[list[float], float, float]:
    """The margin of each run of pieces, as `Detector._margins` computes it, and the last
    values of the running sums of the words' and the pairs' weights.

    `words` are the distinct words' entries (summed weights, feature count, bucket, pair
    part), `rows` gives each of the `size` tokens (at least one) its word's row in `words`,
    piece i is tokens `bounds[i]:bounds[i+1]`, a run is pieces `[first, last)`, `doubled` the
    weights twice over; the running sums start at `weight_from` and `paired_from`."""
    table = np.array(words, dtype=np.float64).reshape(-1, 4)
    row = np.fromiter(rows, dtype=np.intp, count=size)
    buckets = table[:, 2].astype(np.intp)
    parts = table[:, 3].astype(np.intp)
    weight = _running(table[row, 0], weight_from)
    features = _running(table[row, 1].astype(np.int64), 0)
    pairs = np.frombuffer(doubled, dtype=np.float64)[parts[row[:-1]] + buckets[row[1:]]]
    paired = _running(pairs, paired_from)
    ends_at = (float(weight[-1]), float(paired[-1]))
    if not runs:
        return [], *ends_at
    at = np.asarray(bounds, dtype=np.intp)
    pieces = np.asarray(runs, dtype=np.intp).reshape(-1, 2)
    starts, ends = at[pieces[:, 0]], at[pieces[:, 1]]
    totals = weight[ends] - weight[starts]
    totals = totals + paired[ends - 1]
    totals = totals - paired[starts]
    counts = (features[ends] - features[starts]) + (ends - starts)
    roots = np.sqrt((counts - 1).astype(np.float64))
    found: list[float] = (bias + totals / roots).tolist()
    return found, *ends_at


def _running(values: npt.NDArray[Any], start: float) -> npt.NDArray[Any]:
    """The running sums of `values` from `start` (`itertools.accumulate(values,
    initial=start)`): the start comes first so the first sum is `start + values[0]` there
    too."""
    return np.cumsum(np.concatenate((np.full(1, start, dtype=values.dtype), values)))
