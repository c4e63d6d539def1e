"""One commit written through `git fast-import` as its files come (shell: runs git).

Each file goes to the process as it is given, and git packs it as it arrives, so memory holds
none of them. Nothing is committed before `finish`, and then only on a private ref: a stream that
is abandoned, or whose process is killed, leaves every branch as it was.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO

from rubricate.gitio.run import GitError, start_git

_ARGS = ["fast-import", "--quiet", "--force", "--done"]


class CommitStream:
    """A commit on `ref` (on top of `parent`, when given), its changes sent one at a time.

    The process starts with the first change (or at `finish`); a `with` block aborts the stream
    unless it finished.
    """

    def __init__(
        self, gitdir: Path, env: dict[str, str], ref: str, parent: str | None, header: bytes
    ) -> None:
        self._gitdir = gitdir
        self._env = env
        self._head = f"reset {ref}\ncommit {ref}\nmark :1\n".encode() + header
        if parent:
            self._head += f"from {parent}\n".encode()
        self._proc: subprocess.Popen[bytes] | None = None
        self._errors: IO[bytes] | None = None

    @property
    def started(self) -> bool:
        """True once a change was sent (the process runs)."""
        return self._proc is not None

    def put(self, path: str, data: bytes) -> None:
        """Write a file (mode 100644) at `path`."""
        self._send(f"M 100644 inline {path}\n".encode() + data_command(data))

    def delete(self, path: str) -> None:
        """Delete the file at `path`."""
        self._send(f"D {path}\n".encode())

    def finish(self) -> str:
        """End the stream and return the commit's id."""
        self._send(b"get-mark :1\ndone\n")
        proc = self._running()
        assert proc.stdin is not None
        assert proc.stdout is not None
        try:
            proc.stdin.close()
            out = proc.stdout.read()
            code = proc.wait(timeout=600)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            raise self._failure() from None
        if code != 0:
            raise self._failure()
        self._close()
        return out.decode().strip()

    def abort(self) -> None:
        """Stop the process, if it runs: nothing is committed."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._close()

    def __enter__(self) -> CommitStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.abort()

    def _send(self, chunk: bytes) -> None:
        self._write(self._running(), chunk)

    def _write(self, proc: subprocess.Popen[bytes], chunk: bytes) -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(chunk)
        except BrokenPipeError:
            raise self._failure() from None

    def _running(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the process
            self._proc = start_git(_ARGS, self._gitdir, env=self._env, stderr=self._errors)
            self._write(self._proc, self._head)
        return self._proc

    def _failure(self) -> GitError:
        """The error the process reported (it is stopped)."""
        text = ""
        if self._proc is not None:
            self._proc.kill()
            code = self._proc.wait()
            if self._errors is not None:
                self._errors.seek(0)
                text = self._errors.read().decode("utf-8", "replace")
            self._close()
        else:
            code = -1
        return GitError(_ARGS, code, text or "git fast-import stopped")

    def _close(self) -> None:
        if self._proc is not None:
            for pipe in (self._proc.stdin, self._proc.stdout):
                if pipe is not None and not pipe.closed:
                    with contextlib.suppress(BrokenPipeError):  # unsent data of a stopped process
                        pipe.close()
        if self._errors is not None:
            self._errors.close()
        self._proc = None
        self._errors = None


def data_command(payload: bytes) -> bytes:
    """fast-import's `data` command carrying `payload`."""
    return b"data %d\n" % len(payload) + payload + b"\n"
