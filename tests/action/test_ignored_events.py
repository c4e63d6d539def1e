"""Events that need nothing cost nothing; commands a reader cannot see are not applied.

A comment or review whose visible text holds no rubricate command is ignored before any git
process, API call or data-branch read: exit 0 and one log line. What a reader sees decides: a
command inside `<details>`, `<pre>`, `<style>` or a hidden element is not read (the folded,
preformatted or hidden text is not the prose a reader sees on the page).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.action.payloads import issue_comment_event, review_event
from tests.action.scenario import AUTHOR, PR, WRITER, Scenario

REPORT = '{"widgets": ["a"], "total": 1}\n'
SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"
NOTHING = {
    "empty": "",
    "prose": "Looks good to me",
    "a URL with slashes": "See https://github.com/octo/widgets/pull/7/files and /tmp/x/y",
    "a command in a fenced block": f"Try:\n\n```\n{SCORE}\n```",
    "a command in details": f"<details><summary>notes</summary>\n\n{SCORE}\n\n</details>",
    "a command in pre": f"<pre>\n{SCORE}\n</pre>",
    "a command in style": f"<style>\n{SCORE}\n</style>",
    "a command in a hidden div": f"<div hidden>\n\n{SCORE}\n\n</div>",
    "a command in a display:none span": f'<span style="display: none">\n{SCORE}\n</span>',
}


@pytest.fixture
def git_processes(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every git process started (through `subprocess.Popen`, which `run` uses too)."""
    started: list[list[str]] = []
    real = subprocess.Popen.__init__

    def counting(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        argv = [str(a) for a in args] if isinstance(args, list | tuple) else [str(args)]
        if Path(argv[0]).name == "git":
            started.append(argv)
        real(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    return started


@pytest.mark.parametrize("body", sorted(NOTHING))
def test_a_comment_without_a_visible_command_costs_nothing(
    opened: Scenario, git_processes: list[list[str]], body: str
) -> None:
    comment_id = opened.fake.add_comment(PR, NOTHING[body], WRITER)["id"]
    payload = issue_comment_event(
        comment_id=comment_id,
        body=NOTHING[body],
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        at=opened.tick(),
    )
    git_processes.clear()
    step = opened.deliver(body, "issue_comment", payload)
    assert (step.code, step.calls, git_processes, step.stdout) == (0, [], [], "")
    assert step.log.strip().splitlines() == [
        f"rubricate: ignored issue_comment: comment {comment_id} on #{PR} holds no command"
    ]


@pytest.mark.parametrize("body", sorted(NOTHING))
def test_a_review_without_a_visible_command_costs_nothing(
    opened: Scenario, git_processes: list[list[str]], body: str
) -> None:
    payload = review_event(
        review_id=77,
        body=NOTHING[body],
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        head_sha=opened.heads[-1],
        base_sha=opened.base_sha,
        at=opened.tick(),
    )
    git_processes.clear()
    step = opened.deliver(body, "pull_request_review", payload)
    assert (step.code, step.calls, git_processes, step.stdout) == (0, [], [], "")
    assert step.log.strip().splitlines() == [
        f"rubricate: ignored pull_request_review: review 77 on #{PR} holds no command"
    ]


def test_a_command_after_a_closed_details_block_is_applied(opened: Scenario) -> None:
    body = f"<details><summary>why</summary>\n\n/approve\n\n</details>\n\n{SCORE}"
    step = opened.comment(WRITER, body)
    assert step.code == 0
    kinds = [e["kind"] for e in opened.ledger_events()]
    assert kinds.count("review_scored") == 1
    assert "approved" not in kinds
