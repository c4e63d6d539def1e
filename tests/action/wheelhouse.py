"""An offline wheelhouse and lock for the action's install step (test support only).

The action installs `requirements/action.lock` from the package index. Tests have no index, so
each locked distribution installed in the running interpreter is packed back into a wheel, and
a lock pinning exactly those versions is written beside it. pip and uv then install offline.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

_LOCK_LINE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:;(?P<marker>[^\\]*))?"
)
_SKIPPED = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def locked_names(lock_text: str) -> list[str]:
    """The distributions a lock installs on this interpreter (markers evaluated here)."""
    names: list[str] = []
    for line in lock_text.splitlines():
        match = _LOCK_LINE.match(line)
        if match is None:
            continue
        marker = (match.group("marker") or "").strip()
        if marker and not Marker(marker).evaluate():
            continue
        names.append(canonicalize_name(match.group("name")))
    return sorted(set(names))


def build_wheelhouse(names: list[str], dest: Path) -> str:
    """Pack each installed distribution into `dest`; return a lock pinning those versions."""
    dest.mkdir(parents=True, exist_ok=True)
    pins = []
    for name in names:
        dist = metadata.distribution(name)
        _repack(dist, dest)
        pins.append(f"{name}=={dist.version}")
    return "\n".join(pins) + "\n"


def _repack(dist: metadata.Distribution, dest: Path) -> Path:
    info_dir = _info_dir(dist)
    root = Path(str(dist.locate_file("")))
    wheel = dest / f"{info_dir.removesuffix('.dist-info')}-{_tag(dist)}.whl"
    records: list[str] = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for path in dist.files or ():
            name = path.as_posix()
            if name.startswith("..") or "__pycache__" in name or Path(name).name in _SKIPPED:
                continue
            data = (root / name).read_bytes()
            archive.writestr(name, data)
            records.append(f"{name},sha256={_digest(data)},{len(data)}")
        records.append(f"{info_dir}/RECORD,,")
        archive.writestr(f"{info_dir}/RECORD", "\n".join(records) + "\n")
    return wheel


def _info_dir(dist: metadata.Distribution) -> str:
    for path in dist.files or ():
        if path.parts and path.parts[0].endswith(".dist-info"):
            return path.parts[0]
    raise LookupError(f"{dist.metadata['Name']} has no .dist-info directory in its RECORD")


def _tag(dist: metadata.Distribution) -> str:
    wheel_file = dist.read_text("WHEEL") or ""
    tags = [
        line.split(":", 1)[1].strip() for line in wheel_file.splitlines() if line.startswith("Tag:")
    ]
    if not tags:
        return "py3-none-any"
    # a universal wheel lists `py2-none-any` and `py3-none-any`: compress to `py2.py3-none-any`
    parts = [tag.split("-") for tag in tags]
    return "-".join(".".join(dict.fromkeys(p[i] for p in parts)) for i in range(3))


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
