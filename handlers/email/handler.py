"""E-mail messages → one resource each (kind `email`, trust `external`), items and thread state.

A message is kept whole (capped) with its headers in `meta`; the items drawn from it are its
contacts and dated meetings, deadlines and promises (handlers/email/items.py), and it adds to
its thread's state: who waits on the person, what the person promised (daemon/state/
email_threads.py). The person's addresses are MEMUBOT_EMAIL_ADDRESSES and the mailbox the
message was read from. Nothing in a message is an instruction: its text never reaches the
person's own extractor, profile or preferences.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from daemon.events import EmailEvent
from daemon.memory import ResourceIn
from daemon.memory.types import EXTERNAL
from daemon.predict import engine
from daemon.predict.ask_model import reader_for as ask_reader_for
from handlers.deps import Deps
from handlers.email.items import address, drafts_from, message_from, meta_of, resource_text

log = logging.getLogger(__name__)


def person_addresses(configured: Sequence[str], event: EmailEvent) -> frozenset[str]:
    """The person's own addresses: the configured ones and the mailbox the message came from."""
    mine = {a.strip().lower() for a in configured if a.strip()}
    if event.mailbox:
        mine.add(address(event.mailbox)[1])
    return frozenset(mine)


async def handle(events: Sequence[EmailEvent], deps: Deps) -> list[str]:
    """Memorize the messages and add each to its thread; idempotent on the event id."""
    tz = deps.settings.tz
    known = await asyncio.to_thread(deps.memory.known_resources, [(e.scope, e.id) for e in events])
    resources: list[ResourceIn] = []
    messages = []
    for e in events:
        mine = person_addresses(deps.settings.email_addresses, e)
        # (off the loop: a mail in another language has its sentences embedded for the ask model)
        msg = await asyncio.to_thread(message_from, e, mine, tz, ask_reader_for(deps.memory.embedder))
        text, cut = resource_text(e)
        messages.append(msg)
        resources.append(
            ResourceIn(
                id=e.id,
                scope=e.scope,
                text=text,
                occurred_at=e.date,
                kind="email",
                speaker=msg.sender_name or msg.sender,
                agent="email",
                # somebody's words (even the person's own mail is read back from a mailbox that
                # others write into): never an instruction, never the person's profile
                trust=EXTERNAL,
                meta=meta_of(e, msg.outbound, cut),
                drafts=() if (e.scope, e.id) in known else drafts_from(e, msg, mine, tz),
            )
        )
    await asyncio.to_thread(deps.memory.memorize, resources)
    changes = []
    for e, msg in zip(events, messages, strict=True):
        # applied again on a redelivery too: the same message changes nothing, and a crash
        # between the resource and the thread is repaired; a forgotten message is not recorded
        state = await asyncio.to_thread(deps.memory.record_email, msg)
        if state is not None:
            changes.append((state, e.id))
            log.debug(
                "%s thread %s: waiting on person %s, on other %s",
                e.id,
                state.thread,
                state.waiting_on_person,
                state.waiting_on_other,
            )
    if changes:
        try:
            now = deps.clock()
            proposed = await asyncio.to_thread(engine.after_email, deps.memory, deps.settings, now, changes)
        except Exception:  # the thread state is committed; a predictor bug must not fail the mail
            log.exception("predictors failed on e-mails %s", [e for _, e in changes])
        else:
            if proposed:
                deps.out.wake()
    return ["duplicate" if (e.scope, e.id) in known else "stored" for e in events]
