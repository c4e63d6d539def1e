"""The receiver's and the workers' warnings carry their time, level and logger, so an operator
can line them up with the database's log after an outage."""

from __future__ import annotations

import re
import subprocess
import sys

LOGS = """
import logging
from rubricate.serve.server import log_with_times
log_with_times()
log = logging.getLogger("rubricate.serve.liveness")
log.warning("job %s put back: its worker is %s", 7, "gone")
log.info("not shown: below the warnings")
"""


def test_a_warning_is_one_line_with_its_time_level_and_logger() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOGS], capture_output=True, text=True, check=True, timeout=60
    )
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"
    pattern = stamp + r" WARNING rubricate\.serve\.liveness: job 7 put back: its worker is gone"
    assert re.fullmatch(pattern, lines[0]), lines[0]


UVICORN = """
import logging
from starlette.applications import Starlette
from rubricate.serve.server import receiver_config
receiver_config(Starlette(), "127.0.0.1", 8080)
logging.getLogger("uvicorn.error").warning("the receiver's own warning")
"""


def test_the_receiver_s_uvicorn_lines_carry_the_same_time_and_level() -> None:
    done = subprocess.run(
        [sys.executable, "-c", UVICORN], capture_output=True, text=True, check=True, timeout=60
    )
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"
    pattern = stamp + r" WARNING uvicorn\.error: the receiver's own warning"
    assert re.fullmatch(pattern, done.stderr.strip()), done.stderr
