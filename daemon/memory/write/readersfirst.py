"""Readers first: a writer about to take the data lock lets the recalls in progress finish.

A recall is short (a query embedding and a search, tens of milliseconds) and someone waits for
it: the context of a live turn, an agent's RPC. A memorize batch's plan and commit hold the data
lock for longer, and a recall that came while a batch was embedding found the commit had taken
the lock just before it needed it. So a recall registers when it starts (before its query is
embedded) and the writer, before each plan or commit, waits until the recalls registered by then
are done; recalls that start later queue on the data lock as before, so a stream of recalls
delays a writer by at most one recall each time, and never by more than `max_wait_s`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class ReadersFirst:
    """The recalls in progress, by ticket, and a wait for the ones begun so far."""

    def __init__(self, max_wait_s: float = 1.0) -> None:
        self.max_wait_s = max_wait_s
        self._cond = threading.Condition()
        self._next = 0
        self._active: dict[int, int] = {}  # ticket → the reading thread's ident
        self.waited = 0  # how many times a writer found a recall in progress (tests read it)

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._cond:
            ticket = self._next
            self._next += 1
            self._active[ticket] = threading.get_ident()
        try:
            yield
        finally:
            with self._cond:
                del self._active[ticket]
                self._cond.notify_all()

    def let_readers_finish(self) -> None:
        """Wait until every recall begun before this call has finished (at most `max_wait_s`).

        The calling thread's own recalls are not waited for (a writer may be inside one)."""
        me = threading.get_ident()
        with self._cond:
            horizon = self._next

            def pending() -> bool:
                return any(t < horizon and who != me for t, who in self._active.items())

            if not pending():
                return
            self.waited += 1
            deadline = time.monotonic() + self.max_wait_s
            while pending():
                left = deadline - time.monotonic()
                if left <= 0:
                    return  # a recall stuck (a slow remote embedder): the writer goes on
                self._cond.wait(left)
