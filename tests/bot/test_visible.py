"""What a reader sees of a body: code, comments and quotes dropped; what a revert PR reverts."""

from __future__ import annotations

from rubricate.bot.events import PullRequestEvent
from rubricate.bot.payload import parse_event
from rubricate.bot.visible import reverted_pr, visible_lines

from .conftest import Harness, kinds, pr_payload


def test_visible_lines_drop_fences_comments_and_quotes() -> None:
    body = "a\n```\n/x\n````\n<!-- b\n/y -->c\n> d\ne\n\n~~~~\n/z\n~~~\nf\n~~~~\ng"
    assert visible_lines(body) == [(1, "a"), (5, ""), (6, "c"), (9, ""), (15, "g")]
    assert [t for _, t in visible_lines("> d\ne", drop_quotes=False)] == ["> d", "e"]
    assert [t for _, t in visible_lines("```\nnever closed\n/approve")] == []


def revert(body: str, title: str = 'Revert "Add widget report"', number: int = 9) -> int | None:
    payload = pr_payload("closed", "c" * 40, merged=True, body=body, number=number, title=title)
    event = parse_event("pull_request", payload)
    assert isinstance(event, PullRequestEvent)
    return reverted_pr(event)


def test_a_revert_needs_githubs_title_and_a_visible_reverts_line() -> None:
    assert revert("Reverts acme/widgets#3") == 3
    assert revert("Reverts #3\n\nBroke the build.") == 3
    assert revert("Reverts #3", title="Add docs") is None
    assert revert("Adds docs.\n<!--\nReverts #3\n-->") is None
    assert revert("```\nReverts #3\n```") is None
    assert revert("`Reverts #3`") is None
    assert revert("> Reverts #3") is None
    assert revert("Reverts other/repo#3") is None
    assert revert("Reverts #9") is None, "a PR cannot revert itself"


def test_a_hidden_reverts_line_records_no_dispute(agora: object) -> None:
    earlier = Harness(agora)  # type: ignore[arg-type]
    earlier.open()
    earlier.close(merged=True)
    other = Harness(agora, pr=9)  # type: ignore[arg-type]
    effects = other.close(
        merged=True,
        body="Adds docs.\n<!--\nReverts #7\n-->",
        head="d" * 40,
        reverted_job=earlier.job,
    )
    assert kinds(effects) == ["final_approval"]
