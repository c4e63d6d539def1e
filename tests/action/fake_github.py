"""A stateful stand-in for the GitHub REST endpoints the bot uses, built on `responses`.

Only the endpoints the bot calls are registered. Bodies are shaped like GitHub's (every field
the OpenAPI description requires), so the contract check can validate each exchange.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import requests
import responses

API = "https://api.github.com"
NOW = "2026-03-02T10:00:00Z"
Reply = tuple[int, dict[str, str], str]


def user(login: str, uid: int = 1, kind: str = "User") -> dict[str, Any]:
    """A `simple-user` object (GitHub percent-encodes a bot's `[bot]` in its URLs)."""
    base = f"{API}/users/{quote(login)}"
    return {
        "login": login,
        "id": uid,
        "node_id": f"U_{uid}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
        "gravatar_id": "",
        "url": base,
        "html_url": f"https://github.com/{quote(login)}",
        "followers_url": f"{base}/followers",
        "following_url": f"{base}/following{{/other_user}}",
        "gists_url": f"{base}/gists{{/gist_id}}",
        "starred_url": f"{base}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{base}/subscriptions",
        "organizations_url": f"{base}/orgs",
        "repos_url": f"{base}/repos",
        "events_url": f"{base}/events{{/privacy}}",
        "received_events_url": f"{base}/received_events",
        "type": kind,
        "site_admin": False,
    }


def milestone(repo: str, number: int, due_on: str | None) -> dict[str, Any]:
    """A `milestone` object."""
    url = f"{API}/repos/{repo}/milestones/{number}"
    return {
        "url": url,
        "html_url": f"https://github.com/{repo}/milestone/{number}",
        "labels_url": f"{url}/labels",
        "id": 9000 + number,
        "node_id": f"MI_{number}",
        "number": number,
        "state": "open",
        "title": f"milestone {number}",
        "description": None,
        "creator": user("maintainer", 2),
        "open_issues": 1,
        "closed_issues": 0,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "closed_at": None,
        "due_on": due_on,
    }


def issue(
    repo: str, number: int, title: str, body: str, due_on: str | None = None
) -> dict[str, Any]:
    """An `issue` object (optionally in a milestone with a due date)."""
    url = f"{API}/repos/{repo}/issues/{number}"
    return {
        "id": 5000 + number,
        "node_id": f"I_{number}",
        "url": url,
        "repository_url": f"{API}/repos/{repo}",
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"https://github.com/{repo}/issues/{number}",
        "number": number,
        "state": "open",
        "state_reason": None,
        "title": title,
        "body": body,
        "user": user("maintainer", 2),
        "labels": [],
        "assignee": None,
        "assignees": [],
        "milestone": milestone(repo, 1, due_on) if due_on else None,
        "locked": False,
        "active_lock_reason": None,
        "comments": 0,
        "closed_at": None,
        "created_at": "2026-01-02T00:00:00Z",
        "updated_at": "2026-01-02T00:00:00Z",
        "author_association": "MEMBER",
    }


@dataclass
class Limits:
    """GitHub's limits per token (one installation): `per_minute` content-creating requests
    (anything but GET) in any 60 s, `per_hour` requests in the hour. Past either, the answer is
    403 with `retry-after` (and `x-ratelimit-remaining: 0` for the hourly one); a request made
    before a `retry-after` passed is counted in `inside_retry_after` and refused again."""

    per_minute: int = 80
    per_hour: int = 5000
    clock: Any = None
    """A function giving the time in seconds (default: `time.monotonic`)."""
    writes: dict[str, list[float]] = field(default_factory=dict)
    hour: dict[str, tuple[float, int]] = field(default_factory=dict)
    blocked: dict[str, float] = field(default_factory=dict)
    inside_retry_after: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, request: requests.PreparedRequest) -> Reply | None:
        """None when the request may go on, else the rate-limit answer."""
        token = str(request.headers.get("Authorization", ""))
        now = (self.clock or time.monotonic)()
        with self.lock:
            if now < self.blocked.get(token, 0.0):
                self.inside_retry_after += 1
                return self._refuse(token, now, self.blocked[token] - now, "secondary")
            start, used = self.hour.get(token, (now, 0))
            if now - start >= 3600:
                start, used = now, 0
            if used >= self.per_hour:
                return self._refuse(token, now, start + 3600 - now, "primary")
            if request.method != "GET":
                recent = [t for t in self.writes.get(token, []) if now - t < 60]
                if len(recent) >= self.per_minute:
                    return self._refuse(token, now, recent[0] + 60 - now, "secondary")
                self.writes[token] = [*recent, now]
            self.hour[token] = (start, used + 1)
        return None

    def _refuse(self, token: str, now: float, wait: float, kind: str) -> Reply:
        seconds = max(1, math.ceil(wait))
        self.blocked[token] = max(self.blocked.get(token, 0.0), now + seconds)
        self.refused += 1
        headers = {"retry-after": str(seconds)}
        if kind == "primary":
            headers.update(
                {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + seconds)}
            )
            message = "API rate limit exceeded for installation."
        else:
            message = "You have exceeded a secondary rate limit. Please wait before trying again."
        return _json(
            403, {"message": message, "documentation_url": "https://docs.github.com/rest"}, headers
        )


@dataclass
class FakeGitHub:
    """The GitHub state the bot reads and writes, served through `responses` callbacks."""

    rsps: responses.RequestsMock
    repo: str = "octo/widgets"
    bot_login: str = "github-actions[bot]"
    roles: dict[str, str] = field(default_factory=dict)
    issues: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    comment_edits: list[tuple[int, str]] = field(default_factory=list)
    reactions: list[tuple[int, str]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    annotations: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    node_reactions: list[tuple[str, str]] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    """`METHOD /path` → how many times to answer 422 Validation Failed, doing nothing."""
    lost_answers: dict[str, int] = field(default_factory=dict)
    """`METHOD /path` → how many times to do the request, then lose the answer (a timeout)."""
    permission_answers: dict[str, str] = field(default_factory=dict)
    """login → the raw body the permission endpoint answers with (200), whatever it is."""
    signed_commits: dict[str, str] = field(default_factory=dict)
    """sha → the signer's verified reason ("valid"); every other commit is unsigned."""
    limits: Limits | None = None
    """GitHub's rate limits, enforced per token when set."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1001))

    def __post_init__(self) -> None:
        repo = re.escape(self.repo)
        api = r"https://api\.github\.com(?::443)?"
        routes = [
            ("GET", rf"{api}/repos/{repo}/collaborators/([^/]+)/permission$", self._permission),
            ("GET", rf"{api}/repos/([^/]+/[^/]+)/issues/(\d+)$", self._get_issue),
            ("GET", rf"{api}/repos/{repo}/pulls/(\d+)$", self._get_pull),
            ("GET", rf"{api}/repos/{repo}/pulls\?.*$", self._list_pulls),
            ("GET", rf"{api}/repos/{repo}/issues/comments/(\d+)$", self._get_comment),
            ("PATCH", rf"{api}/repos/{repo}/issues/comments/(\d+)$", self._edit_comment),
            ("GET", rf"{api}/repos/{repo}/issues/(\d+)/comments(?:\?.*)?$", self._list_comments),
            ("POST", rf"{api}/repos/{repo}/issues/(\d+)/comments$", self._create_comment),
            ("POST", rf"{api}/repos/{repo}/issues/comments/(\d+)/reactions$", self._react),
            ("POST", rf"{api}/repos/{repo}/statuses/([0-9a-f]+)$", self._status),
            ("GET", rf"{api}/repos/{repo}/commits/([0-9a-f]+)(?:\?.*)?$", self._get_commit),
            (
                "GET",
                rf"{api}/repos/{repo}/commits/([0-9a-f]+)/statuses(?:\?.*)?$",
                self._list_statuses,
            ),
            ("POST", rf"{api}/repos/{repo}/check-runs$", self._create_check),
            (
                "GET",
                rf"{api}/repos/{repo}/commits/([0-9a-f]+)/check-runs(?:\?.*)?$",
                self._list_checks,
            ),
            ("PATCH", rf"{api}/repos/{repo}/check-runs/(\d+)$", self._update_check),
            ("POST", rf"{api}/graphql$", self._graphql),
        ]
        for method, pattern, handler in routes:
            self.rsps.add_callback(
                method, re.compile(pattern), callback=self._route(pattern, handler)
            )

    # -- helpers for tests ------------------------------------------------------------

    @property
    def calls(self) -> list[responses.Call]:
        """Every request made so far."""
        return list(self.rsps.calls)

    def call_lines(self, since: int = 0) -> list[str]:
        """`METHOD /path` of each request from index `since`."""
        return [f"{c.request.method} {urlsplit(c.request.url).path}" for c in self.calls[since:]]

    def comments_on(self, pr: int) -> list[dict[str, Any]]:
        """The comments on a PR, oldest first."""
        return [c for c in self.comments.values() if c["_pr"] == pr]

    def add_comment(self, pr: int, body: str, login: str) -> dict[str, Any]:
        """A comment written by someone (not through the API under test)."""
        return self._new_comment(pr, body, login)

    # -- routing ----------------------------------------------------------------------

    def _route(self, pattern: str, handler: Any) -> Any:
        def callback(request: requests.PreparedRequest) -> Reply:
            match = re.match(pattern, str(request.url))
            assert match is not None
            key = f"{request.method} {urlsplit(str(request.url)).path}"
            refused = self.limits.admit(request) if self.limits else None
            if refused is not None:
                return refused
            if self.failures.get(key):
                self.failures[key] -= 1
                return _json(502, {"message": "Server Error"})
            if self.refusals.get(key):
                self.refusals[key] -= 1
                return _json(
                    422,
                    {
                        "message": "Validation Failed",
                        "documentation_url": "https://docs.github.com/rest",
                        "status": "422",
                    },
                )
            body = json.loads(request.body) if request.body else {}
            reply = handler(request, body, *match.groups())
            if self.lost_answers.get(key):
                self.lost_answers[key] -= 1
                raise requests.exceptions.ReadTimeout(f"the answer to {key} was lost")
            return reply  # type: ignore[no-any-return]

        return callback

    def _permission(self, _req: Any, _body: Any, login: str) -> Reply:
        if login in self.permission_answers:
            return 200, {"Content-Type": "application/json"}, self.permission_answers[login]
        role = self.roles.get(login)
        if role is None:
            return _json(
                404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
            )
        permission = {"maintain": "write", "triage": "read"}.get(role, role)
        return _json(
            200, {"permission": permission, "role_name": role, "user": _collaborator(login, role)}
        )

    def _get_issue(self, _req: Any, _body: Any, repo: str, number: str) -> Reply:
        found = self.issues.get((repo, int(number)))
        return _json(200, found) if found else _json(404, {"message": "Not Found"})

    def _get_pull(self, _req: Any, _body: Any, number: str) -> Reply:
        found = self.pulls.get(int(number))
        return _json(200, found) if found else _json(404, {"message": "Not Found"})

    def _list_pulls(self, req: requests.PreparedRequest, _body: Any) -> Reply:
        query = parse_qs(urlsplit(str(req.url)).query)
        state = query.get("state", ["open"])[0]
        found = [p for p in self.pulls.values() if state == "all" or p["state"] == state]
        found.sort(key=lambda p: p["updated_at"], reverse=True)
        return _json(200, found)

    def _get_comment(self, _req: Any, _body: Any, cid: str) -> Reply:
        found = self.comments.get(int(cid))
        return _json(200, _public(found)) if found else _json(404, {"message": "Not Found"})

    def _edit_comment(self, _req: Any, body: dict[str, Any], cid: str) -> Reply:
        found = self.comments.get(int(cid))
        if not found:
            return _json(404, {"message": "Not Found"})
        found["body"] = body["body"]
        self.comment_edits.append((int(cid), body["body"]))
        return _json(200, _public(found))

    def _list_comments(self, req: requests.PreparedRequest, _body: Any, pr: str) -> Reply:
        query = parse_qs(urlsplit(str(req.url)).query)
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        items = self.comments_on(int(pr))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            nxt = (
                f"{API}/repos/{self.repo}/issues/{pr}/comments?per_page={per_page}&page={page + 1}"
            )
            headers["Link"] = f'<{nxt}>; rel="next"'
        return _json(200, [_public(c) for c in chunk], headers)

    def _create_comment(self, _req: Any, body: dict[str, Any], pr: str) -> Reply:
        return _json(201, _public(self._new_comment(int(pr), body["body"], self.bot_login)))

    def _new_comment(self, pr: int, body: str, login: str) -> dict[str, Any]:
        cid = next(self._ids)
        kind = "Bot" if login.endswith("[bot]") else "User"
        comment = {
            "id": cid,
            "node_id": f"IC_{cid}",
            "url": f"{API}/repos/{self.repo}/issues/comments/{cid}",
            "html_url": f"https://github.com/{self.repo}/pull/{pr}#issuecomment-{cid}",
            "issue_url": f"{API}/repos/{self.repo}/issues/{pr}",
            "body": body,
            "user": user(login, 40 + cid % 7, kind),
            "created_at": NOW,
            "updated_at": NOW,
            "author_association": "NONE",
            "_pr": pr,
        }
        self.comments[cid] = comment
        return comment

    def _react(self, _req: Any, body: dict[str, Any], cid: str) -> Reply:
        if int(cid) not in self.comments:
            return _json(404, {"message": "Not Found"})
        repeat = (int(cid), body["content"]) in self.reactions
        self.reactions.append((int(cid), body["content"]))
        reaction = {
            "id": next(self._ids),
            "node_id": "REA_1",
            "user": user(self.bot_login, 41, "Bot"),
            "content": body["content"],
            "created_at": NOW,
        }
        return _json(200 if repeat else 201, reaction)

    def _graphql(self, _req: Any, body: dict[str, Any]) -> Reply:
        if "addReaction" not in body["query"]:
            return _json(200, {"errors": [{"message": "unsupported query"}]})
        subject, content = body["variables"]["subject"], body["variables"]["content"]
        self.node_reactions.append((subject, content))
        return _json(200, {"data": {"addReaction": {"reaction": {"content": content}}}})

    def _status(self, _req: Any, body: dict[str, Any], sha: str) -> Reply:
        status = {
            "url": f"{API}/repos/{self.repo}/statuses/{sha}",
            "avatar_url": None,
            "id": next(self._ids),
            "node_id": "SC_1",
            "state": body["state"],
            "description": body.get("description"),
            "target_url": body.get("target_url"),
            "context": body.get("context", "default"),
            "created_at": NOW,
            "updated_at": NOW,
            "creator": user(self.bot_login, 41, "Bot"),
        }
        self.statuses.append({**status, "sha": sha})
        return _json(201, status)

    def _list_statuses(self, _req: Any, _body: Any, sha: str) -> Reply:
        found = [s for s in reversed(self.statuses) if s["sha"] == sha]  # newest first
        return _json(200, [{k: v for k, v in s.items() if k != "sha"} for s in found])

    def _get_commit(self, _req: Any, _body: Any, sha: str) -> Reply:
        reason = self.signed_commits.get(sha, "unsigned")
        person = {"name": "Someone", "email": "someone@example.com", "date": NOW}
        url = f"{API}/repos/{self.repo}/commits/{sha}"
        verification = {
            "verified": reason == "valid",
            "reason": reason,
            "payload": None,
            "signature": None,
            "verified_at": NOW if reason == "valid" else None,
        }
        commit = {
            "author": person,
            "committer": person,
            "comment_count": 0,
            "message": "a commit",
            "tree": {"sha": "0" * 40, "url": f"{API}/repos/{self.repo}/git/trees/{'0' * 40}"},
            "url": f"{API}/repos/{self.repo}/git/commits/{sha}",
            "verification": verification,
        }
        return _json(
            200,
            {
                "url": url,
                "sha": sha,
                "node_id": "C_1",
                "html_url": f"https://github.com/{self.repo}/commit/{sha}",
                "comments_url": f"{url}/comments",
                "commit": commit,
                "author": user("someone", 77),
                "committer": user("someone", 77),
                "parents": [],
            },
        )

    def _create_check(self, _req: Any, body: dict[str, Any]) -> Reply:
        cid = next(self._ids)
        self.check_runs[cid] = {"id": cid, **body}
        self.annotations[cid] = list(body.get("output", {}).get("annotations", []))
        return _json(201, self._check_json(cid))

    def _list_checks(self, req: requests.PreparedRequest, _body: Any, sha: str) -> Reply:
        name = parse_qs(urlsplit(str(req.url)).query).get("check_name", [None])[0]
        found = [
            self._check_json(cid)
            for cid, run in sorted(self.check_runs.items(), reverse=True)
            if run["head_sha"] == sha and name in (None, run["name"])
        ]
        return _json(200, {"total_count": len(found), "check_runs": found})

    def _update_check(self, _req: Any, body: dict[str, Any], cid: str) -> Reply:
        run = self.check_runs.get(int(cid))
        if run is None:
            return _json(404, {"message": "Not Found"})
        run.update({k: v for k, v in body.items() if k != "output"})
        if "output" in body:
            output = dict(body["output"])
            self.annotations[int(cid)].extend(output.pop("annotations", []))
            run["output"] = output
        return _json(200, self._check_json(int(cid)))

    def _check_json(self, cid: int) -> dict[str, Any]:
        run = self.check_runs[cid]
        output = run.get("output", {})
        url = f"{API}/repos/{self.repo}/check-runs/{cid}"
        return {
            "id": cid,
            "head_sha": run["head_sha"],
            "node_id": f"CR_{cid}",
            "external_id": run.get("external_id") or "",
            "url": url,
            "html_url": f"https://github.com/{self.repo}/runs/{cid}",
            "details_url": run.get("details_url"),
            "status": run.get("status", "completed"),
            "conclusion": run.get("conclusion"),
            "started_at": NOW,
            "completed_at": NOW,
            "output": {
                "title": output.get("title"),
                "summary": output.get("summary"),
                "text": output.get("text"),
                "annotations_count": len(self.annotations[cid]),
                "annotations_url": f"{url}/annotations",
            },
            "name": run["name"],
            "check_suite": {"id": 77},
            "app": None,
            "pull_requests": [],
        }


def pull(
    repo: str, number: int, *, author: str, head_sha: str, base_sha: str, base_ref: str = "main"
) -> dict[str, Any]:
    """A `pull-request` object as `GET /repos/{o}/{r}/pulls/{n}` returns it."""
    url = f"{API}/repos/{repo}/pulls/{number}"
    html = f"https://github.com/{repo}/pull/{number}"
    issue_url = f"{API}/repos/{repo}/issues/{number}"
    links = {
        name: {"href": href}
        for name, href in {
            "self": url,
            "html": html,
            "issue": issue_url,
            "comments": f"{issue_url}/comments",
            "review_comments": f"{url}/comments",
            "review_comment": f"{API}/repos/{repo}/pulls/comments{{/number}}",
            "commits": f"{url}/commits",
            "statuses": f"{API}/repos/{repo}/statuses/{head_sha}",
        }.items()
    }
    return {
        "url": url,
        "id": 7000 + number,
        "node_id": f"PR_{number}",
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": issue_url,
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": f"{API}/repos/{repo}/pulls/comments{{/number}}",
        "comments_url": f"{issue_url}/comments",
        "statuses_url": f"{API}/repos/{repo}/statuses/{head_sha}",
        "number": number,
        "state": "open",
        "locked": False,
        "title": "Add the widget report",
        "user": user(author, 3),
        "body": "Closes #12",
        "labels": [],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": "2026-03-01T09:00:00Z",
        "updated_at": "2026-03-01T09:00:00Z",
        "closed_at": None,
        "merged_at": None,
        "merge_commit_sha": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "head": _ref(repo, "feature", head_sha, author),
        "base": _ref(repo, base_ref, base_sha, repo.split("/")[0]),
        "_links": links,
        "author_association": "CONTRIBUTOR",
        "auto_merge": None,
        "draft": False,
        "merged": False,
        "mergeable": True,
        "rebaseable": True,
        "mergeable_state": "clean",
        "merged_by": None,
        "comments": 0,
        "review_comments": 0,
        "maintainer_can_modify": False,
        "commits": 1,
        "additions": 1,
        "deletions": 0,
        "changed_files": 1,
    }


def _ref(repo: str, ref: str, sha: str, owner: str) -> dict[str, Any]:
    return {
        "label": f"{owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user(owner, 4),
        "repo": repository(repo),
    }


_REPO_URLS = (
    "archive_url=/{archive_format}{/ref} assignees_url=/assignees{/user} "
    "blobs_url=/git/blobs{/sha} branches_url=/branches{/branch} "
    "collaborators_url=/collaborators{/collaborator} comments_url=/comments{/number} "
    "commits_url=/commits{/sha} compare_url=/compare/{base}...{head} "
    "contents_url=/contents/{+path} contributors_url=/contributors deployments_url=/deployments "
    "downloads_url=/downloads events_url=/events forks_url=/forks "
    "git_commits_url=/git/commits{/sha} git_refs_url=/git/refs{/sha} "
    "git_tags_url=/git/tags{/sha} hooks_url=/hooks "
    "issue_comment_url=/issues/comments{/number} issue_events_url=/issues/events{/number} "
    "issues_url=/issues{/number} keys_url=/keys{/key_id} labels_url=/labels{/name} "
    "languages_url=/languages merges_url=/merges milestones_url=/milestones{/number} "
    "notifications_url=/notifications{?since,all,participating} pulls_url=/pulls{/number} "
    "releases_url=/releases{/id} stargazers_url=/stargazers statuses_url=/statuses/{sha} "
    "subscribers_url=/subscribers subscription_url=/subscription tags_url=/tags teams_url=/teams "
    "trees_url=/git/trees{/sha}"
)


def repository(full_name: str) -> dict[str, Any]:
    """A `repository` object."""
    owner, name = full_name.split("/")
    url = f"{API}/repos/{full_name}"
    links = dict(item.split("=", 1) for item in _REPO_URLS.split())
    return {
        **{key: url + suffix for key, suffix in links.items()},
        "id": 600,
        "node_id": "R_600",
        "name": name,
        "full_name": full_name,
        "owner": user(owner, 5, "Organization"),
        "private": False,
        "html_url": f"https://github.com/{full_name}",
        "description": None,
        "fork": False,
        "url": url,
        "clone_url": f"https://github.com/{full_name}.git",
        "git_url": f"git://github.com/{full_name}.git",
        "ssh_url": f"git@github.com:{full_name}.git",
        "svn_url": f"https://github.com/{full_name}",
        "mirror_url": None,
        "homepage": None,
        "language": "Python",
        "forks": 0,
        "forks_count": 0,
        "stargazers_count": 0,
        "watchers": 0,
        "watchers_count": 0,
        "size": 10,
        "default_branch": "main",
        "open_issues": 1,
        "open_issues_count": 1,
        "has_issues": True,
        "has_projects": False,
        "has_wiki": False,
        "has_pages": False,
        "has_downloads": True,
        "archived": False,
        "disabled": False,
        "license": None,
        "pushed_at": "2026-03-01T09:00:00Z",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-03-01T09:00:00Z",
    }


def _collaborator(login: str, role: str) -> dict[str, Any]:
    admin = role == "admin"
    push = role in ("admin", "maintain", "write")
    permissions = {
        "pull": True,
        "triage": role != "read",
        "push": push,
        "maintain": admin or role == "maintain",
        "admin": admin,
    }
    return {**user(login, 50), "permissions": permissions, "role_name": role}


def _public(comment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in comment.items() if not k.startswith("_")}


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    return (
        status,
        {"Content-Type": "application/json; charset=utf-8", **(headers or {})},
        json.dumps(body),
    )
