"""The bus publisher: everything memubot sends, through FastStream on the daemon's one connection.

Two kinds of send. **Durable** (`publish`): onto JetStream with `Nats-Msg-Id` = the event or
suggestion id, awaiting the stream's ack, so that a retry after a lost ack or a restart is dropped
by the server's duplicate window instead of delivered twice; used for suggestions, memory ops and
the events memubot's own triggers put on `memubot.in.>` (webhook, poller, Gmail). **Live**
(`send`): core NATS, for prefetched context that only matters to whoever listens now.

The stream of a subject is named so that FastStream checks the ack came from it: a subject no
stream holds fails loudly instead of vanishing into core NATS. The JetStream timeout is nats-py's
usual 5 s, not FastStream's 0.5 s, which a busy two-core machine can miss and turn into retries.
"""

from __future__ import annotations

from nats.aio.client import Client as NATS

from daemon.runtime.shared_broker import SharedBroker
from daemon.runtime.streams import stream_configs

PUBLISH_TIMEOUT_S = 5.0
# subject prefix ("memubot.in.") -> stream, from the streams memubot declares (runtime/streams.py)
STREAMS = {
    subject.removesuffix(">"): c.name for c in stream_configs() for subject in c.subjects or () if c.name
}


def stream_of(subject: str) -> str:
    """The JetStream stream that holds `subject` (ValueError for a subject no stream holds)."""
    for prefix, stream in STREAMS.items():
        if subject.startswith(prefix):
            return stream
    raise ValueError(f"no memubot stream holds {subject!r}")


class Publisher:
    """Sends memubot's messages; the connection stays its owner's (SharedBroker never closes it)."""

    def __init__(self, nc: NATS) -> None:
        self.broker = SharedBroker(nc, apply_types=False)

    async def start(self) -> None:
        await self.broker.connect()

    async def stop(self) -> None:
        await self.broker.stop()

    async def publish(self, subject: str, body: bytes, msg_id: str) -> None:
        """Durable: onto the subject's stream, deduplicated by `msg_id`; raises when not stored."""
        await self.broker.publish(
            body,
            subject,
            headers={"Nats-Msg-Id": msg_id},
            stream=stream_of(subject),
            timeout=PUBLISH_TIMEOUT_S,
        )

    async def send(self, subject: str, body: bytes) -> None:
        """Live: core NATS, to whoever listens now."""
        await self.broker.publish(body, subject)
