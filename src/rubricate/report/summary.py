"""The scores section's summary of the job rows, from totals that add up over jobs (pure: rows in,
numbers out; what it shows: docs/report.md).

The summary (means of the first and final normalized score and of their change, the histograms,
the median time to approval) is a function of `RowTotals`: counts, and the exact sums of the
means' values. A sum is kept as an integer number of 2⁻¹⁰⁷⁴ (the smallest step between floats),
so adding a row and taking it away again gives back the very integer, and a report that reuses
the last one's totals (`refresh`: each changed job's old row taken away, its new one added) has
the same sums, bit for bit, as one that adds every row. A mean is then that sum over the count,
rounded once, whatever the order the rows came in.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rubricate.ledger.event import TOLERANCE
from rubricate.report.tallies import bump

APPROVAL_BUCKETS = ((1, "< 1 h"), (6, "1–6 h"), (24, "6–24 h"), (72, "1–3 d"), (168, "3–7 d"))
LAST_BUCKET = "> 7 d"
EXACT = 2**1074
"""Sums are kept in units of 1/EXACT: every float is a whole number of them."""
MEANS = ("first", "final", "change")


def exact(value: float) -> int:
    """`value` as a whole number of 1/EXACT (exact for every finite float)."""
    numerator, denominator = value.as_integer_ratio()
    return numerator * (EXACT // denominator)


@dataclass
class RowTotals:
    """What the summary counts over job rows: how many; the exact sums of `first`, `final` and
    `change` over the rows with both moments; how many improved; the histograms' counts; how
    often each time to approval occurs."""

    jobs: int = 0
    both: int = 0
    sums: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MEANS, 0))
    improved: int = 0
    changes: Counter[int] = field(default_factory=Counter)
    revisions: Counter[int] = field(default_factory=Counter)
    versions: Counter[int] = field(default_factory=Counter)
    hours: Counter[float] = field(default_factory=Counter)

    def add(self, row: Mapping[str, Any], sign: int = 1) -> None:
        """Count one job's row (`sign` -1: take it away)."""
        self.jobs += sign
        change = row["change"]
        if change is not None:
            self.both += sign
            for name in MEANS:
                self.sums[name] += sign * exact(row[name])
            self.improved += sign * (change > TOLERANCE)
            bump(self.changes, max(-10, min(10, math.floor(change * 10 + 0.5))), sign)
        bump(self.revisions, min(row["revisions"], 5), sign)
        bump(self.versions, min(row["versions"], 5), sign)
        if row["hours_to_approval"] is not None:
            bump(self.hours, row["hours_to_approval"], sign)

    def merge(self, other: RowTotals) -> None:
        """Count in another's rows (of other jobs)."""
        self.jobs += other.jobs
        self.both += other.both
        for name in MEANS:
            self.sums[name] += other.sums[name]
        self.improved += other.improved
        self.changes.update(other.changes)
        self.revisions.update(other.revisions)
        self.versions.update(other.versions)
        self.hours.update(other.hours)

    def copy(self) -> RowTotals:
        """Totals that count the same, to change without changing these."""
        return RowTotals(
            self.jobs,
            self.both,
            dict(self.sums),
            self.improved,
            Counter(self.changes),
            Counter(self.revisions),
            Counter(self.versions),
            Counter(self.hours),
        )

    def rows(self) -> dict[str, Any]:
        """The totals as JSON-ready data (`read_row_totals` reads them back); sums as text, so
        that every reader keeps them whole."""
        return {
            "jobs": self.jobs,
            "both": self.both,
            "sums": {name: str(value) for name, value in self.sums.items()},
            "improved": self.improved,
            "changes": sorted(self.changes.items()),
            "revisions": sorted(self.revisions.items()),
            "versions": sorted(self.versions.items()),
            "hours": sorted(self.hours.items()),
        }


def read_row_totals(data: Mapping[str, Any]) -> RowTotals:
    """The inverse of `RowTotals.rows`; ValueError, TypeError or KeyError when it is not one."""
    return RowTotals(
        int(data["jobs"]),
        int(data["both"]),
        {name: int(str(data["sums"][name])) for name in MEANS},
        int(data["improved"]),
        Counter({int(k): int(n) for k, n in data["changes"]}),
        Counter({int(k): int(n) for k, n in data["revisions"]}),
        Counter({int(k): int(n) for k, n in data["versions"]}),
        Counter({float(k): int(n) for k, n in data["hours"]}),
    )


def totals_of(rows: Iterable[Mapping[str, Any]]) -> RowTotals:
    """The totals of these rows."""
    totals = RowTotals()
    for row in rows:
        totals.add(row)
    return totals


def summary_of(totals: RowTotals) -> dict[str, Any]:
    """Means and histograms from the totals of the job rows."""
    both = totals.both
    means = {name: _mean(totals.sums[name], both) for name in MEANS}
    hours = sorted(totals.hours.items())
    return {
        "jobs": totals.jobs,
        "with_both_moments": both,
        "mean_first": means["first"],
        "mean_final": means["final"],
        "mean_change": means["change"],
        "improved": totals.improved,
        "change_histogram": {
            f"{k / 10:+.1f}": totals.changes[k]
            for k in range(-10, 11)
            if totals.changes[k] or -3 <= k <= 3
        },
        "revisions_histogram": _count_histogram(totals.revisions),
        "versions_histogram": _count_histogram(totals.versions),
        "median_hours_to_approval": _median(hours),
        "approval_histogram": _approval_histogram(hours),
    }


def _count_histogram(counts: Counter[int]) -> dict[str, int]:
    return {("5+" if k == 5 else str(k)): counts[k] for k in sorted(counts)}


def _approval_histogram(hours: list[tuple[float, int]]) -> dict[str, int]:
    counts = dict.fromkeys([label for _, label in APPROVAL_BUCKETS] + [LAST_BUCKET], 0)
    for value, count in hours:
        label = next((lb for limit, lb in APPROVAL_BUCKETS if value < limit), LAST_BUCKET)
        counts[label] += count
    return counts


def _mean(total: int, count: int) -> float | None:
    """The mean of values summing to `total` (in 1/EXACT), rounded once to six places."""
    return round(total / (EXACT * count), 6) if count else None


def _median(hours: list[tuple[float, int]]) -> float | None:
    """The median of the values, each given with how often it occurs, in order."""
    count = sum(n for _, n in hours)
    if not count:
        return None
    middle = count // 2
    wanted = (middle - 1, middle) if count % 2 == 0 else (middle, middle)
    found: list[float] = []
    seen = 0
    for value, n in hours:
        while len(found) < 2 and wanted[len(found)] < seen + n:
            found.append(value)
        seen += n
        if len(found) == 2:
            break
    low, high = found
    return low if count % 2 else (low + high) / 2
