"""Events: frozen dataclasses for what arrives on the bus, and their validation.

Parsing is strict and every rejection names the field, so that a dead-letter record or a
bad-line report tells the sender exactly what to fix.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from daemon import bounded_json
from daemon.errors import InvalidEvent

MAX_EVENT_BYTES = 256 * 1024
MAX_TEXT_CHARS = 64 * 1024
ROLES = frozenset({"user", "assistant", "system", "tool"})


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


def _str_field(obj: dict[str, Any], name: str, *, required: bool) -> str | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise InvalidEvent(f"missing required field {name!r}")
        return None
    if not isinstance(value, str):
        raise InvalidEvent(f"field {name!r} must be a string, got {type(value).__name__}")
    return value


MAX_SCOPE_CHARS = 128
# a scope names a NATS subject token (memubot.out.suggestion.<scope>): no separators or wildcards
_SCOPE_FORBIDDEN = frozenset(".*>")


def _required(obj: Any, *names: str, nonempty: tuple[str, ...] = ("id",)) -> list[str]:
    """The required string fields of a JSON-object event, in order; those in `nonempty` must
    also hold more than whitespace. Every rejection names the field."""
    if not isinstance(obj, dict):
        raise InvalidEvent(f"event must be a JSON object, got {type(obj).__name__}")
    values = [_str_field(obj, name, required=True) or "" for name in names]
    for name, value in zip(names, values, strict=True):
        if name in nonempty and not value.strip():
            raise InvalidEvent(f"field {name!r} is empty")
    return values


def check_scope(scope: str, name: str = "scope") -> str:
    """A scope is one subject token: non-empty, no whitespace, '.', '*' or '>', at most 128 chars."""
    if not scope.strip():
        raise InvalidEvent(f"field {name!r} is empty")
    if len(scope) > MAX_SCOPE_CHARS:
        raise InvalidEvent(f"field {name!r} is longer than {MAX_SCOPE_CHARS} characters")
    bad = sorted({c for c in scope if c in _SCOPE_FORBIDDEN or c.isspace() or not c.isprintable()})
    if bad:
        raise InvalidEvent(
            f"field {name!r} may not contain {''.join(bad)!r} (it names a bus subject): {scope!r}"
        )
    return scope


def parse_ts(value: str, name: str = "ts") -> datetime:
    """An ISO-8601 timestamp that carries an offset; naive times are ambiguous and refused."""
    if not isinstance(value, str):
        raise InvalidEvent(f"field {name!r} must be an ISO-8601 string, got {type(value).__name__}")
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError as exc:
        raise InvalidEvent(f"field {name!r} is not ISO-8601: {value!r}") from exc
    if ts.tzinfo is None:
        raise InvalidEvent(f"field {name!r} has no UTC offset: {value!r}")
    return ts


def turn_from_dict(obj: Any) -> ConversationTurn:
    """Validate a decoded JSON object as a conversation turn."""
    if not isinstance(obj, dict):
        raise InvalidEvent(f"event must be a JSON object, got {type(obj).__name__}")
    event_id = _str_field(obj, "id", required=True)
    scope = _str_field(obj, "scope", required=True)
    role = _str_field(obj, "role", required=True)
    text = _str_field(obj, "text", required=True)
    ts_raw = _str_field(obj, "ts", required=True)
    assert event_id is not None and scope is not None and role is not None
    assert text is not None and ts_raw is not None
    if not event_id.strip():
        raise InvalidEvent("field 'id' is empty")
    check_scope(scope)
    if role not in ROLES:
        raise InvalidEvent(f"field 'role' must be one of {sorted(ROLES)}, got {role!r}")
    if not text.strip():
        # an empty turn says nothing to remember; storing it would make a resource with no text
        raise InvalidEvent("field 'text' is empty (a turn must say something)")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidEvent(f"field 'text' is too long: {len(text)} > {MAX_TEXT_CHARS} characters")
    meta = obj.get("meta") or {}
    if not isinstance(meta, dict):
        raise InvalidEvent(f"field 'meta' must be an object, got {type(meta).__name__}")
    return ConversationTurn(
        id=event_id,
        scope=scope,
        role=role,
        text=text,
        ts=parse_ts(ts_raw),
        agent=_str_field(obj, "agent", required=False) or "main",
        session=_str_field(obj, "session", required=False),
        speaker=_str_field(obj, "speaker", required=False),
        meta=meta,
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
    if not isinstance(obj, dict):
        raise InvalidEvent(f"event must be a JSON object, got {type(obj).__name__}")
    event_id = _str_field(obj, "id", required=True)
    schedule = _str_field(obj, "schedule", required=True)
    ts_raw = _str_field(obj, "ts", required=True)
    assert event_id is not None and schedule is not None and ts_raw is not None
    return Tick(id=event_id, schedule=schedule, fired_at=parse_ts(ts_raw))


# ---- feedback -------------------------------------------------------------------------

VERDICTS = frozenset({"accepted", "dismissed", "snoozed"})


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
    event_id, suggestion, verdict, ts_raw = _required(obj, "id", "suggestion_id", "verdict", "ts")
    if verdict not in VERDICTS:
        raise InvalidEvent(f"field 'verdict' must be one of {sorted(VERDICTS)}, got {verdict!r}")
    return Feedback(
        id=event_id,
        suggestion_id=suggestion,
        verdict=verdict,
        ts=parse_ts(ts_raw),
        scope=check_scope(scope) if (scope := _str_field(obj, "scope", required=False)) is not None else None,
        until=parse_ts(until, "until")
        if (until := _str_field(obj, "until", required=False)) is not None
        else None,
    )


# ---- GitHub ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GithubEvent:
    """One GitHub webhook delivery as the endpoint (or a replay) put it on `memubot.in.github`.

    `id` is GitHub's `X-GitHub-Delivery`; `payload` is GitHub's body, possibly reduced to the
    fields memubot reads (daemon/github_reduce.py) when the whole one would not fit on the bus.
    """

    id: str
    scope: str
    event: str  # the X-GitHub-Event header: pull_request, issues, push, ...
    payload: dict[str, Any]
    action: str | None = None
    received_at: datetime | None = None


def github_from_dict(obj: Any) -> GithubEvent:
    """Validate a decoded `memubot.in.github` body; `action` defaults to the payload's own."""
    event_id, scope, kind = _required(obj, "id", "scope", "event", nonempty=("id", "event"))
    check_scope(scope)
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        raise InvalidEvent(f"field 'payload' must be an object, got {type(payload).__name__}")
    action = _str_field(obj, "action", required=False)
    if action is None and isinstance(payload.get("action"), str):
        action = payload["action"]  # replay scenarios name the event and leave the action in the payload
    received = _str_field(obj, "received_at", required=False)
    return GithubEvent(
        id=event_id,
        scope=scope,
        event=kind,
        payload=payload,
        action=action,
        received_at=parse_ts(received, "received_at") if received is not None else None,
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


def _str_list(obj: dict[str, Any], name: str) -> tuple[str, ...]:
    """A list of strings (a single string is a one-element list); absent is empty."""
    value = obj.get(name)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidEvent(f"field {name!r} must be a list of strings")
    return tuple(v for v in value if v.strip())


def email_from_dict(obj: Any) -> EmailEvent:
    """Validate a decoded `memubot.in.email` body; every rejection names the field."""
    event_id, scope, sender, date_raw = _required(obj, "id", "scope", "from", "date", nonempty=("id", "from"))
    check_scope(scope)
    text = _str_field(obj, "text", required=False) or ""
    subject = _str_field(obj, "subject", required=False) or ""
    if not text.strip() and not subject.strip():
        raise InvalidEvent("fields 'text' and 'subject' are both empty (a message must say something)")
    thread = _str_field(obj, "thread", required=False)
    return EmailEvent(
        id=event_id,
        scope=scope,
        sender=sender,
        date=parse_ts(date_raw, "date"),
        to=_str_list(obj, "to"),
        cc=_str_list(obj, "cc"),
        subject=subject,
        thread=thread if thread and thread.strip() else None,
        labels=_str_list(obj, "labels"),
        text=text,
        message_id=_str_field(obj, "message_id", required=False),
        mailbox=_str_field(obj, "mailbox", required=False),
        size=obj["size"]
        if isinstance(obj.get("size"), int) and not isinstance(obj.get("size"), bool)
        else None,
        truncated=obj.get("truncated") is True,
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
    event_id, address = _required(obj, "id", "emailAddress")
    if "@" not in address:
        raise InvalidEvent(f"field 'emailAddress' is not an address: {address!r}")
    raw = obj.get("historyId")
    # Gmail sends historyId as a number; Pub/Sub JSON may carry it as a string of digits
    if isinstance(raw, bool) or not isinstance(raw, int | str) or not str(raw).isdigit():
        raise InvalidEvent(f"field 'historyId' must be a positive integer, got {raw!r}")
    scope = _str_field(obj, "scope", required=False)
    return GmailNotification(
        id=event_id,
        email_address=address,
        history_id=int(raw),
        scope=check_scope(scope) if scope is not None else None,
    )
