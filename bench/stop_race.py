#!/usr/bin/env python3
"""What a consumer's stop leaves in flight: events a fetch brought as the stop began.

usage: python bench/stop_race.py [--rounds 40] [--consumer nats-py|faststream|both]

One real nats-server with memubot's streams. Each round purges MEMUBOT_IN, starts a consumer
(a durable of its own, ack wait 300 s) whose dispatcher takes 20 ms a batch, publishes a live
trickle of events (one every 10 ms) and stops the consumer a varying moment into it. Counted
after the stop: events the server still holds as delivered and not acknowledged that the
consumer did not give back (nak) — each of them would reach the next run only after the ack
wait (30 s in the daemon). FastStream's own stop cancels its fetch loop; memubot's
FastStreamConsumer lets the fetch in flight end and naks what it brings.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import nats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.runtime.broker import start_embedded, stop  # noqa: E402
from daemon.runtime.consumer import IN_STREAM, Consumer, ConsumerParams  # noqa: E402
from daemon.runtime.dispatch import ACK, Incoming, Verdict  # noqa: E402
from daemon.runtime.faststream_consumer import FastStreamConsumer  # noqa: E402
from daemon.runtime.metrics import Metrics  # noqa: E402
from daemon.runtime.streams import ensure_streams  # noqa: E402
from daemon.subjects import conversation_subject  # noqa: E402


class Slow:
    """A dispatcher that takes 20 ms a batch and stores nothing."""

    def __init__(self) -> None:
        self.handled = 0
        self.metrics = Metrics()

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]:
        await asyncio.sleep(0.02)
        self.handled += len(batch)
        return [Verdict(ACK, "stored") for _ in batch]


async def round_trip(nc: nats.NATS, kind: str, r: int) -> tuple[int, int, float]:
    """(left in flight, given back, seconds the stop took) for one round."""
    js = nc.jetstream()
    await js.purge_stream(IN_STREAM)
    params = ConsumerParams(durable=f"race-{kind}-{r}", ack_wait_s=300.0)
    consumer: Consumer
    if kind == "faststream":
        consumer = FastStreamConsumer(nc, js, Slow(), params)
    else:
        consumer = Consumer(js, Slow(), params)
    await consumer.start()

    async def trickle() -> None:
        for _ in range(300):
            await js.publish(conversation_subject("main"), b"{}")
            await asyncio.sleep(0.01)

    pump = asyncio.create_task(trickle())
    await asyncio.sleep(0.3 + 0.037 * (r % 20))
    t0 = time.monotonic()
    await consumer.stop(10.0)
    took = time.monotonic() - t0
    await pump
    await asyncio.sleep(0.5)  # the server takes in the last acks and naks
    info = await js.consumer_info(IN_STREAM, params.durable)
    returned = getattr(consumer, "returned", 0)
    await js.delete_consumer(IN_STREAM, params.durable)
    return max(0, int(info.num_ack_pending or 0) - returned), returned, took


async def run(args: argparse.Namespace) -> None:
    print(f"# {' '.join(['python', *sys.argv])}")
    print(f"# load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    kinds = ("nats-py", "faststream") if args.consumer == "both" else (args.consumer,)
    rows = {k: [0, 0, 0, 0.0] for k in kinds}  # rounds with a loss, events left, given back, max stop
    with tempfile.TemporaryDirectory() as tmp:
        server = await start_embedded(Path(tmp) / "nats")
        try:
            nc = await nats.connect(server.url)
            await ensure_streams(nc.jetstream())
            for r in range(args.rounds):
                for kind in kinds:  # alternated, so that both see the same load
                    left, back, took = await round_trip(nc, kind, r)
                    row = rows[kind]
                    row[0] += left > 0
                    row[1] += left
                    row[2] += back
                    row[3] = max(row[3], took)
                    print(f"{kind} round {r}: left in flight {left}, given back {back}", file=sys.stderr)
            await nc.close()
        finally:
            await stop(server)
    print()
    print(
        "| consumer | rounds leaving events in flight | events left in flight | events given back | longest stop |"
    )
    print("|---|---|---|---|---|")
    for kind, (lossy, left, back, took) in rows.items():
        print(f"| {kind} | {lossy} of {args.rounds} | {left} | {back} | {took:.2f} s |")
    print(f"# load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--consumer", choices=("nats-py", "faststream", "both"), default="both")
    asyncio.run(run(ap.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
