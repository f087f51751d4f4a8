"""Imports point one way: the memory core never imports a transport, handlers never SQL."""

from __future__ import annotations

import ast
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
    # The SQL is split by concern over store.py and store_*.py (the ledger keeps its own);
    # everything else asks a store method, so no query hides in the facade or a handler.
    for path in _files("daemon") + _files("handlers"):
        if path.parent.name == "memory" and (path.name.startswith("store") or path.name == "ledger.py"):
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
                    ("daemon.memory", "daemon.predict", "daemon.config", "daemon.errors")
                ), f"{path.name} imports {mod}"
