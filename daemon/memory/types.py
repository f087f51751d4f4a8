"""Value types of the memory core: resources in, items stored, hits out, and the clock."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

EXTERNAL = "external"  # the trust of what other people wrote (GitHub, e-mail): never the person's own words
CATEGORIES = ("profile", "preferences", "entities", "events", "cases", "patterns")
TIERS = ("peripheral", "working", "core")

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The wall clock, for the composition root only: the core always receives a Clock."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class ResourceIn:
    """One raw thing that happened (a turn, an email, a GitHub event): immutable once stored."""

    id: str
    scope: str
    text: str
    occurred_at: datetime
    kind: str = "turn"
    session: str | None = None
    role: str | None = None
    speaker: str | None = None
    agent: str | None = None
    trust: str = "normal"
    meta: dict[str, Any] = field(default_factory=dict)
    # the items its handler drafted from an external resource (an e-mail's contacts and dates):
    # the person's own extractor never reads external text, so these are all it yields
    drafts: tuple[ItemDraft, ...] = ()


@dataclass(frozen=True, slots=True)
class ItemDraft:
    """An item proposed by an extractor, before it has an id and a vector."""

    category: str
    l0: str  # the one-line text, also what the embedding model sees
    search_text: str
    context_text: str = ""  # the conversation around it (indexed as a second BM25 field)
    speaker: str | None = None
    session: str | None = None
    l1: dict[str, Any] = field(default_factory=dict)
    importance: float = 0.5
    confidence: float = 0.5
    source_ids: tuple[str, ...] = ()
    happened_at: datetime | None = None  # when the fact happened ("yesterday" resolved)
    observed_at: datetime | None = None  # when it was said: orders the session's turns
    due_at: datetime | None = None
    # the days it names as days, ahead or not ("monday's spin class", "昨天"; not "this weekend",
    # "next week"): aware, in the speaker's time zone
    days: tuple[datetime, ...] = ()
    evergreen: bool = False
    # False for a record of what happened elsewhere (a GitHub event, a CI case): history states
    # no new truth about anything, so it retires nothing (the update model still may not retire it
    # either: a past event is never retired)
    retires: bool = True


@dataclass(slots=True)
class Hit:
    """One recall result: the memory, its final score, its provenance and (optionally) its trace."""

    item_id: str
    text: str
    score: float
    category: str
    source_ids: list[str]
    occurred_at: datetime | None = None
    source: str = "long_term"
    trace: dict[str, float] = field(default_factory=dict)
    # a newer hit of the same person that seems to replace this one (the read-time net demotes,
    # never hides): {"item_id", "text", "said"}; None when nothing does
    replaced_by: dict[str, Any] | None = None

    def as_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "item_id": self.item_id,
            "text": self.text,
            "score": round(self.score, 6),
            "category": self.category,
            "source": self.source,
            "source_ids": self.source_ids,
            "occurred_at": self.occurred_at.isoformat() if self.occurred_at else None,
        }
        if self.replaced_by is not None:
            out["replaced_by"] = self.replaced_by
        if explain:
            out["trace"] = {k: round(v, 6) for k, v in self.trace.items()}
        return out


@dataclass(frozen=True, slots=True)
class MemorizeReport:
    """What a memorize call did, in counts."""

    resources_added: int = 0
    resources_skipped: int = 0
    items_added: int = 0  # created
    noise: int = 0
    merged: int = 0
    skipped: int = 0
    superseded: int = 0


@dataclass(frozen=True, slots=True)
class ItemView:
    """An item as the predictors read it: its words, what was understood of it (`l1`, parsed
    once, by the store), when it is due, who said it, and whether it still holds."""

    id: str
    scope: str
    category: str
    l0: str
    l1: Mapping[str, Any] = field(default_factory=dict)
    speaker: str | None = None
    due_at: datetime | None = None
    observed_at: datetime | None = None  # when it was said
    happened_at: datetime | None = None
    context_text: str = ""  # the turns around it
    source_ids: tuple[str, ...] = ()
    superseded_by: str | None = None
    valid_until: datetime | None = None
    archived: bool = False


@dataclass(frozen=True, slots=True)
class TurnView:
    """One of the person's conversation turns, as the predictors read it (patterns of requests)."""

    id: str
    text: str
    at: datetime  # when it was said
    session: str | None = None
