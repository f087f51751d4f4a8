"""Imports point one way: the memory core never imports a transport, handlers never SQL."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRANSPORTS = {
    "nats",
    "faststream",
    "aiohttp",
    "apscheduler",
    "google",
    "googleapiclient",
    "google_auth_oauthlib",
    "mcp",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _files(pkg: str) -> list[Path]:
    files = sorted((ROOT / pkg).rglob("*.py"))
    assert files, f"no python files under {pkg}"
    return files


def test_memory_core_imports_no_transport_and_nothing_above_it() -> None:
    for path in _files("daemon/memory"):
        for mod in _imports(path):
            top = mod.split(".")[0]
            assert top not in TRANSPORTS, f"{path.name} imports {mod}"
            assert top not in ("handlers", "schedules"), f"{path.name} imports {mod}"
            if top == "daemon":
                assert mod.startswith(("daemon.memory", "daemon.errors")), f"{path.name} imports {mod}"


def test_handlers_use_the_memory_api_not_sql() -> None:
    for path in _files("handlers"):
        mods = _imports(path)
        assert "duckdb" not in mods, f"{path.name} imports duckdb"
        assert not any(m.startswith("daemon.memory.store") for m in mods), path.name


def test_only_config_reads_the_environment() -> None:
    for path in _files("daemon") + _files("handlers"):
        if path.name == "config.py" or path == ROOT / "daemon" / "__init__.py":
            continue  # __init__ only *sets* the BLAS thread count before numpy loads
        assert "os.environ" not in path.read_text(encoding="utf-8"), f"{path} reads os.environ"


def test_only_the_store_modules_run_sql() -> None:
    # The SQL is split by concern over the modules of memory/store/ (the ledger keeps its own);
    # everything else asks a store method, so no query hides in the facade or a handler.
    for path in _files("daemon") + _files("handlers"):
        if (
            path.parent == ROOT / "daemon" / "memory" / "store"
            or path == ROOT / "daemon" / "memory" / "ledger.py"
        ):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert "duckdb" not in _imports(path), f"{path} imports duckdb"
        uses = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "con"]
        assert not uses, f"{path} touches the DuckDB connection on line(s) {uses}"


def test_predictors_read_the_memory_facade_and_import_no_transport() -> None:
    for path in _files("daemon/predict"):
        for mod in _imports(path):
            top = mod.split(".")[0]
            assert top not in TRANSPORTS and top != "duckdb", f"{path.name} imports {mod}"
            assert top not in ("handlers", "schedules"), f"{path.name} imports {mod}"
            if top == "daemon":
                assert mod.startswith(
                    ("daemon.memory", "daemon.predict", "daemon.config", "daemon.errors", "daemon.subjects")
                ), f"{path.name} imports {mod}"


def test_the_contract_models_import_no_transport() -> None:
    # daemon/events.py validates every event through daemon/contract/inbound.py: the models (and
    # their fields) must not bring a transport into the handlers' imports. Only the AsyncAPI
    # generator imports FastStream.
    for path in _files("daemon/contract"):
        for mod in _imports(path):
            top = mod.split(".")[0]
            if path.name != "asyncapi.py":
                assert top not in TRANSPORTS, f"{path.name} imports {mod}"
                assert top not in ("handlers", "schedules"), f"{path.name} imports {mod}"
    for path in _files("daemon") + _files("handlers") + _files("schedules"):
        if path.name == "asyncapi.py" and path.parent.name == "contract":
            continue
        assert (
            "daemon.contract.asyncapi" not in _imports(path) or path == ROOT / "daemon" / "cli" / "main.py"
        ), path


def test_every_subject_is_named_in_subjects_py() -> None:
    # one place for the bus contract: a subject spelled anywhere else could drift from the one
    # the daemon consumes or the AsyncAPI document names (string literals only: docstrings and
    # comments may mention subjects)
    literal = re.compile(r"^memubot\.(?:in|out|rpc)\.")
    for path in _files("daemon") + _files("handlers") + _files("schedules"):
        if path == ROOT / "daemon" / "subjects.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
        }
        spelled = [
            (n.lineno, n.value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and id(n) not in docstrings
            and literal.match(n.value)
        ]
        assert not spelled, f"{path.relative_to(ROOT)} spells subjects itself: {spelled}"


# ---- import circles -----------------------------------------------------------------------
#
# Every import counts, wherever it is written: at module level, inside a function, or under
# `if TYPE_CHECKING:`. An import moved into a function to dodge a circle ("imported late: cli
# imports us") still makes the two modules depend on each other, and a `TYPE_CHECKING` import
# still says one module needs the other's names; the three circles of issue 23 were all of this
# kind (at module level there was none). Not counted: the parent package's `__init__` that Python
# runs before a submodule (every package re-exporting its submodules would otherwise be a circle).

CIRCLE_ROOTS = ("daemon", "handlers", "schedules")


def _modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every module under the given top-level packages."""
    found: dict[str, Path] = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of the same set it imports (`from pkg import sub` names pkg.sub)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from . import x, from ..y import z
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                for alias in node.names:
                    if f"{base}.{alias.name}" in modules:
                        targets.add(f"{base}.{alias.name}")
                    elif base in modules:
                        targets.add(base)
        targets.discard(name)
        graph[name] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected group of modules, as a path a -> b -> ... -> a."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan; the graph is a few hundred modules, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_path_around(graph, group) for group in groups]


def _path_around(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest circle through the group's first module, for the failure message."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & group):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    raise AssertionError(f"no circle through {start}")  # a strongly connected group has one


def test_no_import_circles() -> None:
    circles = _circles(_import_graph(_modules(ROOT, CIRCLE_ROOTS)))
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_the_circle_finder_sees_late_and_type_checking_imports(tmp_path: Path) -> None:
    # the finder itself can fail: a circle closed only inside a function, one closed only under
    # TYPE_CHECKING, one through a relative import, and modules that merely share a package
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "from pkg import b\nA = 1\n",
        "b.py": "def late():\n    from pkg.a import A\n    return A\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.d import D\nC = 1\n",
        "d.py": "from pkg.c import C\nD = C\n",
        "sub/__init__.py": "",
        "sub/e.py": "from ..f import F\nE = 1\n",
        "f.py": "from pkg.sub import e\nF = 1\n",
        "g.py": "import pkg.a\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    circles = _circles(_import_graph(_modules(tmp_path, ("pkg",))))
    assert sorted(circles) == [
        ["pkg.a", "pkg.b", "pkg.a"],
        ["pkg.c", "pkg.d", "pkg.c"],
        ["pkg.f", "pkg.sub.e", "pkg.f"],
    ]
