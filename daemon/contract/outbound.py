"""What memubot publishes on `memubot.out.>`: suggestions, prefetched context, memory operations.

These bodies are written by the memory core and the predictors (`Suggestion.as_json`,
`context_for`, `op_body`), which must not import the bus contract; the models here describe
them for the AsyncAPI document, and tests/test_contract.py validates what those functions really
produce against them (`extra="forbid"`: a key added there and not here fails the test).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Outbound(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Suggestion(Outbound):
    """One thing memubot says, once (its id is the `Nats-Msg-Id`; a snoozed one returns as `<id>:<n>`)."""

    id: str = Field(description="deterministic from scope and dedup_key: a replay makes the same id")
    scope: str
    kind: str = Field(description="reminder, follow_up, conflict, digest, ...")
    title: str
    body: str
    evidence: list[str] = Field(description="the item ids behind it")
    source_ids: list[str] = Field(description="the resource ids behind the evidence")
    confidence: float
    created_at: datetime
    deliver_at: datetime = Field(description="when it was delivered")
    expires_at: datetime | None
    dedup_key: str
    urgent: bool = Field(description="urgent ones ignore quiet hours")


class Recalled(Outbound):
    """One memory, as recall and the context prefetch return it."""

    item_id: str
    text: str
    score: float
    category: str
    source: str = Field(description="long_term, or the session's recent turns")
    source_ids: list[str]
    occurred_at: datetime | None
    replaced_by: dict[str, Any] | None = Field(
        None, description="a newer memory that seems to replace this one: item_id, text, said"
    )
    trace: dict[str, float] | None = Field(None, description="with `explain`: the score's stages")


class Waiting(Outbound):
    """Open GitHub work the turn names and that waits for someone."""

    ref: str
    title: str
    why: str
    url: str | None


class Context(Outbound):
    """What the Main Agent will likely need for a live turn, published as the turn arrives (core NATS)."""

    turn_id: str
    scope: str
    session: str | None
    at: datetime
    memories: list[Recalled]
    waiting: list[Waiting]


class MemoryOp(Outbound):
    """One thing the memory did, in order, at least once (`Nats-Msg-Id` = `memory-op:<seq>`)."""

    seq: int
    scope: str
    op: str = Field(description="created, merged, superseded, retired, archived, forgotten, restored, ...")
    item_id: str
    other_id: str | None = Field(description="the item it merged into, superseded, ...")
    at: datetime
