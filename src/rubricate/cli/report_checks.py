"""What `rubricate report` checks before it reads a ledger (shell: looks at the disk)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rubricate.errors import ConfigError
from rubricate.ledger.codec import LEDGER_DIR
from rubricate.report.memo import extra_missing


def require_extra(fmt: str) -> None:
    """Refuse to start without the `report` extra's packages (the site draws with pygal). They
    are looked for, not imported: numpy loads only when an estimate is drawn (a report that
    reuses the last one's estimates never needs it)."""
    for name in ("numpy", "pygal") if fmt == "html" else ("numpy",):
        if importlib.util.find_spec(name) is None:
            raise extra_missing(f"{name} is missing")


def require_ledger_folder(data: Path) -> None:
    """Refuse a `--data` folder that holds no ledger, as `--remote` refuses a missing branch (a
    mistyped path would publish an empty report)."""
    if not (data / LEDGER_DIR).is_dir():
        where = "no such folder" if not data.is_dir() else f"it has no {LEDGER_DIR} folder"
        raise ConfigError(
            f"--data {data}: {where}, so it is not a checkout of the data branch "
            "(git clone --branch rubricate-data URL DIR), or try --demo"
        )
