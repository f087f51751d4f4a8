"""Live context: a turn's prefetched context published as the turn arrives on the bus.

The JetStream consumer handles turns a batch at a time, and memorizing a batch takes a few
hundred milliseconds; a turn that arrives meanwhile would wait for it before its context is
made. A plain NATS subscription to the same subjects sees the turn at once, so its context
(a read of the memory as it stands) goes out without waiting. Each turn is claimed once: the
consumer's own prefetch (handlers/conversation.py) skips a turn claimed here, and still makes
the context of turns that come another way (the memorize RPC, a replay). Per session only the
newest waiting turn is worked on: a burst costs one recall, not one per turn.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any

from daemon.events import ConversationTurn, parse_turn
from handlers.conversation import LIVE, publish_context
from handlers.deps import Deps

log = logging.getLogger(__name__)

REMEMBERED = 10_000  # turn ids claimed, newest kept (a redelivered turn is older than these)


class Claims:
    """The turns whose context is made already (or being made), by (scope, turn id)."""

    def __init__(self) -> None:
        self._ids: OrderedDict[tuple[str, str], None] = OrderedDict()

    def claim(self, scope: str, turn_id: str) -> bool:
        """True the first time a turn is claimed, False after."""
        key = (scope, turn_id)
        if key in self._ids:
            return False
        self._ids[key] = None
        while len(self._ids) > REMEMBERED:
            self._ids.popitem(last=False)
        return True


class LiveContext:
    """The subscription's callback: claim, coalesce per session, make and publish the context."""

    def __init__(self, deps: Deps, claims: Claims) -> None:
        self.deps = deps
        self.claims = claims
        self._latest: dict[tuple[str, str], ConversationTurn] = {}
        self._tasks: dict[tuple[str, str], asyncio.Task[None]] = {}

    async def on_message(self, msg: Any) -> None:
        try:
            turn = parse_turn(msg.data)
        except Exception:  # a bad event is the consumer's to dead-letter, not ours
            return
        if not turn.session or self.deps.clock() - turn.ts > LIVE:
            return
        if not self.claims.claim(turn.scope, turn.id):
            return
        key = (turn.scope, turn.session)
        self._latest[key] = turn
        if key not in self._tasks:
            self._tasks[key] = asyncio.create_task(self._drain(key), name="memubot-live-context")

    async def _drain(self, key: tuple[str, str]) -> None:
        try:
            while (turn := self._latest.pop(key, None)) is not None:
                await publish_context(turn, self.deps)
        finally:
            self._tasks.pop(key, None)

    async def close(self) -> None:
        """Wait for the contexts being made (the memory closes after this)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks.values()))
