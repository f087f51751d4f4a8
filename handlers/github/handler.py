"""GitHub deliveries → one resource each (kind `github`, trust `external`) and work-item state.

A delivery is kept as a one-line summary with its facts in `meta` (handlers/github/summary.py);
a delivery about a pull request or issue also updates that item's state (handlers/github/state.py,
daemon/state/work_items.py). Unknown events and actions get the resource alone: nothing about
GitHub's vocabulary is a reason to dead-letter a delivery.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from daemon.events import GithubEvent
from daemon.github.enrich import line_for
from daemon.github.ids import PREFIX, resource_id
from daemon.memory import ResourceIn
from daemon.memory.types import EXTERNAL
from daemon.predict import engine
from daemon.state.types import WorkItem
from handlers.deps import Deps
from handlers.github.cases import case_drafts
from handlers.github.items import drafts_for
from handlers.github.state import work_item_from
from handlers.github.summary import summarize

log = logging.getLogger(__name__)


def resource_from(
    event: GithubEvent, login: str | None, occurred_at: datetime, extra: dict[str, Any] | None = None
) -> ResourceIn:
    """The resource a delivery becomes; its id is the delivery id, so a redelivery stores nothing.
    `extra` is what the API added (daemon/github/enrich.py): in meta, and a few words of it in
    the text."""
    summary = summarize(event.event, event.action, event.payload, login)
    meta = {**summary.meta, "delivery": event.id, "reduced": bool(event.payload.get("memubot_reduced"))}
    also = resource_id(event.event, event.payload, event.id)
    if also != event.id:
        # the id a poll of the same event would bring (daemon/github/ids.py): known by it as well
        meta["aka"] = also
    if extra:
        meta["enrichment"] = extra
    return ResourceIn(
        id=event.id,
        scope=event.scope,
        text=summary.text + (line_for(extra) if extra else ""),
        occurred_at=occurred_at,
        kind="github",
        speaker=summary.meta.get("actor"),
        agent="github",
        # what GitHub says comes from other people: never an instruction, never the person's profile
        trust=EXTERNAL,
        meta=meta,
        drafts=drafts_for(event.event, event.action, event.payload, summary, event.id, occurred_at),
    )


def _known(deps: Deps, events: Sequence[GithubEvent]) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(scope, id) of the events stored already: as themselves, or as the same event that came
    the other way (a webhook delivery, by its content id; a polled event, by a delivery's alias);
    and which of them only the other way (their twin's state is the one kept)."""
    aliases = {(e.scope, e.id): (e.scope, resource_id(e.event, e.payload, e.id)) for e in events}
    direct = deps.memory.known_resources([*aliases, *aliases.values()])
    polled = [k for k, also in aliases.items() if k == also and k[1].startswith(PREFIX)]
    seen = direct | deps.memory.known_aliases(polled)
    known: set[tuple[str, str]] = set()
    twins: set[tuple[str, str]] = set()
    # the same event twice in one batch, once by webhook and once by poll: the first counts (two
    # webhook deliveries of one content key are still two deliveries, as GitHub sent them)
    by: dict[bool, set[tuple[str, str]]] = {True: set(), False: set()}
    for k, also in aliases.items():
        is_poll = k == also and k[1].startswith(PREFIX)
        if k in seen or also in seen or also in by[not is_poll]:
            known.add(k)
            if k not in direct:
                twins.add(k)
        by[is_poll].add(also)
    return known, twins


async def handle(events: Sequence[GithubEvent], deps: Deps) -> list[str]:
    """Memorize the deliveries (ping excepted) and apply their work-item snapshots; idempotent."""
    login = deps.settings.github_login
    kept = [e for e in events if e.event != "ping"]
    # event time: when the endpoint received it; replayed or older events without it, the clock's now
    now = deps.clock()
    when = {e.id: e.received_at or now for e in kept}
    known, twins = await asyncio.to_thread(_known, deps, kept)
    extra: dict[str, dict[str, Any] | None] = {}
    if deps.github is not None:
        # only for what is new: a redelivery is stored already and costs no API call
        for e in kept:
            if (e.scope, e.id) not in known:
                extra[e.id] = await deps.github.enrich(e.event, e.payload)
    # only what is new: an event stored under its other id (webhook vs poll) is not stored again;
    # a completed run that closes a failing streak brings a `cases` item (handlers/github/cases.py)
    fresh = [e for e in kept if (e.scope, e.id) not in known]
    cases = await asyncio.to_thread(case_drafts, deps.memory, fresh, when)
    if fresh:
        made = [resource_from(e, login, when[e.id], extra.get(e.id)) for e in fresh]
        made = [replace(r, drafts=r.drafts + cases.get(r.id, ())) for r in made]
        await asyncio.to_thread(deps.memory.memorize, made)
    changes: list[tuple[WorkItem, str]] = []
    for e in kept:
        if (e.scope, e.id) in twins:
            # its twin (webhook or poll) brought this state: one snapshot per event, so that
            # forgetting the stored one forgets its state too
            continue
        update = work_item_from(e, login, when[e.id])
        if update is not None:
            # applied again on a redelivery too: merging the same snapshot twice changes nothing,
            # and a crash between the resource and the state is repaired by the redelivery
            state = await asyncio.to_thread(deps.memory.work_items.apply, update)
            if state is None:
                continue  # a forgotten delivery, sent again: it stays forgotten
            log.debug("%s %s#%d: %s", e.id, state.repo, state.number, state.state)
            changes.append((state, e.id))
    if changes:
        try:
            proposed = await asyncio.to_thread(engine.after_github, deps.memory, deps.settings, now, changes)
        except Exception:  # the state is committed; a predictor bug must not make GitHub resend
            log.exception("predictors failed on GitHub deliveries %s", [e for _, e in changes])
        else:
            if proposed:
                deps.out.wake()
    return [
        "noop" if e.event == "ping" else "duplicate" if (e.scope, e.id) in known else "stored" for e in events
    ]
