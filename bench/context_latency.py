#!/usr/bin/env python3
"""Context prefetch latency: turn published → context received on `memubot.out.context.<session>`.

usage: python bench/context_latency.py [--turns 60] [--readme]

Starts the whole daemon in-process against an embedded nats-server in a temporary directory,
fills one scope with a LoCoMo-like conversation (examples/turns.jsonl, then synthetic turns),
and publishes turns one at a time through JetStream as an agent would, timing each until its
context message arrives. Reports p50/p95/max over the timed turns (the first few are warm-up).
`--readme` writes the line between the `context-latency` markers of docs/predict.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from doc_block import commit, write_block  # noqa: E402  (bench/, the script's folder)

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


async def bench(turns: int) -> list[float]:
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
            got: dict[str, float] = {}

            async def on_context(msg: Any) -> None:
                got[json.loads(msg.data)["turn_id"]] = time.perf_counter()

            sub = await client.nc.subscribe("memubot.out.context.bench", cb=on_context)
            times = []
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
            await sub.unsubscribe()
            return times[WARMUP:]
        finally:
            await client.close()
            halt.set()
            await task
            await stop(server)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=60)
    ap.add_argument("--readme", action="store_true")
    a = ap.parse_args()
    ms = sorted(asyncio.run(bench(a.turns)))
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    line = (
        f"turn published → context received, {len(ms)} turns after {WARMUP} warm-up: "
        f"p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms "
        f"(measured {datetime.now(UTC):%Y-%m-%d} at commit {commit()} with `python bench/context_latency.py --readme`)."
    )
    print(line)
    if a.readme:
        write_block(DOC, BEGIN, END, line)


if __name__ == "__main__":
    main()
