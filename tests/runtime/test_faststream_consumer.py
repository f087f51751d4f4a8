"""The FastStream consumer of `memubot.in.>` against a real nats-server: batches, retries,
dead letters, health and a graceful stop, with the real conversation handler and embedder."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext

from daemon.config import load_settings
from daemon.events import turn_from_dict
from daemon.memory import Memory
from daemon.runtime.consumer import IN_STREAM, ConsumerParams
from daemon.runtime.dispatch import Dispatcher, Incoming, Verdict
from daemon.runtime.faststream_consumer import FastStreamConsumer
from daemon.runtime.streams import ensure_streams
from daemon.subjects import conversation_subject
from handlers import ROUTES, Route, conversation
from handlers.deps import Deps


class _Recording(Dispatcher):
    """The real dispatcher, remembering the size of every batch it was handed."""

    sizes: list[int]

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]:
        self.sizes.append(len(batch))
        return await super().dispatch(batch)


def turn(rid: str, text: str) -> bytes:
    body = {"id": rid, "scope": "alice", "role": "user", "text": text, "ts": "2024-02-01T09:00:00+00:00"}
    return json.dumps(body).encode()


async def poll(predicate: Callable[[], Awaitable[bool]], what: str, timeout: float = 120.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


async def connect(url: str) -> tuple[NATS, JetStreamContext]:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await ensure_streams(js)
    return nc, js


def recording(memory: Memory, tmp_path: Path, routes: Sequence[Route] = ROUTES) -> _Recording:
    settings = load_settings({"HOME": str(tmp_path)})
    dispatcher = _Recording(Deps(memory, settings, memory.clock), routes=routes)
    dispatcher.sizes = []
    return dispatcher


async def test_a_burst_is_dispatched_in_batches_and_each_event_stored_once(
    nats_url: str, memory: Memory, tmp_path: Path
) -> None:
    nc, js = await connect(nats_url)
    for i in range(40):
        await js.publish(conversation_subject("main"), turn(f"b{i}", f"Desk {i} is by the window."))
    await js.publish(conversation_subject("main"), turn("b0", "Desk 0 again."))  # a redelivery by hand
    dispatcher = recording(memory, tmp_path)
    consumer = FastStreamConsumer(nc, js, dispatcher, ConsumerParams())
    await consumer.start()
    try:
        await consumer.flush(120.0)
        assert consumer.healthy(600.0)
    finally:
        await consumer.stop(10.0)
        await nc.close()
    # FastStream hands the handler one message at a time; they are gathered into batches again
    assert sum(dispatcher.sizes) == 41 and len(dispatcher.sizes) <= 3, dispatcher.sizes
    assert memory.stats("alice")["resources"] == 40
    assert not consumer.running and not consumer.healthy(600.0)


async def test_a_failure_is_retried_with_its_delay_and_dead_lettered_on_the_last_attempt(
    nats_url: str, memory: Memory, tmp_path: Path
) -> None:
    calls: dict[str, int] = {}

    async def flaky(turns: Sequence[Any], deps: Deps) -> list[str]:
        for t in turns:
            calls[t.id] = calls.get(t.id, 0) + 1
            if t.id == "always" or (t.id == "once" and calls[t.id] == 1):
                raise RuntimeError(f"the embedder is away ({t.id})")
        return await conversation.handle(turns, deps)

    routes = (Route("conversation", "memubot.in.conversation.", turn_from_dict, flaky),)
    nc, js = await connect(nats_url)
    dispatcher = recording(memory, tmp_path, routes)
    params = ConsumerParams(max_deliver=3, backoff_s=(0.2, 0.4))
    consumer = FastStreamConsumer(nc, js, dispatcher, params)
    await consumer.start()
    try:
        await js.publish(conversation_subject("main"), turn("always", "My bike is blue."))
        await js.publish(conversation_subject("main"), turn("once", "My dentist is Dr. Okafor."))
        await js.publish(conversation_subject("main"), b'{"id": "broken", "text": ')  # bad JSON
        await consumer.flush(120.0)
        info = await js.consumer_info(IN_STREAM, params.durable)
    finally:
        await consumer.stop(10.0)
        await nc.close()
    # handled singly after a batch failed, retried after each failure, never dropped
    assert calls["always"] >= 3 and calls["once"] >= 2
    [letter, bad] = sorted(memory.ledger.dead_letters(), key=lambda d: str(d["event_id"]))
    assert letter["event_id"] == "always" and letter["attempts"] == 3
    assert "the embedder is away (always)" in letter["reason"]
    assert bad["event_id"] == "broken" and bad["attempts"] == 1  # bad content: at once, no retry
    assert memory.ledger.seen(["once", "always", "broken"]) == {"once"}
    assert "Okafor" in " ".join(i["l0"] for i in memory.items("alice"))
    assert not info.num_pending and not info.num_ack_pending


async def test_stop_lets_the_batch_in_hand_finish_and_a_long_batch_is_unhealthy(
    nats_url: str, memory: Memory, tmp_path: Path
) -> None:
    started = asyncio.Event()

    async def slow(turns: Sequence[Any], deps: Deps) -> list[str]:
        started.set()
        await asyncio.sleep(1.0)  # a long embedding or LLM call
        return await conversation.handle(turns, deps)

    routes = (Route("conversation", "memubot.in.conversation.", turn_from_dict, slow),)
    nc, js = await connect(nats_url)
    dispatcher = recording(memory, tmp_path, routes)
    consumer = FastStreamConsumer(nc, js, dispatcher, ConsumerParams())
    await consumer.start()
    try:
        await js.publish(conversation_subject("main"), turn("s1", "My locker is number 12."))
        await asyncio.wait_for(started.wait(), 60.0)
        assert consumer.healthy(600.0)
        assert not consumer.healthy(0.0)  # a batch in hand for longer than allowed is stuck
        await consumer.stop(30.0)  # while the batch is in hand
        assert not consumer.running
        assert memory.ledger.seen(["s1"]) == {"s1"}  # committed before `stop` returned

        async def acked() -> bool:  # the server takes in an ack a moment after it is sent
            info = await js.consumer_info(IN_STREAM, "memubot")
            return info.ack_floor.stream_seq == 1 and not info.num_ack_pending

        await poll(acked, "the event to be acked", timeout=10.0)  # redelivery would take 30 s
    finally:
        await nc.close()


async def test_the_batch_in_hand_is_marked_in_progress(nats_url: str, memory: Memory, tmp_path: Path) -> None:
    async def slow(turns: Sequence[Any], deps: Deps) -> list[str]:
        await asyncio.sleep(3.5)  # longer than the ack wait below
        return await conversation.handle(turns, deps)

    routes = (Route("conversation", "memubot.in.conversation.", turn_from_dict, slow),)
    nc, js = await connect(nats_url)
    dispatcher = recording(memory, tmp_path, routes)
    consumer = FastStreamConsumer(nc, js, dispatcher, ConsumerParams(ack_wait_s=1.5))
    await consumer.start()
    t0 = time.monotonic()
    try:
        await js.publish(conversation_subject("main"), turn("p1", "My car is green."))
        await consumer.flush(60.0)
        info = await js.consumer_info(IN_STREAM, "memubot")
    finally:
        await consumer.stop(10.0)
        await nc.close()
    assert time.monotonic() - t0 > 3.0
    # without the in-progress marks the server would have sent it again after 1.5 s
    assert info.num_redelivered == 0 and dispatcher.sizes == [1]


async def test_what_a_fetch_brings_during_the_stop_goes_back_at_once(
    nats_url: str, memory: Memory, tmp_path: Path
) -> None:
    nc, js = await connect(nats_url)
    dispatcher = recording(memory, tmp_path)
    # a long fetch, so that the stop surely begins while one waits on the server; an ack wait
    # longer than the flush below, so that only a message given back is handled in time
    params = ConsumerParams(fetch_timeout_s=3.0, ack_wait_s=300.0)
    consumer = FastStreamConsumer(nc, js, dispatcher, params)
    await consumer.start()
    try:
        await js.publish(conversation_subject("main"), turn("w1", "My umbrella is yellow."))
        await consumer.flush(60.0)
        await asyncio.sleep(0.3)  # the loop is waiting in its next fetch
        stopping = asyncio.create_task(consumer.stop(10.0))
        await asyncio.sleep(0.1)
        await js.publish(conversation_subject("main"), turn("w2", "My scooter is grey."))
        await stopping
        assert consumer.returned == 1 and memory.ledger.seen(["w2"]) == set()
        again = FastStreamConsumer(nc, js, dispatcher, params)
        await again.start()
        await again.flush(60.0)  # left in flight, it would come back only after 300 s
        await again.stop(10.0)
    finally:
        await nc.close()
    assert memory.ledger.seen(["w1", "w2"]) == {"w1", "w2"}


async def test_a_durable_that_is_gone_is_asked_for_again_at_a_pace_and_then_consumed(
    nats_url: str, memory: Memory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nc, js = await connect(nats_url)
    dispatcher = recording(memory, tmp_path)
    consumer = FastStreamConsumer(nc, js, dispatcher, ConsumerParams())
    await consumer.start()
    try:
        await asyncio.sleep(0.5)
        await js.delete_consumer(IN_STREAM, "memubot")  # e.g. a broker that lost its data
        with caplog.at_level(logging.WARNING, logger="daemon.runtime.faststream_consumer"):
            await asyncio.sleep(3.0)
        failed = [r for r in caplog.records if "fetching from MEMUBOT_IN failed" in r.getMessage()]
        # FastStream's loop alone asks again at once: thousands of failed fetches in 3 s
        assert 1 <= len(failed) <= 6, len(failed)
        assert consumer.running and consumer.fetching
        await consumer.declare()  # what the daemon does after a reconnect
        await js.publish(conversation_subject("main"), turn("g1", "My kayak is orange."))
        await consumer.flush(60.0)
    finally:
        await consumer.stop(10.0)
        await nc.close()
    assert memory.ledger.seen(["g1"]) == {"g1"}


async def test_fetches_that_fail_in_any_way_leave_the_fetch_loop_running(
    nats_url: str, memory: Memory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nc, js = await connect(nats_url)
    dispatcher = recording(memory, tmp_path)
    consumer = FastStreamConsumer(nc, js, dispatcher, ConsumerParams())
    await consumer.start()
    sub = consumer.subscriber.subscription
    assert sub is not None
    fetch_n = sub._fetch_n
    failures = [TimeoutError(), RuntimeError("nats: unexpected reply"), TimeoutError()]

    async def failing(*args: Any, **kwargs: Any) -> Any:
        # the built-in TimeoutError: nats-py raises it when its deadline runs out between two
        # of its requests; FastStream's loop expects only nats-py's own
        if failures:
            await asyncio.sleep(0.05)
            raise failures.pop(0)
        return await fetch_n(*args, **kwargs)

    try:
        [loop] = consumer.subscriber.tasks
        with caplog.at_level(logging.INFO):
            sub._fetch_n = failing  # type: ignore[method-assign]
            await js.publish(conversation_subject("main"), turn("f1", "My tent is green."))
            await consumer.flush(60.0)
        assert not failures  # every failure was met
        assert consumer.subscriber.tasks == [loop] and not loop.done()  # never ended nor restarted
        assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
        warned = [r for r in caplog.records if "fetching from MEMUBOT_IN failed" in r.getMessage()]
        assert len(warned) == 1 and "unexpected reply" in warned[0].getMessage()
    finally:
        await consumer.stop(10.0)
        await nc.close()
    assert memory.ledger.seen(["f1"]) == {"f1"}
