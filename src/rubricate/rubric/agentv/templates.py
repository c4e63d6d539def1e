"""AgentV templates in eval files: per-test `vars` and `{{ env.X }}` (pure: no I/O).

EntityProcess/agentv at 58f316c, `packages/core/src/evaluation/`:

- A test's `vars` are rendered into its own `id`, `description`, `criteria`,
  `expected_outcome`, `input` and `assert` (v4: `assertions`) at load (`yaml-parser.ts`
  489-519, 1551-1553; v4.42.4 `yaml-parser.ts` 289-330). A name is reachable as `{{ name }}` and
  as `{{ vars.name }}`; a field that is exactly one `{{ path }}` keeps the variable's own value
  (a list stays a list); an unknown name renders as nothing (`interpolation.ts` 5-7, 46-53,
  132-147). rubricate renders paths and the `default(...)` filter; any other template syntax
  is left as written, with a warning.
- `{{ env.X }}` is rendered over the whole file and its case files when they are read
  (`interpolation.ts` 8, 74-79, 107-123; `yaml-parser.ts` 1429). rubricate renders it only for
  names the config lists under `agentv.env` (the caller passes just those values): an
  unlisted name is an error that names it, so no other variable of the environment, and no
  secret, can reach a prompt, a comment or the ledger. A string holding `${{` (a GitHub
  Actions expression) is left alone, as AgentV leaves it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from rubricate.rubric.located import Located

Env = Mapping[str, str | None]
"""The values of the names `agentv.env` allows (None: listed but not set)."""
CASE_FIELDS = ("id", "description", "criteria", "expected_outcome", "input", "assert", "assertions")
_PATH = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_WHOLE = re.compile(rf"^\s*\{{\{{\s*({_PATH})\s*\}}\}}\s*$")
_LITERAL = r"'[^']*'|\"[^\"]*\"|-?[0-9]+(?:\.[0-9]+)?|true|false"
_EXPR = re.compile(rf"^\s*({_PATH})\s*(?:\|\s*default\(\s*({_LITERAL})?\s*\)\s*)?$")
_ENV = re.compile(r"^\s*env\.([A-Za-z_][A-Za-z0-9_]*)")


def render_case(test: Located) -> Located:
    """The test with its `vars` rendered into its own fields (the test itself without `vars`)."""
    data = test.value
    variables = data.get("vars") if isinstance(data, dict) else None
    if not isinstance(variables, dict):
        return test
    context = {**variables, "vars": variables}
    rendered = dict(data)
    for key in CASE_FIELDS:
        if key in data:
            rendered[key] = _vars(data[key], context, test, (key,))
    return type(test)(rendered, test.loc, test.problems)


def render_env(where: Located, env: Env | None) -> Located:
    """The value with every `{{ env.X }}` rendered; an unlisted name is an error at its place."""
    return type(where)(_env_value(where.value, env, where, ()), where.loc, where.problems)


def _vars(value: Any, context: dict[str, Any], where: Located, loc: tuple[Any, ...]) -> Any:
    if isinstance(value, list):
        return [_vars(v, context, where, (*loc, i)) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _vars(v, context, where, (*loc, k)) for k, v in value.items()}
    if not isinstance(value, str) or "{{" not in value:
        return value
    whole = _WHOLE.match(value)
    if whole and not whole.group(1).startswith("env."):
        found = _lookup(context, whole.group(1))
        if found is not None:
            return found

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        if _ENV.match(inner):
            return match.group(0)
        expr = _EXPR.match(inner)
        if expr is None:
            message = "is left as written: only names and `default(...)` are rendered"
            where.warn(f"template {match.group(0)!r} {message}", *loc)
            return match.group(0)
        found = _lookup(context, expr.group(1))
        if found is None and expr.group(2) is not None:
            found = _literal(expr.group(2))
        return _text(found)

    return _TEMPLATE.sub(one, value)


def _env_value(value: Any, env: Env | None, where: Located, loc: tuple[Any, ...]) -> Any:
    if isinstance(value, list):
        return [_env_value(v, env, where, (*loc, i)) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _env_value(v, env, where, (*loc, k)) for k, v in value.items()}
    if not isinstance(value, str) or "{{" not in value or "${{" in value:
        return value

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        name = _ENV.match(inner)
        if name is None:
            return match.group(0)
        allowed = env or {}
        if name.group(1) not in allowed:
            where.error(
                f"`{{{{ env.{name.group(1)} }}}}`: {name.group(1)} is not listed under "
                "`agentv.env` in .github/rubricate.yml, so it is not rendered",
                *loc,
            )
            return match.group(0)
        expr = _EXPR.match(inner)
        given = allowed[name.group(1)]
        if given is None and expr is not None and expr.group(2) is not None:
            return _text(_literal(expr.group(2)))
        return given or ""

    return _TEMPLATE.sub(one, value)


def _lookup(context: Mapping[str, Any], path: str) -> Any:
    current: Any = context
    for part in path.split("."):
        if not isinstance(current, dict) or part not in current:
            return None
        current = current[part]
    return current


def _literal(text: str) -> Any:
    if text[0] in "'\"":
        return text[1:-1]
    return json.loads(text)


def _text(value: Any) -> str:
    """A value as nunjucks prints it: nothing for none, `true`/`false`, lists joined by `,`."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return "[object Object]"
    return "" if value is None else str(value)
