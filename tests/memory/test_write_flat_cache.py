"""The embedding cache is written without DuckDB's conflict check (issue 25).

`cache_vectors` wrote a batch with INSERT OR IGNORE, whose conflict check grew with the cache
(10-18 ms for 62 vectors at 100k texts); it now asks which hashes are cached already and inserts
the rest plainly, as it did for a turn's few. What it stores must not change: a text cached
already keeps its vector, a hash named twice is written once with its first vector, and every
new one is there afterwards, for batches of any size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from daemon.memory.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "cache.duckdb")
    s.ensure_vectors("test-model", 4)
    yield s
    s.close()


def _all(store: Store) -> dict[str, list[float]]:
    rows = store.con.execute("SELECT hash, vec FROM embed_cache ORDER BY hash").fetchall()
    return {h: list(v) for h, v in rows}


@pytest.mark.parametrize("size", [1, 3, 5, 62, 300])
def test_cached_texts_keep_their_vectors_and_new_ones_are_written_once(store: Store, size: int) -> None:
    rng = np.random.default_rng(size)
    first = [f"old{i}" for i in range(size)]
    old = rng.normal(size=(size, 4)).astype(np.float32)
    store.index.cache_vectors(first, old)
    # a later batch: half of it cached already (with other vectors now), new ones, one named twice
    known = first[: max(1, size // 2)]
    new = [f"new{i}" for i in range(size)]
    hashes = [*known, *new, new[0]]
    vecs = rng.normal(size=(len(hashes), 4)).astype(np.float32)
    store.index.cache_vectors(hashes, vecs)
    got = _all(store)
    assert len(got) == 2 * size
    for h, v in zip(first, old, strict=True):
        assert got[h] == v.tolist()  # kept, not replaced
    for h, v in zip(new, vecs[len(known) :], strict=False):
        assert got[h] == v.tolist()  # the first vector of a hash named twice
    assert store.index.cached_vectors(sorted(hashes)).keys() == set(hashes)


def test_a_batch_of_only_cached_texts_writes_nothing(store: Store) -> None:
    vecs = np.eye(4, dtype=np.float32)[[0, 1, 2, 3, 0, 1]]
    names = ["a", "b", "c", "d", "e", "f"]
    store.index.cache_vectors(names, vecs)
    store.index.cache_vectors(names, vecs[::-1].copy())
    assert _all(store) == {h: v.tolist() for h, v in zip(names, vecs, strict=True)}
