"""The store's connection: one DuckDB handle, its transactions and the scopes' generations."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from daemon.errors import ScopeRequired, StoreError, StoreLocked

# DuckDB: 'Could not set lock on file "…": Conflicting lock is held in /usr/bin/python3 (PID 123)'
_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (?P<exe>.+?) \(PID (?P<pid>\d+)\)")


def _require(scope: str | None) -> str:
    if not scope or not isinstance(scope, str):
        raise ScopeRequired("a scope is required for every read and write")
    return scope


def _utc(ts: datetime | None) -> datetime | None:
    return ts.astimezone(UTC) if ts is not None else None


def _offset_minutes(ts: datetime) -> int:
    off = ts.utcoffset()
    return int(off.total_seconds() // 60) if off is not None else 0


def _open_error(path: str, exc: duckdb.Error) -> StoreError:
    """Why the file did not open; a lock held by another process names that process, since the
    usual cause is a second memubot (or a CLI command) on the same file."""
    held = _LOCK_HOLDER.search(str(exc))
    if held is None:
        return StoreError(f"cannot open DuckDB file {path}: {exc}")
    return StoreLocked(
        f"DuckDB file {path} is locked by another process (PID {held['pid']}, {held['exe']}): only "
        "one program may use it at a time; stop that one (another `memubot run`, or a memubot "
        "command still running) and start again"
    )


class StoreBase:
    """The one DuckDB connection that every part of the store runs its statements on.

    The store is composed of mixins (store_*.py), one per concern; they share this handle,
    the transaction helper and the per-scope generation that tells the indexes to rebuild.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, memory_limit: str = "512MB") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.Error as exc:
            raise _open_error(self.path, exc) from exc
        self.con.execute("SET TimeZone = 'UTC'")
        # DuckDB's buffer pool may otherwise grow to 80% of RAM and keep what the index
        # rebuild read; memubot's own indexes live in Python, so a modest cache suffices.
        self.con.execute(f"SET memory_limit = '{memory_limit}'")
        self.dim: int | None = None
        self.read_only = read_only

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    def checkpoint(self) -> None:
        self.con.execute("CHECKPOINT")

    def close(self) -> None:
        self.con.close()

    def bump_generation(self, scopes: Iterable[str]) -> None:
        scopes = sorted(set(scopes))
        if scopes:
            self.con.execute(
                "INSERT INTO scope_state SELECT unnest(?), 1"
                " ON CONFLICT (scope) DO UPDATE SET generation = scope_state.generation + 1",
                [scopes],
            )

    def generation(self, scope: str) -> int:
        row = self.con.execute(
            "SELECT generation FROM scope_state WHERE scope = ?", [_require(scope)]
        ).fetchone()
        return int(row[0]) if row else 0
