"""Conversation turns → resources and items of the person's long-term memory."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from datetime import timedelta

from daemon.events import ConversationTurn
from daemon.memory import ResourceIn
from daemon.predict import engine
from daemon.predict.predictors.patterns import turn_rows
from daemon.predict.prefetch import context_for
from daemon.subjects import context_subject
from handlers.deps import Deps

log = logging.getLogger(__name__)

LIVE = timedelta(minutes=15)  # a turn older than this when it arrives gets no prefetched context


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

    A turn whose resource exists already is a "duplicate", one that was forgotten "forgotten" (it
    is never stored again under its id): the ledger did not know it because an earlier run died
    between commit and ledger, or it came in through import.
    """
    known = await asyncio.to_thread(deps.memory.known_resources, [(t.scope, t.id) for t in turns])
    gone = await asyncio.to_thread(deps.memory.forgotten, sorted(known)) if known else set()
    await prefetch([t for t in turns if (t.scope, t.id) not in known], deps)
    report = await asyncio.to_thread(deps.memory.memorize, [resource_from(t) for t in turns])
    log.debug(
        "conversation batch of %d: +%d resources, +%d items, %d already stored",
        len(turns),
        report.resources_added,
        report.items_added,
        report.resources_skipped,
    )
    await predict(deps, [t for t in turns if (t.scope, t.id) not in known])
    return [
        "forgotten" if (t.scope, t.id) in gone else "duplicate" if (t.scope, t.id) in known else "stored"
        for t in turns
    ]


async def prefetch(turns: Sequence[ConversationTurn], deps: Deps) -> None:
    """Publish the context the newest turn of each live session calls for, at once.

    Only the last turn of a session in a batch (the agent answers that one) and only a turn of
    the last few minutes (a backfill through the bus is history, not a live moment): a burst of
    thousands of turns must not cost a recall each. A failure costs the context, never the turn.
    """
    send = deps.out.context
    if send is None:
        return
    now = deps.clock()
    latest: dict[tuple[str, str], ConversationTurn] = {}
    for t in turns:
        if t.session and now - t.ts <= LIVE:
            latest[(t.scope, t.session)] = t
    for t in latest.values():
        # a turn whose context went out as it arrived (handlers/live_context.py) is not redone
        if deps.out.claim is None or deps.out.claim(t.scope, t.id):
            await publish_context(t, deps)


async def publish_context(t: ConversationTurn, deps: Deps) -> None:
    """Make one turn's context off the event loop and publish it; a failure costs the context."""
    send = deps.out.context
    if send is None:
        return
    try:
        body = await asyncio.to_thread(
            context_for,
            deps.memory,
            deps.settings,
            turn_id=t.id,
            scope=t.scope,
            session=t.session,
            text=t.text,
            at=t.ts,
        )
        await send(context_subject(t.session), json.dumps(body, ensure_ascii=False).encode())
    except Exception as exc:
        log.warning("context for turn %s not published: %s", t.id, exc)


async def predict(deps: Deps, new: Sequence[ConversationTurn] = ()) -> None:
    """Run the predictors over what the memory just did. The memory is committed: a failure here
    leaves the predict cursor where it was, and the next event (or heartbeat) predicts again."""
    try:
        proposed = await asyncio.to_thread(engine.after_memory, deps.memory, deps.settings, deps.clock())
        by_scope: dict[str, list[ConversationTurn]] = {}
        for t in new:
            by_scope.setdefault(t.scope, []).append(t)
        for scope, turns in by_scope.items():
            rows = turn_rows(turns)
            proposed += await asyncio.to_thread(
                engine.after_turns, deps.memory, deps.settings, deps.clock(), scope, rows
            )
    except Exception:
        log.exception("predictors failed; they will read the same memory ops again on the next event")
        return
    if proposed:
        deps.out.wake()
