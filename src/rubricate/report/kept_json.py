"""Parts of the report document kept as the JSON text the last report wrote (pure: text in, text
out; see DESIGN.md §9 and docs/report.md).

`report.json` is the document in canonical JSON (keys sorted, compact). A part that did not
change (a job's row, an author's series) is kept as its canonical text by the report's state, so
the next report neither parses it where nothing reads it (`KeptJSON`) nor encodes it again: the
writer (`canonical`) puts the kept text where the part goes. A part read with `KeptRow` is a
dict, and carries its text for the writer.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload


def canonical(value: Any) -> str:
    """The canonical JSON of `value`, kept parts written as the text they were kept as."""
    try:
        return _PLAIN.encode(value)  # most values hold no kept part: encoded in one go
    except _HoldsKept:
        pass
    kept: list[str] = []
    mark = secrets.token_hex(8)  # no text of the ledger can guess it

    def keep(part: Any) -> str:
        if not isinstance(part, KeptJSON):
            raise TypeError(f"{type(part).__name__} is not JSON")
        kept.append(part.text)
        return f"\0{mark}:{len(kept) - 1}\0"

    text = json.dumps(value, sort_keys=True, allow_nan=False, separators=(",", ":"), default=keep)
    return re.sub(rf'"\\u0000{mark}:(\d+)\\u0000"', lambda m: kept[int(m[1])], text)


class _HoldsKept(Exception):
    """The value holds a kept part."""


def _no_kept(part: Any) -> Any:
    if isinstance(part, KeptJSON):
        raise _HoldsKept
    raise TypeError(f"{type(part).__name__} is not JSON")


_PLAIN = json.JSONEncoder(sort_keys=True, allow_nan=False, separators=(",", ":"), default=_no_kept)
"""The canonical encoder of values that hold no kept part."""


class KeptJSON(Sequence[Any]):
    """A JSON value kept as its canonical text, written as that text by `canonical`; an array's
    items are parsed when one is first read."""

    def __init__(self, text: str, value: Any = None):
        self.text = text
        self._read: Any = value
        """The parsed value: given when the text was made from it, else read when first used."""

    def items(self) -> Any:
        """The parsed value."""
        if self._read is None:
            self._read = json.loads(self.text)
        return self._read

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self.items()[index]

    def __len__(self) -> int:
        return len(self.items())

    def __reduce__(self) -> tuple[Any, ...]:  # sent to a page worker as its text
        return (KeptJSON, (self.text,))


class KeptRow(dict[str, Any]):
    """A JSON object read from its canonical text (or made into it), which it keeps."""

    text: str

    @classmethod
    def made(cls, value: dict[str, Any]) -> KeptRow:
        """The object `value`, with its canonical text."""
        row = cls(value)
        row.text = canonical(value)
        return row

    @classmethod
    def read(cls, text: str) -> KeptRow:
        """The object of `text` (ValueError when it is not one)."""
        return cls.read_all([text])[0]

    @classmethod
    def read_all(cls, texts: Sequence[str]) -> list[KeptRow]:
        """The objects of these texts, parsed in one go (ValueError when one is not one)."""
        if not all(t[:1] == "{" and t[-1:] == "}" for t in texts):
            raise ValueError("a kept row is a JSON object")
        found = json.loads("[" + ",".join(texts) + "]")
        if len(found) != len(texts):
            raise ValueError("a kept row is one JSON object")
        rows = []
        for value, text in zip(found, texts, strict=True):
            row = cls(value)
            row.text = text
            rows.append(row)
        return rows


@dataclass(frozen=True)
class KeptSeries:
    """An author's series as the last report kept it (or as this one made it, its texts made
    once for report.json, the author pages' digests and the state): its last point (the
    author's entry) and every point as report.json shows it (`model.shown_point`), kept as
    text."""

    last: KeptRow
    shown: KeptJSON


def row_text(row: dict[str, Any]) -> str:
    """The canonical text of an object (the kept text of a `KeptRow`)."""
    return row.text if isinstance(row, KeptRow) else canonical(row)


def rows_for_writing(rows: Sequence[dict[str, Any]]) -> Any:
    """The rows for `canonical`: when some were kept, the whole array as one kept text (each
    kept row's text, each other row's canonical text, joined as `canonical` would join them)."""
    if not any(isinstance(r, KeptRow) for r in rows):
        return rows
    return KeptJSON("[" + ",".join(map(row_text, rows)) + "]")


class UnreadRow(KeptRow):
    """A kept row whose text is parsed when one of its fields is first used (the rows of jobs
    that did not change are only written again, as their text). Its author, the first key of
    the canonical text when the row has one, is read alone (the author pages find their rows
    by it)."""

    def __init__(self, text: str):
        super().__init__()
        self.text, self._unread = text, True

    def _load(self) -> UnreadRow:
        if self._unread:
            self._unread = False
            value = json.loads(self.text)
            if not isinstance(value, dict):
                raise ValueError("a kept row is a JSON object")
            dict.update(self, value)
        return self

    def __getitem__(self, key: str) -> Any:
        if self._unread and key == "author" and self.text.startswith(_AUTHOR):
            text = self.text
            end = text.find('"', _FIRST)  # a login with no escape in it is its text as it is
            if text[_FIRST - 1 : _FIRST] == '"' and end > 0 and "\\" not in text[_FIRST:end]:
                return text[_FIRST:end]
            return _DECODER.raw_decode(text, len(_AUTHOR))[0]
        return dict.__getitem__(self._load(), key)

    def get(self, key: str, default: Any = None) -> Any:
        return dict.get(self._load(), key, default)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self._load())

    def __len__(self) -> int:
        return dict.__len__(self._load())

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._load(), key)

    def keys(self) -> Any:
        return dict.keys(self._load())

    def values(self) -> Any:
        return dict.values(self._load())

    def items(self) -> Any:
        return dict.items(self._load())

    def copy(self) -> dict[str, Any]:
        return dict(self._load())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, UnreadRow):
            other._load()
        return dict.__eq__(self._load(), other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return dict.__repr__(self._load())

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self._load(), key, value)

    def __reduce__(self) -> tuple[Any, ...]:  # sent to a page worker as its text
        return (KeptRow.read, (self.text,))


_AUTHOR = '{"author":'
_FIRST = len(_AUTHOR) + 1
_DECODER = json.JSONDecoder()
