"""The dense index: exact below the IVF threshold, close to exact above it."""

from __future__ import annotations

import numpy as np

from daemon.memory.read.vectors import IVFParams, VectorIndex, kmeans


def _clustered(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(50, d))
    x = centers[rng.integers(0, 50, n)] + 0.6 * rng.normal(size=(n, d))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_exact_search_below_threshold() -> None:
    x = _clustered(500, 32, 1)
    idx = VectorIndex(32, IVFParams(ivf_min=10_000))
    idx.add(x[:200])
    idx.add(x[200:])
    q = x[7]
    rows, sims = idx.search(q, 5)
    assert not idx.uses_ivf
    assert rows[0] == 7 and abs(sims[0] - 1.0) < 1e-5
    assert np.all(np.diff(sims) <= 1e-6)
    np.testing.assert_array_equal(rows, np.argsort(-(x @ q))[:5])


def test_ivf_recall_against_brute_force() -> None:
    x = _clustered(6000, 32, 2)
    idx = VectorIndex(32, IVFParams(ivf_min=2000, rows_per_list=100, nprobe_frac=0.15))
    idx.add(x[:3000])
    assert idx.uses_ivf
    idx.add(x[3000:])  # appended rows are searchable before and after assignment
    rng = np.random.default_rng(3)
    found = 0
    for qi in rng.integers(0, 6000, 40):
        rows, _ = idx.search(x[qi], 10)
        exact = set(np.argsort(-(x @ x[qi]))[:10].tolist())
        found += len(exact & set(rows.tolist()))
    assert found / 400 >= 0.9


def test_kmeans_centroids_are_unit_vectors() -> None:
    x = _clustered(1000, 16, 4)
    c = kmeans(x, 20, 5, 0)
    assert c.shape == (20, 16)
    np.testing.assert_allclose(np.linalg.norm(c, axis=1), 1.0, atol=1e-5)


def test_default_search_is_exact_at_a_size_the_ivf_used_to_take() -> None:
    """30k rows (where the old IVF kept three quarters of the true top 10): the same top 10."""
    x = _clustered(30_000, 32, 5)
    idx = VectorIndex(32)
    idx.add(x[:20_000])
    idx.add(x[20_000:])
    assert not idx.uses_ivf
    rng = np.random.default_rng(6)
    for qi in rng.integers(0, 30_000, 20):
        q = x[qi] + 0.3 * rng.normal(size=32).astype(np.float32)
        rows, _ = idx.search(q, 10)
        np.testing.assert_array_equal(rows, np.argsort(-(x @ q), kind="stable")[:10])


def test_the_first_batch_is_searchable_after_more_rows_arrive() -> None:
    """The first add keeps the caller's matrix; growing past it copies, rows stay intact."""
    x = _clustered(300, 16, 7)
    idx = VectorIndex(16)
    first = x[:100].copy()
    idx.add(first)
    idx.add(x[100:])
    np.testing.assert_array_equal(idx.matrix, x)
    assert idx.search(x[42], 1)[0][0] == 42
