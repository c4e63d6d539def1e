"""Text and JSON views of events, jobs and reputation for the CLI (pure: data to text)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from rubricate.errors import RubricateError
from rubricate.ledger.derive import job_file
from rubricate.ledger.event import Event, rfc3339
from rubricate.ledger.fold import event_order, fold_job
from rubricate.ledger.reputation import COMPONENTS
from rubricate.yamlsource import did_you_mean

EVENT_COLUMNS = ("at", "pr", "v", "kind", "actor", "source", "verdict", "total")


def event_rows(events: Iterable[Event]) -> str:
    """One line per event, in fold order."""
    rows = [EVENT_COLUMNS]
    for e in sorted(events, key=lambda e: (e.repo, e.pr, *event_order(e))):
        total = "" if e.weighted_total is None else f"{e.weighted_total:g}"
        rating = f"rating {e.rating}" if e.rating else ""
        rows.append(
            (
                rfc3339(e.at) or "",
                str(e.pr),
                str(e.version),
                e.kind,
                e.actor,
                e.source or "",
                e.verdict or e.gate or rating,
                total,
            )
        )
    return table(rows)


def select_job(events: Sequence[Event], pr: int, repo: str | None) -> dict[str, Any]:
    """The job view of one pull request (as `jobs/<pr>.json` holds it)."""
    mine = [e for e in events if e.pr == pr and (repo is None or e.repo == repo)]
    repos = sorted({e.repo for e in mine})
    if not mine:
        where = f" in {repo}" if repo is not None else ""
        raise RubricateError(f"no events for pull request #{pr}{where}")
    if len(repos) > 1:
        raise RubricateError(f"#{pr} exists in {', '.join(repos)}: choose one with --repo")
    body: dict[str, Any] = json.loads(job_file(fold_job(mine)))
    return body


def job_text(job: dict[str, Any]) -> str:
    """A readable account of one job."""
    lines = [
        f"{job['repo']}#{job['pr']} by {job['author']}: {job['state']}"
        + (f" (gate {job['gate']})" if job.get("gate") else ""),
        f"  FIRST_SUBMISSION: {_moment(job['first_submission'])}",
        f"  FINAL_APPROVAL:   {_moment(job['final_approval'])}",
        f"  rubric_quality:   {_number(job['rubric_quality'])}",
        "",
    ]
    events = [Event.model_validate(raw) for raw in job["events"]]
    return "\n".join(lines) + event_rows(events)


def reputation_text(document: dict[str, Any], author: str | None = None) -> str:
    """The per-author table of `reputation.json` (one author with `author`)."""
    header = ("repo", "author", "reputation", "coverage", *COMPONENTS)
    rows: list[tuple[str, ...]] = [header]
    for repo, entry in sorted(document.get("repos", {}).items()):
        for login, data in sorted(entry["authors"].items()):
            if author is None or login.lower() == author.lower():
                rows.append(_author_row(repo, login, data))
    ledger = document.get("ledger", {})
    footer = (
        f"generated at {document.get('generated_at')} from {ledger.get('events', 0)} events, "
        f"{ledger.get('corrupt_lines', 0)} corrupt line(s) skipped"
    )
    return table(rows) + "\n" + footer


def check_author(document: dict[str, Any], author: str) -> None:
    """Raise a clear error when `reputation.json` has no entry for this author."""
    logins = sorted({login for e in document.get("repos", {}).values() for login in e["authors"]})
    if author.lower() in {login.lower() for login in logins}:
        return
    known = f"authors: {', '.join(logins)}" if logins else "it has no authors yet"
    raise RubricateError(
        f"no author {author!r} in reputation.json{did_you_mean(author, logins)}; {known}"
    )


def only_author(document: dict[str, Any], author: str | None) -> dict[str, Any]:
    """`reputation.json` with only this author's entries (all of it without one)."""
    if author is None:
        return document
    repos = {}
    for repo, entry in document.get("repos", {}).items():
        kept = {k: v for k, v in entry["authors"].items() if k.lower() == author.lower()}
        if kept:
            repos[repo] = {**entry, "authors": kept}
    return {**document, "repos": repos}


def table(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns separated by two spaces."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def _author_row(repo: str, login: str, data: dict[str, Any]) -> tuple[str, ...]:
    parts = [repo, login, _number(data["reputation"]), _number(data["coverage"])]
    for name in COMPONENTS:
        component = data["components"][name]
        parts.append(f"{_number(component['value'])} (n={component['n']})")
    return tuple(parts)


def _moment(moment: dict[str, Any] | None) -> str:
    if moment is None:
        return "none"
    scores = ", ".join(f"{k}={v}" for k, v in moment["scores"].items())
    state = "complete" if moment["complete"] else "incomplete"
    return f"{state}, normalized {_number(moment['normalized'])} [{scores}]"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
