"""Feedback: the person's verdict on a suggestion (accepted / dismissed / snoozed), acted on.

The ledger keeps every verdict event; daemon/predict/feedback.py reinforces, raises the bar or
reschedules, and keeps the verdict as a resource. A redelivered verdict changes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from daemon.events import Feedback
from daemon.predict import feedback as F
from handlers.deps import Deps


async def handle(events: Sequence[Feedback], deps: Deps) -> list[str]:
    outcomes = []
    for fb in events:
        known = await asyncio.to_thread(deps.memory.ledger.feedback, fb.suggestion_id)
        if any(k["event_id"] == fb.id for k in known):
            outcomes.append("duplicate")
            continue
        verdict = F.Verdict(fb.id, fb.suggestion_id, fb.verdict, fb.ts, fb.scope, fb.until)
        # acted on first, recorded after: a failure in between is retried, not lost
        outcome = await asyncio.to_thread(F.apply, deps.memory, verdict)
        await asyncio.to_thread(
            deps.memory.ledger.add_feedback, fb.id, fb.scope, fb.suggestion_id, fb.verdict, fb.ts
        )
        if outcome == "snoozed":
            deps.out.wake()
        outcomes.append("stored" if outcome == "unknown_suggestion" else outcome)
    return outcomes
