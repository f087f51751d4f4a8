"""Feedback: the person's verdict on a suggestion changes what memubot does next.

accepted → its evidence items are reinforced (they proved useful); dismissed → its kind's bar
rises for this scope (verdicts.py); snoozed → pending again at `until` (default: an hour later).
Every verdict is also kept as a resource (kind `feedback`) with the suggestion's provenance.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from daemon.memory import Memory, ResourceIn
from daemon.memory.types import EXTERNAL

log = logging.getLogger(__name__)

DEFAULT_SNOOZE = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class Verdict:
    event_id: str
    suggestion_id: str
    verdict: str
    at: datetime
    scope: str | None = None
    until: datetime | None = None


def apply(memory: Memory, v: Verdict) -> str:
    """Act on one verdict; returns the outcome (`unknown_suggestion` keeps the verdict alone)."""
    s = memory.suggestions.get(v.suggestion_id)
    if s is None or (v.scope is not None and v.scope != s.scope):
        log.warning("feedback %s names no suggestion %s of scope %s", v.event_id, v.suggestion_id, v.scope)
        return "unknown_suggestion"
    memory.suggestions.count_verdict(s.scope, s.kind, v.verdict)
    if v.verdict == "accepted":
        memory.reinforce_items(s.scope, s.evidence, v.at)
    elif v.verdict == "snoozed":
        until = v.until or v.at + DEFAULT_SNOOZE
        memory.suggestions.reschedule(s.id, until, f"snoozed until {until.isoformat()}")
    text = f"{v.verdict} {s.kind} suggestion: {s.title}"
    if v.verdict == "snoozed":
        text += f" (until {(v.until or v.at + DEFAULT_SNOOZE).isoformat()})"
    # a verdict is memory with provenance, but not a fact about the person: kept as a resource
    # (trust `external` keeps the extractor away from it)
    memory.memorize(
        [
            ResourceIn(
                id=v.event_id,
                scope=s.scope,
                text=text,
                occurred_at=v.at,
                kind="feedback",
                agent="main",
                trust=EXTERNAL,
                meta={
                    "suggestion_id": s.id,
                    "verdict": v.verdict,
                    "kind": s.kind,
                    "evidence": list(s.evidence),
                    "source_ids": list(s.source_ids),
                },
            )
        ]
    )
    return v.verdict
