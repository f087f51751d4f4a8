"""The streams on a real nats-server: declared, idempotent, updated, routing the subjects."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import nats
import pytest
from nats.js import JetStreamContext

from daemon.runtime import broker as B
from daemon.runtime import streams as bus
from daemon.subjects import conversation_subject


@pytest.fixture
async def js(tmp_path: Path) -> AsyncIterator[JetStreamContext]:
    server = await B.start_embedded(tmp_path)
    nc = await nats.connect(server.url)
    try:
        yield nc.jetstream()
    finally:
        await nc.drain()
        await B.stop(server)


async def test_streams_are_declared_idempotently_and_route_the_subjects(js: JetStreamContext) -> None:
    assert await bus.ensure_streams(js) == ["MEMUBOT_IN", "MEMUBOT_OUT"]
    assert await bus.ensure_streams(js) == ["MEMUBOT_IN", "MEMUBOT_OUT"]  # a restart changes nothing
    ack = await js.publish(conversation_subject("main"), b"{}", headers={"Nats-Msg-Id": "conv-1"})
    assert ack.stream == "MEMUBOT_IN"
    again = await js.publish(conversation_subject("main"), b"{}", headers={"Nats-Msg-Id": "conv-1"})
    assert again.duplicate and again.seq == ack.seq  # a publisher retry is one message
    out = await js.publish("memubot.out.suggestion.alice", b"{}")
    assert out.stream == "MEMUBOT_OUT"
    info = await js.stream_info("MEMUBOT_IN")
    assert info.state.messages == 1 and info.config.max_age == 30 * 86400


async def test_changed_limits_update_an_existing_stream(js: JetStreamContext) -> None:
    await bus.ensure_streams(js)
    await bus.ensure_streams(js, bus.StreamLimits(out_max_age_days=1.0))
    info = await js.stream_info("MEMUBOT_OUT")
    assert info.config.max_age == 86400
