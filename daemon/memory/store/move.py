"""Moving scopes between DuckDB files: each table's rule, and the SQL that copies, checks and
deletes the rows of a set of scopes between this file and another one attached beside it.

The orchestration (which files, in which order, the index copies) is daemon/memory/move.py.
Every table of the schema is named here, in `MOVED`, `SPECIAL` or `LEFT`, with the reason:
tests/memory/test_move.py fails when a migration adds a table that none of them names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import duckdb

from daemon.errors import StoreError
from daemon.memory.store.core import Database, open_error
from daemon.memory.store.index import _INDEX_FILE

MAIN = "main"  # this connection's own file, whatever its catalog is called


@dataclass(frozen=True, slots=True)
class Rule:
    """How one table's rows of the moved scopes are copied.

    `key`: what names a row (checked in the other file before a copy and before a deletion);
    empty for tables without one, which are checked by their counts. `sequence`: the `seq`
    column is numbered by this sequence of the file; copied rows are numbered again by the
    target's, in the source's order, so that they stay in order among themselves and come before
    anything the target stores after the move. `first_wins`: a key the target holds already,
    under another scope, keeps the target's row and the source's is not copied (the ledger's own
    rule: an event id recorded keeps its first record, `Ledger.record`).
    """

    table: str
    key: tuple[str, ...] = ()
    sequence: str | None = None
    first_wins: bool = False


# Every table that carries a `scope` column and belongs to the scope: copied row for row.
MOVED: tuple[Rule, ...] = (
    Rule("resources", ("scope", "id"), sequence="resource_seq"),
    Rule("items", ("id",)),
    Rule("item_sources", ("item_id", "resource_id")),
    Rule("item_vectors", ("item_id",)),
    Rule("postings"),
    Rule("categories", ("scope", "name")),
    Rule("memory_ops", sequence="memory_op_seq"),
    Rule("events", ("event_id",), first_wins=True),
    Rule("feedback", ("event_id",), first_wins=True),
    Rule("forgotten", ("scope", "resource_id")),
    Rule("suggestions", ("id",)),
    Rule("suggestion_verdicts", ("scope", "kind")),
    Rule("work_items", ("scope", "repo", "number")),
    Rule("work_item_snapshots", ("scope", "delivery"), sequence="work_item_snapshot_seq"),
    Rule("workflow_runs", ("scope", "run_key")),
    Rule("email_messages", ("scope", "id")),
    Rule("email_threads", ("scope", "thread")),
)

# Tables a move treats on their own terms.
SPECIAL: dict[str, str] = {
    "scope_state": "a scope's generation, not data: set in the target past both files' values, so "
    "that no index copy of either file is taken for current; raised in the source when its rows "
    "are deleted",
    "embed_cache": "keyed by text, not by scope: the vectors the moved sources name are copied "
    "when the target lacks them; on deletion, those no scope left in the source names go",
}

# Tables that stay with their file, and why.
LEFT: dict[str, str] = {
    "meta": "the file's own: its embedding model (both files must have the same) and where each "
    "scope's index copy is (the moved scopes' entries are removed, not copied)",
    "schema_version": "the file's own (both files are brought to this memubot's version first)",
    "cursors": "the instance's outbox and poller positions; the memory-op cursors named by the "
    "caller are moved past the ops the source had already read (see `copy`)",
    "dead_letters": "no scope column (an unreadable body is often why a letter is dead): they stay "
    "with the instance that could not handle them, and a replay there handles them there",
}


def _quote_path(path: str) -> str:
    return path.replace("'", "''")


def attach(db: Database, path: str, alias: str) -> None:
    """Open another memubot file read-only beside this connection's, as catalog `alias`."""
    try:
        db.con.execute(f"ATTACH '{_quote_path(path)}' AS {alias} (READ_ONLY)")
    except duckdb.Error as exc:
        raise open_error(path, exc) from exc


def detach(db: Database, alias: str) -> None:
    db.con.execute(f"DETACH {alias}")


def _tables(db: Database, catalog: str) -> set[str]:
    name = _catalog(db, catalog)
    rows = db.con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main'", [name]
    ).fetchall()
    return {str(r[0]) for r in rows}


def _catalog(db: Database, catalog: str) -> str:
    if catalog != MAIN:
        return catalog
    row = db.con.execute("SELECT current_database()").fetchone()
    assert row is not None
    return str(row[0])


def _columns(db: Database, catalog: str, table: str) -> list[str]:
    rows = db.con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main'"
        " AND table_name = ? ORDER BY column_index",
        [_catalog(db, catalog), table],
    ).fetchall()
    return [str(r[0]) for r in rows]


def _scalar(db: Database, sql: str, params: Sequence[object] = ()) -> int:
    row = db.con.execute(sql, list(params)).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _in(catalog: str, table: str) -> str:
    return f"{catalog}.main.{table}" if catalog != MAIN else table


_SCOPES = "scope IN (SELECT unnest(?))"


def scopes_in(db: Database, catalog: str = MAIN) -> list[str]:
    """Every scope any moved table of the file holds a row of, sorted."""
    have = _tables(db, catalog)
    parts = [f"SELECT DISTINCT scope FROM {_in(catalog, r.table)}" for r in MOVED if r.table in have]
    if not parts:
        return []
    rows = db.con.execute(
        f"SELECT scope FROM ({' UNION '.join(parts)}) WHERE scope IS NOT NULL ORDER BY 1"
    ).fetchall()
    return [str(r[0]) for r in rows]


def counts(db: Database, catalog: str, scopes: Sequence[str]) -> dict[str, int]:
    """Rows of these scopes per moved table (0 for a table the file does not have)."""
    have = _tables(db, catalog)
    return {
        r.table: _scalar(db, f"SELECT count(*) FROM {_in(catalog, r.table)} WHERE {_SCOPES}", [list(scopes)])
        if r.table in have
        else 0
        for r in MOVED
    }


def missing(db: Database, here: str, there: str, scopes: Sequence[str]) -> dict[str, int]:
    """Rows of these scopes in `here` that `there` does not hold, per table: by key where the
    table has one, else by how many fewer rows `there` has. All zero: `there` holds them all."""
    have_here, have_there = _tables(db, here), _tables(db, there)
    out: dict[str, int] = {}
    for r in MOVED:
        if r.table not in have_here:
            out[r.table] = 0
            continue
        if r.table not in have_there:
            out[r.table] = _scalar(
                db, f"SELECT count(*) FROM {_in(here, r.table)} WHERE {_SCOPES}", [list(scopes)]
            )
            continue
        if r.key:
            on = " AND ".join(f"h.{k} = t.{k}" for k in r.key)
            out[r.table] = _scalar(
                db,
                f"SELECT count(*) FROM {_in(here, r.table)} h WHERE h.{_SCOPES}"
                f" AND NOT EXISTS (SELECT 1 FROM {_in(there, r.table)} t WHERE {on})",
                [list(scopes)],
            )
        else:
            n_here = _scalar(db, f"SELECT count(*) FROM {_in(here, r.table)} WHERE {_SCOPES}", [list(scopes)])
            n_there = _scalar(
                db, f"SELECT count(*) FROM {_in(there, r.table)} WHERE {_SCOPES}", [list(scopes)]
            )
            out[r.table] = max(0, n_here - n_there)
    return out


def collisions(db: Database, source: str, scopes: Sequence[str]) -> dict[str, str]:
    """Keys of the moved rows that this file holds already under another scope, per table, with
    one example: such a row cannot be copied (except where the first record wins)."""
    have_src, have_here = _tables(db, source), _tables(db, MAIN)
    out: dict[str, str] = {}
    for r in MOVED:
        if not r.key or r.first_wins or r.table not in have_src or r.table not in have_here:
            continue
        on = " AND ".join(f"s.{k} = t.{k}" for k in r.key)
        row = db.con.execute(
            f"SELECT {', '.join('s.' + k for k in r.key)} FROM {_in(source, r.table)} s"
            f" WHERE s.{_SCOPES} AND EXISTS (SELECT 1 FROM {r.table} t WHERE {on}) LIMIT 1",
            [list(scopes)],
        ).fetchone()
        if row is not None:
            out[r.table] = "/".join(str(v) for v in row)
    return out


def _cursor(db: Database, catalog: str, name: str) -> int | None:
    row = db.con.execute(f"SELECT position FROM {_in(catalog, 'cursors')} WHERE name = ?", [name]).fetchone()
    return int(row[0]) if row else None


def _numbers(db: Database, sequence: str, n: int) -> int:
    """Take n consecutive values of a sequence of this file; returns the first."""
    got = sorted(
        int(r[0]) for r in db.con.execute(f"SELECT nextval('{sequence}') FROM range(?)", [n]).fetchall()
    )
    if got != list(range(got[0], got[0] + n)):
        raise StoreError(f"sequence {sequence} handed out {n} values that are not consecutive")
    return got[0]


@dataclass(slots=True)
class Copied:
    """What `copy` did: rows copied and rows left out (first record wins) per table, the
    memory-op cursors it moved, and what the person should know."""

    rows: dict[str, int] = field(default_factory=dict)
    kept_target: dict[str, int] = field(default_factory=dict)
    cached_vectors: int = 0
    cursors: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def copy(
    db: Database,
    source: str,
    scopes: Sequence[str],
    op_cursors: Sequence[str] = (),
    say: Callable[[str, int], None] | None = None,
) -> Copied:
    """Copy every row of `scopes` from the attached `source` into this file, inside the caller's
    transaction; the caller has made sure this file holds none of them.

    `op_cursors` name cursors that read the memory-op log by `seq` (the op outbox's, the
    predictors'): copied ops are numbered after this file's own, so a cursor that had read all of
    this file's ops is moved past the copied ops the source had read too (they were published,
    or predicted from, there); the ones the source had not read yet are read here.
    """
    report = Copied()
    have_src, have_here = _tables(db, source), _tables(db, MAIN)
    params = [list(scopes)]
    ops_before = _scalar(db, "SELECT coalesce(max(seq), 0) FROM memory_ops")
    here_at = {c: _cursor(db, MAIN, c) for c in op_cursors}
    source_at = {c: _cursor(db, source, c) for c in op_cursors}
    ops_base = 0
    for r in MOVED:
        if r.table not in have_src:
            report.rows[r.table] = 0
            continue
        if r.table not in have_here:
            raise StoreError(f"the target has no table {r.table} (its embedding tables are made first)")
        cols = _columns(db, source, r.table)
        if cols != _columns(db, MAIN, r.table):
            raise StoreError(
                f"table {r.table} has other columns in the two files ({cols} and {_columns(db, MAIN, r.table)})"
            )
        n = _scalar(db, f"SELECT count(*) FROM {_in(source, r.table)} WHERE {_SCOPES}", params)
        names = ", ".join(f'"{c}"' for c in cols)
        where = f"s.{_SCOPES}"
        if r.first_wins:
            on = " AND ".join(f"s.{k} = t.{k}" for k in r.key)
            where += f" AND NOT EXISTS (SELECT 1 FROM {r.table} t WHERE {on})"
        if r.sequence is not None and n:
            base = _numbers(db, r.sequence, n)
            if r.table == "memory_ops":
                ops_base = base
            picked = ", ".join("? + rn - 1 AS seq" if c == "seq" else f'"{c}"' for c in cols)
            order = ", ".join(["seq", *r.key])
            db.con.execute(
                f"INSERT INTO {r.table} ({names}) SELECT {picked} FROM (SELECT *, row_number() OVER"
                f" (ORDER BY {order}) AS rn FROM {_in(source, r.table)} s WHERE {where})",
                [base, *params],
            )
        elif n:
            db.con.execute(
                f"INSERT INTO {r.table} ({names}) SELECT {names} FROM {_in(source, r.table)} s WHERE {where}",
                params,
            )
        copied = _scalar(db, f"SELECT count(*) FROM {r.table} WHERE {_SCOPES}", params)
        report.rows[r.table] = copied
        if r.first_wins and copied < n:
            report.kept_target[r.table] = n - copied
        if say is not None:
            say(r.table, copied)
    if "embed_cache" in have_src and "embed_cache" in have_here and "item_sources" in have_src:
        before = _scalar(db, "SELECT count(*) FROM embed_cache")
        db.con.execute(
            f"INSERT INTO embed_cache SELECT c.hash, c.vec FROM {_in(source, 'embed_cache')} c"
            f" WHERE c.hash IN (SELECT embed_hash FROM {_in(source, 'item_sources')} WHERE {_SCOPES})"
            " AND NOT EXISTS (SELECT 1 FROM embed_cache t WHERE t.hash = c.hash)",
            params,
        )
        report.cached_vectors = _scalar(db, "SELECT count(*) FROM embed_cache") - before
    # the memory-op cursors: past the copied ops the source had read (a prefix, in seq order)
    moved_ops = report.rows.get("memory_ops", 0)
    for name in op_cursors:
        at = here_at[name]
        if at is None or not moved_ops:
            continue  # a file the daemon never ran on takes every op it holds as history
        if at < ops_before:
            report.warnings.append(
                f"the target's cursor {name} had not read all of its own memory ops ({at} < {ops_before}):"
                f" the {moved_ops} copied ops come after them and will be read again there"
            )
            continue
        read = source_at[name]
        done = (
            moved_ops
            if read is None
            else _scalar(
                db,
                f"SELECT count(*) FROM {_in(source, 'memory_ops')} WHERE {_SCOPES} AND seq <= ?",
                [*params, read],
            )
        )
        if done:
            position = ops_base + done - 1
            db.con.execute(
                "INSERT INTO cursors VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                [name, position],
            )
            report.cursors[name] = position
    # generations past both files' (an index copy of neither is current), no index pointers
    db.con.execute(
        "INSERT INTO scope_state SELECT u.scope, coalesce(s.generation, 0) + 1"
        f" FROM (SELECT unnest(?) AS scope) u LEFT JOIN {_in(source, 'scope_state')} s USING (scope)"
        " ON CONFLICT (scope) DO UPDATE SET generation = greatest(scope_state.generation, excluded.generation) + 1",
        params,
    )
    forget_index_pointers(db, scopes)
    db.forget_generations()
    return report


def cached_missing(db: Database, source: str, scopes: Sequence[str]) -> int:
    """Cached vectors the source holds for the moved sources' texts that this file lacks."""
    have_src, have_here = _tables(db, source), _tables(db, MAIN)
    if "embed_cache" not in have_src or "item_sources" not in have_src:
        return 0
    if "embed_cache" not in have_here:
        return _scalar(db, f"SELECT count(*) FROM {_in(source, 'embed_cache')}")
    return _scalar(
        db,
        f"SELECT count(*) FROM {_in(source, 'embed_cache')} c"
        f" WHERE c.hash IN (SELECT embed_hash FROM {_in(source, 'item_sources')} WHERE {_SCOPES})"
        " AND NOT EXISTS (SELECT 1 FROM embed_cache t WHERE t.hash = c.hash)",
        [list(scopes)],
    )


def forget_index_pointers(db: Database, scopes: Sequence[str]) -> None:
    """This file no longer points at an index copy of these scopes (meta's `index_file:` rows)."""
    db.con.execute("DELETE FROM meta WHERE key IN (SELECT ? || unnest(?))", [_INDEX_FILE, list(scopes)])


def delete(db: Database, scopes: Sequence[str]) -> dict[str, int]:
    """Delete every row of `scopes` from this file, inside the caller's transaction; returns the
    rows deleted per table. The embedding cache loses the vectors only these scopes named."""
    have = _tables(db, MAIN)
    params = [list(scopes)]
    deleted: dict[str, int] = {}
    if "embed_cache" in have:
        deleted["embed_cache"] = _scalar(
            db,
            "WITH d AS (DELETE FROM embed_cache WHERE hash IN"
            f" (SELECT embed_hash FROM item_sources WHERE {_SCOPES})"
            " AND hash NOT IN (SELECT embed_hash FROM item_sources WHERE embed_hash IS NOT NULL"
            f" AND NOT ({_SCOPES})) RETURNING 1) SELECT count(*) FROM d",
            [*params, *params],
        )
    for r in MOVED:
        if r.table not in have:
            deleted[r.table] = 0
            continue
        deleted[r.table] = _scalar(
            db,
            f"WITH d AS (DELETE FROM {r.table} WHERE {_SCOPES} RETURNING 1) SELECT count(*) FROM d",
            params,
        )
    db.con.execute(f"UPDATE scope_state SET generation = generation + 1 WHERE {_SCOPES}", params)
    forget_index_pointers(db, scopes)
    db.forget_generations()
    return deleted


def embedding(db: Database, catalog: str = MAIN) -> tuple[str, int] | None:
    """(model, dimension) the file's vectors were made with; None before any."""
    rows = dict(
        db.con.execute(
            f"SELECT key, value FROM {_in(catalog, 'meta')} WHERE key IN ('embed_model', 'embed_dim')"
        ).fetchall()
    )
    if "embed_model" not in rows or "embed_dim" not in rows:
        return None
    return str(rows["embed_model"]), int(rows["embed_dim"])


def unreplayed_dead_letters(db: Database, catalog: str = MAIN) -> int:
    return _scalar(db, f"SELECT count(*) FROM {_in(catalog, 'dead_letters')} WHERE replayed_at IS NULL")
