"""sd_notify: tell systemd that memubot is ready, alive or stopping, over its datagram socket."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable

log = logging.getLogger(__name__)


class Notifier:
    """Sends sd_notify states to systemd's notification socket; a quiet no-op when there is none.

    The protocol is one datagram of newline-separated ``KEY=value`` lines, so a dozen lines of
    our own replace a dependency (see sd_notify(3)).
    """

    def __init__(self, socket_path: str | None) -> None:
        # "@name" is systemd's spelling of a Linux abstract-namespace socket: a leading NUL byte
        self._address = "\0" + socket_path[1:] if socket_path and socket_path[0] == "@" else socket_path
        self._failing = False  # warn once per run of failures, not on every watchdog ping

    @property
    def enabled(self) -> bool:
        """True when systemd gave us a socket (we run as a Type=notify service)."""
        return bool(self._address)

    def send(self, *states: str) -> bool:
        """Send the states as one datagram; False (never an exception) when not sent."""
        if not self._address or not states:
            return False
        payload = "\n".join(states).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                # non-blocking: a full receive queue drops this message (the next ping retries)
                # instead of stalling the event loop, which would starve the watchdog anyway
                sock.setblocking(False)
                sock.sendto(payload, self._address)
        except OSError as exc:
            level = logging.DEBUG if self._failing else logging.WARNING
            log.log(level, "sd_notify to %r failed: %s", self._address, exc)
            self._failing = True
            return False
        self._failing = False
        return True

    def ready(self, status: str = "") -> bool:
        """Start-up is complete: systemd marks the unit active and starts the watchdog clock."""
        return self.send("READY=1", f"STATUS={_one_line(status)}") if status else self.send("READY=1")

    def stopping(self) -> bool:
        """Shutdown has begun: systemd stops expecting watchdog pings."""
        return self.send("STOPPING=1")

    def watchdog(self) -> bool:
        """One keep-alive ping."""
        return self.send("WATCHDOG=1")

    def status(self, text: str) -> bool:
        """Free text that `systemctl --user status memubot` shows."""
        return self.send(f"STATUS={_one_line(text)}")


def _one_line(text: str) -> str:
    # a newline would start another KEY=value line in the datagram
    return " ".join(text.splitlines())


def watchdog_interval(watchdog_usec: int | None) -> float | None:
    """Seconds between pings: half the watchdog period, as sd_watchdog_enabled(3) advises; None if off."""
    if not watchdog_usec or watchdog_usec <= 0:
        return None
    return watchdog_usec / 2 / 1_000_000


async def watchdog_loop(notifier: Notifier, interval: float, healthy: Callable[[], bool]) -> None:
    """Ping systemd every `interval` seconds while `healthy()` holds; runs until cancelled.

    Withholding the ping is the point: a daemon whose consumer or store is wedged stops pinging,
    and systemd restarts it (WatchdogSec= with Restart=on-failure).
    """
    if interval <= 0:
        raise ValueError(f"watchdog interval must be positive, got {interval!r}")
    was_healthy = True
    while True:
        try:
            ok = bool(healthy())
        except Exception:
            log.exception("health check raised; treating the daemon as unhealthy")
            ok = False
        if ok:
            notifier.watchdog()
        if ok != was_healthy:  # log transitions only: one line per incident, not one per ping
            if ok:
                log.info("healthy again; watchdog pings resume")
            else:
                log.warning("unhealthy: withholding the watchdog ping so systemd can restart memubot")
            was_healthy = ok
        await asyncio.sleep(interval)
