"""Measure the package's shape and print JSON.

Reports the module count, the import cycles and the longest internal import chain (over every
`import` the source contains, lazy ones and those under `TYPE_CHECKING` included), the imports
of the package's own modules made inside functions or only under `TYPE_CHECKING`, internal
import edges per module, the same with each subpackage taken as one node (`package_edges`), the
rubricate modules that `rubricate action --dry-run` loads on the bundled `pull_request` event,
the modules whose functions run for a `pull_request opened` and a `/approve` (traced on the
tests' scenario), the longest module in lines and the median function length.
Run: `python benchmarks/architecture.py`. `--package DIR` measures another package's source
instead (the same numbers but the dry run, which only rubricate has), for comparison.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "rubricate"
FIXTURE = ROOT / "tests" / "action" / "fixtures" / "pull_request.opened.json"


def module_name(path: Path, src: Path = SRC) -> str:
    """The dotted module name of a source file under `src`."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _resolve(name: str, node: ast.ImportFrom, current: str, is_package: bool) -> str:
    if node.level == 0:
        return name
    base = current.split(".")
    drop = node.level - 1 if is_package else node.level
    base = base[: len(base) - drop]
    return ".".join([*base, name] if name else base)


def _nearest_module(name: str, modules: set[str]) -> str | None:
    """The module `name` is, or the innermost module it lies in (`a.b.c` → `a.b`)."""
    parts = name.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts) or None


def imports_of(
    path: Path, modules: set[str], src: Path = SRC, *, type_checking: bool = True
) -> set[str]:
    """The internal modules one source file imports: every import, lazy ones and those under
    `TYPE_CHECKING` too (a cycle through either is still a cycle a reader must follow), unless
    `type_checking` is false."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if type_checking else _type_checking_lines(tree)
    current = module_name(path, src)
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", 0) in skip:
            continue
        if isinstance(node, ast.Import):
            targets: list[str | None] = [_nearest_module(a.name, modules) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            head = _resolve(node.module or "", node, current, path.name == "__init__.py")
            submodules = [f"{head}.{a.name}" for a in node.names if f"{head}.{a.name}" in modules]
            targets = [*submodules] or [_nearest_module(head, modules)]
        else:
            continue
        found.update(t for t in targets if t is not None and t != current)
    return found


def import_graph(package: Path = PACKAGE, *, type_checking: bool = True) -> dict[str, set[str]]:
    """Internal imports per module (the root package itself left out as a target)."""
    src = package.parent
    files = {module_name(p, src): p for p in sorted(package.rglob("*.py"))}
    names = set(files)
    graph = {
        name: imports_of(path, names, src, type_checking=type_checking)
        for name, path in files.items()
    }
    for deps in graph.values():
        deps.discard(package.name)
    return graph


def in_cycles(graph: dict[str, set[str]]) -> set[str]:
    """The modules on some import cycle (a strongly connected component of two or more)."""
    return {module for component in cycles(graph) for module in component}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each group of modules that import one another (a strongly connected component of two
    or more), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in sorted(graph.get(node, set())):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def lazy_imports(package: Path = PACKAGE) -> dict[str, int]:
    """Imports of the package's own modules made inside a function, and those made only under
    `TYPE_CHECKING`, counted over every source file."""
    inside = guarded = 0
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded_lines = _type_checking_lines(tree)
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                inside += sum(1 for node in ast.walk(func) if _own_import(node, package.name))
        guarded += sum(
            1
            for node in ast.walk(tree)
            if _own_import(node, package.name) and node.lineno in guarded_lines
        )
    return {"own_imports_inside_functions": inside, "own_imports_under_type_checking": guarded}


def _own_import(node: ast.AST, package: str) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == package
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == package for alias in node.names)
    return False


def traced_modules() -> dict[str, list[str]]:
    """The rubricate modules whose functions run while the Action handles a `pull_request
    opened`, and then a `/approve` comment, on the tests' scenario (real git, fake GitHub)."""
    sys.path.insert(0, str(ROOT))
    import responses
    from tests.action.fake_github import FakeGitHub
    from tests.action.scenario import WRITER, Scenario

    prefix = str(PACKAGE) + os.sep
    seen: set[str] = set()

    def profile(frame: Any, event: str, _arg: object) -> None:
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(prefix) and code.co_name != "<module>":
            seen.add(module_name(Path(code.co_filename)))

    traced: dict[str, list[str]] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        responses.RequestsMock(assert_all_requests_are_fired=False) as rsps,
    ):
        scenario = Scenario(Path(tmp), FakeGitHub(rsps))
        scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
        for name, step in (
            ("pull_request_opened", lambda: scenario.pr_event("opened")),
            ("approve", lambda: scenario.comment(WRITER, "/approve spec=3 comp=2 qual=2 ver=2")),
        ):
            seen.clear()
            sys.setprofile(profile)
            try:
                step()
            finally:
                sys.setprofile(None)
            traced[name] = sorted(seen)
    return traced


CHAIN_STEPS = 2_000_000
"""How many module visits the chain search may make: a large package with large import cycles
(pydantic's, openai's) has too many simple paths to try them all, and then the answer is the
longest found and marked as a lower bound (rubricate has no cycle: its search is always exact)."""


class _OutOfSteps(Exception):
    pass


def longest_chain(graph: dict[str, set[str]], steps: int = CHAIN_STEPS) -> list[str]:
    """The longest import chain with no module repeated, in a fixed order (exact unless
    `chain_search` says it ran out of steps).

    Depth-first; a module on no cycle has one longest chain whatever led to it, so it is
    memoized; a module on a cycle is searched again each time it is reached."""
    return chain_search(graph, steps)[0]


def chain_search(graph: dict[str, set[str]], steps: int = CHAIN_STEPS) -> tuple[list[str], bool]:
    """The longest chain found and whether the search was complete (so the chain is exact)."""
    cyclic = in_cycles(graph)
    best: dict[str, list[str]] = {}
    visiting: set[str] = set()
    found: list[str] = []
    left = [steps]

    def walk(node: str) -> list[str]:
        if node in best:
            return best[node]
        left[0] -= 1
        if left[0] < 0:
            raise _OutOfSteps
        visiting.add(node)
        longest: list[str] = []
        try:
            for dep in sorted(graph.get(node, set())):
                if dep not in visiting:
                    chain = walk(dep)
                    if len(chain) > len(longest):
                        longest = chain
        finally:
            visiting.discard(node)
            if len(longest) + 1 > len(found):
                found[:] = [node, *longest]
        if node not in cyclic:
            best[node] = [node, *longest]
        return [node, *longest]

    try:
        chains = [walk(n) for n in sorted(graph)]
    except _OutOfSteps:
        return found, False
    return max(chains, key=len, default=[]), True


def package_graph(graph: dict[str, set[str]], root: str) -> dict[str, set[str]]:
    """The import graph with each subpackage (and each top-level module) taken as one node:
    how the parts depend on one another, whatever their number of modules."""

    def part(module: str) -> str:
        return ".".join(module.split(".")[:2]) if module != root else root

    merged: dict[str, set[str]] = {part(m): set() for m in graph}
    for module, deps in graph.items():
        merged[part(module)].update(part(d) for d in deps if part(d) != part(module))
    return merged


def dry_run_modules() -> list[str]:
    """The rubricate modules one `rubricate action --dry-run` on the bundled event loads."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": tmp,
            "PYTHONPATH": str(SRC),
            "GITHUB_EVENT_NAME": "pull_request_target",
            "GITHUB_EVENT_PATH": str(FIXTURE),
            "GITHUB_REPOSITORY": "example-org/rubricate-self-test",
            "GITHUB_API_URL": "http://127.0.0.1:9",
            "GITHUB_SERVER_URL": "http://127.0.0.1:9",
            "GITHUB_OUTPUT": str(Path(tmp) / "output"),
            "GITHUB_RUN_ID": "1",
            "INPUT_DRY-RUN": "true",
        }
        code = (
            "import sys\n"
            "from rubricate.cli.main import main\n"
            "try:\n    main(['action', '--dry-run'])\n"
            "except SystemExit:\n    pass\n"
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('rubricate'))),"
            " file=sys.stderr)\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
        )
    return [line for line in proc.stderr.splitlines() if line.startswith("rubricate")]


def function_lengths(package: Path = PACKAGE) -> list[int]:
    """The line count of every function and method in the package."""
    lengths: list[int] = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lengths.append((node.end_lineno or node.lineno) - node.lineno + 1)
    return lengths


def measure(package: Path = PACKAGE) -> dict[str, object]:
    """All the numbers, as one JSON-ready mapping (the dry run for rubricate only)."""
    graph = import_graph(package)
    chain, exact = chain_search(graph)
    edges = sum(len(deps) for deps in graph.values())
    packages = package_graph(graph, package.name)
    package_edges = sum(len(deps) for deps in packages.values())
    sizes = {
        module_name(p, package.parent): len(p.read_text(encoding="utf-8").splitlines())
        for p in package.rglob("*.py")
    }
    biggest = max(sizes, key=lambda name: sizes[name])
    result: dict[str, object] = {
        "modules": len(graph),
        "import_edges": edges,
        "edges_per_module": round(edges / len(graph), 2),
        "longest_chain": len(chain),
        "longest_chain_modules": chain,
        "longest_chain_exact": exact,
        "packages": len(packages),
        "package_edges": package_edges,
        "edges_per_package": round(package_edges / len(packages), 2),
    }
    all_imports = import_graph(package, type_checking=True)
    result["cycles_counting_every_import"] = cycles(all_imports)
    result |= lazy_imports(package)
    if package == PACKAGE:
        result["dry_run_modules_loaded"] = len(dry_run_modules())
        traced = traced_modules()
        result |= {f"modules_run_{name}": len(mods) for name, mods in traced.items()}
    return result | {
        "max_module_lines": sizes[biggest],
        "max_module": biggest,
        "modules_over_300_lines": sorted(n for n, s in sizes.items() if s > 300),
        "median_function_lines": statistics.median(function_lengths(package)),
    }


def main() -> None:
    """Print the measurements as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--loaded", action="store_true", help="also list the modules a dry run loads"
    )
    parser.add_argument(
        "--package",
        type=Path,
        default=PACKAGE,
        help="the package directory to measure (default: src/rubricate)",
    )
    args = parser.parse_args()
    result = measure(args.package.resolve())
    if args.loaded:
        result["dry_run_loaded"] = dry_run_modules()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
