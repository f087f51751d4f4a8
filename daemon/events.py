"""Events: frozen dataclasses for what arrives on the bus, and their validation.

Parsing is strict and every rejection names the field, so that a dead-letter record or a
bad-line report tells the sender exactly what to fix. The fields and their rules are the typed
models of daemon/contract/inbound.py (the same ones the AsyncAPI document shows): each parser
here validates through its model and hands the handler a plain frozen dataclass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from daemon import bounded_json
from daemon.contract import inbound

# the field rules live with the models (daemon/contract/fields.py); callers import them from here
from daemon.contract.fields import MAX_SCOPE_CHARS as MAX_SCOPE_CHARS
from daemon.contract.fields import MAX_TEXT_CHARS as MAX_TEXT_CHARS
from daemon.contract.fields import ROLES as ROLES
from daemon.contract.fields import VERDICTS as VERDICTS
from daemon.contract.fields import check_scope as check_scope
from daemon.contract.fields import parse_ts as parse_ts
from daemon.errors import InvalidEvent

MAX_EVENT_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class ConversationTurn:
    """One turn of a conversation between the Main Agent and a person (DESIGN.md §4)."""

    id: str
    scope: str
    role: str
    text: str
    ts: datetime
    agent: str = "main"
    session: str | None = None
    speaker: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def turn_from_dict(obj: Any) -> ConversationTurn:
    """Validate a decoded JSON object as a conversation turn."""
    m = inbound.validate(inbound.ConversationTurn, obj)
    return ConversationTurn(
        id=m.id,
        scope=m.scope,
        role=m.role,
        text=m.text,
        ts=m.ts,
        agent=m.agent or "main",
        session=m.session,
        speaker=m.speaker,
        meta=m.meta,
    )


def decode(raw: bytes | str) -> Any:
    """Size check, UTF-8, JSON and nesting depth: the first four reasons an event is refused."""
    return bounded_json.load(raw, max_bytes=MAX_EVENT_BYTES)


# how much of a body that cannot be decoded is searched for its id (ids come first in practice)
_ID_SCAN_BYTES = 64 * 1024
MAX_ID_CHARS = 512
_ID_PATTERN = re.compile(rf'"id"\s*:\s*"((?:[^"\\]|\\.){{1,{MAX_ID_CHARS}}})"')


def event_id_of(raw: bytes) -> str | None:
    """The sender's event id, read from a body that may be refused: too large, not UTF-8, not
    JSON. A dead letter that names its event can be traced back to the sender.

    A body that parses gives its top-level `id`; one that does not is searched for the first
    `"id": "..."` (best effort: a truncated or broken body usually still starts with its id).
    """
    try:
        # bounded: the body may be the very one refused for its depth (RecursionError) or size
        obj = bounded_json.load(raw.decode("utf-8", "replace"), max_bytes=4 * MAX_EVENT_BYTES)
    except InvalidEvent:
        obj = None
    if isinstance(obj, dict):
        value = obj.get("id")
        return value if isinstance(value, str) and value.strip() and len(value) <= MAX_ID_CHARS else None
    if obj is not None:
        return None  # valid JSON but not an object: there is no id to read
    match = _ID_PATTERN.search(raw[:_ID_SCAN_BYTES].decode("utf-8", "replace"))
    if match is None:
        return None
    try:
        value = json.loads(f'"{match[1]}"')
    except ValueError:
        return None
    return value if isinstance(value, str) and value.strip() else None


def parse_turn(raw: bytes | str) -> ConversationTurn:
    """Decode and validate one conversation turn from its JSON text."""
    return turn_from_dict(decode(raw))


# ---- ticks ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tick:
    """A scheduled moment (morning, heartbeat, consolidation) published by the scheduler."""

    id: str
    schedule: str
    fired_at: datetime  # the scheduled fire time, not when the job happened to run


def tick_id(schedule: str, fire_time: datetime) -> str:
    """`<schedule>:<fire time, minute precision, UTC>`: the same tick has the same id after a restart."""
    utc = fire_time.astimezone(UTC).replace(second=0, microsecond=0)
    return f"{schedule}:{utc.strftime('%Y-%m-%dT%H:%MZ')}"


def tick_time(event_id: str) -> datetime | None:
    """The scheduled fire time a tick id names (see tick_id), or None if it names none."""
    # split at the first colon: the time itself holds one (HH:MM)
    _, sep, when = event_id.partition(":")
    if not sep:
        return None
    try:
        return datetime.strptime(when, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def tick_body(schedule: str, fire_time: datetime) -> dict[str, str]:
    return {"id": tick_id(schedule, fire_time), "schedule": schedule, "ts": fire_time.isoformat()}


def tick_from_dict(obj: Any) -> Tick:
    m = inbound.validate(inbound.Tick, obj)
    return Tick(id=m.id, schedule=m.schedule, fired_at=m.ts)


# ---- feedback -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Feedback:
    """What the person did with a suggestion, reported by the Main Agent."""

    id: str
    suggestion_id: str
    verdict: str
    ts: datetime
    scope: str | None = None
    until: datetime | None = None  # snoozed: when the suggestion comes back


def feedback_from_dict(obj: Any) -> Feedback:
    m = inbound.validate(inbound.Feedback, obj)
    return Feedback(
        id=m.id, suggestion_id=m.suggestion_id, verdict=m.verdict, ts=m.ts, scope=m.scope, until=m.until
    )


# ---- GitHub ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GithubEvent:
    """One GitHub webhook delivery as the endpoint (or a replay) put it on `memubot.in.github`.

    `id` is GitHub's `X-GitHub-Delivery`; `payload` is GitHub's body, possibly reduced to the
    fields memubot reads (daemon/github/reduce.py) when the whole one would not fit on the bus.
    """

    id: str
    scope: str
    event: str  # the X-GitHub-Event header: pull_request, issues, push, ...
    payload: dict[str, Any]
    action: str | None = None
    received_at: datetime | None = None


def github_from_dict(obj: Any) -> GithubEvent:
    """Validate a decoded `memubot.in.github` body; `action` defaults to the payload's own."""
    m = inbound.validate(inbound.GithubDelivery, obj)
    action = m.action
    if action is None and isinstance(m.payload.get("action"), str):
        action = m.payload["action"]  # replay scenarios name the event and leave the action in the payload
    return GithubEvent(
        id=m.id, scope=m.scope, event=m.event, payload=m.payload, action=action, received_at=m.received_at
    )


# ---- e-mail ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EmailEvent:
    """One normalised e-mail message on `memubot.in.email` (DESIGN.md §4).

    Published by the Gmail fetcher (daemon/gmail/), by replay scenarios or by another agent.
    `sender`, `to` and `cc` are RFC 5322 addresses as written ("Bob Chen <bob@example.com>");
    `date` is the message's own Date header, the reference time of "by Thursday".
    `mailbox` is the address of the mailbox it was read from (Gmail's `emailAddress`): one of
    the person's own addresses even when MEMUBOT_EMAIL_ADDRESSES is empty.
    """

    id: str
    scope: str
    sender: str
    date: datetime
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()
    subject: str = ""
    thread: str | None = None
    labels: tuple[str, ...] = ()
    text: str = ""
    message_id: str | None = None  # the RFC 5322 Message-ID header, when known
    mailbox: str | None = None
    size: int | None = None  # the whole message's size in bytes, when the sender cut its text
    truncated: bool = False  # the sender (the Gmail fetcher) cut the text to fit the bus


def email_from_dict(obj: Any) -> EmailEvent:
    """Validate a decoded `memubot.in.email` body; every rejection names the field."""
    m = inbound.validate(inbound.Email, obj)
    return EmailEvent(
        id=m.id,
        scope=m.scope,
        sender=m.sender,
        date=m.date,
        to=m.to,
        cc=m.cc,
        subject=m.subject or "",
        thread=m.thread if m.thread and m.thread.strip() else None,
        labels=m.labels,
        text=m.text or "",
        message_id=m.message_id,
        mailbox=m.mailbox,
        size=m.size,
        truncated=m.truncated,
    )


# ---- Gmail notifications --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GmailNotification:
    """A Gmail Pub/Sub notification on `memubot.in.gmail`: the mailbox changed up to `history_id`."""

    id: str  # the Pub/Sub messageId
    email_address: str
    history_id: int
    scope: str | None = None


def gmail_from_dict(obj: Any) -> GmailNotification:
    m = inbound.validate(inbound.GmailNotification, obj)
    return GmailNotification(id=m.id, email_address=m.emailAddress, history_id=m.historyId, scope=m.scope)


# which model validates each parser's bodies: the AsyncAPI document takes its payloads from here
MODELS: dict[Callable[[Any], Any], type[inbound.Inbound]] = {
    turn_from_dict: inbound.ConversationTurn,
    tick_from_dict: inbound.Tick,
    feedback_from_dict: inbound.Feedback,
    github_from_dict: inbound.GithubDelivery,
    email_from_dict: inbound.Email,
    gmail_from_dict: inbound.GmailNotification,
}
