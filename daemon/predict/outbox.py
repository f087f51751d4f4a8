"""The suggestion outbox's delivery side: due suggestions are re-checked and published, or not.

For each pending suggestion whose `deliver_at` has come, in order: too late (`expires_at`
passed) → expired, never sent late; the reason no longer holds (its predictor's re-check) →
withdrawn; below the bar its kind earned from the person's verdicts → withdrawn; inside quiet
hours or over the scope's hourly rate → moved to the next allowed moment; else published on
`memubot.out.suggestion.<scope>` with `Nats-Msg-Id` = the suggestion id and marked delivered.
A crash between publishing and marking republishes with the same id, which JetStream drops
inside its duplicate window. The timer (timer.py) calls `deliver_due` when the next
`deliver_at` comes; nothing polls.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from daemon.config import Settings
from daemon.memory import Clock, Memory
from daemon.predict import predictor, verdicts
from daemon.predict.base import Ctx
from daemon.predict.gate import gate
from daemon.predict.timing import allowed_at, in_quiet
from daemon.state.suggestions import DELIVERED, EXPIRED, WITHDRAWN, Suggestion
from daemon.subjects import suggestion_subject

log = logging.getLogger(__name__)

Publish = Callable[[str, bytes, str], Awaitable[None]]
HOUR = timedelta(hours=1)


def message_id(s: Suggestion) -> str:
    """The suggestion id; a snoozed one coming back is a new message (`<id>:<n>`)."""
    return s.id if s.deliveries == 0 else f"{s.id}:{s.deliveries}"


@dataclass(frozen=True, slots=True)
class Decision:
    action: str  # send / withdraw / expire / defer
    suggestion: Suggestion
    reason: str | None = None
    at: datetime | None = None


def decide(memory: Memory, settings: Settings, s: Suggestion, now: datetime) -> Decision:
    """What to do with one due suggestion now (synchronous: it reads the memory)."""
    if s.expires_at is not None and now >= s.expires_at:
        return Decision("expire", s, f"expired at {s.expires_at.isoformat()}")
    p = predictor(s.predictor)
    if p is None:
        return Decision("withdraw", s, f"no predictor {s.predictor!r} to re-check it")
    check = p.recheck(s, Ctx(memory, settings, now))
    if check.suggestion is None:
        return Decision("withdraw", s, check.reason or "its reason no longer holds")
    fresh = check.suggestion
    if fresh.deliver_at > now:  # the re-check moved it (the person said when they would get to it)
        return Decision("defer", fresh, check.reason or "moved", fresh.deliver_at)
    counts = memory.suggestions.verdicts(s.scope, s.kind)
    bar = verdicts.bar(counts["accepted"], counts["dismissed"])
    if fresh.confidence < bar:
        return Decision("withdraw", fresh, f"below the bar for {s.kind} ({fresh.confidence:.2f} < {bar:.2f})")
    if not fresh.urgent and in_quiet(now, settings):
        return Decision("defer", fresh, "quiet hours", allowed_at(now, settings))
    recent = memory.suggestions.delivered_since(s.scope, now - HOUR)
    if len(recent) >= settings.suggestions_per_hour and not fresh.urgent:
        free = recent[len(recent) - settings.suggestions_per_hour] + HOUR
        return Decision(
            "defer", fresh, "rate limit", allowed_at(max(free, now + timedelta(minutes=1)), settings)
        )
    return Decision("send", fresh)


class SuggestionOutbox:
    """Delivers due suggestions through `publish`; one delivery run at a time."""

    def __init__(self, memory: Memory, settings: Settings, publish: Publish, clock: Clock) -> None:
        self.memory = memory
        self.settings = settings
        self.publish = publish
        self.clock = clock
        self._lock = asyncio.Lock()
        self.delivered = 0

    async def next_due(self) -> datetime | None:
        return await asyncio.to_thread(self.memory.suggestions.next_due)

    async def deliver_due(self) -> int:
        """Handle every suggestion due now; returns how many were published."""
        sent = 0
        async with self._lock:
            now = self.clock()
            seen: set[str] = set()
            while True:
                # each suggestion is decided once per run: a deferral to "now" waits for the next run
                due = [
                    s for s in await asyncio.to_thread(self.memory.suggestions.due, now) if s.id not in seen
                ]
                if not due:
                    break
                for s in due:
                    seen.add(s.id)
                    sent += await self._one(s, now)
        return sent

    def _gated(self, d: Decision, now: datetime) -> Decision:
        """The LLM gate (gate.py): reworded, withdrawn as its explicit "say nothing", or as it was."""
        assert self.memory.llm is not None
        s = d.suggestion
        evidence = [i.l0 for i in self.memory.item_views(s.scope, s.evidence)]
        answer = gate(self.memory.llm, s, evidence)
        if answer is None:
            return d  # the model failed: the rule-based decision stands
        say, title, body = answer
        if not say:
            self.memory.suggestions.mark(s.id, WITHDRAWN, now, "the LLM gate chose to say nothing")
            return Decision("withdraw", s, "the LLM gate chose to say nothing")
        return Decision("send", replace(s, title=title, body=body))

    async def _one(self, s: Suggestion, now: datetime) -> int:
        d = await asyncio.to_thread(decide, self.memory, self.settings, s, now)
        if d.action == "expire":
            await asyncio.to_thread(self.memory.suggestions.mark, s.id, EXPIRED, now, d.reason)
        elif d.action == "withdraw":
            await asyncio.to_thread(self.memory.suggestions.mark, s.id, WITHDRAWN, now, d.reason)
        elif d.action == "defer":
            assert d.at is not None
            if d.suggestion.expires_at is not None and d.at >= d.suggestion.expires_at:
                await asyncio.to_thread(
                    self.memory.suggestions.mark, s.id, EXPIRED, now, f"{d.reason} until after it expires"
                )
            else:
                await asyncio.to_thread(
                    self.memory.suggestions.update, replace(d.suggestion, deliver_at=d.at)
                )
        if d.action == "send" and self.memory.llm is not None:
            d = await asyncio.to_thread(self._gated, d, now)
        if d.action != "send":
            log.info("suggestion %s (%s): %s — %s %s", s.id, s.dedup_key, d.action, d.reason, d.at or "")
            return 0
        body = d.suggestion.as_json() | {"deliver_at": now.astimezone(self.settings.tz).isoformat()}
        await self.publish(
            suggestion_subject(s.scope), json.dumps(body, ensure_ascii=False).encode(), message_id(s)
        )
        # evidence and text as sent are what the row keeps
        await asyncio.to_thread(self.memory.suggestions.update, d.suggestion)
        await asyncio.to_thread(self.memory.suggestions.mark, s.id, DELIVERED, now, None)
        self.delivered += 1
        log.info("suggestion %s (%s) delivered: %s", s.id, s.kind, d.suggestion.title)
        return 1
