"""The delivery timer: sleeps until the next `deliver_at` (or until woken by a new suggestion),
then lets the outbox deliver what is due. A timer, not a polling loop: with nothing pending it
waits for a wake-up alone."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from daemon.memory import Clock
from daemon.predict.outbox import SuggestionOutbox

log = logging.getLogger(__name__)

RETRY_S = 5.0  # after a failed delivery (the bus is down), try again this soon


class DeliveryTimer:
    def __init__(self, outbox: SuggestionOutbox, clock: Clock) -> None:
        self.outbox = outbox
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Something new may be due sooner: re-read the next delivery time (call on the loop)."""
        self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="memubot-suggestions")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            timeout: float | None
            try:
                await self.outbox.deliver_due()
                nxt = await self.outbox.next_due()
                timeout = None if nxt is None else max(0.0, (nxt - self.clock()).total_seconds())
            except Exception as exc:  # the bus or the store failed: keep the rows, try again soon
                log.warning("delivering suggestions failed, retrying in %.0fs: %s", RETRY_S, exc)
                timeout = RETRY_S
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
