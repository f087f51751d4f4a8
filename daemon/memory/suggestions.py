"""Suggestions: the outbox of what memubot means to say, and how the person answered each kind.

A predictor proposes a `Suggestion`; the row is unique per (scope, dedup_key), so the same
thing is never said twice — not after a restart, not when a replay runs the same events
again. A pending row may be refreshed by a later proposal with the same key (more evidence, a
better text) until it goes out; after that the key is spent. The delivery side
(daemon/predict/outbox.py) moves rows from `pending` to `delivered`, `withdrawn` (the reason
no longer holds) or `expired` (too late to be useful). Shares the memory's lock.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from daemon.memory.store import Store

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


class Suggestions:
    """Read and write the suggestion outbox and the per-kind verdict counts."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self._lock = lock

    def propose(self, suggestions: Sequence[Suggestion], cursor: tuple[str, int] | None = None) -> list[str]:
        """Insert new suggestions (a known key that is still pending is refreshed, a spent one is
        left alone) and, in the same transaction, advance `cursor` (name, position) if given:
        what the predictors have read and what they proposed from it commit together.
        Returns the ids that were added or refreshed."""
        changed = []
        with self._lock, self.store.transaction():
            for s in suggestions:
                old = self.store.get_suggestion(s.id)
                if old is None:
                    self.store.insert_suggestion(s)
                    changed.append(s.id)
                elif old.status == PENDING:
                    self.store.refresh_suggestion(
                        s, _union(old.evidence, s.evidence), _union(old.source_ids, s.source_ids)
                    )
                    changed.append(s.id)
            if cursor is not None:
                self.store.set_position(*cursor)
        return changed

    def get(self, sid: str) -> Suggestion | None:
        with self._lock:
            return self.store.get_suggestion(sid)

    def of_scope(self, scope: str, status: str | None = None) -> list[Suggestion]:
        with self._lock:
            return self.store.scope_suggestions(scope, status)

    def due(self, now: datetime, limit: int = 100) -> list[Suggestion]:
        """Pending suggestions whose time has come, oldest first."""
        with self._lock:
            return self.store.due_suggestions(now, limit)

    def next_due(self) -> datetime | None:
        """When the earliest pending suggestion may go out (what the delivery timer waits for)."""
        with self._lock:
            return self.store.next_deliver_at()

    def pending_about(self, scope: str, about: str) -> list[Suggestion]:
        with self._lock:
            return self.store.pending_suggestions_about(scope, about)

    def mark(self, sid: str, status: str, at: datetime, reason: str | None = None) -> None:
        """Close a suggestion: delivered (counts a delivery), withdrawn or expired."""
        if status not in STATUSES or status == PENDING:
            raise ValueError(f"cannot mark a suggestion {status!r}")
        with self._lock, self.store.transaction():
            self.store.set_suggestion_status(sid, status, at, reason)

    def update(self, s: Suggestion) -> None:
        """Store a pending suggestion's new text, evidence or delivery time (before it goes out)."""
        with self._lock, self.store.transaction():
            self.store.refresh_suggestion(s, s.evidence, s.source_ids, deliver_at=s.deliver_at)

    def reschedule(self, sid: str, deliver_at: datetime, reason: str) -> bool:
        """Pending again at `deliver_at` (snoozed): False when there is no such suggestion."""
        with self._lock, self.store.transaction():
            return self.store.reopen_suggestion(sid, deliver_at, reason)

    def delivered_since(self, scope: str, since: datetime) -> list[datetime]:
        """When the scope's suggestions went out after `since` (exclusive), oldest first."""
        with self._lock:
            return self.store.delivery_times(scope, since)

    def covered(self, scope: str, abouts: Sequence[str], lo: datetime, hi: datetime) -> set[str]:
        """Which of `abouts` have their own suggestion (not a digest) going out in [lo, hi)."""
        with self._lock:
            return self.store.covered(scope, abouts, lo, hi)

    def said_before(self, scope: str, abouts: Sequence[str], before: datetime) -> set[str]:
        """Which of `abouts` had their own suggestion delivered before `before`."""
        with self._lock:
            return self.store.said_before(scope, abouts, before)

    def count_verdict(self, scope: str, kind: str, verdict: str) -> dict[str, int]:
        with self._lock, self.store.transaction():
            return self.store.bump_verdict(scope, kind, verdict)

    def verdicts(self, scope: str, kind: str) -> dict[str, int]:
        with self._lock:
            return self.store.verdict_counts(scope, kind)


def _union(a: Sequence[str], b: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*a, *b]))
