"""The consumer against a real nats-server: durable config, health, stop."""

from __future__ import annotations

import time
from pathlib import Path

import nats
from nats.js.api import AckPolicy, ConsumerConfig

from daemon.bus import ensure_streams
from daemon.config import load_settings
from daemon.consumer import IN_STREAM, Consumer, ConsumerParams
from daemon.dispatch import Dispatcher
from daemon.memory import Memory
from handlers.deps import Deps


async def test_the_durable_never_drops_and_a_stuck_consumer_is_unhealthy(
    nats_url: str, memory: Memory, tmp_path: Path
) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    await ensure_streams(js)
    # an older durable with a server-side delivery limit is brought to the new configuration
    await js.add_consumer(
        IN_STREAM, ConsumerConfig(durable_name="memubot", ack_policy=AckPolicy.EXPLICIT, max_deliver=5)
    )
    settings = load_settings({"HOME": str(tmp_path)})
    consumer = Consumer(js, Dispatcher(Deps(memory, settings, memory.clock)), ConsumerParams())
    await consumer.start()
    try:
        info = await js.consumer_info(IN_STREAM, "memubot")
        assert info.config.max_deliver == -1 and info.config.ack_wait == 30.0
        assert consumer.healthy(600.0)
        consumer.last_batch_at = time.monotonic() - 700.0  # no fetch or batch finished for 700 s
        assert not consumer.healthy(600.0)
    finally:
        await consumer.stop(10.0)
        await nc.close()
    assert not consumer.running and not consumer.healthy(600.0)
