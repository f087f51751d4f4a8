"""E-mail threads: the SQL of the per-message rows and derived thread state (daemon/state/email_threads.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from daemon.memory.store.core import Table, _require, _utc
from daemon.state.types import EmailMessage, ThreadState

_MESSAGE = (
    "scope, thread, id, sent_at, sender, sender_name, recipients, subject, outbound, to_person,"
    " ask, ask_due, promise, promise_due"
)
_THREAD = (
    "scope, thread, subject, counterparts, last_message_at, last_message_id, last_inbound_at,"
    " last_outbound_at, waiting_on_person, waiting_on_other, ask, ask_due, waiting_since,"
    " person_promised, promise_due, promised_at, source_ids"
)


def _message(r: tuple[Any, ...]) -> EmailMessage:
    return EmailMessage(
        scope=r[0],
        thread=r[1],
        id=r[2],
        sent_at=r[3],
        sender=r[4],
        sender_name=r[5],
        recipients=tuple(r[6] or ()),
        subject=r[7],
        outbound=bool(r[8]),
        to_person=bool(r[9]),
        ask=r[10],
        ask_due=r[11],
        promise=r[12],
        promise_due=r[13],
    )


def _thread(r: tuple[Any, ...]) -> ThreadState:
    return ThreadState(
        scope=r[0],
        thread=r[1],
        subject=r[2],
        counterparts=tuple(r[3] or ()),
        last_message_at=r[4],
        last_message_id=r[5],
        last_inbound_at=r[6],
        last_outbound_at=r[7],
        waiting_on_person=bool(r[8]),
        waiting_on_other=bool(r[9]),
        ask=r[10],
        ask_due=r[11],
        waiting_since=r[12],
        person_promised=r[13],
        promise_due=r[14],
        promised_at=r[15],
        source_ids=tuple(r[16] or ()),
    )


class EmailTable(Table):
    """Messages keyed by (scope, id), replaced whole; a thread row is derived from its messages."""

    def put_email_message(self, m: EmailMessage) -> None:
        self.con.execute(
            f"INSERT OR REPLACE INTO email_messages ({_MESSAGE}) VALUES ({', '.join('?' * 14)})",
            [
                _require(m.scope),
                m.thread,
                m.id,
                _utc(m.sent_at),
                m.sender,
                m.sender_name,
                list(m.recipients),
                m.subject,
                m.outbound,
                m.to_person,
                m.ask,
                _utc(m.ask_due),
                m.promise,
                _utc(m.promise_due),
            ],
        )

    def email_messages(self, scope: str, thread: str) -> list[EmailMessage]:
        rows = self.con.execute(
            f"SELECT {_MESSAGE} FROM email_messages WHERE scope = ? AND thread = ? ORDER BY sent_at, id",
            [_require(scope), thread],
        ).fetchall()
        return [_message(r) for r in rows]

    def reply_hours(self, scope: str, sender: str, before: datetime) -> list[float]:
        """How long the person took to answer `sender`'s messages to them before `before`: per
        inbound message, the hours until the person's next message in the same thread."""
        rows = self.con.execute(
            "SELECT epoch(min(o.sent_at) - i.sent_at) / 3600.0 FROM email_messages i"
            " JOIN email_messages o ON o.scope = i.scope AND o.thread = i.thread AND o.outbound"
            " AND o.sent_at > i.sent_at"
            " WHERE i.scope = ? AND i.sender = ? AND NOT i.outbound AND i.to_person AND i.sent_at < ?"
            " GROUP BY i.id, i.sent_at ORDER BY i.sent_at",
            [_require(scope), sender, _utc(before)],
        ).fetchall()
        return [float(r[0]) for r in rows]

    def put_email_thread(self, t: ThreadState) -> None:
        self.con.execute(
            f"INSERT OR REPLACE INTO email_threads ({_THREAD}) VALUES ({', '.join('?' * 17)})",
            [
                _require(t.scope),
                t.thread,
                t.subject,
                list(t.counterparts),
                _utc(t.last_message_at),
                t.last_message_id,
                _utc(t.last_inbound_at),
                _utc(t.last_outbound_at),
                t.waiting_on_person,
                t.waiting_on_other,
                t.ask,
                _utc(t.ask_due),
                _utc(t.waiting_since),
                t.person_promised,
                _utc(t.promise_due),
                _utc(t.promised_at),
                list(t.source_ids),
            ],
        )

    def email_thread(self, scope: str, thread: str) -> ThreadState | None:
        row = self.con.execute(
            f"SELECT {_THREAD} FROM email_threads WHERE scope = ? AND thread = ?", [_require(scope), thread]
        ).fetchone()
        return _thread(row) if row else None

    def email_threads(self, scope: str) -> list[ThreadState]:
        rows = self.con.execute(
            f"SELECT {_THREAD} FROM email_threads WHERE scope = ? ORDER BY last_message_at DESC, thread",
            [_require(scope)],
        ).fetchall()
        return [_thread(r) for r in rows]

    def drop_email_messages(self, scope: str, ids: Sequence[str]) -> list[tuple[str, str]]:
        """Delete these messages of the scope; returns the (id, thread) of each one deleted."""
        if not ids:
            return []
        rows = self.con.execute(
            "DELETE FROM email_messages WHERE scope = ? AND id IN (SELECT unnest(?)) RETURNING id, thread",
            [_require(scope), list(ids)],
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def drop_email_thread(self, scope: str, thread: str) -> None:
        self.con.execute(
            "DELETE FROM email_threads WHERE scope = ? AND thread = ?", [_require(scope), thread]
        )

    def drop_email_threads(self, scope: str) -> int:
        """Delete the scope's e-mail messages and threads (forgetting everything): returns threads."""
        _require(scope)
        self.con.execute("DELETE FROM email_messages WHERE scope = ?", [scope])
        rows = self.con.execute(
            "DELETE FROM email_threads WHERE scope = ? RETURNING thread", [scope]
        ).fetchall()
        return len(rows)
