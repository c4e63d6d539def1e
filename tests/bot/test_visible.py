"""What a reader sees of a body: code, comments and quotes dropped; what a revert PR reverts."""

from __future__ import annotations

import pytest

from rubricate.bot.events import PullRequestEvent
from rubricate.bot.payload import parse_event
from rubricate.bot.visible import command_lines, reverted_pr, visible_lines

from .conftest import Harness, kinds, pr_payload


def test_visible_lines_drop_fences_comments_and_quotes() -> None:
    body = "a\n```\n/x\n````\n<!-- b\n/y -->c\n> d\ne\n\n~~~~\n/z\n~~~\nf\n~~~~\ng"
    assert visible_lines(body) == [(1, "a"), (5, ""), (6, "c"), (9, ""), (15, "g")]
    assert [t for _, t in visible_lines("> d\ne", drop_quotes=False)] == ["> d", "e"]
    assert [t for _, t in visible_lines("```\nnever closed\n/approve")] == []


APPROVE = "/approve spec=5 comp=5 qual=5 ver=5 format=5"


def commands(body: str) -> list[str]:
    return [text for _, text in command_lines(body) if text.startswith("/")]


@pytest.mark.parametrize(
    "body",
    [
        f"the loop stops when i<n, good.\n\n{APPROVE}",
        f'a <img alt="x\n\n{APPROVE}\n',
        f"x<y and\nz\n\n{APPROVE}",
        f"see [a](https://e.com 'long\ntitle') and a<b\n\n{APPROVE}",
    ],
)
def test_a_lt_in_prose_that_starts_no_tag_hides_nothing(body: str) -> None:
    assert commands(body) == [APPROVE]


def test_a_lt_on_the_command_line_is_text() -> None:
    assert commands("/revise use Vec<u8 here, not a list") == [
        "/revise use Vec<u8 here, not a list"
    ]
    assert commands("/override total<max is a known gap") == ["/override total<max is a known gap"]


@pytest.mark.parametrize(
    "body",
    [
        f'a <img src=x alt="\n{APPROVE}\n">',
        f"<div\n\n{APPROVE}\n",
        f'<p title="\n\n{APPROVE}\n',
        f'see [a](https://e.com "t\nx") <img src=x alt="\n{APPROVE}\n">',
        f'see [a](https://e.com "t\nx") {APPROVE}',
        f"<?x\n{APPROVE}\n?>",
        f"a <![CDATA[\n{APPROVE}\n]]> b",
        f"<!x\n{APPROVE}\n>",
    ],
)
def test_a_tag_that_closes_in_its_paragraph_or_starts_a_block_hides_its_lines(body: str) -> None:
    assert commands(body) == []


def test_raw_html_a_reader_never_sees_ends_at_its_marker() -> None:
    assert commands(f"a <![CDATA[ x ]]> b <?y ?>\n{APPROVE}\n<!x\n/revise a b\n>") == [APPROVE]


def test_white_space_in_a_link_costs_linear_time() -> None:
    """A run that ends in no `)` is given up once (with every split tried, as before, this body
    took about a minute of CPU: the test then hangs rather than asserting a time)."""
    body = "](" + " " * 100_000 + "x\n" + APPROVE
    assert commands(body) == [APPROVE]


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
