"""Every error rubricate reports to a user, in one hierarchy (pure: no I/O).

Exit code 2 is a mistake in what the user gave (a config, a rubric, a payload, a ledger line);
exit code 1 is a run that failed (git, the GitHub API, the data branch, applying effects).

    RubricateError
      SourceError, ScoreError, ConfigError, PayloadError, LedgerError    (exit 2)
      RunFailed: GitError, GitHubError, DataBranchError, ExecutionError, RateLimited  (exit 1)
        JudgeCallError (in `judge.calls`, beside the call records: it carries what the call cost)
      ReplyError, PromptTooLargeError (the judge), HandoffRefused (the graders artifact)
      ParseProblem: a deliverable that does not parse (its caller makes it a finding)

`Undecided` is the ledger's canonical reader leaving an input to the pydantic model;
`ledger.records` catches it.

The judge's faults (`JudgeCallError`, `ReplyError`) and `ParseProblem` are caught where they
are raised and recorded as findings; none reaches the user as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Diagnostic:
    """One located message about a source file: `path:line:col: message`."""

    path: str
    line: int
    col: int
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        prefix = "" if self.severity == "error" else f"{self.severity}: "
        return f"{self.path}:{self.line}:{self.col}: {prefix}{self.message}"


@dataclass(frozen=True)
class LedgerProblem:
    """One located problem in a ledger shard: `file:line: message`."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class RubricateError(Exception):
    """Base of every error that rubricate reports to a user without a traceback."""

    exit_code = 2


class SourceError(RubricateError):
    """A rubric or config file failed validation; carries every located diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class ScoreError(RubricateError):
    """A score that names an unknown criterion or lies outside the allowed range."""


class ConfigError(RubricateError):
    """A configuration that cannot be used (missing file, bad value, bad schema)."""


class FileReferenceError(ConfigError):
    """A file a rubric file refers to (`include:`, `file://`) that cannot be read or is refused."""


class PayloadError(RubricateError):
    """A webhook payload without a field the bot needs."""


class LedgerError(RubricateError):
    """An event that is not valid, or a ledger that cannot be used."""


class RunFailed(RubricateError):
    """The run itself failed (exit 1), never a silent pass."""

    exit_code = 1


class GitError(RunFailed):
    """A git command failed; the message carries git's own words, never credentials.

    A run failure: a remote that cannot be reached, a timeout. Mistakes in what the user gave
    (an unknown ref, a path that is not a repository) are checked before git runs and reported
    as their own errors.
    """

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        self.args_ = tuple(args)
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(f"git {' '.join(args[:2])} failed ({returncode}): {gist(stderr)[:500]}")


class GitHubError(RunFailed):
    """A GitHub API call failed."""


class AnswerLost(GitHubError):
    """A request was sent but its answer never came (a timeout): the server may have acted."""


class RoleUnreadable(GitHubError):
    """The collaborator-permission endpoint gave no role (a 404, or not a permission object)."""


class DataBranchError(RunFailed):
    """The data branch could not be read or written."""


class ExecutionError(RunFailed):
    """Some effects could not be applied."""


class RateLimited(RunFailed):
    """GitHub asked an App installation to wait until `until` (a rate limit): the job is put
    back until then, never slept on."""

    def __init__(self, until: datetime, why: str = "GitHub's rate limit: no request") -> None:
        super().__init__(f"{why} before {until.isoformat()}")
        self.until = until


class WritesPaced(RateLimited):
    """The installation's pace of writes (`rubricate.serve.write_pace`) has no slot before
    `until`: the job is put back until then; the installation's reads are not blocked."""

    def __init__(self, until: datetime) -> None:
        super().__init__(until, "the installation's pace of writes: no write")


class JobFailed(RunFailed):
    """A worker job's ordinary failure (not a wait), with how many it has had, this one
    included (`rubricate.serve.failures`)."""

    def __init__(self, failures: int, cause: BaseException) -> None:
        super().__init__(f"{cause} (failure {failures} of this job)")
        self.failures = failures


class Busy(RunFailed):
    """Another job holds the lock this one runs under (its PR's): this one is retried later."""


class HandledMeanwhile(RunFailed):
    """A delivery left `queued` while a worker handled it (another run committed first): this
    run's transaction is rolled back."""


def gist(stderr: str) -> str:
    """Git's error lines (`fatal:`/`error:`) on one line; all of stderr when it has none."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return "; ".join(errors or lines)


class SchemaRefError(ConfigError):
    """A schema `$ref` that names no file in the repository, or a URL that is never fetched."""


def read_problem(exc: OSError | UnicodeDecodeError) -> str:
    """A short reason for a failed read: `no such file`, `is a directory`, `not UTF-8 text`."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start} cannot be decoded)"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file"
    if isinstance(exc, NotADirectoryError):
        return "a part of the path is not a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return str(exc.strerror or exc)


class ReplyError(RubricateError):
    """A judge reply that cannot be accepted; `problems` lists every reason."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


class PromptTooLargeError(RubricateError):
    """The rubric alone does not fit the token budget."""


class HandoffRefused(RubricateError):
    """The artifact breaks a limit or is not what the graders job writes; nothing is read."""


class ParseProblem(RubricateError):
    """A file that does not parse: the message and the 1-based line where known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class Undecided(RubricateError):
    """The ledger's canonical reader does not decide this value: the model built by
    `ledger.event_model` does (never reaches a user)."""
