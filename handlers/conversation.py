"""Conversation turns → resources and items of the person's long-term memory."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from daemon.events import ConversationTurn
from daemon.memory import ResourceIn
from handlers.deps import Deps

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


async def handle(turns: Sequence[ConversationTurn], deps: Deps) -> list[str]:
    """Memorize turns (one batch, embedded together) off the event loop; idempotent on turn id.

    A turn whose resource exists already (or was forgotten) is a "duplicate": the ledger did not
    know it because an earlier run died between commit and ledger, or it came in through import.
    """
    known = await asyncio.to_thread(deps.memory.known_resources, [(t.scope, t.id) for t in turns])
    report = await asyncio.to_thread(deps.memory.memorize, [resource_from(t) for t in turns])
    log.debug(
        "conversation batch of %d: +%d resources, +%d items, %d already stored",
        len(turns),
        report.resources_added,
        report.items_added,
        report.resources_skipped,
    )
    return ["duplicate" if (t.scope, t.id) in known else "stored" for t in turns]
