"""Supervision of the embedded nats-server: when it dies, start it again, same port, same data.

Clients (the daemon's own connection, the agents) reconnect to the address they know, so a
restart must listen on the same port; JetStream keeps its streams and consumer positions in
the same store directory, so nothing published is lost. Restarts back off (no delay for the
first, then doubling up to a bound) for as long as the server keeps dying soon after starting;
a server that ran for a while before it died is restarted at once again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path

from daemon.runtime.nats_server import BrokerLimits, NatsServer, start_embedded, stop

log = logging.getLogger(__name__)

FIRST_DELAY_S = 0.5  # before the second restart in a row
MAX_DELAY_S = 30.0
STABLE_AFTER_S = 60.0  # a server that ran this long before dying resets the backoff


def restart_delay(failures: int, first: float = FIRST_DELAY_S, cap: float = MAX_DELAY_S) -> float:
    """Seconds to wait before restart attempt number `failures` (0: the first, at once)."""
    if failures <= 0:
        return 0.0
    return float(min(cap, first * 2 ** (failures - 1)))


class Supervisor:
    """Owns the embedded server: watches its process and restarts it until `stop()`."""

    def __init__(self, server: NatsServer, state_dir: Path, limits: BrokerLimits | None = None) -> None:
        self.server = server
        self.url = server.url  # fixed: a restart listens on the same port
        self.state_dir = state_dir
        self.limits = limits
        self.restarts = 0
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._watch(), name="memubot-broker-supervisor")

    async def _watch(self) -> None:
        failures = 0  # restarts in a row that did not last STABLE_AFTER_S
        while True:
            started = time.monotonic()
            status = await self.server.process.wait()
            if self._stopping:
                return
            if time.monotonic() - started >= STABLE_AFTER_S:
                failures = 0
            log.error(
                "embedded nats-server (pid %d) exited with status %s: restarting it on %s",
                self.server.pid,
                status,
                self.url,
            )
            while True:
                delay = restart_delay(failures)
                failures += 1
                if delay:
                    log.info("restarting nats-server in %.1fs", delay)
                    await asyncio.sleep(delay)
                try:
                    self.server = await start_embedded(self.state_dir, self.limits, port=self.server.port)
                    break
                except Exception as exc:  # the port taken meanwhile, a full disk: try again later
                    log.warning("restarting nats-server failed: %s", exc)
            self.restarts += 1
            log.info("embedded nats-server restarted (pid %d) at %s", self.server.pid, self.server.url)

    async def stop(self) -> int | None:
        """Stop watching, then stop the server; returns its exit status."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()  # a restart in progress stops the server it was starting
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        return await stop(self.server)
