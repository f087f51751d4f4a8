"""The database: one DuckDB handle, its transactions and the scopes' generations; and `Table`,
the base of every repository that runs its statements on that handle."""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from daemon.errors import ScopeRequired, StoreError, StoreLocked

log = logging.getLogger(__name__)

# The limit DuckDB is lowered to for a moment to evict its page cache (`release_buffers`); 64MB
# kept ~45 MB more in the daemon after a 100k build than this (bench/ready.py).
RELEASE_TO = "16MB"

# DuckDB: 'Could not set lock on file "…": Conflicting lock is held in /usr/bin/python3 (PID 123)'
_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (?P<exe>.+?) \(PID (?P<pid>\d+)\)")


def _require(scope: str | None) -> str:
    if not scope or not isinstance(scope, str):
        raise ScopeRequired("a scope is required for every read and write")
    return scope


def _utc(ts: datetime | None) -> datetime | None:
    return ts.astimezone(UTC) if ts is not None else None


class Generations:
    """The committed generation of each scope of one DuckDB file, known to this process.

    A recall asks for its scope's generation to know its index is current, and a DuckDB point
    query costs about 1.5 ms at 100k items (an eighth of a recall). Only one process can open a
    file for writing (DuckDB's lock), and every connection of this process to the file shares one
    `Generations`, so a value kept here is exact as long as a connection drops the scopes it bumps
    once its transaction ends. A value is read and kept under the lock the drops take, and a drop
    comes after its commit: a value read before a commit is gone once the commit is done.

    A transaction that bumped a scope keeps the value it committed instead (the next write and
    recall need not ask for it): it commits under the lock and keeps the value before letting go,
    so a later commit's drop comes after it. No other transaction can have moved the value in
    between: DuckDB refuses an update of a scope's row while another transaction holds an
    uncommitted one, and an update starts from the row's last committed value.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.known: dict[str, int] = {}


# by resolved file: the connections of this process to one file share its generations
_GENERATIONS: dict[str, Generations] = {}
_GENERATIONS_LOCK = threading.Lock()


def _generations_of(path: str) -> Generations:
    if path == ":memory:":  # each in-memory connection is a database of its own
        return Generations()
    with _GENERATIONS_LOCK:
        return _GENERATIONS.setdefault(str(Path(path).resolve()), Generations())


def open_error(path: str, exc: duckdb.Error) -> StoreError:
    """What DuckDB's refusal to open (or attach) a file means for the person: StoreLocked when
    another process holds it, else a StoreError naming the file."""
    # "Could not set lock on file ...: Conflicting lock is held in <exe> (PID n)": callers (the
    # CLI) tell the person who holds it rather than quoting DuckDB
    if not isinstance(exc, duckdb.IOException) or "lock" not in str(exc).lower():
        return StoreError(f"cannot open DuckDB file {path}: {exc}")
    held = _LOCK_HOLDER.search(str(exc))
    pid, exe = (int(held["pid"]), held["exe"]) if held else (None, None)
    return StoreLocked(path, pid, str(exc), exe)


def _offset_minutes(ts: datetime) -> int:
    off = ts.utcoffset()
    return int(off.total_seconds() // 60) if off is not None else 0


class Database:
    """The one DuckDB connection that every repository runs its statements on.

    Repositories (`Table` subclasses: the memory's in this package, trigger state's in
    daemon/state/tables/) are composed around it, not mixed into it: each takes the database and
    shares its handle, its transactions and the per-scope generation that tells the indexes to
    rebuild.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, memory_limit: str = "512MB") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.Error as exc:
            raise open_error(self.path, exc) from exc
        self.con.execute("SET TimeZone = 'UTC'")
        # DuckDB's buffer pool may otherwise grow to 80% of RAM and keep what the index
        # rebuild read; memubot's own indexes live in Python, so a modest cache suffices.
        self.con.execute(f"SET memory_limit = '{memory_limit}'")
        self.memory_limit = memory_limit
        self.dim: int | None = None
        self.read_only = read_only
        # the committed generations (a read-only connection shares the file with a writer
        # elsewhere and asks every time); the scopes this connection's open transaction bumped
        self._generations = _generations_of(self.path)
        # scope → the generation the open transaction set (None: not known); None: no transaction
        self._bumped: dict[str, int | None] | None = None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.con.execute("BEGIN TRANSACTION")
        bumped: dict[str, int | None] = {}
        self._bumped = bumped
        kept = False
        try:
            try:
                yield
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            with self._generations.lock:
                self.con.execute("COMMIT")
                # committed: what this transaction set is the value now (see Generations)
                self._generations.known.update({s: g for s, g in bumped.items() if g is not None})
                kept = True
        finally:
            self._bumped = None
            # after the commit: a value read before it is not kept past it
            self._drop(s for s, g in bumped.items() if not kept or g is None)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Statements that commit together: in the open transaction, or in one of their own."""
        if self._bumped is not None:
            yield
            return
        with self.transaction():
            yield

    def _drop(self, scopes: Iterable[str]) -> None:
        with self._generations.lock:
            for scope in scopes:
                self._generations.known.pop(scope, None)

    def release_buffers(self) -> None:
        """Give back the table pages DuckDB keeps cached after a big read (a scope's snapshot).

        They are copies of what is on disk, kept up to `memory_limit`: after building a 100k
        index 183 MB of them stayed for the life of the daemon (bench/ready.py). Lowering the
        limit for a moment evicts them; DuckDB refuses when pinned pages do not fit, and then
        the cache stays as it was. Not inside a transaction (a failed SET would abort it) and
        not for an in-memory database (its tables would be spilled to disk).
        """
        if self._bumped is not None or self.path == ":memory:":
            return
        try:
            # one call: no other thread's statement runs on the connection in between
            self.con.execute(f"SET memory_limit = '{RELEASE_TO}'; SET memory_limit = '{self.memory_limit}'")
        except duckdb.Error as exc:  # pages in use: nothing is lost by keeping them
            log.debug("DuckDB kept its cache: %s", exc)
            self.con.execute(f"SET memory_limit = '{self.memory_limit}'")

    def cached_bytes(self) -> int:
        """What DuckDB's buffer manager holds now (cached pages, indexes, in-flight results)."""
        row = self.con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def checkpoint(self) -> None:
        self.con.execute("CHECKPOINT")

    def close(self) -> None:
        self.con.close()

    def bump_generation(self, scopes: Iterable[str]) -> dict[str, int]:
        """Raise the generation of each scope (a scope seen for the first time gets 1); returns
        the new generations, which this connection's open transaction reads from now on."""
        scopes = sorted(set(scopes))
        if not scopes:
            return {}
        # An UPDATE, then an INSERT of the scopes it did not find, rather than one upsert: ON
        # CONFLICT cost DuckDB about 1.5 ms more per write (bench/writes.py --per-call 1).
        # RETURNING hands the caller the new values, so that nobody reads them back.
        with self.atomic():
            got = dict(
                self.con.execute(
                    "UPDATE scope_state SET generation = generation + 1"
                    " WHERE scope IN (SELECT unnest(?)) RETURNING scope, generation",
                    [scopes],
                ).fetchall()
            )
            new = [s for s in scopes if s not in got]
            if new:
                self.con.execute("INSERT INTO scope_state SELECT unnest(?), 1", [new])
                got.update(dict.fromkeys(new, 1))
            assert self._bumped is not None
            self._bumped.update({s: int(got[s]) for s in scopes})  # known once it commits
        return {s: int(got[s]) for s in scopes}

    def forget_generations(self) -> None:
        """Drop every known generation (after a statement that bumps them outside `bump_generation`)."""
        with self._generations.lock:
            self._generations.known.clear()
        if self._bumped is not None:  # the values this transaction's bumps returned are stale
            self._bumped.update(dict.fromkeys(self._bumped))

    def generation(self, scope: str) -> int:
        known = self._generations.known.get(scope)
        if known is not None and self._bumped is None:
            return known
        # kept unless another process may write the file (read-only) or an open transaction of
        # ours may hold a bump not committed yet; read and kept under the lock the drops take
        keep = not self.read_only and self._bumped is None
        with self._generations.lock if keep else contextlib.nullcontext():
            row = self.con.execute(
                "SELECT generation FROM scope_state WHERE scope = ?", [_require(scope)]
            ).fetchone()
            gen = int(row[0]) if row else 0
            if keep:
                self._generations.known[scope] = gen
        return gen


class Table:
    """A repository: the statements of one group of tables, on the database's one connection.

    It holds the database rather than the raw handle so that a repository's transaction and
    generation bump are the database's own (one writer, one transaction at a time).
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self.db.con
