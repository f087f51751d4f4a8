"""A real daemon on a real nats-server: each live turn gets its context once, as it arrives, and
the context after a question about someone holds what else was told about that person."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import nats

from daemon.client import Client
from daemon.config import Settings
from tests.conftest import FakeClock
from tests.daemon_harness import wait_for
from tests.test_predict_daemon import running

__all__ = ["running"]  # the fixture, imported for pytest

TOLD = [
    "My neighbour Farid keeps bees on the roof of his garage.",
    "Farid is allergic to cats, so he never comes in when Mochi is around.",
    "Farid lends me his ladder whenever I need to clean the gutters.",
    "The supermarket on the corner now opens at seven.",
    "I have to renew the parking permit in April.",
    "My cousin's wedding is in Porto this summer.",
    "The new phone plan includes twenty gigabytes of data.",
    "I am learning to bake sourdough bread on weekends.",
]


async def test_each_turn_gets_one_context_that_holds_the_persons_other_facts(
    running: tuple[Settings, FakeClock, Client], nats_url: str
) -> None:
    _, clock, client = running
    got: list[dict[str, Any]] = []
    nc = await nats.connect(nats_url)
    try:

        async def collect(msg: Any) -> None:
            got.append(json.loads(msg.data))

        await nc.subscribe("memubot.out.context.chat", cb=collect)
        told_at = clock.now - timedelta(days=3)
        for n, text in enumerate(TOLD):
            await client.publish_turn(
                text, scope="bo", session="earlier", id=f"f{n}", ts=told_at + timedelta(minutes=n)
            )
        await client.flush()
        await client.publish_turn(
            "Does Farid still keep bees?", scope="bo", session="chat", id="q1", ts=clock.now
        )
        await wait_for(lambda: any(c["turn_id"] == "q1" for c in got))
        await client.publish_turn(
            "When does the corner shop open now?", scope="bo", session="chat", id="q2", ts=clock.now
        )
        await client.flush()
        await wait_for(lambda: {c["turn_id"] for c in got} >= {"q2"})
        await asyncio.sleep(0.5)  # a second context for the same turn would come by now
    finally:
        await nc.close()
    ids = [c["turn_id"] for c in got]
    assert len(ids) == len(set(ids)), ids  # never twice for one turn
    [first] = [c for c in got if c["turn_id"] == "q1"]
    # the person asked about, and what else was told about him before it is asked
    assert {"f0", "f1", "f2"} <= {m["source_ids"][0] for m in first["memories"]}
