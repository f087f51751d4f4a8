"""The bus publisher on FastStream, against a real nats-server with memubot's streams."""

from __future__ import annotations

import asyncio

import nats
import pytest
from nats.js import JetStreamContext

from daemon.runtime.connection import settle
from daemon.runtime.publisher import Publisher, stream_of
from daemon.subjects import context_subject, op_subject, suggestion_subject


async def test_a_durable_publish_lands_once_with_its_body_and_id(nats_url: str, js: JetStreamContext) -> None:
    nc = await nats.connect(nats_url)
    pub = Publisher(nc)
    await pub.start()
    subject = suggestion_subject("alice")
    body = b'{"id": "sg_1", "title": "Umbrella today"}'
    for _ in range(3):  # a retry after a lost ack, then a restart's resend: the same id
        await pub.publish(subject, body, "sg_1")
    await pub.publish(subject, b'{"id": "sg_2"}', "sg_2")
    info = await js.stream_info("MEMUBOT_OUT")
    assert info.state.messages == 2
    first = await js.get_msg("MEMUBOT_OUT", seq=1)
    assert first.data == body and first.subject == subject
    assert first.headers is not None and first.headers["Nats-Msg-Id"] == "sg_1"
    await pub.stop()
    assert nc.is_connected  # the connection is its owner's: the publisher leaves it open
    await nc.close()


async def test_a_live_send_reaches_whoever_listens_now(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    listener = await nats.connect(nats_url)
    got: asyncio.Queue[bytes] = asyncio.Queue()

    async def on(msg: nats.aio.msg.Msg) -> None:
        await got.put(msg.data)

    subject = context_subject("s1")
    try:
        await listener.subscribe(subject, cb=on)
        # one flush is not enough: its PING can reach the server ahead of the SUB (settle says
        # why), and a send from the other connection in that moment reaches nobody (CI, 1 in ~50)
        await settle(listener)
        pub = Publisher(nc)
        await pub.start()
        await pub.send(subject, b'{"context": []}')
        assert await asyncio.wait_for(got.get(), 10) == b'{"context": []}'
        await pub.stop()
    finally:
        await listener.close()
        await nc.close()


def test_every_subject_memubot_publishes_durably_has_its_stream() -> None:
    assert stream_of(suggestion_subject("alice")) == "MEMUBOT_OUT"
    assert stream_of(op_subject("created")) == "MEMUBOT_OUT"
    assert stream_of("memubot.in.github") == "MEMUBOT_IN"
    with pytest.raises(ValueError, match="no memubot stream"):
        stream_of("memubot.rpc.recall")
