"""The Pub/Sub pull loop (the workstation default): notifications → `memubot.in.gmail`.

Each pulled message is published with `Nats-Msg-Id` = its Pub/Sub messageId and acknowledged
to Pub/Sub only after JetStream accepted it; a message the bus refused is not acknowledged, and
Pub/Sub delivers it again after its ack deadline. A message whose data is not a Gmail
notification is still published (with what it carried), so that the dispatcher dead-letters
it with the reason instead of it vanishing.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from daemon import bounded_json
from daemon.errors import InvalidEvent
from daemon.gmail.api import GmailApi
from daemon.subjects import GMAIL

log = logging.getLogger(__name__)

BACKOFF_S = (1.0, 5.0, 30.0, 60.0)
IDLE_S = 1.0  # pause after an empty pull
MAX_DATA_BYTES = 64 * 1024  # a notification's data is ~100 bytes: {emailAddress, historyId}

Publish = Callable[[str, bytes, str], Awaitable[None]]


def notification_body(message_id: str, data_b64: str | None, scope: str | None) -> bytes:
    """The `memubot.in.gmail` body of one Pub/Sub message: {id, emailAddress, historyId, scope}."""
    body: dict[str, Any] = {"id": message_id}
    try:
        data = bounded_json.load(base64.b64decode(data_b64 or "", validate=False), max_bytes=MAX_DATA_BYTES)
    except (binascii.Error, ValueError, InvalidEvent):  # the dead letter will say what is missing
        data = None
    if isinstance(data, dict):
        body |= {k: data[k] for k in ("emailAddress", "historyId") if k in data}
    else:
        body["data"] = (data_b64 or "")[:1000]  # kept for the dead letter: what arrived instead
    if scope:
        body["scope"] = scope
    return json.dumps(body).encode("utf-8")


async def pull_once(api: GmailApi, subscription: str, publish: Publish, scope: str | None) -> int:
    """One pull: publish each message, then acknowledge the published ones; returns how many."""
    received = await asyncio.to_thread(api.pull, subscription)
    acks: list[str] = []
    try:
        for r in received:
            msg = r.get("message") or {}
            mid = str(msg.get("messageId") or msg.get("message_id") or "")
            if not mid:
                log.warning("gmail pull: a message without messageId; acknowledged and skipped: %r", r)
                acks.append(r["ackId"])
                continue
            await publish(GMAIL, notification_body(mid, msg.get("data"), scope), mid)
            acks.append(r["ackId"])
    finally:
        # what the bus accepted is acknowledged even when a later publish failed
        await asyncio.to_thread(api.ack, subscription, acks)
    return len(acks)


async def pull_loop(
    api: GmailApi, subscription: str, publish: Publish, scope: str | None, stop: asyncio.Event
) -> None:
    """Pull until `stop` is set; a failure is logged and retried after a growing pause."""
    failures = 0
    while not stop.is_set():
        delay = IDLE_S
        try:
            if await pull_once(api, subscription, publish, scope):
                delay = 0.0
            failures = 0
        except Exception as exc:
            delay = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
            failures += 1
            log.warning("gmail pull from %s failed (%s); again in %.0fs", subscription, exc, delay)
        if delay:
            # Pub/Sub holds an empty pull open for a while; a server that answers at once
            # (or an error) must not turn this into a busy loop
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
