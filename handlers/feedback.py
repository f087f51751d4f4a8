"""Feedback: the person's verdict on a suggestion (accepted / dismissed / snoozed), kept for predictors."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from daemon.events import Feedback
from handlers.deps import Deps


async def handle(events: Sequence[Feedback], deps: Deps) -> list[str]:
    outcomes = []
    for fb in events:
        added = await asyncio.to_thread(
            deps.memory.ledger.add_feedback, fb.id, fb.scope, fb.suggestion_id, fb.verdict, fb.ts
        )
        outcomes.append("stored" if added else "duplicate")
    return outcomes
