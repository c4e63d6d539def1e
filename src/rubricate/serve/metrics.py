"""`GET /metrics`: the queue's depth and age, deliveries by state, and each installation's API
budget, in Prometheus' text format (shell: PostgreSQL reads)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg


def metrics_text(conn: psycopg.Connection[Any]) -> str:
    """The metrics now."""
    lines: list[str] = []
    depth = conn.execute(
        "SELECT status::text, count(*) FROM procrastinate_jobs"
        " WHERE status IN ('todo', 'doing') GROUP BY status"
    ).fetchall()
    counts = dict(depth)
    lines.append("# TYPE rubricate_queue_jobs gauge")
    for status in ("todo", "doing"):
        lines.append(f'rubricate_queue_jobs{{status="{status}"}} {counts.get(status, 0)}')
    row = conn.execute(
        "SELECT min(e.at) FROM procrastinate_jobs j JOIN procrastinate_events e"
        " ON e.job_id = j.id AND e.type = 'deferred' WHERE j.status IN ('todo', 'doing')"
    ).fetchone()
    oldest = row[0] if row else None
    age = (datetime.now(timezone.utc) - oldest).total_seconds() if oldest else 0.0
    lines.append("# TYPE rubricate_queue_oldest_seconds gauge")
    lines.append(f"rubricate_queue_oldest_seconds {age:.3f}")
    lines.append("# TYPE rubricate_deliveries gauge")
    for state, count in conn.execute(
        "SELECT state, count(*) FROM rubricate_deliveries GROUP BY state ORDER BY state"
    ):
        lines.append(f'rubricate_deliveries{{state="{state}"}} {count}')
    lines += [
        "# TYPE rubricate_budget_remaining gauge",
        "# TYPE rubricate_budget_blocked_seconds gauge",
    ]
    now = datetime.now(timezone.utc)
    for installation, remaining, blocked in conn.execute(
        "SELECT installation, remaining, blocked_until FROM rubricate_budgets ORDER BY installation"
    ):
        label = f'installation="{installation}"'
        if remaining is not None:
            lines.append(f"rubricate_budget_remaining{{{label}}} {remaining}")
        wait = max(0.0, (blocked - now).total_seconds()) if blocked else 0.0
        lines.append(f"rubricate_budget_blocked_seconds{{{label}}} {wait:.3f}")
    return "\n".join(lines) + "\n"
