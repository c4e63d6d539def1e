"""Issues a PR body closes with GitHub's closing keywords (pure: parses text).

`Closes #12`, `fixes owner/repo#34`, `Resolved: #5` and issue URLs on the same server, with every
keyword GitHub accepts. Fenced code, inline code and HTML comments are skipped, by a linear line
scanner (`rubricate.bot.visible`), so a hostile body costs time in proportion to its length.
Only issues of the PR's own repository count for the spec and the deadline (`same_repo`): an
issue elsewhere is written by people who have no say over this repository.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rubricate.bot.visible import visible_text

KEYWORDS = ("close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved")
_REF = r"(?:(?P<owner>[\w.-]+)/(?P<name>[\w.-]+))?#(?P<number>\d+)"
_URL = r"https?://(?P<host>[^/\s]+)/(?P<uowner>[\w.-]+)/(?P<uname>[\w.-]+)/issues/(?P<unumber>\d+)"
_SERVER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?P<netloc>[^/?#]*)")
_PATTERN = re.compile(
    rf"(?<![\w/-])(?:{'|'.join(KEYWORDS)}):?[ \t]+(?:{_REF}|{_URL})(?![\w/])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class IssueRef:
    """One linked issue: the repository's full name and the issue number."""

    repo: str
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"


def linked_issues(
    body: str, repo: str, *, server_url: str = "https://github.com"
) -> list[IssueRef]:
    """The issues `body` closes, in order of appearance, without duplicates."""
    host = _host(server_url)
    found: list[IssueRef] = []
    for match in _PATTERN.finditer(visible_text(body or "")):
        ref = _ref(match, repo, host)
        if ref is not None and ref not in found:
            found.append(ref)
    return found


def _ref(match: re.Match[str], repo: str, host: str) -> IssueRef | None:
    if match.group("number"):
        owner, name = match.group("owner"), match.group("name")
        return IssueRef(f"{owner}/{name}" if owner and name else repo, int(match.group("number")))
    if match.group("host").lower() != host:
        return None
    return IssueRef(f"{match.group('uowner')}/{match.group('uname')}", int(match.group("unumber")))


def same_repo(refs: list[IssueRef], repo: str) -> tuple[list[IssueRef], list[IssueRef]]:
    """The references to issues of `repo` (names ignore case), and the others."""
    ours = [ref for ref in refs if ref.repo.lower() == repo.lower()]
    return ours, [ref for ref in refs if ref not in ours]


def _host(server_url: str) -> str:
    """The server's `host[:port]`, lower-cased, as `urlsplit(...).netloc` gives it."""
    match = _SERVER.match(server_url.strip())
    return match.group("netloc").lower() if match else ""
