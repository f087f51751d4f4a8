"""A FastStream NatsBroker on the daemon's own NATS connection (one connection, not two).

FastStream 0.7 opens a connection of its own in `NatsBroker.connect()` and drains it in
`stop()`. The daemon already has one: daemon/runtime/connection.py's, which reconnects with backoff for
ever, follows the supervised embedded broker across restarts and gives /readyz its link state.
This broker is handed that connection instead: its subscriptions are nats-py subscriptions on
it (nats-py renews them after a reconnect, as it does the others), and stopping the broker
stops its subscribers but leaves the connection to its owner, which drains it last.

Its JetStream ack policy is set here, broker-wide: `NACK_ON_ERROR`. FastStream's default
(`REJECT_ON_ERROR`) terminates a JetStream message whose handler raised, so one transient
failure would drop an event for good; a nak brings it back, and memubot's dispatcher counts the
deliveries and writes the dead letter on the last one (tests/runtime/test_ack_policy.py pins it
on a real nats-server). Core NATS subscribers (the RPC responders) have no acks: it leaves them be.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any

from faststream.middlewares import AckPolicy
from faststream.nats import NatsBroker
from nats.aio.client import Client as NATS

# FastStream's access lines ("Received", "Processed") for every message would double the daemon's
# own per-request line: they go to the debug level of this logger; a handler's error still logs.
ACCESS_LOG = logging.getLogger("daemon.faststream")

# a handler error naks (the event comes back); never the default, which terminates it
ACK_POLICY = AckPolicy.NACK_ON_ERROR


class SharedBroker(NatsBroker):
    """A NatsBroker that uses the connection it is given and never closes it."""

    def __init__(self, nc: NATS, **kwargs: Any) -> None:
        kwargs.setdefault("logger", ACCESS_LOG)
        kwargs.setdefault("log_level", logging.DEBUG)
        kwargs.setdefault("ack_policy", ACK_POLICY)
        super().__init__(**kwargs)
        self._given = nc

    async def _connect(self) -> NATS:
        self.config.connect(self._given)
        return self._given

    async def stop(
        self,
        exc_type: type[BaseException] | None = None,
        exc_val: BaseException | None = None,
        exc_tb: TracebackType | None = None,
    ) -> None:
        # NatsBroker.stop drains the connection it holds: this one belongs to the daemon
        self._connection = None
        await super().stop(exc_type, exc_val, exc_tb)
