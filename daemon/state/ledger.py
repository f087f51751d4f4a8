"""The event ledger: which events were handled, which failed (dead letters), feedback, cursors.

It lives in the memory's DuckDB file so that "handled" and "stored" commit to the same disk,
and it shares the memory's lock because it shares its connection. The daemon's consumer asks
`seen` before handling an event and calls `record` after its effects are committed; a crash
between the two is harmless because every handler is idempotent on the event id by itself
(a turn's resource id is its event id). Forgetting leaves a tombstone here (store.deletion.forget).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from daemon.memory.store import Store, _utc

# the cursor holding when the daemon first ran on this file (unix seconds)
_FIRST_START = "ticks:first_start"


@dataclass(frozen=True, slots=True)
class Handled:
    """One handled event: its id, where it came from, whose it was, what became of it."""

    event_id: str
    subject: str
    scope: str | None
    outcome: str  # stored / duplicate / noop / consolidated / ...


class Ledger:
    """Idempotency ledger, dead-letter table, feedback and outbox cursors (SQL lives here)."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self._lock = lock

    # ---- idempotency ------------------------------------------------------------------

    def seen(self, event_ids: Sequence[str]) -> set[str]:
        """The ids among `event_ids` that were already handled (or forgotten)."""
        if not event_ids:
            return set()
        with self._lock:
            rows = self.store.con.execute(
                "SELECT event_id FROM events WHERE event_id IN (SELECT unnest(?))", [list(event_ids)]
            ).fetchall()
        return {r[0] for r in rows}

    def record(self, handled: Sequence[Handled], at: datetime) -> None:
        """Remember handled events; an id already recorded keeps its first record."""
        if not handled:
            return
        cols = [[getattr(h, f) for h in handled] for f in ("event_id", "subject", "scope", "outcome")]
        with self._lock:
            self.store.con.execute(
                "INSERT INTO events (event_id, subject, scope, outcome, handled_at)"
                " SELECT unnest(?), unnest(?), unnest(?), unnest(?), ? ON CONFLICT (event_id) DO NOTHING",
                [*cols, _utc(at)],
            )

    def outcome(self, event_id: str) -> str | None:
        with self._lock:
            row = self.store.con.execute(
                "SELECT outcome FROM events WHERE event_id = ?", [event_id]
            ).fetchone()
        return str(row[0]) if row else None

    def count(self) -> int:
        with self._lock:
            row = self.store.con.execute("SELECT count(*) FROM events").fetchone()
        return int(row[0]) if row else 0

    def table_counts(self) -> dict[str, float]:
        """Row counts of the main tables (cheap: for the daemon's metrics)."""
        tables = ("resources", "items", "categories", "events")
        sql = " UNION ALL ".join(f"SELECT '{t}', count(*) FROM {t}" for t in tables)
        with self._lock:
            rows = self.store.con.execute(
                sql + " UNION ALL SELECT 'dead_letters', count(*) FROM dead_letters WHERE replayed_at IS NULL"
            ).fetchall()
        return {str(name): float(n) for name, n in rows}

    # ---- dead letters -----------------------------------------------------------------

    def dead_letter(
        self,
        *,
        subject: str,
        reason: str,
        payload: bytes,
        attempts: int,
        at: datetime,
        event_id: str | None = None,
        stream_seq: int | None = None,
    ) -> int:
        """Record an event that could not be handled; returns its dead-letter id.

        Idempotent on the stream sequence: if the daemon dies after recording but before
        acknowledging, the redelivered message updates the same record instead of adding one.
        An event that came by request (no stream sequence: `memorize`, so MCP's `remember` and
        `import`) and is refused again for the same reason, retried as it was, updates the record
        its first refusal made: one dead letter per event id and reason, its attempts counted.
        """
        with self._lock:
            con = self.store.con
            if stream_seq is not None:
                row = con.execute(
                    "SELECT id FROM dead_letters WHERE stream_seq = ? AND replayed_at IS NULL", [stream_seq]
                ).fetchone()
                if row:
                    con.execute(
                        "UPDATE dead_letters SET reason = ?, attempts = ?, failed_at = ? WHERE id = ?",
                        [reason, attempts, _utc(at), row[0]],
                    )
                    return int(row[0])
            elif event_id is not None:
                row = con.execute(
                    "SELECT id FROM dead_letters WHERE stream_seq IS NULL AND event_id = ? AND subject = ?"
                    " AND reason = ? AND replayed_at IS NULL ORDER BY id DESC LIMIT 1",
                    [event_id, subject, reason],
                ).fetchone()
                if row:
                    con.execute(
                        "UPDATE dead_letters SET attempts = attempts + ?, payload = ?, failed_at = ? WHERE id = ?",
                        [attempts, payload, _utc(at), row[0]],
                    )
                    return int(row[0])
            row = con.execute(
                "INSERT INTO dead_letters (event_id, subject, reason, attempts, payload, stream_seq, failed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                [event_id, subject, reason, attempts, payload, stream_seq, _utc(at)],
            ).fetchone()
        assert row is not None
        return int(row[0])

    def dead_letters(self, *, include_replayed: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """The newest dead letters first (without their payloads)."""
        where = "" if include_replayed else "WHERE replayed_at IS NULL"
        with self._lock:
            rows = self.store.con.execute(
                "SELECT id, event_id, subject, reason, attempts, stream_seq, failed_at, replayed_at,"
                f" octet_length(payload) FROM dead_letters {where} ORDER BY id DESC LIMIT ?",
                [limit],
            ).fetchall()
        keys = ("id", "event_id", "subject", "reason", "attempts", "stream_seq", "failed_at", "replayed_at")
        return [{**dict(zip(keys, r[:8], strict=True)), "bytes": r[8]} for r in rows]

    def get_dead_letter(self, dead_id: int) -> dict[str, Any] | None:
        with self._lock:
            row = self.store.con.execute(
                "SELECT id, event_id, subject, reason, attempts, payload, replayed_at FROM dead_letters"
                " WHERE id = ?",
                [dead_id],
            ).fetchone()
        if row is None:
            return None
        keys = ("id", "event_id", "subject", "reason", "attempts", "payload", "replayed_at")
        return dict(zip(keys, row, strict=True))

    def mark_replayed(self, dead_id: int, at: datetime) -> None:
        with self._lock:
            self.store.con.execute(
                "UPDATE dead_letters SET replayed_at = ? WHERE id = ?", [_utc(at), dead_id]
            )

    def count_dead_letters(self) -> int:
        with self._lock:
            row = self.store.con.execute(
                "SELECT count(*) FROM dead_letters WHERE replayed_at IS NULL"
            ).fetchone()
        return int(row[0]) if row else 0

    # ---- feedback ---------------------------------------------------------------------

    def add_feedback(
        self, event_id: str, scope: str | None, suggestion_id: str, verdict: str, at: datetime
    ) -> bool:
        """Store one verdict on a suggestion; False when this event was stored before."""
        with self._lock:
            row = self.store.con.execute(
                "INSERT INTO feedback VALUES (?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING RETURNING 1",
                [event_id, scope, suggestion_id, verdict, _utc(at)],
            ).fetchone()
        return row is not None

    def feedback(self, suggestion_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self.store.con.execute(
                "SELECT event_id, scope, verdict, given_at FROM feedback WHERE suggestion_id = ?"
                " ORDER BY given_at",
                [suggestion_id],
            ).fetchall()
        return [{"event_id": r[0], "scope": r[1], "verdict": r[2], "at": r[3]} for r in rows]

    # ---- tick history -----------------------------------------------------------------

    def first_start(self, now: datetime) -> datetime:
        """When this memory's daemon first ran: recorded at the first call, never moved after.

        A ledger from before this record existed started with its oldest handled event.
        """
        with self._lock:
            con = self.store.con
            row = con.execute("SELECT position FROM cursors WHERE name = ?", [_FIRST_START]).fetchone()
            if row is not None:
                return datetime.fromtimestamp(int(row[0]), UTC)
            oldest = con.execute("SELECT min(handled_at) FROM events").fetchone()
            start = min(now, oldest[0]) if oldest and oldest[0] is not None else now
            con.execute("INSERT INTO cursors VALUES (?, ?)", [_FIRST_START, int(start.timestamp())])
        return datetime.fromtimestamp(int(start.timestamp()), UTC)

    def last_ticks(self, prefix: str) -> dict[str, str]:
        """The newest handled event id per subject under `prefix` (tick ids sort by time)."""
        with self._lock:
            rows = self.store.con.execute(
                "SELECT subject, max(event_id) FROM events WHERE starts_with(subject, ?) GROUP BY subject",
                [prefix],
            ).fetchall()
        return {str(subject): str(event_id) for subject, event_id in rows}

    # ---- outbox cursors ---------------------------------------------------------------

    def cursor(self, name: str) -> int:
        with self._lock:
            row = self.store.con.execute("SELECT position FROM cursors WHERE name = ?", [name]).fetchone()
        return int(row[0]) if row else 0

    def has_cursor(self, name: str) -> bool:
        with self._lock:
            return (
                self.store.con.execute("SELECT 1 FROM cursors WHERE name = ?", [name]).fetchone() is not None
            )

    def last_op_seq(self) -> int:
        with self._lock:
            row = self.store.con.execute("SELECT coalesce(max(seq), 0) FROM memory_ops").fetchone()
        return int(row[0]) if row else 0

    def set_cursor(self, name: str, position: int) -> None:
        with self._lock:
            self.store.con.execute(
                "INSERT INTO cursors VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                [name, position],
            )

    def ops_after(self, seq: int, limit: int = 500) -> list[dict[str, Any]]:
        """Memory operations of every scope after `seq`, oldest first (the memory-op outbox)."""
        with self._lock:
            rows = self.store.con.execute(
                "SELECT seq, scope, op, item_id, other_id, op_at FROM memory_ops WHERE seq > ?"
                " ORDER BY seq LIMIT ?",
                [seq, limit],
            ).fetchall()
        keys = ("seq", "scope", "op", "item_id", "other_id", "at")
        return [dict(zip(keys, r, strict=True)) for r in rows]
