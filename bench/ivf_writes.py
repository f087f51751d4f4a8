#!/usr/bin/env python3
"""Issue 25: can the write path's two cosine passes go through an index instead of a scan?

usage: python bench/ivf_writes.py --db FILE [--db FILE ...] [--gen N ...] [--queries 620] [--batch 62]
                                  [--out FILE.json]

`BatchDecisions.plan` (daemon/memory/write/decisions.py) scores each batch of drafts against every
row of the scope (`vecs @ M.T`), then per draft (a) `_above`: the rows of the same category and
speaker at cosine >= 0.96 (dedup), (b) `_nearest`: the 8 rows of the same speaker with the highest
cosine of at least 0.80 (the update pool). This bench measures approximate candidate searches
for both against that exact baseline, on the same vectors and in the same run:

- IVF, spherical k-means on CENTERED vectors (scope mean subtracted, renormalised), nlist n/100,
  n/300, n/1000, several nprobe; candidates scored exactly with the original vectors gathered by
  row. Modes: `draft` (each draft gathers the rows of ITS speaker in its lists: lists are sorted
  by speaker), `draft-all` (all rows of its lists, the speaker masked after), `union` (one gather
  of the union of the batch's lists and one product for the batch). A control with k-means on
  the raw (uncentered) vectors, as the read path's old IVF did.
- PCA prefilter: d dims of the centered vectors (float32), top T per draft rescored exactly.

Scopes: a DuckDB file (read-only; pass a copy) of bench/scale.py / bench/ready.py, and/or
`--gen N`: turns 0..N-1 of the same generator (bench/synthetic.py, seed 7) without DuckDB, i.e.
without ready.py's duplicated rows (its grown files repeat each of the first 30k vectors).

Queries (drafts): `loo` rows of the scope left out of it (only the row), `loo-group` (the row and
its grown copies), `new` the generator's next turns (30000.. for a grown file, N.. for --gen),
speaker Person{i % 7}; their category is unknown, so (a) is taken over the speaker's rows of any
category (a superset of what dedup reads).

Recall is of the candidate set: (a) ok when every exact (a) row is a candidate; (b) ok when the
best 8 candidates (same speaker, >= 0.80) have the cosines of the exact best 8 (ties: the grown
copies have equal vectors), `b_strict` when they are the same rows. Times are medians per batch,
the method and the baseline (product + masks + `_above`/`_nearest`) alternated batch by batch.

The runs of 3 Dec 2026 (2 shared cores, load 1-3.5): `--db` copies of
bench/out/cost-final/fill-30000-grown{100000,300000}.duckdb `--gen 100000 --gen 300000`, and
`--sets restated new --nlist-div 100 --control-div 0 --nprobe 4 16 64 256 1024 --pca-dims` on the
two files and --gen 300000. (a) is found whole with ~300 rows per draft; the exact best 8 of (b)
sit in a flat tail (8th ~0.86, the 9th ~0.001 below) spread over most lists, and no
configuration found them for 99.5% of drafts for less than a full scan.

Prints one JSON document (written to --out after each scope); progress goes to stderr. Set OPENBLAS_NUM_THREADS=1 (the daemon's)
before numpy loads: this script does when unset. Quote the load averages with the numbers.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# bench/daemon.py would shadow the package: the installed `daemon` first, then bench/ for synthetic
sys.path = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from daemon.memory.write.decisions import _above, _nearest  # noqa: E402
from daemon.memory.write.dedup import DedupParams  # noqa: E402
from daemon.memory.write.updates import UPDATE_CANDIDATES, UPDATE_FLOOR  # noqa: E402

sys.path.append(str(ROOT / "bench"))
from synthetic import DATA, synthetic_turns  # noqa: E402

SAME = DedupParams().same_threshold  # 0.96
FLOOR = UPDATE_FLOOR  # 0.80
TOP = UPDATE_CANDIDATES  # 8
SPEAKERS = [f"Person{i}" for i in range(7)]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.2f}] {msg}", file=sys.stderr, flush=True)


@dataclass
class Scope:
    name: str
    M: np.ndarray  # (n, 384) float32, unit rows, in id order
    cat: np.ndarray  # int32 category code
    spk: np.ndarray  # int32 speaker code (SPEAKERS order; -1 other)
    active: np.ndarray  # bool
    group: np.ndarray  # int64: rows with the same group are one row and its grown copies
    first_new: int  # the generator turn the `new` queries start at


@dataclass
class Queries:
    name: str
    V: np.ndarray  # (q, 384)
    spk: np.ndarray  # int32
    cat: np.ndarray  # int32, -1: any category
    exclude: list[np.ndarray]  # rows left out of the scope for each query


@dataclass
class Truth:
    a: list[np.ndarray]
    b_rows: list[np.ndarray]
    b_cos: list[np.ndarray]


# ----------------------------------------------------------------------------- data


def generator_vectors(n: int, base_file: Path) -> np.ndarray:
    """The vectors of the generator's turns 0..n-1 (bench/synthetic.py, seed 7), in turn order."""
    texts = [json.loads(x)["text"] for x in (DATA / "events.jsonl").read_text().splitlines() if x.strip()]
    base = np.load(base_file)
    table: dict[str, np.ndarray] = {}
    for _ in synthetic_turns(n, texts, base, np.random.default_rng(7), table):
        pass
    return np.stack(list(table.values())).astype(np.float32)


def load_db(path: Path, cache: Path) -> Scope:
    """The scope `big` of a bench file: (id order) vectors, category, speaker, active, copy group."""
    key = cache / f"{path.stem}.npz"
    if not key.exists():
        con = duckdb.connect(str(path), read_only=True)
        rel = con.execute(
            "SELECT i.id, i.category, coalesce(i.speaker, '') AS speaker,"
            " (NOT i.archived AND i.superseded_by IS NULL AND i.valid_until IS NULL) AS active"
            " FROM items i JOIN item_vectors v ON v.item_id = i.id WHERE i.scope = 'big' ORDER BY i.id"
        ).fetchnumpy()
        ids = [str(x) for x in rel["id"]]
        n = len(ids)
        M = np.zeros((n, 384), np.float32)
        at, last = 0, ""
        while at < n:  # in chunks, as daemon/memory/store/index.py reads them
            r = con.execute(
                "SELECT i.id, v.vec FROM items i JOIN item_vectors v ON v.item_id = i.id"
                " WHERE i.scope = 'big' AND i.id > ? ORDER BY i.id LIMIT 50000",
                [last],
            ).fetchnumpy()
            got = len(r["id"])
            M[at : at + got] = np.stack(list(r["vec"]))
            at, last = at + got, str(r["id"][-1])
        cats = sorted(set(map(str, rel["category"])))
        cat = np.array([cats.index(str(c)) for c in rel["category"]], np.int32)
        spk = np.array(
            [SPEAKERS.index(s) if s in SPEAKERS else -1 for s in map(str, rel["speaker"])], np.int32
        )
        originals = [re.sub(r"^c\d+-", "", i) for i in ids]
        codes: dict[str, int] = {}
        group = np.array([codes.setdefault(o, len(codes)) for o in originals], np.int64)
        np.savez(key, M=M, cat=cat, spk=spk, active=np.asarray(rel["active"], bool), group=group)
        con.close()
    z = np.load(key)
    return Scope(path.stem, z["M"], z["cat"], z["spk"], z["active"], z["group"], 30000)


def gen_scope(n: int, gen: np.ndarray, rng: np.random.Generator, cat_p: np.ndarray) -> Scope:
    """Turns 0..n-1 of the generator as a scope: speaker Person{i % 7}, a random category (drawn
    from a file's shares: the extraction's category is not reproduced), all active."""
    return Scope(
        f"gen-{n}",
        np.ascontiguousarray(gen[:n]),
        rng.choice(len(cat_p), size=n, p=cat_p).astype(np.int32),
        (np.arange(n) % 7).astype(np.int32),
        np.ones(n, bool),
        np.arange(n, dtype=np.int64),
        n,
    )


def make_queries(s: Scope, gen: np.ndarray, q: int, rng: np.random.Generator) -> list[Queries]:
    rows = rng.choice(np.flatnonzero(s.active), size=q, replace=False)
    out = [
        Queries("loo", s.M[rows], s.spk[rows], s.cat[rows], [np.array([r]) for r in rows]),
    ]
    if s.group.max() + 1 < len(s.group):  # a grown file: its rows repeat
        order = np.argsort(s.group, kind="stable")
        starts = np.searchsorted(s.group[order], s.group[rows])
        ends = np.searchsorted(s.group[order], s.group[rows], side="right")
        out.append(
            Queries(
                "loo-group",
                s.M[rows],
                s.spk[rows],
                s.cat[rows],
                [order[a:b] for a, b in zip(starts, ends, strict=True)],
            )
        )
    # restatements: a row's vector turned by a cosine of 0.965..0.995 (the row stays): (a) is never empty
    near = rng.choice(np.flatnonzero(s.active), size=q, replace=False)
    g = rng.normal(size=(q, s.M.shape[1])).astype(np.float32)
    g -= (g * s.M[near]).sum(axis=1, keepdims=True) * s.M[near]
    cos = rng.uniform(0.965, 0.995, size=(q, 1)).astype(np.float32)
    V = cos * s.M[near] + np.sqrt(1 - cos**2) * unit(g)
    out.append(Queries("restated", unit(V), s.spk[near], s.cat[near], [np.zeros(0, np.int64)] * q))
    turns = np.arange(s.first_new, s.first_new + q)
    out.append(
        Queries(
            "new",
            gen[turns],
            (turns % 7).astype(np.int32),
            np.full(q, -1, np.int32),
            [np.zeros(0, np.int64)] * q,
        )
    )
    return out


# ----------------------------------------------------------------------------- exact


def family(s: Scope, cat: int, spk: int) -> np.ndarray:
    mask = s.active & (s.spk == spk)
    if cat >= 0:
        mask &= s.cat == cat
    return mask


def truth(s: Scope, qs: Queries) -> Truth:
    t = Truth([], [], [])
    masks: dict[tuple[int, int], np.ndarray] = {}
    for lo in range(0, len(qs.V), 62):
        sims = qs.V[lo : lo + 62] @ s.M.T
        for j in range(sims.shape[0]):
            i = lo + j
            c = sims[j]
            c[qs.exclude[i]] = -np.inf
            ka, kb = (int(qs.cat[i]), int(qs.spk[i])), (-1, int(qs.spk[i]))
            for k in (ka, kb):
                if k not in masks:
                    masks[k] = family(s, *k)
            t.a.append(_above(c, SAME, masks[ka]))
            r, cos = _nearest(c, FLOOR, masks[kb], TOP)
            t.b_rows.append(r)
            t.b_cos.append(cos)
    return t


def baseline(s: Scope, V: np.ndarray, spk: np.ndarray, cat: np.ndarray) -> None:
    """What plan() does per batch: one product, the masks once per (category, speaker), two passes."""
    sims = V @ s.M.T
    masks: dict[tuple[int, int], np.ndarray] = {}
    for j in range(V.shape[0]):
        ka, kb = (int(cat[j]), int(spk[j])), (-1, int(spk[j]))
        for k in (ka, kb):
            if k not in masks:
                masks[k] = family(s, *k)
        _above(sims[j], SAME, masks[ka])
        _nearest(sims[j], FLOOR, masks[kb], TOP)


# ----------------------------------------------------------------------------- IVF


def unit(X: np.ndarray) -> np.ndarray:
    out: np.ndarray = X / np.linalg.norm(X, axis=1, keepdims=True)
    return out.astype(np.float32)


def argmax_rows(X: np.ndarray, C: np.ndarray, chunk: int = 8192) -> np.ndarray:
    out = np.empty(X.shape[0], np.int32)
    for lo in range(0, X.shape[0], chunk):
        out[lo : lo + chunk] = np.argmax(X[lo : lo + chunk] @ C.T, axis=1)
    return out


def kmeans(X: np.ndarray, k: int, iters: int, sample: int, rng: np.random.Generator) -> np.ndarray:
    """Spherical k-means (unit centroids, cosine assignment) on a sample of the unit rows X."""
    S = X[rng.choice(X.shape[0], size=min(sample, X.shape[0]), replace=False)]
    C = S[rng.choice(S.shape[0], size=k, replace=False)].copy()
    for _ in range(iters):
        a = argmax_rows(S, C)
        sums = np.zeros_like(C)
        order = np.argsort(a, kind="stable")
        counts = np.bincount(a, minlength=k)
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        nz = counts > 0
        sums[nz] = np.add.reduceat(S[order], starts[nz], axis=0)
        empty = np.flatnonzero(~nz)
        sums[empty] = S[rng.choice(S.shape[0], size=empty.shape[0], replace=False)]
        C = unit(sums)
    return C


@dataclass
class IVF:
    centered: bool
    nlist: int
    mu: np.ndarray
    C: np.ndarray
    order: np.ndarray  # rows sorted by (list, speaker), int32
    off: np.ndarray  # (nlist, nspk + 1): list p, speaker s own order[off[p, s]:off[p, s + 1]]
    train_s: float
    assign_s: float
    sizes: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def bytes_per_item(self, n: int) -> float:
        # order (int32) + each row's list (int32, to remove/move a row) + centroids + offsets
        return (self.order.nbytes + 4 * n + self.C.nbytes + self.off.nbytes + self.mu.nbytes) / n

    def probe(self, V: np.ndarray, nprobe: int) -> np.ndarray:
        Q = unit(V - self.mu) if self.centered else V
        cs = Q @ self.C.T
        out: np.ndarray = np.argpartition(-cs, nprobe - 1, axis=1)[:, :nprobe]
        return out

    def rows(self, lists: np.ndarray, spk: int | None) -> np.ndarray:
        """The rows of `lists` (of speaker `spk`; None: every speaker), concatenated."""
        if spk is None:
            a, b = self.off[lists, 0], self.off[lists, -1]
        else:
            spk = spk if spk >= 0 else self.off.shape[1] - 2
            a, b = self.off[lists, spk], self.off[lists, spk + 1]
        lens = b - a
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, np.int32)
        shift = np.repeat(a - np.r_[0, np.cumsum(lens)[:-1]], lens)
        out: np.ndarray = self.order[np.arange(total) + shift]
        return out


def build_ivf(s: Scope, nlist: int, centered: bool, rng: np.random.Generator, iters: int = 10) -> IVF:
    t0 = time.perf_counter()
    mu = s.M.mean(axis=0).astype(np.float32) if centered else np.zeros(s.M.shape[1], np.float32)
    X = unit(s.M - mu) if centered else s.M
    C = kmeans(X, nlist, iters, max(100_000, 40 * nlist), rng)
    t1 = time.perf_counter()
    a = argmax_rows(X, C)
    nspk = len(SPEAKERS) + 1  # -1 (other) sorts as the last code
    spk = np.where(s.spk < 0, nspk - 1, s.spk)
    order = np.lexsort((spk, a)).astype(np.int32)
    key = a.astype(np.int64) * nspk + spk
    bounds = np.searchsorted(key[order], np.arange(nlist * nspk + 1))
    off = np.empty((nlist, nspk + 1), np.int64)
    off[:, :nspk] = bounds[:-1].reshape(nlist, nspk)
    off[:, nspk] = bounds[nspk::nspk]
    t2 = time.perf_counter()
    return IVF(centered, nlist, mu, C, order, off, t1 - t0, t2 - t1, np.bincount(a, minlength=nlist))


def ivf_candidates(ivf: IVF, qs: Queries, nprobe: int, mode: str, batch: int) -> list[np.ndarray]:
    """Each query's candidate rows (as the timed path gathers them)."""
    out: list[np.ndarray] = []
    for lo in range(0, len(qs.V), batch):
        P = ivf.probe(qs.V[lo : lo + batch], nprobe)
        if mode == "union":
            u = ivf.rows(np.unique(P), None)
            out.extend([u] * P.shape[0])
        else:
            for j in range(P.shape[0]):
                out.append(ivf.rows(P[j], int(qs.spk[lo + j]) if mode == "draft" else None))
    return out


def ivf_batch(
    s: Scope, ivf: IVF, nprobe: int, mode: str
) -> Callable[[np.ndarray, np.ndarray, np.ndarray], int]:
    """The timed approximate path for one batch: probe, gather, score, the two passes."""

    def run(V: np.ndarray, spk: np.ndarray, cat: np.ndarray) -> int:
        P = ivf.probe(V, nprobe)
        scored = 0
        if mode == "union":
            rows = ivf.rows(np.unique(P), None)
            S = V @ s.M[rows].T
            act, rs, rc = s.active[rows], s.spk[rows], s.cat[rows]
            for j in range(V.shape[0]):
                ok = act & (rs == spk[j])
                ma = ok & (rc == cat[j]) if cat[j] >= 0 else ok
                rows[_above(S[j], SAME, ma)]
                _nearest(S[j], FLOOR, ok, TOP)
            return rows.shape[0] * V.shape[0]
        for j in range(V.shape[0]):
            own = mode == "draft"
            rows = ivf.rows(P[j], int(spk[j]) if own else None)
            c = s.M[rows] @ V[j]
            ok = s.active[rows] if own else s.active[rows] & (s.spk[rows] == spk[j])
            ma = ok & (s.cat[rows] == cat[j]) if cat[j] >= 0 else ok
            rows[_above(c, SAME, ma)]
            r, _ = _nearest(c, FLOOR, ok, TOP)
            rows[r]
            scored += rows.shape[0]
        return scored

    return run


# ----------------------------------------------------------------------------- PCA prefilter


@dataclass
class PCA:
    d: int
    mu: np.ndarray
    P: np.ndarray  # (384, d)
    Z: np.ndarray  # (n, d) float32: the centered rows projected
    build_s: float


def build_pca(s: Scope, d: int, rng: np.random.Generator) -> PCA:
    t0 = time.perf_counter()
    mu = s.M.mean(axis=0).astype(np.float32)
    S = s.M[rng.choice(s.M.shape[0], size=min(50_000, s.M.shape[0]), replace=False)] - mu
    _, _, vt = np.linalg.svd(S, full_matrices=False)
    P = np.ascontiguousarray(vt[:d].T.astype(np.float32))
    Z = np.ascontiguousarray((s.M - mu) @ P)
    return PCA(d, mu, P, Z, time.perf_counter() - t0)


def pca_top(pca: PCA, s: Scope, V: np.ndarray, spk: np.ndarray, T: int) -> list[np.ndarray]:
    # q.m = q.(m - mu) + q.mu, and q.(m - mu) ~ (q P).(P^T (m - mu)): q.mu is the same for all rows
    A = (V @ pca.P) @ pca.Z.T
    out = []
    off: dict[int, np.ndarray] = {}  # per speaker and batch, as plan() builds its masks
    for j in range(V.shape[0]):
        if int(spk[j]) not in off:
            off[int(spk[j])] = (s.spk != spk[j]) | ~s.active
        a = A[j]
        a[off[int(spk[j])]] = -np.inf
        out.append(np.argpartition(-a, T - 1)[:T])
    return out


def pca_batch(s: Scope, pca: PCA, T: int) -> Callable[[np.ndarray, np.ndarray, np.ndarray], int]:
    def run(V: np.ndarray, spk: np.ndarray, cat: np.ndarray) -> int:
        for j, rows in enumerate(pca_top(pca, s, V, spk, T)):
            c = s.M[rows] @ V[j]
            ok = np.ones(rows.shape[0], bool)
            ma = s.cat[rows] == cat[j] if cat[j] >= 0 else ok
            rows[_above(c, SAME, ma)]
            _nearest(c, FLOOR, ok, TOP)
        return T * V.shape[0]

    return run


# ----------------------------------------------------------------------------- scoring


def recall(s: Scope, qs: Queries, t: Truth, cands: list[np.ndarray]) -> dict[str, Any]:
    a_ok = b_ok = b_strict = 0
    a_rows = a_found = b_rows = b_found = a_nonempty = a_ok_nonempty = 0
    top1 = near = near_ok = 0  # the exact best found; drafts whose best is >= 0.90 (a likely update)
    short: list[float] = []  # exact 8th cosine minus the found 8th
    scored = 0
    masks: dict[int, np.ndarray] = {}
    for i, c in enumerate(cands):
        scored += c.shape[0]
        A = t.a[i]
        inn = np.isin(A, c)
        a_ok += bool(inn.all())
        a_rows += A.shape[0]
        a_found += int(inn.sum())
        if A.shape[0]:
            a_nonempty += 1
            a_ok_nonempty += bool(inn.all())
        sp = int(qs.spk[i])
        if sp not in masks:
            masks[sp] = family(s, -1, sp)
        cos = s.M[c] @ qs.V[i]
        keep = masks[sp][c] & ~np.isin(c, qs.exclude[i])
        r, v = _nearest(cos, FLOOR, keep, TOP)
        r = c[r]
        same = v.shape[0] == t.b_cos[i].shape[0] and bool(np.allclose(v, t.b_cos[i], atol=1e-5))
        b_ok += same
        ex = t.b_cos[i]
        if ex.shape[0]:
            top1 += bool(v.shape[0] and abs(v[0] - ex[0]) < 1e-5)
            short.append(float(ex[-1] - (v[ex.shape[0] - 1] if v.shape[0] >= ex.shape[0] else FLOOR)))
            if ex[0] >= 0.90:
                near += 1
                near_ok += same
        b_strict += set(r.tolist()) == set(t.b_rows[i].tolist())
        b_rows += t.b_rows[i].shape[0]
        b_found += len(set(r.tolist()) & set(t.b_rows[i].tolist()))
    q = len(cands)
    return {
        "a_ok": round(a_ok / q, 4),
        "a_ok_nonempty": round(a_ok_nonempty / max(1, a_nonempty), 4),
        "a_row_recall": round(a_found / max(1, a_rows), 4),
        "b_ok": round(b_ok / q, 4),
        "b_strict": round(b_strict / q, 4),
        "b_row_recall": round(b_found / max(1, b_rows), 4),
        "b_top1": round(top1 / q, 4),
        "b_ok_best_ge_0.90": round(near_ok / max(1, near), 4),
        "share_best_ge_0.90": round(near / q, 4),
        "b8_shortfall_p99": round(float(np.percentile(short, 99)) if short else 0.0, 4),
        "rows_per_draft": round(scored / q, 1),
    }


def timed(
    s: Scope, qs: Queries, method: Callable[[np.ndarray, np.ndarray, np.ndarray], int], batch: int
) -> dict[str, Any]:
    """The method and the baseline alternated batch by batch: medians and their ratio."""
    tm, tb = [], []
    for lo in range(0, len(qs.V), batch):
        V, spk, cat = qs.V[lo : lo + batch], qs.spk[lo : lo + batch], qs.cat[lo : lo + batch]
        t0 = time.perf_counter()
        baseline(s, V, spk, cat)
        t1 = time.perf_counter()
        method(V, spk, cat)
        t2 = time.perf_counter()
        tb.append(t1 - t0)
        tm.append(t2 - t1)
    m, b = float(np.median(tm)), float(np.median(tb))
    return {"ms_batch": round(1000 * m, 2), "ms_baseline": round(1000 * b, 2), "ratio": round(m / b, 3)}


def bench_scope(
    s: Scope, gen: np.ndarray, args: argparse.Namespace, rng: np.random.Generator
) -> dict[str, Any]:
    n = s.M.shape[0]
    log(f"{s.name}: {n} rows")
    qsets = [q for q in make_queries(s, gen, args.queries, rng) if q.name in args.sets]
    truths = {q.name: truth(s, q) for q in qsets}
    tq = next(q for q in qsets if q.name == "new")  # the timed drafts
    out: dict[str, Any] = {
        "rows": n,
        "speaker_share": {p: round(float(np.mean(s.spk == i)), 3) for i, p in enumerate(SPEAKERS)},
        "distinct_vectors": int(s.group.max() + 1),
        "load_start": os.getloadavg(),
        "truth": {
            q.name: {
                "share_a_nonempty": round(float(np.mean([a.shape[0] > 0 for a in truths[q.name].a])), 4),
                "mean_a": round(float(np.mean([a.shape[0] for a in truths[q.name].a])), 2),
                "share_b_full": round(float(np.mean([b.shape[0] == TOP for b in truths[q.name].b_rows])), 4),
                "b8_cos_median": round(
                    float(np.median([b[-1] for b in truths[q.name].b_cos if b.shape[0] == TOP] or [0])), 4
                ),
            }
            for q in qsets
        },
        "configs": [],
    }
    # the baseline alone, and the product alone, in this run
    t_prod, t_base = [], []
    for lo in range(0, len(tq.V), args.batch):
        V = tq.V[lo : lo + args.batch]
        t0 = time.perf_counter()
        V @ s.M.T
        t1 = time.perf_counter()
        baseline(s, V, tq.spk[lo : lo + args.batch], tq.cat[lo : lo + args.batch])
        t2 = time.perf_counter()
        t_prod.append(t1 - t0)
        t_base.append(t2 - t1)
    out["baseline_ms"] = round(1000 * float(np.median(t_base)), 2)
    out["product_only_ms"] = round(1000 * float(np.median(t_prod)), 2)
    log(f"baseline {out['baseline_ms']} ms/batch, product {out['product_only_ms']} ms")

    def record(cfg: dict[str, Any], cands: dict[str, list[np.ndarray]], method: Any) -> None:
        cfg["recall"] = {q.name: recall(s, q, truths[q.name], cands[q.name]) for q in qsets}
        cfg["time"] = timed(s, tq, method, args.batch)
        out["configs"].append(cfg)
        r = cfg["recall"]
        log(
            f"{cfg['name']}: "
            + " ".join(f"{k} a={v['a_ok']} b={v['b_ok']} rows={v['rows_per_draft']}" for k, v in r.items())
            + f" ratio={cfg['time']['ratio']}"
        )

    for div in args.nlist_div:
        nlist = max(8, n // div)
        for centered in (True, False) if div == args.control_div else (True,):
            ivf = build_ivf(s, nlist, centered, rng)
            log(f"ivf nlist={nlist} centered={centered}: train {ivf.train_s:.1f}s assign {ivf.assign_s:.1f}s")
            for nprobe in args.nprobe:
                if nprobe > nlist // 2:
                    continue
                modes = (
                    ["draft", "draft-all", "union"] if (div == args.control_div and centered) else ["draft"]
                )
                if not centered:
                    modes = ["draft"]
                for mode in modes:
                    cfg = {
                        "name": f"ivf{'-c' if centered else '-raw'} nlist=n/{div} ({nlist}) nprobe={nprobe} {mode}",
                        "kind": "ivf",
                        "centered": centered,
                        "nlist": nlist,
                        "nprobe": nprobe,
                        "mode": mode,
                        "probed_share": round(nprobe / nlist, 4),
                        "train_s": round(ivf.train_s, 2),
                        "assign_s": round(ivf.assign_s, 2),
                        "bytes_per_item": round(ivf.bytes_per_item(n), 1),
                        "list_size_p50_p99_max": [
                            int(np.percentile(ivf.sizes, 50)),
                            int(np.percentile(ivf.sizes, 99)),
                            int(ivf.sizes.max()),
                        ],
                    }
                    cands = {q.name: ivf_candidates(ivf, q, nprobe, mode, args.batch) for q in qsets}
                    record(cfg, cands, ivf_batch(s, ivf, nprobe, mode))
    for d in args.pca_dims:
        pca = build_pca(s, d, rng)
        for T in args.pca_top:
            cfg = {
                "name": f"pca d={d} top={T}",
                "kind": "pca",
                "d": d,
                "top": T,
                "build_s": round(pca.build_s, 2),
                "bytes_per_item": round(pca.Z.nbytes / n, 1),
            }
            cands = {}
            for q in qsets:
                cs: list[np.ndarray] = []
                for lo in range(0, len(q.V), args.batch):
                    cs.extend(pca_top(pca, s, q.V[lo : lo + args.batch], q.spk[lo : lo + args.batch], T))
                cands[q.name] = cs
            record(cfg, cands, pca_batch(s, pca, T))
    out["load_end"] = os.getloadavg()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, action="append", default=[], help="a COPY of a bench scope file")
    ap.add_argument("--gen", type=int, action="append", default=[], help="a generator scope of N turns")
    ap.add_argument("--queries", type=int, default=620)
    ap.add_argument("--batch", type=int, default=62)
    ap.add_argument("--nlist-div", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--control-div", type=int, default=300, help="nlist n/DIV also raw k-means and all modes")
    ap.add_argument("--nprobe", type=int, nargs="+", default=[4, 16, 64, 256, 1024])
    ap.add_argument("--sets", nargs="+", default=["loo", "loo-group", "new", "restated"])
    ap.add_argument("--pca-dims", type=int, nargs="*", default=[64])
    ap.add_argument("--pca-top", type=int, nargs="*", default=[500, 2000])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/ivf-cache"))
    ap.add_argument(
        "--base", type=Path, default=ROOT / "bench" / "out" / "locomo_turn_vectors.npy", help="synthetic.BASE"
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(25)
    need = max([30000 + args.queries, *[g + args.queries for g in args.gen]])
    gkey = args.cache / f"gen-{need}.npy"
    if not gkey.exists():
        log(f"generating {need} turns")
        np.save(gkey, generator_vectors(need, args.base))
    gen = np.load(gkey)
    result: dict[str, Any] = {
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        "load_start": os.getloadavg(),
        "scopes": {},
    }
    cat_p = np.ones(1)
    for db in args.db:
        s = load_db(db, args.cache)
        # the generator's turns 0..29999 are the file's first rows: check one
        hit = float(np.max(s.M @ gen[123]))
        result.setdefault("generator_check_max_cos", {})[s.name] = round(hit, 6)
        cat_p = np.bincount(s.cat) / s.cat.shape[0]
        result["scopes"][s.name] = bench_scope(s, gen, args, rng)
        if args.out:  # each scope as it is done
            args.out.write_text(json.dumps(result, indent=1))
    for n in args.gen:
        s = gen_scope(n, gen, rng, cat_p)
        result["scopes"][s.name] = bench_scope(s, gen, args, rng)
        if args.out:
            args.out.write_text(json.dumps(result, indent=1))
    result["load_end"] = os.getloadavg()
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
