"""The NATS broker: the configured server if it answers, else our own, supervised nats-server.

Before probing, a nats-server of ours that outlived an earlier memubot (see `nats_server`) is
stopped: it would answer at the configured address and be taken for someone else's broker,
then run on after us. Our own server listens where MEMUBOT_NATS_URL points when that is a free
loopback port, else on a port it chooses; it is restarted if it dies (`supervisor`) and
stopped when memubot stops.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from daemon.runtime.nats_server import (
    BrokerError,
    BrokerLimits,
    NatsServer,
    reclaim_leftover,
    server_binary,
    start_embedded,
    stop,
)
from daemon.runtime.probe import host_port, probe
from daemon.runtime.supervisor import Supervisor

__all__ = [
    "Broker",
    "BrokerError",
    "BrokerLimits",
    "NatsServer",
    "broker",
    "probe",
    "server_binary",
    "start_embedded",
    "stop",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Broker:
    """Where the bus is: a URL, and the supervisor of our server when we run it ourselves."""

    url: str
    supervisor: Supervisor | None = None

    @property
    def embedded(self) -> bool:
        return self.supervisor is not None

    @property
    def pid(self) -> int | None:
        """The pid of the embedded server now running (it changes when it is restarted)."""
        return self.supervisor.server.pid if self.supervisor is not None else None


async def _start_on_configured_port(url: str, state_dir: Path, limits: BrokerLimits | None) -> NatsServer:
    """Listen where MEMUBOT_NATS_URL points when that is a free loopback port, so that agents
    and restarts find the same address; else on a port the server chooses (see memubot.json)."""
    host, port = host_port(url)
    if host in ("127.0.0.1", "localhost"):
        try:
            return await start_embedded(state_dir, limits, port=port)
        except BrokerError as exc:
            log.warning("cannot listen on %s (%s): letting nats-server choose a port", url, exc)
    return await start_embedded(state_dir, limits)


@contextlib.asynccontextmanager
async def broker(url: str, state_dir: Path, limits: BrokerLimits | None = None) -> AsyncIterator[Broker]:
    """The configured server if it answers, else an embedded one, supervised, stopped on exit."""
    leftover = await reclaim_leftover(state_dir)
    if leftover is not None:
        log.info("stopped our nats-server pid %d left from an earlier run: starting afresh", leftover)
    if await probe(url):
        log.info("using the NATS server at %s", url)
        yield Broker(url)
        return
    if "," in url:
        # a cluster's servers (docs/cluster.md): never replaced by an embedded single node; the
        # connection tries them and reports none answering
        log.warning("no NATS server answers at %s: not starting an embedded one for a cluster", url)
        yield Broker(url)
        return
    log.info("no NATS server answers at %s: starting the embedded one", url)
    supervisor = Supervisor(await _start_on_configured_port(url, state_dir, limits), state_dir, limits)
    supervisor.start()
    try:
        yield Broker(supervisor.url, supervisor)
    finally:
        await supervisor.stop()
