"""Suggestions: the SQL of the suggestion outbox and the verdict counts (daemon/state/suggestions.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from daemon.memory.store.core import Table, _require, _utc
from daemon.state.suggestion import Suggestion

_COLUMNS = (
    "scope, kind, predictor, dedup_key, about, title, body, evidence, source_ids, confidence, urgent,"
    " created_at, deliver_at, expires_at, status, reason, delivered_at, deliveries, data"
)


def _row(r: tuple[Any, ...]) -> Suggestion:
    return Suggestion(
        scope=r[0],
        kind=r[1],
        predictor=r[2],
        dedup_key=r[3],
        about=r[4],
        title=r[5],
        body=r[6],
        evidence=tuple(r[7] or ()),
        source_ids=tuple(r[8] or ()),
        confidence=float(r[9]),
        urgent=bool(r[10]),
        created_at=r[11],
        deliver_at=r[12],
        expires_at=r[13],
        status=r[14],
        reason=r[15],
        delivered_at=r[16],
        deliveries=int(r[17]),
        data=json.loads(r[18]) if r[18] else {},
    )


class SuggestionTable(Table):
    """One row per suggestion id (= hash of scope and dedup key); verdict counts per scope and kind."""

    def insert_suggestion(self, s: Suggestion) -> None:
        self.con.execute(
            f"INSERT INTO suggestions (id, {_COLUMNS}) VALUES"
            " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                s.id,
                _require(s.scope),
                s.kind,
                s.predictor,
                s.dedup_key,
                s.about,
                s.title,
                s.body,
                list(s.evidence),
                list(s.source_ids),
                s.confidence,
                s.urgent,
                _utc(s.created_at),
                _utc(s.deliver_at),
                _utc(s.expires_at),
                s.status,
                s.reason,
                _utc(s.delivered_at),
                s.deliveries,
                json.dumps(s.data, ensure_ascii=False),
            ],
        )

    def refresh_suggestion(
        self,
        s: Suggestion,
        evidence: Sequence[str],
        source_ids: Sequence[str],
        deliver_at: datetime | None = None,
    ) -> None:
        """A pending suggestion's text, evidence and data, from a newer proposal (same key)."""
        self.con.execute(
            "UPDATE suggestions SET title = ?, body = ?, evidence = ?, source_ids = ?, confidence = ?,"
            " expires_at = ?, data = ?, deliver_at = coalesce(?, deliver_at)"
            " WHERE id = ? AND status = 'pending'",
            [
                s.title,
                s.body,
                list(evidence),
                list(source_ids),
                s.confidence,
                _utc(s.expires_at),
                json.dumps(s.data, ensure_ascii=False),
                _utc(deliver_at),
                s.id,
            ],
        )

    def get_suggestion(self, sid: str) -> Suggestion | None:
        row = self.con.execute(f"SELECT {_COLUMNS} FROM suggestions WHERE id = ?", [sid]).fetchone()
        return _row(row) if row else None

    def scope_suggestions(self, scope: str, status: str | None = None) -> list[Suggestion]:
        sql = f"SELECT {_COLUMNS} FROM suggestions WHERE scope = ?"
        params: list[Any] = [_require(scope)]
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        return [_row(r) for r in self.con.execute(sql + " ORDER BY deliver_at, id", params).fetchall()]

    def due_suggestions(self, now: datetime, limit: int) -> list[Suggestion]:
        rows = self.con.execute(
            f"SELECT {_COLUMNS} FROM suggestions WHERE status = 'pending' AND deliver_at <= ?"
            " ORDER BY deliver_at, id LIMIT ?",
            [_utc(now), limit],
        ).fetchall()
        return [_row(r) for r in rows]

    def next_deliver_at(self) -> datetime | None:
        row = self.con.execute("SELECT min(deliver_at) FROM suggestions WHERE status = 'pending'").fetchone()
        return row[0] if row else None

    def pending_suggestions_about(self, scope: str, about: str) -> list[Suggestion]:
        rows = self.con.execute(
            f"SELECT {_COLUMNS} FROM suggestions WHERE scope = ? AND about = ? AND status = 'pending'"
            " ORDER BY deliver_at, id",
            [_require(scope), about],
        ).fetchall()
        return [_row(r) for r in rows]

    def set_suggestion_status(self, sid: str, status: str, at: datetime, reason: str | None) -> None:
        delivered = status == "delivered"
        self.con.execute(
            "UPDATE suggestions SET status = ?, reason = ?,"
            " delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END,"
            " deliveries = deliveries + CASE WHEN ? THEN 1 ELSE 0 END WHERE id = ?",
            [status, reason, delivered, _utc(at), delivered, sid],
        )

    def reopen_suggestion(self, sid: str, deliver_at: datetime, reason: str) -> bool:
        row = self.con.execute(
            "UPDATE suggestions SET status = 'pending', deliver_at = ?, reason = ? WHERE id = ? RETURNING 1",
            [_utc(deliver_at), reason, sid],
        ).fetchone()
        return row is not None

    def delivery_times(self, scope: str, since: datetime) -> list[datetime]:
        rows = self.con.execute(
            "SELECT delivered_at FROM suggestions WHERE scope = ? AND delivered_at > ? ORDER BY 1",
            [_require(scope), _utc(since)],
        ).fetchall()
        return [r[0] for r in rows]

    def covered(self, scope: str, abouts: Sequence[str], lo: datetime, hi: datetime) -> set[str]:
        """Which of `abouts` have a suggestion that went out, or will, in [lo, hi)."""
        if not abouts:
            return set()
        rows = self.con.execute(
            "SELECT DISTINCT about FROM suggestions WHERE scope = ? AND about IN (SELECT unnest(?))"
            " AND kind <> 'digest' AND ((status = 'delivered' AND delivered_at >= ? AND delivered_at < ?)"
            " OR (status = 'pending' AND deliver_at >= ? AND deliver_at < ?))",
            [_require(scope), list(abouts), _utc(lo), _utc(hi), _utc(lo), _utc(hi)],
        ).fetchall()
        return {r[0] for r in rows}

    def said_before(self, scope: str, abouts: Sequence[str], before: datetime) -> set[str]:
        """Which of `abouts` had a suggestion of their own (not a digest) delivered before `before`."""
        if not abouts:
            return set()
        rows = self.con.execute(
            "SELECT DISTINCT about FROM suggestions WHERE scope = ? AND about IN (SELECT unnest(?))"
            " AND kind <> 'digest' AND status = 'delivered' AND delivered_at < ?",
            [_require(scope), list(abouts), _utc(before)],
        ).fetchall()
        return {r[0] for r in rows}

    def set_position(self, name: str, position: int) -> None:
        """An outbox cursor (the `cursors` table the ledger reads), inside the caller's transaction."""
        self.con.execute(
            "INSERT INTO cursors VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
            [name, position],
        )

    def bump_verdict(self, scope: str, kind: str, verdict: str) -> dict[str, int]:
        if verdict not in ("accepted", "dismissed", "snoozed"):
            raise ValueError(f"unknown verdict {verdict!r}")
        self.con.execute(
            f"INSERT INTO suggestion_verdicts (scope, kind, {verdict}) VALUES (?, ?, 1)"
            f" ON CONFLICT (scope, kind) DO UPDATE SET {verdict} = suggestion_verdicts.{verdict} + 1",
            [_require(scope), kind],
        )
        return self.verdict_counts(scope, kind)

    def verdict_counts(self, scope: str, kind: str) -> dict[str, int]:
        row = self.con.execute(
            "SELECT accepted, dismissed, snoozed FROM suggestion_verdicts WHERE scope = ? AND kind = ?",
            [_require(scope), kind],
        ).fetchone()
        a, d, s = row if row else (0, 0, 0)
        return {"accepted": int(a), "dismissed": int(d), "snoozed": int(s)}

    def drop_suggestions(self, scope: str) -> int:
        """Delete the scope's suggestions and verdict counts (forgetting everything): returns how many."""
        rows = self.con.execute(
            "DELETE FROM suggestions WHERE scope = ? RETURNING id", [_require(scope)]
        ).fetchall()
        self.con.execute("DELETE FROM suggestion_verdicts WHERE scope = ?", [scope])
        return len(rows)
