"""Words of scripts written without spaces, read as character pairs (pure: no I/O).

The injection detector and the check of the judge's reports count words the same way: in Thai,
kana, CJK ideographs and Hangul syllables a run of letters is read as its character pairs.
"""

from __future__ import annotations

import re

UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
"""A character of a script read as character pairs rather than words."""


def unspaced_pairs(token: str) -> list[str]:
    """Character pairs of a run in a script without spaces (a lone character stays itself)."""
    if len(token) < 2:
        return [token]
    return [token[i : i + 2] for i in range(len(token) - 1)]
