"""Running the predictors: on new memory (the memory-op log after a cursor), on GitHub work-item
and e-mail thread changes and on the morning tick; what they propose goes into the suggestion outbox.

Synchronous (the memory is): handlers call these through asyncio.to_thread. Reading the op log
after the `predict:ops` cursor and inserting what it caused happen in one transaction, so a crash
in between re-reads the same ops and proposes the same (deduplicated) suggestions, never fewer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from daemon.config import Settings
from daemon.memory import Memory, ResourceIn
from daemon.memory.types import ItemDraft, TurnView
from daemon.predict import PREDICTORS, predictor
from daemon.predict.base import Ctx, Morning, NewItems, NewTurns, ThreadChanged, Trigger, WorkItemChanged
from daemon.predict.predictors import conflict, patterns, upcoming
from daemon.predict.timing import allowed_at
from daemon.state.suggestions import PENDING, WITHDRAWN, Suggestion
from daemon.state.types import ThreadState, WorkItem

log = logging.getLogger(__name__)

CURSOR = "predict:ops"
_RETIRING = ("superseded", "forgotten", "archived")


def start_cursor(memory: Memory) -> int:
    """A memory the predictors never read starts after its existing ops (an import is history)."""
    if memory.ledger.has_cursor(CURSOR):
        return memory.ledger.cursor(CURSOR)
    last = memory.ledger.last_op_seq()
    memory.ledger.set_cursor(CURSOR, last)
    return last


def _timed(s: Suggestion, settings: Settings) -> Suggestion | None:
    """Quiet hours move delivery on (unless urgent); what would then be too late is dropped."""
    at = allowed_at(s.deliver_at, settings, s.urgent)
    if s.expires_at is not None and at >= s.expires_at:
        log.info("suggestion %s (%s) dropped: it could only arrive after it expires", s.dedup_key, s.kind)
        return None
    return replace(s, deliver_at=at)


def _run(trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
    out: list[Suggestion] = []
    for p in PREDICTORS:
        try:
            proposed = p.propose(trigger, ctx)
        except Exception:  # one predictor's bug never silences the others or fails the event
            log.exception("predictor %s failed on %s", p.name, type(trigger).__name__)
            continue
        out.extend(t for s in proposed if (t := _timed(s, ctx.settings)) is not None)
    return out


def _withdraw_about(memory: Memory, scope: str, about: str, reason: str, now: datetime) -> int:
    pending = memory.suggestions.pending_about(scope, about)
    for s in pending:
        memory.suggestions.mark(s.id, WITHDRAWN, now, reason)
        log.info("suggestion %s withdrawn: %s", s.dedup_key, reason)
    return len(pending)


def after_memory(memory: Memory, settings: Settings, now: datetime) -> list[str]:
    """Predict from everything the memory did since the cursor; returns the ids proposed."""
    proposed: list[str] = []
    while True:
        cursor = memory.ledger.cursor(CURSOR)
        ops = memory.ledger.ops_after(cursor, limit=500)
        if not ops:
            return proposed
        created: dict[str, list[str]] = {}
        for op in ops:
            if op["op"] == "created":
                created.setdefault(op["scope"], []).append(op["item_id"])
            elif op["op"] in _RETIRING:
                _withdraw_about(
                    memory, op["scope"], f"item:{op['item_id']}", f"its memory was {op['op']}", now
                )
        suggestions: list[Suggestion] = []
        ctx = Ctx(memory, settings, now)
        for scope, ids in created.items():
            items = memory.item_views(scope, ids)  # one read for the batch; forgotten ones drop out
            if items:
                suggestions.extend(_run(NewItems(scope, items), ctx))
        proposed += memory.suggestions.propose(suggestions, cursor=(CURSOR, int(ops[-1]["seq"])))


def _recheck_about(ctx: Ctx, scope: str, abouts: Sequence[str]) -> None:
    """Re-check now what is pending about these things; withdraw what no longer holds."""
    for about in abouts:
        _recheck(ctx, ctx.memory.suggestions.pending_about(scope, about))


def _recheck(ctx: Ctx, pending: Sequence[Suggestion]) -> None:
    """Re-check these pending suggestions now: withdraw what no longer holds, and move what the
    re-check moved to another time (a plan an e-mail moved earlier is reminded of in time)."""
    for s in pending:
        p = predictor(s.predictor)
        verdict = p.recheck(s, ctx) if p is not None else None
        if verdict is None:
            continue
        if verdict.suggestion is None:
            ctx.memory.suggestions.mark(s.id, WITHDRAWN, ctx.now, verdict.reason)
            log.info("suggestion %s withdrawn: %s", s.dedup_key, verdict.reason)
        elif verdict.suggestion.deliver_at != s.deliver_at and verdict.suggestion.deliver_at > ctx.now:
            ctx.memory.suggestions.update(verdict.suggestion)
            log.info(
                "suggestion %s moved to %s: %s", s.dedup_key, verdict.suggestion.deliver_at, verdict.reason
            )


def after_github(
    memory: Memory, settings: Settings, now: datetime, changes: Sequence[tuple[WorkItem, str]]
) -> list[str]:
    """Predict from work-item changes ((new state, delivery id) each); withdraw what they resolved."""
    ctx = Ctx(memory, settings, now)
    suggestions: list[Suggestion] = []
    for state, event_id in changes:
        # whatever was pending about it is checked again now: a closed PR withdraws at once
        ref = f"{state.repo}#{state.number}"
        _recheck_about(ctx, state.scope, (f"pr:{ref}", f"issue:{ref}"))
        suggestions.extend(_run(WorkItemChanged(state.scope, state, event_id), ctx))
    return memory.suggestions.propose(suggestions)


def after_email(
    memory: Memory, settings: Settings, now: datetime, changes: Sequence[tuple[ThreadState, str]]
) -> list[str]:
    """Predict from e-mail thread changes ((new state, message id) each); withdraw what they resolved."""
    ctx = Ctx(memory, settings, now)
    suggestions: list[Suggestion] = []
    for state, event_id in changes:
        # whatever was pending about the thread is checked again now: a reply withdraws at once
        _recheck_about(ctx, state.scope, (f"thread:{state.thread}",))
        suggestions.extend(_run(ThreadChanged(state.scope, state, event_id), ctx))
    # a mail may call off or move a plan told in chat (predict/plan_news.py): its pending
    # reminders are read again now, not only when they come up; and a reply may take or turn down
    # a slot a mail told, whose clash waits for that answer (predictors/conflict.py)
    for scope in {state.scope for state, _ in changes}:
        _recheck(
            ctx,
            [
                s
                for s in memory.suggestions.of_scope(scope, PENDING)
                if s.predictor in (upcoming.NAME, conflict.NAME)
            ],
        )
    return memory.suggestions.propose(suggestions)


def morning(memory: Memory, settings: Settings, at: datetime) -> list[str]:
    """The morning tick: a digest per scope (when there is something to say)."""
    ctx = Ctx(memory, settings, at)
    suggestions: list[Suggestion] = []
    for scope in memory.scopes():
        suggestions.extend(_run(Morning(scope, at), ctx))
    return memory.suggestions.propose(suggestions)


def after_turns(
    memory: Memory, settings: Settings, now: datetime, scope: str, turns: Sequence[TurnView]
) -> list[str]:
    """Predict from the person's turns themselves (patterns of requests); a pattern found is also
    remembered, once, as a `patterns` item."""
    if not turns:
        return []
    proposed = _run(NewTurns(scope, turns), Ctx(memory, settings, now))
    found = {s.data["key"]: s for s in proposed if s.predictor == patterns.NAME}
    if found:
        memory.memorize([_pattern_resource(scope, s, now) for s in found.values()])
    return memory.suggestions.propose(proposed)


def _pattern_resource(scope: str, s: Suggestion, now: datetime) -> ResourceIn:
    """A found pattern as a derived resource (kind `pattern`) carrying its one `patterns` item;
    its id names the pattern, so finding it again next week stores nothing new."""
    text = patterns.pattern_text(s.data)
    rid = f"pattern:{s.data['key']}"
    turns = tuple(s.data.get("turns") or ())
    return ResourceIn(
        id=rid,
        scope=scope,
        text=text,
        occurred_at=now,
        kind="pattern",
        role="system",
        agent="memubot",
        meta={"derived_from": list(turns), "times": s.data["times"]},
        drafts=(
            ItemDraft(
                category="patterns",
                l0=text,
                search_text=f"{text} {s.data['request']}",
                l1={"request": s.data["request"], "weekday": s.data["weekday"], "minute": s.data["minute"]},
                importance=0.5,
                confidence=min(0.95, 0.5 + 0.1 * int(s.data["times"])),
                source_ids=(rid,),
                observed_at=now,
            ),
        ),
    )
