"""Suggestion: one thing memubot may say, as a value: its id, its statuses and its JSON forms.

The outbox (suggestions.py) stores and reads these through the store (store/suggestions.py);
the value lives apart from both, so that neither imports the other for it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

PENDING = "pending"
DELIVERED = "delivered"
WITHDRAWN = "withdrawn"
EXPIRED = "expired"
STATUSES = (PENDING, DELIVERED, WITHDRAWN, EXPIRED)


def suggestion_id(scope: str, dedup_key: str) -> str:
    """Deterministic: the same proposal in a replay or after a restart has the same id."""
    return "sg_" + hashlib.sha256(f"{scope}\x00{dedup_key}".encode()).hexdigest()[:20]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One thing memubot may say (DESIGN.md §4), with what the outbox needs to deliver it."""

    scope: str
    kind: str  # reminder / follow_up / conflict / digest / ...
    predictor: str  # the module that proposed it (and re-checks it at delivery)
    dedup_key: str
    about: str  # what it is about ("item:<id>", "pr:<repo>#<n>"): a newer proposal may replace it
    title: str
    body: str
    created_at: datetime
    deliver_at: datetime
    evidence: tuple[str, ...] = ()  # item ids
    source_ids: tuple[str, ...] = ()  # the resource ids behind the evidence
    confidence: float = 0.7
    urgent: bool = False  # urgent ones ignore quiet hours
    expires_at: datetime | None = None
    status: str = PENDING
    reason: str | None = None
    delivered_at: datetime | None = None
    deliveries: int = 0
    data: dict[str, Any] = field(default_factory=dict)  # what the predictor re-checks

    @property
    def id(self) -> str:
        return suggestion_id(self.scope, self.dedup_key)

    def as_json(self) -> dict[str, Any]:
        """The suggestion as published on `memubot.out.suggestion.<scope>`."""

        def iso(t: datetime | None) -> str | None:
            return t.isoformat() if t is not None else None

        return {
            "id": self.id,
            "scope": self.scope,
            "kind": self.kind,
            "title": self.title,
            "body": self.body,
            "evidence": list(self.evidence),
            "source_ids": list(self.source_ids),
            "confidence": round(self.confidence, 3),
            "created_at": iso(self.created_at),
            "deliver_at": iso(self.deliver_at),
            "expires_at": iso(self.expires_at),
            "dedup_key": self.dedup_key,
            "urgent": self.urgent,
        }


def suggestion_json(s: Suggestion) -> dict[str, Any]:
    """A suggestion as an inspector or agent lists it: as published, plus what became of it."""
    return {
        **s.as_json(),
        "predictor": s.predictor,
        "status": s.status,
        "reason": s.reason,
        "delivered_at": s.delivered_at.isoformat() if s.delivered_at else None,
    }
