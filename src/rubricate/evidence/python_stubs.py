"""Python functions with an empty body, and where a line sits (pure: `ast` only).

A body is expected of a function of a module or of another function, without decorators
(decorated functions are registrations, overloads or abstract declarations). A method's empty
body may be a deliberate hook or no-op override, so `stub_functions` says which ones are
methods. Protocol and ABC classes (by base or `metaclass=ABCMeta`) declare interfaces and are
not walked, nor are classes whose methods (two or more) all have empty bodies and that say
they are interfaces or base classes of no-op hooks written without `ABC` (by name, by a
docstring on each hook, or by a subclass in the module).
"""

from __future__ import annotations

import ast
import re
from typing import Any

STUB_BODY = re.compile(r"^\s*(pass|\.\.\.)\s*(#.*)?$", re.M)
"""A line that can be a whole empty body: `pass` or `...`."""
BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def in_method(tree: ast.Module | None, number: int) -> bool:
    """True when a Python line lies in a function defined directly in a class body."""
    if tree is None:
        return False
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                end = getattr(item, "end_lineno", None) or item.lineno
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    item.lineno <= number <= end
                ):
                    return True
        stack.extend(n for name in BODY_FIELDS for n in getattr(node, name, ()))
    return False


def in_nested_function(tree: ast.Module | None, number: int) -> bool:
    """True when a Python line lies in a function defined inside another function."""
    if tree is None:
        return False
    stack: list[tuple[Any, bool]] = [(node, False) for node in tree.body]
    while stack:
        node, in_function = stack.pop()
        function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        start: int = getattr(node, "lineno", 0)
        end: int = getattr(node, "end_lineno", None) or start
        if not start <= number <= end:
            continue
        if function and in_function:
            return True
        stack.extend(
            (child, in_function or function)
            for name in BODY_FIELDS
            for child in getattr(node, name, ())
        )
    return False


def stub_functions(
    tree: ast.Module,
) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """Functions whose body is only `pass` or `...`, and whether each is a method.

    Walks statements only (fast). Decorated functions are registrations, overloads or abstract
    declarations whose body is not expected; Protocol and ABC classes declare interfaces.
    """
    found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]] = []
    parents = frozenset(
        _name(base)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for base in node.bases
    )
    stack: list[tuple[Any, bool]] = [(node, False) for node in tree.body]
    while stack:
        node, method = stack.pop()
        if isinstance(node, ast.ClassDef):
            if not _is_protocol(node) and not _all_hooks(node, parents):
                stack.extend((item, True) for item in node.body)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _empty_body(node):
            found.append((node, method))
        for name in BODY_FIELDS:
            stack.extend((child, False) for child in getattr(node, name, ()))
    return sorted(found, key=lambda pair: pair[0].lineno)


def _is_protocol(node: ast.ClassDef) -> bool:
    metaclass = [k.value for k in node.keywords if k.arg == "metaclass"]
    return any(_name(base) in ("Protocol", "ABC", "ABCMeta") for base in (*node.bases, *metaclass))


HOOK_CLASS = re.compile(r"Base|Callback|Mixin|Hook|Interface|Listener|Handler|Observer|Visitor")
"""A class name that says it is meant to be subclassed or overridden."""


def _all_hooks(node: ast.ClassDef, parents: frozenset[str]) -> bool:
    """True for a class of two or more methods that all have empty bodies and that says it is
    an interface or a base class of no-op hooks written without `ABC`: by its name
    (`BaseCallback`, `EventMixin`), by a docstring on each hook, or by a subclass in the
    module. A new class of empty methods with none of these is unfinished."""
    methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(methods) < 2 or not all(_empty_body(m, decorated=True) for m in methods):
        return False
    return (
        HOOK_CLASS.search(node.name) is not None
        or node.name in parents
        or all(ast.get_docstring(m) for m in methods)
    )


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return node.id if isinstance(node, ast.Name) else ""


def _empty_body(node: ast.FunctionDef | ast.AsyncFunctionDef, *, decorated: bool = False) -> bool:
    if node.decorator_list and not decorated:
        return False
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if len(body) != 1:
        return False
    only = body[0]
    is_ellipsis = (
        isinstance(only, ast.Expr)
        and isinstance(only.value, ast.Constant)
        and only.value.value is ...
    )
    return isinstance(only, ast.Pass) or is_ellipsis
