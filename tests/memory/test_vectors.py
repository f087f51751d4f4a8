"""The dense index: exact below the IVF threshold, close to exact above it."""

from __future__ import annotations

import numpy as np

from daemon.memory.vectors import IVFParams, VectorIndex, kmeans


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
