#!/usr/bin/env python3
"""What moving the consumer of `memubot.in.>` onto FastStream's batch pull would do to a live
event: publish → handler latency of lone events, memubot's fetch loop against FastStream's.

usage: python bench/faststream_pull.py [--events 12] [--ack-wait 30]

One real nats-server with memubot's streams. Each path gets its own durable on MEMUBOT_IN,
configured as daemon/runtime/consumer.py's (explicit ack, the server never gives up, ack wait
--ack-wait seconds, new events only), and is sent --events lone conversation events, one every
0.37 s, each waited for before the next:

  nats-py     memubot's consumer loop: `fetch(64, timeout=1.0)`, handled as soon as the fetch
              returns (this is the baseline).
  faststream  FastStream 0.7 `PullSub(batch_size=64, timeout=1.0, batch=True)` with
              `NatsBroker(ack_policy=NACK_ON_ERROR)`: the handler gets the batch.
  gather      memubot's FastStreamConsumer (daemon/runtime/faststream_consumer.py): FastStream's
              non-batch `PullSub(batch_size=64, timeout=1.0)` on the same connection, its
              per-message calls gathered into one dispatcher batch; "handler" is the dispatch.

Reported per path: p50 and max publish → handler latency, and how many events reached the
handler only on a later delivery (`num_delivered` > 1: the first delivery went to a fetch no
one was reading, and the server sent it again after the ack wait).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nats
from faststream.middlewares import AckPolicy as FastStreamAckPolicy
from faststream.nats import ConsumerConfig, JStream, NatsBroker, PullSub
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, DeliverPolicy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.runtime.broker import start_embedded, stop  # noqa: E402
from daemon.runtime.consumer import IN_STREAM, ConsumerParams  # noqa: E402
from daemon.runtime.dispatch import ACK, Incoming, Verdict  # noqa: E402
from daemon.runtime.faststream_consumer import FastStreamConsumer  # noqa: E402
from daemon.runtime.metrics import Metrics  # noqa: E402
from daemon.runtime.streams import ensure_streams  # noqa: E402
from daemon.subjects import IN_SUBJECTS, conversation_subject  # noqa: E402

Seen = Callable[[list[int]], Awaitable[None]]  # the delivery counts of one handled batch


def config(durable: str, ack_wait: float) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=durable,
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.NEW,
        max_deliver=-1,
        ack_wait=ack_wait,
        filter_subject=IN_SUBJECTS,
    )


async def nats_py_path(js: JetStreamContext, ack_wait: float, seen: Seen) -> Callable[[], Awaitable[None]]:
    sub = await js.pull_subscribe(
        IN_SUBJECTS, durable="bench-natspy", stream=IN_STREAM, config=config("bench-natspy", ack_wait)
    )

    async def loop() -> None:
        while True:
            try:
                msgs = await sub.fetch(64, timeout=1.0)
            except (TimeoutError, nats.errors.TimeoutError):
                continue
            await seen([m.metadata.num_delivered for m in msgs])
            for m in msgs:
                await m.ack()

    task = asyncio.create_task(loop())

    async def close() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await sub.unsubscribe()

    return close


async def faststream_path(url: str, ack_wait: float, seen: Seen) -> Callable[[], Awaitable[None]]:
    broker = NatsBroker(url, ack_policy=FastStreamAckPolicy.NACK_ON_ERROR, apply_types=False, logger=None)

    async def handle(batch: Any) -> None:
        await seen([m.metadata.num_delivered for m in batch.raw_message])

    broker.subscriber(
        IN_SUBJECTS,
        stream=JStream(IN_STREAM, declare=False),
        durable="bench-faststream",
        pull_sub=PullSub(batch_size=64, timeout=1.0, batch=True),
        config=config("bench-faststream", ack_wait),
        decoder=lambda msg: msg,  # the handler gets the batch message itself
    )(handle)
    await broker.start()
    return broker.stop


class _Seen:
    """A dispatcher that reports each batch and acks it: the bench times delivery, not storage."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen
        self.metrics = Metrics()
        self.handled = 0

    async def dispatch(self, batch: list[Incoming]) -> list[Verdict]:
        await self.seen([m.attempt for m in batch])
        return [Verdict(ACK, "stored", None) for _ in batch]


async def gather_path(
    nc: nats.NATS, js: JetStreamContext, ack_wait: float, seen: Seen
) -> Callable[[], Awaitable[None]]:
    consumer = FastStreamConsumer(
        nc,
        js,
        _Seen(seen),
        ConsumerParams(durable="bench-gather", ack_wait_s=ack_wait),  # type: ignore[arg-type]
    )
    await consumer.start()
    await consumer.flush(60.0)  # the events the other paths were sent (its durable delivers all)

    async def close() -> None:
        await consumer.stop(10.0)

    return close


async def run(args: argparse.Namespace) -> None:
    print(f"# {' '.join(['python', *sys.argv])}")
    print(f"# load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        server = await start_embedded(Path(tmp) / "nats")
        try:
            nc = await nats.connect(server.url)
            js = nc.jetstream()
            await ensure_streams(js)
            for path in ("nats-py", "faststream", "gather"):
                handled: asyncio.Queue[tuple[float, list[int]]] = asyncio.Queue()

                async def seen(
                    counts: list[int], q: asyncio.Queue[tuple[float, list[int]]] = handled
                ) -> None:
                    await q.put((time.perf_counter(), counts))

                if path == "nats-py":
                    close = await nats_py_path(js, args.ack_wait, seen)
                elif path == "gather":
                    close = await gather_path(nc, js, args.ack_wait, seen)
                    while not handled.empty():  # the other paths' events, handled at start
                        handled.get_nowait()
                else:
                    close = await faststream_path(server.url, args.ack_wait, seen)
                await asyncio.sleep(1.5)  # the first fetch is waiting
                latencies, late = [], 0
                for i in range(args.events):
                    t0 = time.perf_counter()
                    body = b'{"id": "%s-%d"}' % (path.encode(), i)
                    await js.publish(
                        conversation_subject("main"), body, headers={"Nats-Msg-Id": f"{path}-{i}"}
                    )
                    at, counts = await asyncio.wait_for(handled.get(), args.ack_wait * 3)
                    latencies.append(at - t0)
                    late += max(counts) > 1
                    print(
                        f"{path} event {i}: {1000 * (at - t0):.0f} ms, deliveries {counts}", file=sys.stderr
                    )
                    await asyncio.sleep(0.37)
                await close()
                rows.append((path, statistics.median(latencies), max(latencies), late))
            await nc.close()
        finally:
            await stop(server)
    print()
    print("| path | publish → handler p50 | max | events handled only on a later delivery |")
    print("|---|---|---|---|")
    for path, p50, worst, late in rows:
        print(f"| {path} | {1000 * p50:.0f} ms | {1000 * worst:.0f} ms | {late} of {args.events} |")
    print(f"\nack wait {args.ack_wait:g} s")
    print(f"# load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=12)
    ap.add_argument("--ack-wait", type=float, default=30.0)
    asyncio.run(run(ap.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
