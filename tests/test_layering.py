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


# ---- rooms: which part of the code may import which ------------------------------------------
#
# Each room (a package, or a top-level module of daemon/) may import its own modules and the
# rooms named here, nothing else. A module is in the most specific room that holds it. `*` is the
# composition root's licence: it builds everything. Imports count wherever they are written (in a
# function, under TYPE_CHECKING). Read down the table: the faces (cli, web, mcp, app) sit on the
# runtime, the runtime on handlers, handlers on the memory API and trigger state, and the memory
# core on nothing of memubot's but its errors.

CORE = ("daemon.errors",)
ROOMS: dict[str, tuple[str, ...]] = {
    # the memory core: its store runs the SQL, the rest never sees a transport
    "daemon.memory.store": (*CORE, "daemon.memory.types", "daemon.memory.write.drafts"),
    "daemon.memory": (*CORE, "daemon.memory.store"),
    # trigger state: the ledger, the outbox, work items, workflow runs, e-mail threads; it shares
    # the memory's DuckDB connection and reads dates with the memory's parsers
    "daemon.state": (*CORE, "daemon.memory.store", "daemon.memory.types", "daemon.memory.dates"),
    "daemon.predict": (*CORE, "daemon.memory", "daemon.state", "daemon.config", "daemon.subjects"),
    "handlers": (
        *CORE,
        "daemon.memory",
        "daemon.state",
        "daemon.predict",
        "daemon.github",
        "daemon.events",
        "daemon.config",
        "daemon.jobs",
        "daemon.subjects",
    ),
    "schedules": (*CORE, "daemon.config", "daemon.events", "daemon.subjects"),
    "daemon.contract": (
        *CORE,
        "daemon.config",
        "daemon.events",
        "daemon.memory",
        "daemon.subjects",
        "daemon",
    ),
    "daemon.runtime": (
        *CORE,
        "daemon",
        "daemon.bounded_json",
        "daemon.jobs",
        "daemon.config",
        "daemon.contract",
        "daemon.events",
        "daemon.subjects",
        "daemon.memory",
        "daemon.state",
        "daemon.predict",
        "handlers",
        "schedules",
    ),
    "daemon.client": (*CORE, "daemon.config", "daemon.runtime", "daemon.subjects"),
    "daemon.github": (
        *CORE,
        "daemon",
        "daemon.bounded_json",
        "daemon.config",
        "daemon.events",
        "daemon.runtime",
        "daemon.subjects",
        "daemon.web.http",
    ),
    "daemon.gmail": (
        *CORE,
        "daemon",
        "daemon.bounded_json",
        "daemon.config",
        "daemon.runtime",
        "daemon.state",
        "daemon.subjects",
        "daemon.web.http",
    ),
    "daemon.web": (*CORE, "daemon.config", "daemon.memory", "daemon.runtime", "daemon.state"),
    "daemon.mcp": (
        *CORE,
        "daemon",
        "daemon.bounded_json",
        "daemon.client",
        "daemon.config",
        "daemon.events",
        "daemon.subjects",
    ),
    "daemon.cli": ("*",),
    "daemon.app": ("*",),
    "daemon.__main__": ("daemon.cli",),
    "daemon.compose": (*CORE, "daemon.config", "daemon.memory"),
    "daemon.config": (*CORE, "daemon.events", "daemon.memory"),
    "daemon.events": (*CORE, "daemon.bounded_json", "daemon.contract"),
    "daemon.jobs": (*CORE, "daemon.config", "daemon.memory"),
    "daemon.bounded_json": CORE,
    "daemon.subjects": (),
    "daemon.errors": (),
    "daemon": (),
}
# Named exceptions, each with its reason.
EXCEPTIONS: dict[str, tuple[str, ...]] = {
    # the facade opens the DuckDB file and hands its connection and lock to trigger state, which
    # lives in the same file; forgetting reaches state through hooks (memory/forgetting.py)
    "daemon.memory.facade": ("daemon.state",),
    # the AsyncAPI document describes what the runtime answers and what handlers consume
    "daemon.contract.asyncapi": ("daemon.runtime.rpc", "handlers"),
}


def _room(module: str) -> str:
    return max((r for r in ROOMS if module == r or module.startswith(r + ".")), key=len)


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    # "daemon" names the package's own __init__ (its version), not everything under it
    return "*" in prefixes or any(
        module == p or (p != "daemon" and module.startswith(p + ".")) for p in prefixes
    )


def test_every_room_imports_only_the_rooms_its_row_allows() -> None:
    modules = _modules(ROOT, CIRCLE_ROOTS)
    graph = _import_graph(modules)
    wrong = []
    for module, targets in sorted(graph.items()):
        room = _room(module)
        allowed = ROOMS[room] + EXCEPTIONS.get(module, ())
        for target in sorted(targets):
            if _room(target) != room and not _within(target, allowed):
                wrong.append(f"{module} ({room}) imports {target} ({_room(target)})")
    assert not wrong, "imports the room table does not allow:\n" + "\n".join(wrong)


def test_the_room_table_catches_a_memory_module_importing_the_runtime(tmp_path: Path) -> None:
    pkg = tmp_path / "daemon"
    for rel, text in {
        "__init__.py": "",
        "memory/__init__.py": "",
        "memory/recall.py": "def f():\n    from daemon.runtime import rpc\n",
        "runtime/__init__.py": "",
        "runtime/rpc.py": "",
    }.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text, encoding="utf-8")
    graph = _import_graph(_modules(tmp_path, ("daemon",)))
    assert graph["daemon.memory.recall"] == {"daemon.runtime.rpc"}
    assert not _within("daemon.runtime.rpc", ROOMS[_room("daemon.memory.recall")])
    # a row naming the package itself ("daemon": its version) allows only that, not daemon.*
    assert _within("daemon", ("daemon",)) and not _within("daemon.runtime.rpc", ("daemon",))


def test_memory_state_and_predict_import_no_transport() -> None:
    for pkg in ("daemon/memory", "daemon/state", "daemon/predict"):
        for path in _files(pkg):
            for mod in _imports(path):
                assert mod.split(".")[0] not in TRANSPORTS, f"{path} imports {mod}"


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
    # The SQL is split by concern over the repositories of memory/store/ and state/tables/ (the
    # ledger keeps its own); everything else asks a repository, so no query hides in the facade
    # or a handler.
    for path in _files("daemon") + _files("handlers"):
        if path.parent in (ROOT / "daemon" / "memory" / "store", ROOT / "daemon" / "state" / "tables") or (
            path == ROOT / "daemon" / "state" / "ledger.py"
        ):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert "duckdb" not in _imports(path), f"{path} imports duckdb"
        uses = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "con"]
        assert not uses, f"{path} touches the DuckDB connection on line(s) {uses}"


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


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    # a script may start at any module (bench/stop_race.py starts at daemon.runtime); a cycle
    # between packages fails only when its far end is imported first, so each module is
    # imported first in a process of its own (two at a time: each loads numpy and DuckDB)
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    root = Path(__file__).resolve().parents[1]
    modules = sorted(
        ".".join(p.relative_to(root).with_suffix("").parts)
        for top in ("daemon", "handlers", "schedules")
        for p in (root / top).rglob("*.py")
        # a script that starts inside daemon.memory starts with its package __init__, which
        # imports the facade first: the order that works; the far ends of a cycle are elsewhere
        if p.name != "__main__.py" and "memory" not in p.relative_to(root).parts[:2]
    )

    def first(module: str) -> str | None:
        done = subprocess.run(
            [sys.executable, "-c", f"import {module}"], cwd=root, capture_output=True, text=True
        )
        return done.stderr.strip().splitlines()[-1] if done.returncode else None

    with ThreadPoolExecutor(2) as pool:
        failed = {m: why for m, why in zip(modules, pool.map(first, modules), strict=True) if why}
    assert not failed, failed
