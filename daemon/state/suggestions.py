"""Suggestions: the outbox of what memubot means to say, and how the person answered each kind.

A predictor proposes a `Suggestion`; the row is unique per (scope, dedup_key), so the same
thing is never said twice — not after a restart, not when a replay runs the same events
again. A pending row may be refreshed by a later proposal with the same key (more evidence, a
better text) until it goes out; after that the key is spent. The delivery side
(daemon/predict/outbox.py) moves rows from `pending` to `delivered`, `withdrawn` (the reason
no longer holds) or `expired` (too late to be useful). Shares the memory's lock.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

from daemon.memory.store import Store
from daemon.state.suggestion import (
    DELIVERED,
    EXPIRED,
    PENDING,
    STATUSES,
    WITHDRAWN,
    Suggestion,
    suggestion_id,
    suggestion_json,
)
from daemon.state.tables.suggestions import SuggestionTable

# The row and its statuses live in suggestion.py; callers import them from here too.
__all__ = [
    "DELIVERED",
    "EXPIRED",
    "PENDING",
    "STATUSES",
    "WITHDRAWN",
    "Suggestion",
    "Suggestions",
    "suggestion_id",
    "suggestion_json",
]


class Suggestions:
    """Read and write the suggestion outbox and the per-kind verdict counts."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self.table = SuggestionTable(store)
        self._lock = lock

    def forget(self, scope: str, resource_ids: Sequence[str] | None) -> dict[str, int]:
        """Forgetting hook: a scope forgotten whole takes its suggestions and verdict counts
        along; forgetting some resources leaves the outbox alone (a pending suggestion whose
        reason went is withdrawn by the delivery side). The caller holds the memory's locks."""
        if resource_ids is None:
            return {"suggestions": self.table.drop_suggestions(scope)}
        return {}

    def propose(self, suggestions: Sequence[Suggestion], cursor: tuple[str, int] | None = None) -> list[str]:
        """Insert new suggestions (a known key that is still pending is refreshed, a spent one is
        left alone) and, in the same transaction, advance `cursor` (name, position) if given:
        what the predictors have read and what they proposed from it commit together.
        Returns the ids that were added or refreshed."""
        changed = []
        with self._lock, self.store.transaction():
            for s in suggestions:
                old = self.table.get_suggestion(s.id)
                if old is None:
                    self.table.insert_suggestion(s)
                    changed.append(s.id)
                elif old.status == PENDING:
                    self.table.refresh_suggestion(
                        s, _union(old.evidence, s.evidence), _union(old.source_ids, s.source_ids)
                    )
                    changed.append(s.id)
            if cursor is not None:
                self.table.set_position(*cursor)
        return changed

    def get(self, sid: str) -> Suggestion | None:
        with self._lock:
            return self.table.get_suggestion(sid)

    def of_scope(self, scope: str, status: str | None = None) -> list[Suggestion]:
        with self._lock:
            return self.table.scope_suggestions(scope, status)

    def due(self, now: datetime, limit: int = 100) -> list[Suggestion]:
        """Pending suggestions whose time has come, oldest first."""
        with self._lock:
            return self.table.due_suggestions(now, limit)

    def next_due(self) -> datetime | None:
        """When the earliest pending suggestion may go out (what the delivery timer waits for)."""
        with self._lock:
            return self.table.next_deliver_at()

    def pending_about(self, scope: str, about: str) -> list[Suggestion]:
        with self._lock:
            return self.table.pending_suggestions_about(scope, about)

    def mark(self, sid: str, status: str, at: datetime, reason: str | None = None) -> None:
        """Close a suggestion: delivered (counts a delivery), withdrawn or expired."""
        if status not in STATUSES or status == PENDING:
            raise ValueError(f"cannot mark a suggestion {status!r}")
        with self._lock, self.store.transaction():
            self.table.set_suggestion_status(sid, status, at, reason)

    def update(self, s: Suggestion) -> None:
        """Store a pending suggestion's new text, evidence or delivery time (before it goes out)."""
        with self._lock, self.store.transaction():
            self.table.refresh_suggestion(s, s.evidence, s.source_ids, deliver_at=s.deliver_at)

    def reschedule(self, sid: str, deliver_at: datetime, reason: str) -> bool:
        """Pending again at `deliver_at` (snoozed): False when there is no such suggestion."""
        with self._lock, self.store.transaction():
            return self.table.reopen_suggestion(sid, deliver_at, reason)

    def delivered_since(self, scope: str, since: datetime) -> list[datetime]:
        """When the scope's suggestions went out after `since` (exclusive), oldest first."""
        with self._lock:
            return self.table.delivery_times(scope, since)

    def covered(self, scope: str, abouts: Sequence[str], lo: datetime, hi: datetime) -> set[str]:
        """Which of `abouts` have their own suggestion (not a digest) going out in [lo, hi)."""
        with self._lock:
            return self.table.covered(scope, abouts, lo, hi)

    def said_before(self, scope: str, abouts: Sequence[str], before: datetime) -> set[str]:
        """Which of `abouts` had their own suggestion delivered before `before`."""
        with self._lock:
            return self.table.said_before(scope, abouts, before)

    def count_verdict(self, scope: str, kind: str, verdict: str) -> dict[str, int]:
        with self._lock, self.store.transaction():
            return self.table.bump_verdict(scope, kind, verdict)

    def verdicts(self, scope: str, kind: str) -> dict[str, int]:
        with self._lock:
            return self.table.verdict_counts(scope, kind)


def _union(a: Sequence[str], b: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*a, *b]))
