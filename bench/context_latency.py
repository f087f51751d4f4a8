#!/usr/bin/env python3
"""Context prefetch latency: turn published → context received on `memubot.out.context.<session>`.

usage: python bench/context_latency.py [--turns 60] [--readme] [--trace] [--payloads FILE] [--settle]

Starts the whole daemon in-process against an embedded nats-server in a temporary directory,
fills one scope with a LoCoMo-like conversation (examples/turns.jsonl, then synthetic turns),
and publishes turns one at a time through JetStream as an agent would, timing each until its
context message arrives. Reports p50/p95/max over the timed turns (the first few are warm-up).
`--readme` writes the line between the `context-latency` markers of docs/predict.md. `--trace` adds
where the time went, stage by stage (bench/latency_trace.py: wrappers installed for the run only).
`--payloads FILE` writes each timed turn's context (without its time stamp) and, after the run,
every stored item, to compare what two versions of the code publish and store. A context reads
the memory as it stands, and the turns before it may still be being memorized: `--settle` waits
until the daemon has handled every turn before publishing the next (outside the timed window), so
that each context reads the same memory whatever the code's speed; use it with `--payloads`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import latency_trace  # noqa: E402  (bench/, the script's folder)
from doc_block import commit, write_block  # noqa: E402

from daemon.app import runtime_file, serve  # noqa: E402
from daemon.client import Client  # noqa: E402
from daemon.config import load_settings  # noqa: E402
from daemon.runtime.broker import start_embedded, stop  # noqa: E402

DOC = "docs/predict.md"  # the page that holds this section
BEGIN, END = "<!-- context-latency:begin -->", "<!-- context-latency:end -->"
WARMUP = 5
TOPICS = [
    "hiking in the Alps",
    "my sister Jana",
    "the Q3 budget",
    "learning Spanish",
    "the board demo",
    "our new puppy",
    "the kitchen renovation",
    "a trip to Lisbon",
    "the hiring plan",
    "running a marathon",
]


async def bench(
    turns: int, trace: Any = None, payloads: dict[str, Any] | None = None, settle: bool = False
) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="memubot-ctx-") as tmp:
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
        async with asyncio.timeout(120):
            while not runtime_file(settings).exists():
                await asyncio.sleep(0.05)
        client = await Client.connect(server.url)
        try:
            for line in (ROOT / "examples" / "turns.jsonl").read_text(encoding="utf-8").splitlines():
                turn = json.loads(line)
                if turn.get("text", "").strip():
                    await client.publish("memubot.in.conversation.main", turn)
            await client.flush()
            if settle:
                await client.flush(timeout=120)  # the RPC: every turn so far handled
            got: dict[str, float] = {}
            bodies: dict[str, Any] = {}

            async def on_context(msg: Any) -> None:
                body = json.loads(msg.data)
                got[body["turn_id"]] = time.perf_counter()
                bodies[body["turn_id"]] = body

            sub = await client.nc.subscribe("memubot.out.context.bench", cb=on_context)
            times = []
            timed: list[tuple[str, float, float]] = []
            for n in range(turns):
                tid = f"bench-{n}"
                text = f"Let me tell you more about {TOPICS[n % len(TOPICS)]}, it matters to me (note {n})."
                t0 = time.perf_counter()
                await client.publish_turn(
                    text, scope="caroline", session="bench", id=tid, ts=datetime.now(UTC)
                )
                async with asyncio.timeout(30):
                    while tid not in got:
                        await asyncio.sleep(0.001)
                times.append(1000 * (got[tid] - t0))
                timed.append((tid, t0, got[tid]))
                if settle:
                    await client.flush(timeout=120)
            await sub.unsubscribe()
            if trace is not None:
                print(latency_trace.report(trace, timed[WARMUP:]))
            if payloads is not None:
                payloads["contexts"] = {
                    tid: {k: v for k, v in bodies[tid].items() if k != "at"} for tid, _, _ in timed
                }
        finally:
            await client.close()
            halt.set()
            await task
            await stop(server)
        if payloads is not None:
            payloads["items"] = stored_items(settings.db_path)
        return times[WARMUP:]


def stored_items(db: Path) -> list[list[Any]]:
    """Every item the run stored, with what a later change could alter."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT id, scope, category, l0, search_text, context_text, superseded_by, archived, "
            "importance, confidence FROM items ORDER BY id"
        ).fetchall()
    return [list(r) for r in rows]


def compare(old: Path, new: Path) -> int:
    """Differences between two `--payloads` files: the memories of each context (ids, texts and
    order exactly; scores within 0.01, as they age with the clock) and every stored item."""
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (old, new))
    diffs = []
    for tid, ctx in a["contexts"].items():
        other = b["contexts"].get(tid)
        if other is None:
            diffs.append(f"{tid}: no context in {new}")
            continue
        mine = [(m["item_id"], m["text"]) for m in ctx["memories"]]
        theirs = [(m["item_id"], m["text"]) for m in other["memories"]]
        if mine != theirs or ctx["waiting"] != other["waiting"]:
            diffs.append(f"{tid}: memories {[i for i, _ in mine]} != {[i for i, _ in theirs]}")
            continue
        for m, o in zip(ctx["memories"], other["memories"], strict=True):
            if abs(m["score"] - o["score"]) > 0.01:
                diffs.append(f"{tid}: {m['item_id']} score {m['score']:.4f} != {o['score']:.4f}")
    if a["items"] != b["items"]:
        ids_a, ids_b = ({r[0] for r in x["items"]} for x in (a, b))
        diffs.append(
            f"stored items differ: {len(ids_a - ids_b)} only in {old}, {len(ids_b - ids_a)} only in {new}, "
            f"{sum(1 for x, y in zip(a['items'], b['items'], strict=False) if x != y)} rows differ"
        )
    print("\n".join(diffs) or f"same: {len(a['contexts'])} contexts, {len(a['items'])} stored items")
    return 1 if diffs else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=60)
    ap.add_argument("--readme", action="store_true")
    ap.add_argument("--trace", action="store_true", help="where the time went, stage by stage")
    ap.add_argument("--payloads", type=Path, help="write the contexts and stored items (JSON) here")
    ap.add_argument("--settle", action="store_true", help="each turn after the one before is handled")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="diff two --payloads files")
    a = ap.parse_args()
    if a.compare:
        sys.exit(compare(*a.compare))
    trace = latency_trace.install() if a.trace else None
    payloads: dict[str, Any] | None = {} if a.payloads else None
    load0 = os.getloadavg()[0]
    ms = sorted(asyncio.run(bench(a.turns, trace, payloads, a.settle)))
    load1 = os.getloadavg()[0]
    if a.payloads and payloads is not None:
        a.payloads.write_text(
            json.dumps(payloads, ensure_ascii=False, indent=1, default=str), encoding="utf-8"
        )
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    line = (
        f"turn published → context received, {len(ms)} turns after {WARMUP} warm-up: "
        f"p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms "
        f"(measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC at commit {commit()}, load average {load0:.1f} → {load1:.1f}, "
        f"with `python bench/context_latency.py --readme`)."
    )
    print(line)
    if a.readme:
        write_block(DOC, BEGIN, END, line)


if __name__ == "__main__":
    main()
