"""The Gmail fetcher: from the stored historyId to new `memubot.in.email` events on the bus.

For a notification (or a catch-up tick) it reads `users.history.list` from the mailbox's
cursor (a row of the ledger's cursors table, `gmail:<address>`), fetches each new message
with `messages.get`, publishes it as a normalised e-mail event with `Nats-Msg-Id` = Gmail's
message id, and only then moves the cursor. A crash in between publishes some messages again:
JetStream and the e-mail handler both treat a repeated id as a duplicate. A 404 from
history.list (the cursor is older than Gmail keeps history) resyncs the most recent
RESYNC_LIMIT messages instead. Without a cursor (the first notification), the same resync runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from daemon.gmail.api import GmailApi, HistoryGone
from daemon.gmail.message import email_body
from daemon.state.ledger import Ledger
from daemon.subjects import EMAIL

log = logging.getLogger(__name__)

RESYNC_LIMIT = 50  # messages fetched when history is gone or was never read

Publish = Callable[[str, bytes, str], Awaitable[None]]  # (subject, body, Nats-Msg-Id)


def cursor_name(address: str) -> str:
    return f"gmail:{address.strip().lower()}"


@dataclass(frozen=True, slots=True)
class SyncReport:
    published: int
    history_id: int
    resynced: bool


class GmailSync:
    """Fetch what changed in the mailbox and publish it; one sync at a time."""

    def __init__(self, api: GmailApi, ledger: Ledger, publish: Publish, scope: str) -> None:
        self.api = api
        self.ledger = ledger
        self.publish = publish
        self.scope = scope
        self.address: str | None = None  # the mailbox's address, once a notification or the API named it
        self._lock = asyncio.Lock()

    async def sync(self, address: str | None = None, history_id: int | None = None) -> SyncReport:
        """Publish every message added since the cursor; move the cursor to the newest historyId.

        Without an address (the periodic catch-up), the mailbox's own, asked of the API once.
        """
        async with self._lock:
            if address is None:
                address = self.address or str((await asyncio.to_thread(self.api.profile)).get("emailAddress"))
            self.address = address
            name = cursor_name(address)
            has = await asyncio.to_thread(self.ledger.has_cursor, name)
            start = await asyncio.to_thread(self.ledger.cursor, name) if has else None
            if start is not None and history_id is not None and history_id <= start:
                return SyncReport(0, start, False)  # an old or repeated notification: nothing new
            resynced = start is None
            if start is not None:
                try:
                    changes = await asyncio.to_thread(self.api.history, start)
                    ids, latest = changes.message_ids, changes.history_id
                except HistoryGone:
                    log.warning(
                        "gmail %s: history from %d is gone; resyncing recent messages", address, start
                    )
                    resynced = True
            if resynced:
                ids = await asyncio.to_thread(self.api.recent, RESYNC_LIMIT)
                profile = await asyncio.to_thread(self.api.profile)
                latest = int(profile.get("historyId") or history_id or start or 0)
            published = 0
            for message_id in ids:
                message = await asyncio.to_thread(self.api.message, message_id)
                if message is None:
                    continue  # deleted since it was added
                body = email_body(message, self.scope, address)
                data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                await self.publish(EMAIL, data, body["id"])  # raises: the cursor stays, all is retried
                published += 1
            latest = max(latest, history_id or 0, start or 0)
            await asyncio.to_thread(self.ledger.set_cursor, name, latest)
            log.info(
                "gmail %s: %d messages published, history at %d%s",
                address,
                published,
                latest,
                " (resync)" if resynced else "",
            )
            return SyncReport(published, latest, resynced)

    async def renew_watch(self, topic: str) -> int:
        """users.watch again (it lapses after 7 days); a mailbox without a cursor starts at its historyId."""
        answer = await asyncio.to_thread(self.api.watch, topic)
        profile = await asyncio.to_thread(self.api.profile)
        name = cursor_name(str(profile.get("emailAddress") or ""))
        if not await asyncio.to_thread(self.ledger.has_cursor, name):
            await asyncio.to_thread(self.ledger.set_cursor, name, int(answer.get("historyId") or 0))
        log.info("gmail: watch renewed until %s", answer.get("expiration"))
        return int(answer.get("historyId") or 0)
