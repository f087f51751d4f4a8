"""FastStream's JetStream ack policy against a real nats-server, as memubot would use it.

FastStream's default for a JetStream subscriber is to *reject* (terminate) a message whose handler
raised: the server never delivers it again, so one transient failure loses the event. With
`NatsBroker(ack_policy=AckPolicy.NACK_ON_ERROR)` a raising handler naks instead and the event
comes back; on the last attempt memubot's dispatcher writes the dead letter and the handler
returns, so the event is acknowledged with a record to replay (never dropped, never looping).
The durable is configured as memubot's consumer is (daemon/runtime/consumer.py): the server never gives
up (`max_deliver=-1`), the dispatcher counts the attempts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import nats
import pytest
from faststream.middlewares import AckPolicy as FastStreamAckPolicy
from faststream.nats import ConsumerConfig, JStream, NatsBroker, NatsMessage, PullSub
from nats.js import JetStreamContext

from daemon.config import load_settings
from daemon.events import turn_from_dict
from daemon.memory import Memory
from daemon.runtime.consumer import IN_STREAM
from daemon.runtime.dispatch import ACK, Dispatcher, Incoming
from daemon.runtime.shared_broker import SharedBroker
from daemon.subjects import conversation_subject
from handlers import Route, conversation
from handlers.deps import Deps

MAX_ATTEMPTS = 3  # memubot's own limit is ConsumerParams.max_deliver (5); 3 keeps the test short


class Retry(Exception):
    """The dispatcher's verdict was `retry`: raised so that the broker-wide policy naks."""


async def poll(predicate: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


def subscribe(broker: NatsBroker, durable: str, handler: Callable[..., Awaitable[None]]) -> None:
    """A pull subscriber on memubot's stream, its durable configured as daemon/runtime/consumer.py's."""
    broker.subscriber(
        "memubot.in.>",
        stream=JStream(IN_STREAM, declare=False),
        durable=durable,
        pull_sub=PullSub(batch_size=1, timeout=0.5),
        config=ConsumerConfig(max_deliver=-1, ack_wait=30),
    )(handler)


async def settled(js: JetStreamContext, durable: str, published: int) -> bool:
    """Every published event is acknowledged or terminated: nothing pending, nothing in flight."""
    info = await js.consumer_info(IN_STREAM, durable)
    floor = int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0
    return floor >= published and not info.num_pending and not info.num_ack_pending


async def test_without_a_policy_a_handler_error_drops_the_event_after_one_delivery(
    nats_url: str, js: JetStreamContext
) -> None:
    deliveries: list[int] = []
    broker = NatsBroker(nats_url)  # FastStream's default: REJECT_ON_ERROR for JetStream

    async def failing(msg: NatsMessage) -> None:
        deliveries.append(msg.raw_message.metadata.num_delivered)
        raise RuntimeError("the store is busy")

    subscribe(broker, "no-policy", failing)
    await broker.start()
    try:
        await js.publish(conversation_subject("main"), b'{"id": "t1"}', headers={"Nats-Msg-Id": "t1"})
        await poll(lambda: settled(js, "no-policy", 1), "the event to be settled")
        info = await js.consumer_info(IN_STREAM, "no-policy")
    finally:
        await broker.stop()
    # settled after one delivery: terminated, so the server will never offer it again
    assert deliveries == [1]
    assert info.num_redelivered == 0 and info.delivered.stream_seq == 1


async def test_with_nack_on_error_a_handler_error_is_redelivered_then_a_dead_letter(
    nats_url: str, js: JetStreamContext, memory: Memory, tmp_path: Path
) -> None:
    calls: dict[str, int] = {}

    async def flaky(turns: Sequence[Any], deps: Deps) -> list[str]:
        """The conversation handler, failing every time for one turn and once for another."""
        for t in turns:
            calls[t.id] = calls.get(t.id, 0) + 1
            if t.id == "always" or (t.id == "once" and calls[t.id] == 1):
                raise RuntimeError(f"the embedder is away ({t.id})")
        return await conversation.handle(turns, deps)

    routes = (Route("conversation", "memubot.in.conversation.", turn_from_dict, flaky),)
    settings = load_settings({"HOME": str(tmp_path)})
    dispatcher = Dispatcher(Deps(memory, settings, memory.clock), routes=routes)
    deliveries: dict[str, list[int]] = {}
    broker = NatsBroker(nats_url, ack_policy=FastStreamAckPolicy.NACK_ON_ERROR)

    async def on_event(msg: NatsMessage) -> None:
        raw = msg.raw_message
        meta = raw.metadata
        incoming = Incoming(raw.subject, raw.data, meta.num_delivered, MAX_ATTEMPTS, meta.sequence.stream)
        [verdict] = await dispatcher.dispatch([incoming])
        deliveries.setdefault(str(verdict.event_id), []).append(meta.num_delivered)
        if verdict.action != ACK:
            raise Retry(verdict.reason)

    subscribe(broker, "nack-on-error", on_event)
    await broker.start()
    try:
        for rid, text in (("always", "My bike is blue."), ("once", "My dentist is Dr. Okafor.")):
            body = (
                f'{{"id": "{rid}", "scope": "alice", "role": "user", "text": "{text}", '
                '"ts": "2024-02-01T09:00:00+00:00"}'
            )
            await js.publish(conversation_subject("main"), body.encode(), headers={"Nats-Msg-Id": rid})
        await poll(lambda: settled(js, "nack-on-error", 2), "both events to be settled")
    finally:
        await broker.stop()
    # redelivered after each error, never dropped: the failing one until its last attempt
    assert deliveries == {"always": [1, 2, 3], "once": [1, 2]}
    [letter] = memory.ledger.dead_letters()
    assert letter["event_id"] == "always" and letter["attempts"] == MAX_ATTEMPTS
    assert "the embedder is away (always)" in letter["reason"]
    assert memory.ledger.seen(["once", "always"]) == {"once"}
    assert "Okafor" in " ".join(i["l0"] for i in memory.items("alice"))


async def test_the_daemons_broker_redelivers_a_handler_error_by_default(
    nats_url: str, js: JetStreamContext
) -> None:
    # SharedBroker (daemon/runtime/shared_broker.py) sets the policy broker-wide: a subscriber on
    # it that names no policy gets NACK_ON_ERROR, not FastStream's terminating default
    deliveries: list[int] = []
    nc = await nats.connect(nats_url)
    broker = SharedBroker(nc)

    async def failing_twice(msg: NatsMessage) -> None:
        deliveries.append(msg.raw_message.metadata.num_delivered)
        if len(deliveries) <= 2:
            raise RuntimeError("the store is busy")

    subscribe(broker, "shared", failing_twice)
    await broker.start()
    try:
        await js.publish(conversation_subject("main"), b'{"id": "t1"}', headers={"Nats-Msg-Id": "t1"})
        await poll(lambda: settled(js, "shared", 1), "the event to be settled")
    finally:
        await broker.stop()
        await nc.close()
    assert deliveries == [1, 2, 3]  # redelivered after each error, acked when it succeeded
