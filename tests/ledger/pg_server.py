"""A throwaway PostgreSQL server for tests: Debian's binaries, a temporary folder, loopback.

The server runs as a non-root user (`nobody` when the tests run as root, via `runuser`), on a
free loopback port, with trust authentication; `stop` removes everything it made.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

USER = "nobody"


def bin_dir() -> Path | None:
    """Where Debian's PostgreSQL binaries are (the newest version), or None without them."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    return Path(found[-1]).parent if found else None


def _version(path: str) -> float:
    try:
        return float(Path(path).parts[-3])
    except ValueError:
        return 0.0


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A running server: its folder, port and binaries."""

    root: Path
    port: int
    bin: Path

    @property
    def options(self) -> str:
        """The server's command-line options."""
        return f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"

    def crash_restart(self) -> None:
        """Stop it at once, as a crash would (`pg_ctl stop -m immediate`), and start it again."""
        data = str(self.root / "data")
        self.run("pg_ctl", "-D", data, "-m", "immediate", "stop")
        self.run(
            "pg_ctl", "-D", data, "-o", self.options, "-l", str(self.root / "log"), "-w", "start"
        )

    def url(self, database: str = "postgres") -> str:
        """A URL for one of its databases."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run one of its binaries as the server's user."""
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", USER, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)

    def stop(self) -> None:
        """Stop it at once and remove its folder."""
        subprocess.run(
            self._as_user(
                [str(self.bin / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "stop"]
            ),
            capture_output=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)

    def _as_user(self, command: list[str]) -> list[str]:
        return ["runuser", "-u", USER, "--", *command] if os.geteuid() == 0 else command


def start(binaries: Path) -> Server:
    """initdb and start a server in a new temporary folder."""
    root = Path(tempfile.mkdtemp(prefix="rubricate-pg-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam(USER)
        os.chown(root, user.pw_uid, user.pw_gid)
    server = Server(root, free_port(), binaries)
    data = str(root / "data")
    try:
        server.run(
            "initdb",
            "-D",
            data,
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )
        server.run(
            "pg_ctl", "-D", data, "-o", server.options, "-l", str(root / "log"), "-w", "start"
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        server.stop()
        raise
    return server
