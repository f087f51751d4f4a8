"""The DuckDB store: migrations, scopes, idempotent writes, vectors bound to their model."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from daemon.errors import ScopeRequired, StoreError
from daemon.memory import Memory, MemoryParams
from daemon.memory.store import MIGRATIONS, SCHEMA_VERSION, Store
from tests.conftest import FakeClock, turn


def test_migrates_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION
    tables = {r[0] for r in store.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"resources", "items", "item_sources", "categories", "postings", "meta"} <= tables
    store.close()
    again = Store(path)  # reopening applies nothing twice
    assert again.migrate() == []
    assert again.con.execute("SELECT count(*) FROM schema_version").fetchone() == (len(MIGRATIONS),)
    again.close()


def test_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    Store(path).close()
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO schema_version VALUES (999, now())")
    con.close()
    with pytest.raises(StoreError, match="newer than this memubot"):
        Store(path)


def test_vectors_are_fixed_size_float_arrays(memory: Memory) -> None:
    memory.memorize([turn("a1", "I adopted a cat called Luna from the shelter.")])
    col = memory.store.con.execute(
        "SELECT data_type FROM information_schema.columns WHERE table_name='item_vectors' AND column_name='vec'"
    ).fetchone()
    assert col == ("FLOAT[384]",)


def test_reads_without_scope_are_errors(memory: Memory) -> None:
    with pytest.raises(ScopeRequired):
        memory.recall("anything", "")
    with pytest.raises(ScopeRequired):
        memory.store.index.snapshot("")
    with pytest.raises(ScopeRequired):
        memory.memorize([turn("x", "I live in Berlin and work as a nurse.", scope="")])


def test_memorize_is_idempotent(memory: Memory) -> None:
    turns = [turn(f"t{i}", f"I visited museum number {i} in Paris with my sister.") for i in range(5)]
    first = memory.memorize(turns + turns[:2])  # duplicates inside one call too
    assert first.resources_added == 5 and first.resources_skipped == 2
    second = memory.memorize(turns)
    assert second.resources_added == 0 and second.resources_skipped == 5 and second.items_added == 0
    stats = memory.stats("alice")
    assert stats["resources"] == 5 and stats["items"] == 5
    links = memory.store.con.execute("SELECT count(*) FROM item_sources").fetchone()
    assert links == (5,)


def test_every_item_links_to_its_resources(memory: Memory) -> None:
    memory.memorize([turn("r1", "My favourite food is ramen, I eat it every Friday.")])
    hits = memory.recall("favourite food", "alice", k=1)
    item = memory.get_item("alice", hits[0].item_id)
    assert item is not None and item["source_ids"] == ["r1"] and item["scope"] == "alice"
    assert item["category"] in ("preferences", "patterns")


def test_embedding_cache_is_keyed_by_content(memory: Memory) -> None:
    memory.memorize([turn("c1", "The meeting with Bob moved to Thursday afternoon.", session=None)])
    memory.memorize([turn("c2", "The meeting with Bob moved to Thursday afternoon.", session=None)])
    cached = memory.store.con.execute("SELECT count(*) FROM embed_cache").fetchone()
    assert cached == (1,)  # the same text was embedded once


class _OtherModel:
    """A different embedding model (a projection of the real one) to trigger re-embedding."""

    name = "test/other-model"
    dim = 8

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.proj = np.random.default_rng(0).normal(size=(384, 8)).astype(np.float32)

    def _n(self, x: np.ndarray) -> np.ndarray:
        y = x @ self.proj
        return y / np.linalg.norm(y, axis=-1, keepdims=True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._n(self.inner.embed_passages(texts))  # type: ignore[attr-defined]

    def embed_query(self, text: str) -> np.ndarray:
        return self._n(self.inner.embed_query(text))  # type: ignore[attr-defined]


def test_model_change_rebuilds_vectors_from_duckdb(db_path: Path, embedder: object, clock: FakeClock) -> None:
    with Memory.open(db_path, embedder, MemoryParams(), clock=clock) as mem:  # type: ignore[arg-type]
        mem.memorize([turn(f"m{i}", f"Fact number {i}: I planted {i} tomato plants.") for i in range(4)])
    with Memory.open(db_path, _OtherModel(embedder), MemoryParams(), clock=clock) as mem:  # type: ignore[arg-type]
        dims = mem.store.con.execute(
            "SELECT data_type FROM information_schema.columns WHERE table_name='item_vectors' AND column_name='vec'"
        ).fetchone()
        assert dims == ("FLOAT[8]",)
        assert mem.store.con.execute("SELECT count(*) FROM item_vectors").fetchone() == (4,)
        assert mem.recall("tomato plants", "alice", k=2)


def test_a_new_migration_applies_once_and_keeps_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory: Memory
) -> None:
    memory.memorize([turn("keep", "I keep my passport in the blue drawer.")])
    path = Path(memory.store.path)
    memory.close()
    from daemon.memory import store as store_mod

    extra = (SCHEMA_VERSION + 1, ["ALTER TABLE items ADD COLUMN pinned BOOLEAN DEFAULT FALSE"])
    monkeypatch.setattr(store_mod, "MIGRATIONS", [*store_mod.MIGRATIONS, extra])
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", extra[0])
    upgraded = store_mod.Store(path)
    assert upgraded.schema_version() == extra[0]
    assert upgraded.con.execute("SELECT count(*) FROM items WHERE NOT pinned").fetchone() == (1,)
    assert upgraded.migrate() == []
    upgraded.close()
    memory.store = store_mod.Store(path)  # the fixture closes what it holds


def test_has_scope_until_the_scope_is_forgotten(memory: Memory) -> None:
    assert not memory.store.has_scope("alice")
    memory.memorize([turn("h1", "I moved to Lisbon last spring for a new job.")])
    assert memory.store.has_scope("alice") and memory.has_scope("alice")
    assert not memory.has_scope("bob")
    assert len(memory.scope_index("alice"))  # answered from the index from now on
    memory.forget("alice", everything=True)
    assert not memory.has_scope("alice")
    memory.memorize([turn("h2", "My sister just had twins, two girls.")])
    assert memory.has_scope("alice")


def test_slot_families_are_the_slot_items_of_every_speaker(memory: Memory) -> None:
    memory.memorize(
        [
            turn("f1", "My favourite food is ramen, I eat it every Friday."),
            turn("f2", "I live in Lyon and work as a nurse.", speaker="Bob"),
            turn("f3", "I love hiking in the Alps with my dog Rex."),
            turn("f4", "My sister Emma is a violinist.", speaker=None),
        ]
    )
    store = memory.store
    families = store.items.slot_families("alice", ["preferences", "profile", "entities"])
    assert families  # something to compare
    for (category, speaker), rows in families.items():
        assert rows == store.items.slot_items("alice", category, speaker)
    for category in ("preferences", "profile", "entities"):
        for speaker in ("Alice", "Bob", ""):
            assert families.get((category, speaker), []) == store.items.slot_items("alice", category, speaker)


def test_the_generation_a_recall_reads_is_the_committed_one(tmp_path: Path) -> None:
    path = tmp_path / "gen.duckdb"
    store = Store(path)
    other = Store(path)  # a second connection of this process to the same file
    try:
        assert store.generation("a") == 0 and other.generation("a") == 0  # asked once, then kept
        with store.transaction():
            store.bump_generation(["a", "b"])
            assert store.generation("a") == 1  # this connection sees its own write
            assert other.generation("a") == 0  # not committed yet: the other still reads 0
        assert (store.generation("a"), store.generation("b")) == (1, 1)
        assert other.generation("a") == 1  # the commit dropped what the other had kept
        with pytest.raises(RuntimeError), store.transaction():
            store.bump_generation(["a"])
            assert store.generation("a") == 2
            raise RuntimeError("the write failed")
        assert store.generation("a") == 1 and other.generation("a") == 1  # rolled back
        other.bump_generation(["a"])  # outside a transaction: committed at once
        assert store.generation("a") == 2
        # what the file holds, asked without what is kept
        [(on_disk,)] = store.con.execute("SELECT generation FROM scope_state WHERE scope = 'a'").fetchall()
        assert on_disk == 2
    finally:
        other.close()
        store.close()


def _cached_table_bytes(store: Store) -> int:
    row = store.con.execute(
        "SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'BASE_TABLE'"
    ).fetchone()
    return int(row[0]) if row else 0


def test_release_buffers_gives_back_the_pages_a_big_read_cached(tmp_path: Path) -> None:
    """After a big read DuckDB keeps the pages up to its limit; `release_buffers` evicts them
    and leaves the limit as it was (a 100k index build kept 183 MB of them)."""
    store = Store(tmp_path / "m.duckdb", memory_limit="256MB")
    store.con.execute(  # random doubles: they do not compress, so their pages weigh what they hold
        "CREATE TABLE big AS SELECT random() AS a, random() AS b, random() AS c FROM range(5000000)"
    )
    store.checkpoint()
    store.con.execute("SELECT sum(a + b + c) FROM big").fetchall()
    limit_before = store.con.execute("SELECT current_setting('memory_limit')").fetchone()
    before = _cached_table_bytes(store)
    held = store.cached_bytes()
    store.release_buffers()
    after = _cached_table_bytes(store)
    assert held >= before and store.cached_bytes() < held - 50_000_000  # all DuckDB holds, and less
    with store.transaction():  # not inside a transaction: a failed SET would abort it
        store.con.execute("INSERT INTO big VALUES (1.0, 2.0, 3.0)")
        store.release_buffers()
    assert store.con.execute("SELECT count(*) FROM big WHERE a = 1.0 AND b = 2.0").fetchone() == (1,)
    limit = store.con.execute("SELECT current_setting('memory_limit')").fetchone()
    store.close()
    assert before > 100_000_000  # the table's pages were cached (more than RELEASE_TO)
    assert after <= 16_000_000 < before  # down to RELEASE_TO ("16MB")
    assert limit == limit_before


def test_a_big_index_build_releases_what_it_read(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scope index built from at least RELEASE_AFTER_ROWS rows gives back DuckDB's cache and
    the heap's freed blocks; a smaller one keeps them."""
    from daemon.memory import facade, heap

    calls: list[str] = []
    monkeypatch.setattr(memory.store, "release_buffers", lambda: calls.append("duckdb"))
    monkeypatch.setattr(heap, "trim", lambda: calls.append("heap") or True)
    memory.memorize([turn("r1", "I keep bees on the roof."), turn("r2", "My bike is a red Brompton.")])
    monkeypatch.setattr(facade, "RELEASE_AFTER_ROWS", 3)
    memory._indexes.clear()
    memory.scope_index("alice")
    assert calls == []
    monkeypatch.setattr(facade, "RELEASE_AFTER_ROWS", 2)
    memory._indexes.clear()
    memory.scope_index("alice")
    assert calls == ["duckdb", "heap"]


def test_heap_trim_runs_on_glibc() -> None:
    import platform

    from daemon.memory import heap

    assert heap.trim() is (platform.libc_ver()[0] == "glibc")


def test_cached_vectors_are_the_ones_cached_under_each_hash(memory: Memory) -> None:
    memory.memorize([turn("c0", "Something to make the store know its dimension.")])
    dim = memory.store.dim or 0
    vecs = np.eye(3, dim, dtype=np.float32)
    memory.store.index.cache_vectors(["h-a", "h-b", "h-c"], vecs)
    got = memory.store.index.cached_vectors(["h-c", "h-a", "h-missing", "h-a"])
    assert sorted(got) == ["h-a", "h-c"]
    assert np.array_equal(got["h-a"], vecs[0]) and np.array_equal(got["h-c"], vecs[2])
    assert memory.store.index.cached_vectors([]) == {}
