"""Benchmark: REST calls per event of a whole PR life (git operations not counted). Prints JSON.

The scenario of `tests/action/test_scenario.py` (open, /score, push, /revise, push, failing
/approve, a too-short /override, /override, merge) runs through the real PyGithub adapter against
a `responses` fake of GitHub, with real bare git repositories as repo and data remotes. For each
event: the REST calls made, the ceiling of its kind (a PR event 4, a command comment 4, a merge
2) and the wall time of the whole run (git and the data-branch push included).

Usage: python benchmarks/bench_rest_calls.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    """Run the scenario once and print the per-event REST calls as JSON."""
    import responses
    from tests.action.fake_github import FakeGitHub
    from tests.action.scenario import Scenario, ceiling, pr_life

    started = time.perf_counter()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake = FakeGitHub(rsps)
        with tempfile.TemporaryDirectory(prefix="rubricate-bench-") as tmp:
            scenario = Scenario(Path(tmp), fake)
            steps = pr_life(scenario)
    rows = [
        {
            "event": name,
            "exit_code": step.code,
            "rest_calls": len(step.calls),
            "ceiling": ceiling(step),
            "within_ceiling": len(step.calls) <= ceiling(step),
            "calls": step.calls,
        }
        for name, step in steps.items()
    ]
    result = {
        "benchmark": "rest_calls_per_event",
        "events": rows,
        "max_by_kind": _max_by_kind(rows),
        "all_within_ceilings": all(r["within_ceiling"] for r in rows),
        "total_rest_calls": sum(r["rest_calls"] for r in rows),
        "scenario_wall_s": round(time.perf_counter() - started, 2),
    }
    print(json.dumps(result, indent=2))
    return 0 if result["all_within_ceilings"] else 1


def _max_by_kind(rows: list[dict[str, object]]) -> dict[str, int]:
    kinds = {"pr opened": ("opened",), "push": ("push v2", "push v3"), "merge": ("merge",)}
    named = {event for events in kinds.values() for event in events}
    by_event = {str(r["event"]): int(str(r["rest_calls"])) for r in rows}
    kinds["command comment"] = tuple(e for e in by_event if e not in named)
    return {kind: max(by_event[e] for e in events) for kind, events in kinds.items()}


if __name__ == "__main__":
    sys.exit(main())
