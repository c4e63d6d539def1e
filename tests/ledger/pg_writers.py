"""Writer processes for the PostgreSQL ledger's concurrency tests: each appends its batches of
event lines through the store API, in its own process and connection, and reports what failed."""

from __future__ import annotations

import traceback
from typing import Any

from rubricate.ledger.event import Event


def append_batches(url: str, batches: list[list[str]], start: Any, errors: Any) -> None:
    """Wait for `start` (a barrier), then append each batch in its own transaction; put any
    error's traceback on the `errors` queue."""
    from rubricate.ledger.pg_store import PostgresStore

    try:
        with PostgresStore(url) as store:
            start.wait(timeout=120)
            for batch in batches:
                store.append([Event.model_validate_json(line) for line in batch])
    except BaseException:
        errors.put(traceback.format_exc())
        raise
