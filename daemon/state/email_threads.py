"""E-mail threads: per scope and thread, who waits on whom and what the person promised.

Every message of a thread is kept as a small row (what it says about the thread: direction,
whether it asks, what it promises); the thread's state is derived from all of them in `Date`
order and stored beside them. Messages arrive twice and out of order (Gmail history, replays,
redelivery): the same set of messages always derives the same state, and a message stored
again changes nothing. The rules are documented on `ThreadState` and in email_rules.py.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

from daemon.memory.store import Store
from daemon.state.tables.email import EmailTable
from daemon.state.types import EmailMessage, ThreadState


def derive(messages: Sequence[EmailMessage]) -> ThreadState:
    """A thread's state from its messages (any order; they are sorted by Date, then id)."""
    if not messages:
        raise ValueError("a thread has at least one message")
    ordered = sorted(messages, key=lambda m: (m.sent_at, m.id))
    last = ordered[-1]
    inbound = [m for m in ordered if not m.outbound]
    outbound = [m for m in ordered if m.outbound]
    own = {m.sender for m in outbound}  # the person's addresses, as this thread shows them
    counterparts: list[str] = []
    for m in ordered:
        for addr in m.recipients if m.outbound else (m.sender,):
            if addr and addr not in counterparts and addr not in own:
                counterparts.append(addr)
    waiting_on_person = not last.outbound and last.to_person and last.ask is not None
    waiting_on_other = last.outbound and last.ask is not None
    mine = outbound[-1] if outbound else None
    # the subject of the thread's first message, without the reply prefixes its answers add
    subject = next((m.subject for m in ordered if m.subject), "")
    return ThreadState(
        scope=last.scope,
        thread=last.thread,
        subject=subject,
        counterparts=tuple(counterparts),
        last_message_at=last.sent_at,
        last_message_id=last.id,
        last_inbound_at=inbound[-1].sent_at if inbound else None,
        last_outbound_at=mine.sent_at if mine else None,
        waiting_on_person=waiting_on_person,
        waiting_on_other=waiting_on_other,
        ask=last.ask if waiting_on_person or waiting_on_other else None,
        ask_due=last.ask_due if waiting_on_person or waiting_on_other else None,
        waiting_since=last.sent_at if waiting_on_person or waiting_on_other else None,
        person_promised=mine.promise if mine else None,
        promise_due=mine.promise_due if mine and mine.promise else None,
        promised_at=mine.sent_at if mine and mine.promise else None,
        source_ids=tuple(m.id for m in ordered),
    )


class EmailThreads:
    """Read and update the thread tables; shares the memory's lock (and its connection)."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self.table = EmailTable(store)
        self._lock = lock

    def forget(self, scope: str, resource_ids: Sequence[str] | None) -> dict[str, int]:
        """Forgetting hook: every thread of the scope goes (None), or the messages of forgotten
        resources go and their threads are derived again from the rest (a thread left with none
        goes). The caller holds the memory's locks."""
        if resource_ids is None:
            return {"email_threads": self.table.drop_email_threads(scope)}
        dropped = self.table.drop_email_messages(scope, resource_ids)  # (message id, thread) pairs
        for thread in sorted({t for _, t in dropped}):
            rest = self.table.email_messages(scope, thread)
            if rest:
                self.table.put_email_thread(derive(rest))
            else:
                self.table.drop_email_thread(scope, thread)
        return {"email_messages": len(dropped)}

    def messages(self, scope: str, thread: str) -> list[EmailMessage]:
        """What each message of a thread said about it, in Date order."""
        with self._lock:
            return self.table.email_messages(scope, thread)

    def record(self, message: EmailMessage) -> ThreadState | None:
        """Store one message (again: nothing changes) and re-derive its thread, in one transaction.

        Only a message whose resource is stored counts: a forgotten one (a redelivery after
        `forget`) is not brought back; returns None for it.
        """
        if not message.scope or not message.thread:
            raise ValueError(f"e-mail {message.id!r}: scope and thread are required")
        if message.sent_at.utcoffset() is None:
            raise ValueError(f"e-mail {message.id!r}: sent_at has no time zone")
        with self._lock, self.store.transaction():
            if not self.store.resources.is_stored(message.scope, message.id):
                return None
            self.table.put_email_message(message)
            state = derive(self.table.email_messages(message.scope, message.thread))
            self.table.put_email_thread(state)
        return state

    def of_scope(self, scope: str) -> list[ThreadState]:
        """Every thread of `scope`, the most recent first."""
        with self._lock:
            return self.table.email_threads(scope)

    def get(self, scope: str, thread: str) -> ThreadState | None:
        with self._lock:
            return self.table.email_thread(scope, thread)

    def reply_hours(self, scope: str, sender: str, before: datetime) -> list[float]:
        """The person's past reply delays (hours) to `sender`, oldest first."""
        with self._lock:
            return self.table.reply_hours(scope, sender, before)
