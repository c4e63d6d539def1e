"""Generated sections of docs/: the config reference and the command table (test support).

The config reference is rendered from `schemas/config.schema.json`, the command table from the
bot's command definitions. `python -m tests.action.docs_reference` rewrites the sections between
`<!-- generated:NAME -->` and `<!-- end:NAME -->`; a test checks they are current.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schemas" / "config.schema.json"
DOCS = ROOT / "docs"
Row = tuple[str, str, str, str]
FALLBACK_DESCRIPTIONS = {
    "commands.roles": "Minimum role per command (the default lists them); unnamed commands "
    "keep their defaults.",
    "reputation.weights.": "Weight of this reputation component; the weights of components "
    "with data are renormalized.",
    "reputation.trust.": "Weight of a `/rate` by a rater with this role (`default`: any other).",
}
MOMENTS = {"open": "open PR", "merged": "after merge", "any": "any time"}


def section(name: str, text: str) -> str | None:
    """The generated section `name` of a document, or None when it has none."""
    match = re.search(rf"<!-- generated:{name} -->\n(.*?)<!-- end:{name} -->", text, re.DOTALL)
    return match.group(1) if match else None


def replace_section(name: str, text: str, body: str) -> str:
    """The document with the section `name` replaced by `body`."""
    pattern = rf"(<!-- generated:{name} -->\n).*?(<!-- end:{name} -->)"
    return re.sub(pattern, lambda m: m.group(1) + body + m.group(2), text, flags=re.DOTALL)


def config_reference(schema: dict[str, Any]) -> str:
    """A markdown table of every config key: type, default and description."""
    lines = ["| key | type | default | description |", "|---|---|---|---|"]
    lines += [f"| `{k}` | {t} | {d} | {desc} |" for k, t, d, desc in _rows(schema, schema, "")]
    return "\n".join(lines) + "\n"


def _rows(node: dict[str, Any], root: dict[str, Any], prefix: str) -> Iterator[Row]:
    for name, prop in node.get("properties", {}).items():
        key, target = f"{prefix}{name}", _resolve(prop, root)
        described = prop.get("description") or target.get("description") or _fallback(key)
        if "properties" in target:
            yield key, "mapping", "", _cell(described)
            yield from _rows(target, root, f"{key}.")
            continue
        items = _resolve(target.get("items", {}), root)
        if "properties" in items:
            yield key, "list", _default(prop), _cell(described or items.get("description", ""))
            yield from _rows(items, root, f"{key}[].")
            continue
        required = name in node.get("required", ())
        default = "required" if required else _default(prop)
        yield key, _type(target), default, _cell(described)


def _fallback(key: str) -> str:
    return next((text for k, text in FALLBACK_DESCRIPTIONS.items() if key.startswith(k)), "")


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not ref:
        return node
    found: Any = root
    for part in ref.removeprefix("#/").split("/"):
        found = found[part]
    return dict(found)


def _type(node: dict[str, Any]) -> str:
    if "anyOf" in node:
        return " or ".join(_type(option) for option in node["anyOf"])
    if "enum" in node:
        return " \\| ".join(f"`{value}`" for value in node["enum"])
    kind = node.get("type", "any")
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"mapping of {_type(node['additionalProperties'])}"
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}"
    return {"null": "null", "object": "mapping"}.get(kind, kind)


def _default(prop: dict[str, Any]) -> str:
    return f"`{json.dumps(prop['default'])}`" if "default" in prop else ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def command_table() -> str:
    """The slash commands, their default minimum role and what they do."""
    from rubricate.bot.command_table import COMMANDS

    lines = ["| command | minimum role | when | what it does |", "|---|---|---|---|"]
    for spec in COMMANDS:
        role = spec.role
        who = "anyone" if role == "none" else role
        when = MOMENTS.get(spec.moment, spec.moment)
        lines.append(f"| `{spec.usage}` | {who} | {when} | {_cell(spec.summary)} |")
    return "\n".join(lines) + "\n"


GENERATORS: dict[tuple[str, str], Callable[[], str]] = {
    ("config.md", "config-reference"): lambda: config_reference(json.loads(SCHEMA.read_text())),
    ("commands.md", "commands"): command_table,
}


def main() -> int:
    """Rewrite every generated section in docs/."""
    for (doc, name), generate in GENERATORS.items():
        path = DOCS / doc
        path.write_text(replace_section(name, path.read_text(), generate()), encoding="utf-8")
        sys.stdout.write(f"updated {path.relative_to(ROOT)} ({name})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
