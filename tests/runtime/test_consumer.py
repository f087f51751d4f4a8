"""The consumer against a real nats-server: durable config, health, stop."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.js.api import AckPolicy, ConsumerConfig

from daemon.config import load_settings
from daemon.errors import StoreError
from daemon.memory import Memory
from daemon.runtime.consumer import IN_STREAM, Consumer, ConsumerParams
from daemon.runtime.dispatch import Dispatcher
from daemon.runtime.streams import ensure_streams
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


class _Ledger:
    """The real ledger, except that `seen` fails while `broken` is set: a store failing every batch."""

    def __init__(self, ledger: Any) -> None:
        self._ledger = ledger
        self.broken = True

    def seen(self, ids: Any) -> Any:
        if self.broken:
            raise StoreError("disk full")
        return self._ledger.seen(ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ledger, name)


class _BrokenStoreDispatcher(Dispatcher):
    broken: _Ledger

    @property
    def ledger(self) -> Any:
        return self.broken


async def poll(predicate: Callable[[], Awaitable[bool]], what: str, timeout: float = 120.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


async def test_a_consumer_whose_every_batch_fails_is_stalled_not_healthy_and_recovers(
    nats_url: str, memory: Memory, tmp_path: Path
) -> None:
    # issue 22: batches that fetch and fail kept `last_batch_at` fresh, so health said ok while
    # nothing was stored. Now: events wait and none is acknowledged for `stall_after_s` → stalled.
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    await ensure_streams(js)
    settings = load_settings({"HOME": str(tmp_path)})
    dispatcher = _BrokenStoreDispatcher(Deps(memory, settings, memory.clock))
    dispatcher.broken = _Ledger(memory.ledger)
    params = ConsumerParams(
        stall_after_s=1.0, backlog_every_s=0.1, backoff_s=(0.1,), max_deliver=1000, fetch_timeout_s=0.2
    )
    consumer = Consumer(js, dispatcher, params)
    await consumer.start()
    try:
        for i in range(3):
            body = {
                "id": f"s{i}",
                "scope": "alice",
                "role": "user",
                "text": f"I moved desk {i} times.",
                "ts": "2024-02-01T09:00:00+00:00",
            }
            await js.publish("memubot.in.conversation.main", json.dumps(body).encode())

        async def stalled() -> bool:
            return consumer.last_backlog is not None and consumer.last_backlog.stalled

        await poll(stalled, "the consumer to be reported stalled")
        b = consumer.last_backlog
        assert b is not None and b.unhandled == 3
        assert b.oldest_age_s > params.stall_after_s and b.since_progress_s > params.stall_after_s
        assert not consumer.healthy(600.0)  # not ready, and the watchdog is not fed
        assert consumer.running and time.monotonic() - consumer.last_batch_at < 600.0  # busy, not stuck
        registry = dispatcher.metrics.registry
        assert (registry.get_sample_value("memubot_unhandled_events") or 0) == 3
        assert (registry.get_sample_value("memubot_oldest_unhandled_event_age_seconds") or 0) > 1.0

        dispatcher.broken.broken = False  # the disk has room again

        async def caught_up() -> bool:
            b = consumer.last_backlog
            return b is not None and b.unhandled == 0 and not b.stalled

        await poll(caught_up, "the consumer to catch up")
        assert consumer.healthy(600.0)
        assert memory.stats("alice")["resources"] == 3
        assert (registry.get_sample_value("memubot_oldest_unhandled_event_age_seconds") or 0) == 0
    finally:
        await consumer.stop(10.0)
        await nc.close()
