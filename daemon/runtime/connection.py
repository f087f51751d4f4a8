"""The daemon's NATS connection: reconnects with backoff for ever, knows how long it has been
down, and closes cleanly on the way out whatever state it is in.

nats-py retries at a fixed interval and reports every failed attempt; here the attempts back
off (at once, then doubling up to MAX_DELAY_S) and the journal gets one line when the
connection drops, one a minute while it stays down, and one when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import nats
from nats.aio.client import Client as NATS
from nats.aio.client import Server

from daemon import __version__

log = logging.getLogger(__name__)

FIRST_DELAY_S = 0.25  # before the second attempt; the first is at once
MAX_DELAY_S = 5.0  # a returning broker is found within this
REPORT_EVERY_S = 60.0  # while down, one "still down" line this often
DRAIN_TIMEOUT_S = 10.0


def reconnect_delay(failures: int, first: float = FIRST_DELAY_S, cap: float = MAX_DELAY_S) -> float:
    """Seconds before a reconnect attempt after `failures` failed ones (0: at once)."""
    if failures <= 0:
        return 0.0
    return float(min(cap, first * 2 ** (failures - 1)))


class Link:
    """What the daemon knows about its connection: up or down, since when, and what to do on return."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.nc: NATS | None = None
        self.down_since: float | None = None  # monotonic time of the drop; None while connected
        self.closing = False
        self.after_reconnect: list[Callable[[], Awaitable[None]]] = []
        self._last_report = 0.0
        self.failures = 0  # failed reconnect attempts since the drop
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def connected(self) -> bool:
        return self.nc is not None and self.nc.is_connected

    def down_for(self) -> float:
        """Seconds since the connection dropped; 0 while connected."""
        return 0.0 if self.down_since is None else time.monotonic() - self.down_since

    def healthy(self, grace_s: float) -> bool:
        """Connected, or down for less than `grace_s` (a broker restart is not a reason to die)."""
        return self.connected or self.down_for() < grace_s

    # nats-py callbacks

    def choose_server(self, servers: list[Server], info: dict[str, Any]) -> tuple[Server | None, float]:
        """nats-py's reconnect hook: the server tried least often (the only one, or one of a
        cluster's: a dead node is passed over for one that answers), after a backoff that grows
        per failure."""
        if not servers:
            return None, reconnect_delay(self.failures)
        best = min(servers, key=lambda s: s.reconnects)  # the first of the least tried
        self.failures = best.reconnects
        return best, reconnect_delay(self.failures)

    async def on_error(self, exc: Exception) -> None:
        if self.down_since is None:
            log.warning("NATS: %s", exc or type(exc).__name__)
            return
        # failed reconnect attempts: one line a minute, not one per attempt
        now = time.monotonic()
        if now - self._last_report >= REPORT_EVERY_S:
            self._last_report = now
            log.warning(
                "NATS: %s still unreachable after %.0fs (%d attempts; last: %s)",
                self.url,
                self.down_for(),
                self.failures + 1,
                exc or type(exc).__name__,
            )
        else:
            log.debug("NATS: reconnect to %s failed: %s", self.url, exc)

    async def on_disconnect(self) -> None:
        if self.closing or self.down_since is not None:
            return
        self.down_since = self._last_report = time.monotonic()
        log.warning("NATS: disconnected from %s, reconnecting", self.url)

    async def on_reconnect(self) -> None:
        log.info("NATS: reconnected to %s after %.1fs", self.url, self.down_for())
        self.down_since = None
        for hook in self.after_reconnect:
            # off the client's reconnect task: a hook makes requests over this same connection
            task = asyncio.create_task(_run_hook(hook), name="memubot-on-reconnect")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Drain when connected (subscriptions finish, acks are flushed), else just close.

        Never raises: a shutdown must complete whatever the broker is doing. Acks still buffered
        in a dead connection are lost, and the events they were for are redelivered harmlessly.
        """
        self.closing = True
        for task in self._tasks:
            task.cancel()
        nc = self.nc
        if nc is None or nc.is_closed:
            return
        if nc.is_connected:
            try:
                await asyncio.wait_for(nc.drain(), DRAIN_TIMEOUT_S)
                return
            except Exception as exc:
                log.warning("NATS: drain failed (%s): closing", exc or type(exc).__name__)
        else:
            log.warning(
                "NATS: closing while disconnected from %s: unflushed acks will be redelivered", self.url
            )
        try:
            await nc.close()
        except Exception as exc:  # the transport died under the close: it is closed all the same
            log.debug("NATS close: %s", exc or type(exc).__name__)


async def _run_hook(hook: Callable[[], Awaitable[None]]) -> None:
    try:
        await hook()
    except Exception:
        log.exception("after reconnecting: %s failed", getattr(hook, "__name__", hook))


def servers(url: str) -> list[str]:
    """The servers of a URL: one, or a cluster's as a comma-separated list (docs/cluster.md)."""
    return [u.strip() for u in url.split(",") if u.strip()]


@contextlib.asynccontextmanager
async def connect(url: str) -> AsyncIterator[tuple[NATS, Link]]:
    """A NATS connection that reconnects for ever once up, and is closed cleanly on exit."""
    link = Link(url)
    link.nc = await nats.connect(
        servers(url),
        name=f"memubot-{__version__}",
        connect_timeout=5,
        max_reconnect_attempts=-1,
        reconnect_to_server_handler=link.choose_server,
        error_cb=link.on_error,
        disconnected_cb=link.on_disconnect,
        reconnected_cb=link.on_reconnect,
    )
    try:
        yield link.nc, link
    finally:
        await link.close()


async def settle(nc: NATS) -> None:
    """Return once the server holds every subscription made on `nc` so far.

    Two round trips, not one: nats-py (2.16) writes a flush's PING straight to the socket, ahead
    of the SUBs still queued for its flusher task, so the first PONG can come back before the
    server has seen them (a request then got "no responders" in 5 of 14 runs of a script under
    load, and a message published from another connection at that moment reaches nobody). The
    first round trip lets the SUBs out; the second follows them.
    """
    await nc.flush()
    await nc.flush()
