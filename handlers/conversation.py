"""Conversation turns → resources and items of the person's long-term memory."""

from __future__ import annotations

import asyncio
import logging

from daemon.events import ConversationTurn
from daemon.memory import MemorizeReport, Memory, ResourceIn

log = logging.getLogger(__name__)


def resource_from(turn: ConversationTurn) -> ResourceIn:
    """The immutable resource a turn becomes (its id is the event id: redelivery is harmless)."""
    return ResourceIn(
        id=turn.id,
        scope=turn.scope,
        text=turn.text,
        occurred_at=turn.ts,
        kind="turn",
        session=turn.session,
        role=turn.role,
        speaker=turn.speaker,
        agent=turn.agent,
        meta=turn.meta,
    )


async def handle(turn: ConversationTurn, memory: Memory) -> MemorizeReport:
    """Memorize one turn off the event loop; idempotent on the turn's id."""
    report = await asyncio.to_thread(memory.memorize, [resource_from(turn)])
    log.info(
        "conversation %s scope=%s: +%d resource, +%d items%s",
        turn.id,
        turn.scope,
        report.resources_added,
        report.items_added,
        " (already stored)" if report.resources_skipped else "",
    )
    return report
