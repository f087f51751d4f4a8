"""The dense index: exact cosine top-n over one scope's vectors (an IVF only past a million).

Vectors live in DuckDB; this is a derived structure: one float32 matrix, searched by a
brute-force matrix product. Exact search is the default up to `ivf_min` (a million rows):
bench/scale.py measured the IVF that used to start at 20k losing a quarter of the true top 10
at 30k, for a time the brute force beats there anyway (1.9 ms). float16 and int8 copies were
measured and not taken: numpy has no BLAS kernel for them, so a product over 100k rows costs
20× (float16) and 6× (int8) the float32 one. Past `ivf_min`, an inverted-file index (k-means
coarse quantiser) scans the `nprobe` lists nearest to the query; its lists hold row numbers
only, the vectors stay in the one matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class IVFParams:
    """When and how the coarse quantiser is used."""

    ivf_min: int = 1_000_000  # below this many vectors, search is exact (bench/scale.py)
    rows_per_list: int = 400  # nlist ≈ n / rows_per_list
    nprobe_frac: float = 0.12  # share of lists scanned per query (bench/scale.py: recall vs time)
    min_nprobe: int = 8
    train_sample: int = 20_000
    iters: int = 8
    seed: int = 0


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    if scores.shape[0] <= n:
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, n - 1)[:n]
    return part[np.argsort(-scores[part], kind="stable")]


def kmeans(x: np.ndarray, k: int, iters: int, seed: int) -> np.ndarray:
    """Spherical k-means (cosine) on unit vectors; returns unit centroids (k, d)."""
    rng = np.random.default_rng(seed)
    centroids = x[rng.choice(x.shape[0], size=k, replace=False)].copy()
    for _ in range(iters):
        assign = np.argmax(x @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assign, x)
        counts = np.bincount(assign, minlength=k)
        empty = counts == 0
        if empty.any():  # re-seed empty lists with random points
            sums[empty] = x[rng.choice(x.shape[0], size=int(empty.sum()), replace=False)]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = (sums / np.maximum(norms, 1e-12)).astype(np.float32)
    return centroids


class VectorIndex:
    """Growable (n, d) matrix of unit vectors with an optional IVF over it."""

    def __init__(self, dim: int, params: IVFParams | None = None) -> None:
        self.dim = dim
        self.params = params or IVFParams()
        self._mat = np.zeros((0, dim), dtype=np.float32)
        self._n = 0
        self._centroids: np.ndarray | None = None
        self._lists: list[np.ndarray] = []  # row positions per list
        self._pending: list[int] = []  # rows added since the lists were (re)built
        self._trained_at = 0

    def __len__(self) -> int:
        return self._n

    @property
    def matrix(self) -> np.ndarray:
        return self._mat[: self._n]

    def add(self, vectors: np.ndarray) -> None:
        """Append rows; the first call takes a float32 C-ordered array as it is (no copy)."""
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        need = self._n + vectors.shape[0]
        if self._n == 0 and vectors.flags.c_contiguous and vectors.flags.writeable:
            # a snapshot's matrix is taken as it is, not copied nor written to (a memory-mapped
            # one stays the file's pages)
            self._mat = vectors
        else:
            if need > self._mat.shape[0]:
                grown = np.zeros((max(need, 2 * self._mat.shape[0], 64), self.dim), dtype=np.float32)
                grown[: self._n] = self._mat[: self._n]
                self._mat = grown
            self._mat[self._n : need] = vectors
        self._pending.extend(range(self._n, need))
        self._n = need
        if self._n >= self.params.ivf_min and (self._centroids is None or self._n >= 2 * self._trained_at):
            self.train()
        elif self._centroids is not None and len(self._pending) >= max(1024, self._n // 20):
            self._assign_pending()

    @property
    def uses_ivf(self) -> bool:
        return self._centroids is not None

    def train(self) -> None:
        """(Re)build the coarse quantiser from the current rows."""
        p = self.params
        x = self.matrix
        nlist = max(16, self._n // p.rows_per_list)
        rng = np.random.default_rng(p.seed)
        sample = x if self._n <= p.train_sample else x[rng.choice(self._n, p.train_sample, replace=False)]
        self._centroids = kmeans(sample, min(nlist, sample.shape[0]), p.iters, p.seed)
        self._trained_at = self._n
        assign = self._assign(x)
        order = np.argsort(assign, kind="stable")
        bounds = np.searchsorted(assign[order], np.arange(self._centroids.shape[0] + 1))
        self._lists = [order[bounds[c] : bounds[c + 1]] for c in range(self._centroids.shape[0])]
        self._pending = []

    def _assign(self, x: np.ndarray) -> np.ndarray:
        assert self._centroids is not None
        out = np.empty(x.shape[0], dtype=np.int64)
        for start in range(0, x.shape[0], 8192):  # bounded temporary (8192 × nlist)
            out[start : start + 8192] = np.argmax(x[start : start + 8192] @ self._centroids.T, axis=1)
        return out

    def _assign_pending(self) -> None:
        if not self._pending or self._centroids is None:
            return
        rows = np.asarray(self._pending, dtype=np.int64)
        assign = self._assign(self._mat[rows])
        for c in np.unique(assign):
            new = rows[assign == c]
            self._lists[c] = np.concatenate([self._lists[c], new])
        self._pending = []

    def search(self, query: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-n rows by cosine: (row positions, similarities), best first."""
        rows, sims, _ = self.search_with_floor(query, n)
        return rows, sims

    def search_with_floor(self, query: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Like `search`, plus the lowest similarity among the vectors scanned.

        The floor lets fusion normalise cosine against the scope (exact) or the probed lists
        (IVF) instead of against the few candidates it kept.
        """
        if self._n == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32), 0.0
        q = np.asarray(query, dtype=np.float32).reshape(self.dim)
        if self._centroids is None:
            exact = self.matrix @ q
            top = _top(exact, n)
            return top, exact[top], float(exact.min())
        p = self.params
        nprobe = max(p.min_nprobe, round(p.nprobe_frac * self._centroids.shape[0]))
        probe = _top(self._centroids @ q, nprobe)
        rows: list[np.ndarray] = [self._lists[c] for c in probe]
        if self._pending:  # not yet assigned to a list: scan them exactly
            rows.append(np.asarray(self._pending, dtype=np.int64))
        all_rows = np.concatenate(rows)
        all_sims = self._mat[all_rows] @ q
        top = _top(all_sims, n)
        return all_rows[top], all_sims[top], float(all_sims.min())

    def similarity(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosine of the query against chosen rows (for fusing BM25-only candidates)."""
        out: np.ndarray = self._mat[rows] @ np.asarray(query, dtype=np.float32)
        return out
