"""What memubot consumes on `memubot.in.>`: one model per body, the only definition of its fields.

daemon/events.py validates every event through these (`validate`) and turns the result into
the frozen dataclass its handler takes; the AsyncAPI document takes its payload schemas from
the same classes. A refusal names the field and says why, in the words the parsers always used:
the rules live in fields.py, and `validate` puts the field's name in front.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from daemon.contract.fields import (
    Address,
    EventId,
    Flag,
    HistoryId,
    Meta,
    NonEmpty,
    OptScope,
    OptText,
    OptTimestamp,
    Payload,
    Refusal,
    RoleField,
    Scope,
    Size,
    StrList,
    Text,
    Timestamp,
    TurnText,
    VerdictField,
)
from daemon.errors import InvalidEvent


class Inbound(BaseModel):
    """A `memubot.in.*` body: a JSON object; keys the model does not name are ignored."""

    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _absent_is_null(cls, obj: Any) -> Any:
        """An absent required field reaches its own rule as null, which says it is missing."""
        if not isinstance(obj, dict):
            raise Refusal(f"event must be a JSON object, got {type(obj).__name__}", "event")
        absent = [
            key
            for name, f in cls.model_fields.items()
            if f.is_required() and (key := f.alias or name) not in obj
        ]
        return {**obj, **dict.fromkeys(absent)} if absent else obj


M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], obj: Any) -> M:
    """`model` from a decoded JSON body, or InvalidEvent naming the first bad field.

    "First" as the parsers have always reported it: a required field missing or of the wrong
    JSON type, then a blank id, then any other bad value, each in the order of the fields. (An event with
    several faults may name another of them than the hand-written parsers did; each is one of
    its faults.)
    """
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise InvalidEvent(_reason(model, exc)) from None


def _reason(model: type[BaseModel], exc: ValidationError) -> str:
    required = {f.alias or name for name, f in model.model_fields.items() if f.is_required()}
    found: list[tuple[int, int, str]] = []
    for n, error in enumerate(exc.errors()):
        name = ".".join(str(part) for part in error["loc"])
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, Refusal):
            early = cause.kind == "missing" or (cause.kind == "type" and name in required)
            found.append((0 if early else 1 if cause.kind == "blank" else 2, n, cause.message(name)))
        else:  # a constraint of pydantic's own (the rules above run first: not expected)
            found.append((2, n, f"field {name!r}: {error['msg']}" if name else error["msg"]))
    return min(found)[2]


# ---- the events ------------------------------------------------------------------------


class ConversationTurn(Inbound):
    """One turn of a conversation between the Main Agent and a person."""

    id: EventId
    scope: Scope
    role: RoleField
    text: TurnText
    ts: Timestamp
    agent: OptText = Field(None, description='the agent that had the conversation; absent is "main"')
    session: OptText = Field(
        None, description="the conversation it belongs to (context goes out per session)"
    )
    speaker: OptText = Field(None, description="who spoke, by name")
    meta: Meta = Field(default_factory=dict, description="anything the sender wants kept with the turn")


class Tick(Inbound):
    """A scheduled moment (morning, heartbeat, consolidation) published by memubot's scheduler."""

    id: Text = Field(description="`<schedule>:<fire time, minute precision, UTC>`")
    schedule: Text
    ts: Timestamp = Field(description="the scheduled fire time, not when the job happened to run")


class Feedback(Inbound):
    """What the person did with a suggestion, reported by the Main Agent."""

    id: EventId
    suggestion_id: Text
    verdict: VerdictField
    ts: Timestamp
    scope: OptScope = None
    until: OptTimestamp = Field(None, description="snoozed: when the suggestion comes back")


class GithubDelivery(Inbound):
    """One GitHub webhook delivery, as the webhook endpoint or the poller put it on the bus."""

    id: EventId = Field(description="GitHub's X-GitHub-Delivery")
    scope: Scope
    event: NonEmpty = Field(description="the X-GitHub-Event header: pull_request, issues, push, ...")
    payload: Payload = Field(description="GitHub's body, possibly reduced to the fields memubot reads")
    action: OptText = Field(None, description="absent: the payload's own `action`")
    received_at: OptTimestamp = None


class Email(Inbound):
    """One normalised e-mail message (from the Gmail fetcher, a replay or another agent)."""

    id: EventId
    scope: Scope
    sender: NonEmpty = Field(alias="from", description='RFC 5322, as written: "Bob Chen <bob@example.com>"')
    date: Timestamp = Field(description="the message's Date header")
    subject: OptText = None
    text: OptText = None
    thread: OptText = None
    to: StrList = ()
    cc: StrList = ()
    labels: StrList = ()
    message_id: OptText = Field(None, description="the RFC 5322 Message-ID header")
    mailbox: OptText = Field(None, description="the address of the mailbox it was read from")
    size: Size = Field(None, description="the whole message's size in bytes, when the text was cut")
    truncated: Flag = Field(False, description="the sender cut the text to fit the bus")

    @model_validator(mode="after")
    def _says_something(self) -> Email:
        if not (self.text or "").strip() and not (self.subject or "").strip():
            raise Refusal(
                "fields 'text' and 'subject' are both empty (a message must say something)", "event"
            )
        return self


class GmailNotification(Inbound):
    """A Gmail Pub/Sub notification: the mailbox changed up to `historyId`."""

    id: EventId = Field(description="the Pub/Sub messageId")
    emailAddress: Address  # Gmail's own keys
    historyId: HistoryId
    scope: OptScope = None


INBOUND: tuple[type[Inbound], ...] = (
    ConversationTurn,
    Tick,
    Feedback,
    GithubDelivery,
    Email,
    GmailNotification,
)
