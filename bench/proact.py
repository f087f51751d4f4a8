#!/usr/bin/env python3
"""ProActEval next need: does the context memubot publishes after a question hold what is asked next?

usage: python bench/proact.py [--scenarios N] [--half all|even|odd] [--out bench/out/proact.jsonl]
                              [--rows FILE] [--readme] [--settle]

A runner around `../shared/bench/score_proact.py` (its `Facts` decides which fact a published
memory names, its `p_random` gives the chance of five random facts) that drives a real memubot
daemon instead of `memubot replay`: the whole daemon in-process (`daemon.app.serve`) against an
embedded nats-server in a temporary folder, one daemon for every scenario (each is its own scope).
For each scenario (`../shared/bench/proact/`, the dev half of ProActEval, MIT):

1. the fact turns are published as the person's turns, shifted in time so that the last fact
   session ends the day before now (they are history: the daemon publishes no context for them),
   and the daemon is flushed;
2. each question in turn order: plain recall of the question's own text (k = 5, no session,
   not reinforced) is asked over RPC at that moment — the baseline, same memory, same time —
   then the question is published as a live turn of the needs session and the runner waits for
   its context on `memubot.out.context.<session>`.

Scored, pooled over scenarios, with the scorer's own definitions (README of
`../shared/bench/proact/`): `same_any@5` (the context of question i names one of i's key facts),
`next_any@5` / `next_all@5` (… some / every key fact of the question ProActEval marks as
predictable after i), the same three for the plain-recall baseline, and `random_any@5`.
`--half even|odd` keeps the scenarios at even / odd positions of the sorted list (tune on one,
check on the other). `--out` gets one JSON line per scenario (`--rows` scores such a file again
without running); `--readme` writes the table between the `proact-table` markers of docs/predict.md.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from doc_block import commit, write_block  # noqa: E402  (bench/, the script's folder)

from daemon.app import runtime_file, serve  # noqa: E402
from daemon.client import Client  # noqa: E402
from daemon.config import load_settings  # noqa: E402
from daemon.events import parse_ts  # noqa: E402
from daemon.predict import anticipate  # noqa: E402
from daemon.runtime.broker import start_embedded, stop  # noqa: E402

SHARED = ROOT.parent / "shared" / "bench"
DATA = SHARED / "proact"
DOC = "docs/predict.md"  # the page that holds this section
BEGIN, END = "<!-- proact-table:begin -->", "<!-- proact-table:end -->"
K = 5
WHO = {  # the table's first row, by --anticipation
    "default": "memubot's published context",
    "plain": "memubot's published context (plain recall)",
    "learned": "memubot's context, learned anticipation (not the default)",
}


def scorer() -> ModuleType:
    """`score_proact.py` itself, so that a hit names a fact exactly as the benchmark says."""
    spec = importlib.util.spec_from_file_location("score_proact", SHARED / "score_proact.py")
    assert spec and spec.loader, f"no scorer at {SHARED / 'score_proact.py'}"
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scenarios(data: Path, n: int | None, half: str) -> list[Path]:
    files = sorted(p for p in data.glob("*.json") if "proact" in json.loads(p.read_text(encoding="utf-8")))
    if not files:
        raise SystemExit(f"no ProActEval scenarios in {data}")
    if half != "all":
        files = files[0 if half == "even" else 1 :: 2]
    return files[:n] if n else files


# `--settle`: each question is handled (memorized) before the next is asked. Without it a
# question's own item may or may not be in the memory when the next one is asked, depending on
# how fast the daemon is at that moment, and the scores move with the machine's load.
SETTLE = False


async def run_one(
    client: Client, contexts: dict[str, dict[str, Any]], sc: dict[str, Any], sp: ModuleType
) -> dict[str, Any]:
    """Tell one scenario's facts, ask its questions; the per-question contexts and baseline hits."""
    gold = sc["proact"]
    fact_turns = {v["turn_id"] for v in gold["facts"].values()}
    need_turns = {n["turn_id"]: n for n in gold["needs"]}
    bodies = [e["body"] for e in sc["events"] if e["subject"].startswith("memubot.in.conversation.")]
    facts = [b for b in bodies if b["id"] in fact_turns]
    first_need = min(parse_ts(b["ts"]) for b in bodies if b["id"] in need_turns)
    shift = datetime.now(UTC) - first_need - timedelta(minutes=1)
    for b in facts:
        await client.publish(
            "memubot.in.conversation.main", dict(b, ts=(parse_ts(b["ts"]) + shift).isoformat())
        )
    await client.flush(timeout=600)
    ctx: dict[str, list[dict[str, Any]]] = {}
    base: dict[str, list[dict[str, Any]]] = {}
    lat: list[float] = []
    for n in sorted(gold["needs"], key=lambda x: x["turn_order"]):
        body = next(b for b in bodies if b["id"] == n["turn_id"])
        now = datetime.now(UTC)
        base[n["id"]] = await client.recall(
            body["text"], scope=sc["scope"], k=K, ts=now.isoformat(), reinforce=False
        )
        t0 = time.perf_counter()
        await client.publish("memubot.in.conversation.main", dict(body, ts=now.isoformat()))
        async with asyncio.timeout(120):
            while body["id"] not in contexts:
                await asyncio.sleep(0.002)
        lat.append(1000 * (contexts[body["id"]]["_received"] - t0))
        ctx[n["id"]] = contexts.pop(body["id"])["memories"]
        if SETTLE:
            await client.flush(timeout=600)  # the question is memorized before the next is asked
    return score(sc, ctx, base, lat, sp)


def score(
    sc: dict[str, Any], ctx: dict[str, Any], base: dict[str, Any], lat: list[float], sp: ModuleType
) -> dict[str, Any]:
    gold = sc["proact"]
    facts = sp.Facts(gold)
    needs = {n["id"]: n for n in gold["needs"]}

    def names(hits: list[dict[str, Any]]) -> set[str]:
        return set(sp.within(sp.ranked_facts(hits, facts), K))

    same, pairs = [], []
    for n in gold["needs"]:
        key = set(n["key_fact_ids"])
        if not key:
            continue
        got, plain = names(ctx[n["id"]]), names(base[n["id"]])
        same.append({"need": n["id"], "same_any": bool(key & got), "plain_same_any": bool(key & plain)})
        i = n.get("predictable_after")
        if not i or needs[i]["turn_order"] >= n["turn_order"]:
            continue
        got, plain = names(ctx[i]), names(base[i])
        pairs.append(
            {
                "i": i,
                "j": n["id"],
                "next_any": bool(key & got),
                "next_all": key <= got,
                "plain_next_any": bool(key & plain),
                "plain_next_all": key <= plain,
                "random_any": sp.p_random(len(gold["facts"]), len(key), K),
            }
        )
    return {"scenario": gold["scenario_id"], "same": same, "pairs": pairs, "latency_ms": lat}


def mean(xs: list[Any]) -> float:
    return round(sum(map(float, xs)) / len(xs), 3) if xs else float("nan")


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    same = [r for s in rows for r in s["same"]]
    pairs = [p for s in rows for p in s["pairs"]]
    lat = sorted(x for s in rows for x in s["latency_ms"])
    out: dict[str, Any] = {"scenarios": len(rows), "needs": len(same), "pairs": len(pairs)}
    for who, pre in (("context", ""), ("plain", "plain_")):
        out[f"{who}_same_any@5"] = mean([r[f"{pre}same_any"] for r in same])
        out[f"{who}_next_any@5"] = mean([p[f"{pre}next_any"] for p in pairs])
        out[f"{who}_next_all@5"] = mean([p[f"{pre}next_all"] for p in pairs])
    out["random_any@5"] = mean([p["random_any"] for p in pairs])
    if lat:
        out["context_ms_p50"] = round(statistics.median(lat))
        out["context_ms_p95"] = round(lat[min(len(lat) - 1, int(0.95 * len(lat)))])
    return out


def table(agg: dict[str, Any], label: str, who: str = "memubot's published context") -> str:
    return (
        f"| {label} ({agg['scenarios']} scenarios, {agg['needs']} questions, {agg['pairs']} pairs) "
        f"| same_any@5 | next_any@5 | next_all@5 |\n|---|---|---|---|\n"
        f"| {who} | {agg['context_same_any@5']:.2f} | {agg['context_next_any@5']:.2f} "
        f"| {agg['context_next_all@5']:.2f} |\n"
        f"| plain recall of the question (k = 5) | {agg['plain_same_any@5']:.2f} | {agg['plain_next_any@5']:.2f} "
        f"| {agg['plain_next_all@5']:.2f} |\n"
        f"| five random facts | – | {agg['random_any@5']:.2f} | – |"
    )


async def bench(paths: list[Path], out: Path) -> list[dict[str, Any]]:
    sp = scorer()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memubot-proact-") as tmp:
        server = await start_embedded(Path(tmp) / "nats")
        settings = load_settings(
            {
                "HOME": tmp,
                "MEMUBOT_STATE_DIR": f"{tmp}/state",
                "MEMUBOT_NATS_URL": server.url,
                "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
            }
        )
        halt = asyncio.Event()
        task = asyncio.create_task(serve(settings, halt))
        async with asyncio.timeout(180):
            while not runtime_file(settings).exists():
                await asyncio.sleep(0.05)
        client = await Client.connect(server.url, timeout=600)
        contexts: dict[str, dict[str, Any]] = {}

        async def on_context(msg: Any) -> None:
            body = json.loads(msg.data)
            body["_received"] = time.perf_counter()
            contexts[body["turn_id"]] = body

        sub = await client.nc.subscribe("memubot.out.context.>", cb=on_context)
        t0 = time.perf_counter()
        try:
            with out.open("w", encoding="utf-8") as fh:
                for n, path in enumerate(paths, 1):
                    r = await run_one(client, contexts, json.loads(path.read_text(encoding="utf-8")), sp)
                    rows.append(r)
                    fh.write(json.dumps(r) + "\n")
                    fh.flush()
                    agg = aggregate([r])
                    print(
                        f"[{n}/{len(paths)} {time.perf_counter() - t0:.0f}s] {r['scenario']:<44} "
                        f"same {agg['context_same_any@5']:.2f} next {agg['context_next_any@5']:.2f}/"
                        f"{agg['context_next_all@5']:.2f}  plain next {agg['plain_next_any@5']:.2f}",
                        flush=True,
                    )
        finally:
            await sub.unsubscribe()
            await client.close()
            halt.set()
            await task
            await stop(server)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--scenarios", type=int, default=0, help="first N scenarios (default: all)")
    ap.add_argument("--half", choices=("all", "even", "odd"), default="all")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "proact.jsonl")
    ap.add_argument("--readme", action="store_true")
    ap.add_argument(
        "--rows", type=Path, help="score the rows an earlier run wrote (its --out) instead of running"
    )
    ap.add_argument(
        "--settle",
        action="store_true",
        help="memorize each question before asking the next (scores independent of load)",
    )
    ap.add_argument(
        "--anticipation",
        choices=("default", "plain", "learned"),
        default="default",
        help="how the daemon fills its contexts for this run (daemon/predict/anticipate.py)",
    )
    a = ap.parse_args()
    if a.anticipation != "default":
        anticipate.DEFAULT = {"plain": anticipate.PLAIN, "learned": anticipate.LEARNED}[a.anticipation]
    global SETTLE
    SETTLE = a.settle
    logging.basicConfig(level=logging.WARNING)
    if a.rows:
        rows = [json.loads(x) for x in a.rows.read_text(encoding="utf-8").splitlines() if x.strip()]
    else:
        paths = scenarios(a.data, a.scenarios, a.half)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        rows = asyncio.run(bench(paths, a.out))
    agg = aggregate(rows)
    print(json.dumps(agg))
    if a.readme:
        label = {"all": "dev", "even": "dev, even half", "odd": "dev, odd half"}[a.half]
        cmd = (
            f"python bench/proact.py --half {a.half}"
            + (f" --scenarios {a.scenarios}" if a.scenarios else "")
            + (f" --anticipation {a.anticipation}" if a.anticipation != "default" else "")
        )
        if a.rows:  # the run wrote the rows, this call the table
            cmd = f"{cmd} --out {a.rows}`, then `{cmd} --rows {a.rows}"
        write_block(
            DOC,
            BEGIN,
            END,
            table(agg, label, WHO[a.anticipation])
            + f"\n\nContext published p50 {agg.get('context_ms_p50')} ms, p95 "
            f"{agg.get('context_ms_p95')} ms after the question (measured {datetime.now(UTC):%Y-%m-%d} "
            f"at commit {commit()} with `{cmd} --readme`).",
        )


if __name__ == "__main__":
    main()
