"""Gmail notifications → the fetcher reads the mailbox's new messages and publishes them.

A notification only says "the mailbox changed up to historyId N"; the messages themselves
come back on `memubot.in.email` (handlers/email/handler.py), one event per message. A notification
while the Gmail trigger is off is a dead letter that says so (it cannot be handled later by
retrying). A failure to reach Gmail or the bus raises: the dispatcher retries the event.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from daemon.errors import InvalidInput
from daemon.events import GmailNotification
from handlers.deps import Deps

log = logging.getLogger(__name__)


async def handle(events: Sequence[GmailNotification], deps: Deps) -> list[str]:
    if deps.gmail is None:
        why = deps.settings.gmail_off() or "the Gmail fetcher is not running"
        raise InvalidInput(f"Gmail notification received but the Gmail trigger is off: {why}")
    outcomes = []
    for n in events:
        report = await deps.gmail.sync(n.email_address, n.history_id)
        outcomes.append("synced" if getattr(report, "published", 0) else "noop")
    return outcomes
