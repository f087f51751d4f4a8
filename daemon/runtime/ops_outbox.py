"""The memory-op outbox: what the memory did (created, merged, superseded, archived, forgotten…)
goes out on `memubot.out.memory.<op>`, in order, at least once.

The memory core appends every operation to its `memory_ops` log in the same transaction as the
change; this pump publishes the log after a cursor and advances the cursor only after the bus
has accepted each message. A crash between the two republishes the same message with the same
`Nats-Msg-Id` (`memory-op:<seq>`), which JetStream drops inside its duplicate window.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from daemon.runtime.metrics import Metrics
from daemon.state.ledger import Ledger
from daemon.subjects import op_subject

log = logging.getLogger(__name__)

CURSOR = "memory_ops"
# Publish(subject, body, message id): the live daemon publishes to JetStream, a replay writes a file.
Publish = Callable[[str, bytes, str], Awaitable[None]]


def op_body(op: dict[str, Any]) -> bytes:
    at = op["at"]
    return json.dumps(
        {
            "seq": op["seq"],
            "scope": op["scope"],
            "op": op["op"],
            "item_id": op["item_id"],
            "other_id": op["other_id"],
            "at": at.isoformat() if isinstance(at, datetime) else at,
        },
        ensure_ascii=False,
    ).encode()


class OpsOutbox:
    """Publishes the memory-op log after the cursor; one pump at a time."""

    def __init__(
        self, ledger: Ledger, publish: Publish, metrics: Metrics | None = None, instance: str = ""
    ) -> None:
        # in a cluster each instance's log counts from 1: its name keeps the ids of two apart
        self.id_prefix = f"{instance}:" if instance else ""
        self.ledger = ledger
        self.publish = publish
        self.metrics = metrics
        self._lock = asyncio.Lock()

    async def start_cursor(self) -> int:
        """On a file the daemon has never published from, start after its existing ops.

        A memory built offline (`memubot import`, a copied file) holds one op per item; nobody
        was listening when they happened, and announcing 100,000 of them would flood the
        stream. Ops made while the daemon was down, after it once ran, are still published.
        """
        if await asyncio.to_thread(self.ledger.has_cursor, CURSOR):
            return await asyncio.to_thread(self.ledger.cursor, CURSOR)
        last = await asyncio.to_thread(self.ledger.last_op_seq)
        await asyncio.to_thread(self.ledger.set_cursor, CURSOR, last)
        if last:
            log.info("memory ops up to #%d were made before the daemon first ran: not published", last)
        return last

    async def pump(self) -> int:
        """Publish everything new; returns how many messages went out."""
        sent = 0
        async with self._lock:
            cursor = await asyncio.to_thread(self.ledger.cursor, CURSOR)
            while True:
                ops = await asyncio.to_thread(self.ledger.ops_after, cursor)
                if not ops:
                    break
                for op in ops:
                    try:
                        await self.publish(
                            op_subject(op["op"]), op_body(op), f"memory-op:{self.id_prefix}{op['seq']}"
                        )
                    except Exception:
                        if self.metrics:
                            self.metrics.published("memory", "error")
                        await asyncio.to_thread(self.ledger.set_cursor, CURSOR, cursor)
                        raise
                    cursor = int(op["seq"])
                    sent += 1
                    if self.metrics:
                        self.metrics.published("memory", "ok")
                await asyncio.to_thread(self.ledger.set_cursor, CURSOR, cursor)
        if sent:
            log.debug("published %d memory ops (through seq %d)", sent, cursor)
        return sent
