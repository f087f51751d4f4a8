"""Work items: the state of the person's pull requests and issues that predictors read.

One row per (scope, repository, number): open / closed / merged, who is requested to review,
who is assigned, the last activity (`updated_at` from GitHub's payload) and when the person
last acted on it. Deliveries arrive twice and out of order, so an update carries a snapshot
of the object as GitHub sent it and the newer snapshot wins (payload `updated_at`; at an equal
time the later arrival); when the person acted only ever moves forward. Applying the same
update again changes nothing.

Each delivery's snapshot is also kept (work_item_snapshots), so that forgetting a delivery
derives the state again from the deliveries that remain (`WorkItems.forget`), as e-mail
threads do; a delivery forgotten before it is redelivered is not brought back.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from daemon.memory.store import Store
from daemon.state.tables.work_items import WorkItemTable
from daemon.state.types import WorkItem

STATES = ("open", "closed", "merged")
KINDS = ("pr", "issue")


def merge(old: WorkItem | None, new: WorkItem) -> WorkItem:
    """The state after `new` arrives: the newer snapshot, the latest time the person acted."""
    if old is None:
        return new
    latest = max((t for t in (old.person_acted_at, new.person_acted_at) if t is not None), default=None)
    snapshot = new if new.updated_at >= old.updated_at else old
    requested = snapshot.requested if snapshot.knows_reviewers else old.requested
    return replace(snapshot, person_acted_at=latest, requested=requested, knows_reviewers=True)


def derive(snapshots: Sequence[WorkItem]) -> WorkItem:
    """The state the kept snapshots of one item give, merged oldest first (payload time, then
    arrival): the same set of deliveries always derives the same state."""
    if not snapshots:
        raise ValueError("a work item has at least one snapshot")
    state = snapshots[0]
    for snapshot in snapshots[1:]:
        state = merge(state, snapshot)
    return replace(state, knows_reviewers=True)


class WorkItems:
    """Read and update the work-item table; shares the memory's lock (and its connection)."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self.table = WorkItemTable(store)
        self._lock = lock

    def forget(self, scope: str, deliveries: Sequence[str] | None) -> dict[str, int]:
        """Forgetting hook: the scope's work items all go (None: the whole scope was forgotten),
        or the snapshots of forgotten deliveries go and their work items are derived again from
        the rest (an item left with none goes). The caller holds the memory's locks."""
        if deliveries is None:
            return {"work_items": self.table.drop_work_items(scope)}
        dropped = self.table.drop_work_item_snapshots(scope, deliveries)
        for repo, number in sorted(set(dropped)):
            rest = self.table.work_item_snapshots(scope, repo, number)
            if rest:
                self.table.put_work_item(derive(rest))
            else:
                self.table.drop_work_item(scope, repo, number)
        return {"work_item_snapshots": len(dropped)}

    def apply(self, update: WorkItem) -> WorkItem | None:
        """Merge one delivery's snapshot into the stored state, in one transaction; returns the state.

        The snapshot of delivery `update.last_event` is kept too; a forgotten delivery (its
        tombstone stays) changes nothing and gives None.
        """
        if update.state not in STATES or update.kind not in KINDS:
            raise ValueError(
                f"work item {update.repo}#{update.number}: bad state {update.state!r}/{update.kind!r}"
            )
        with self._lock, self.store.transaction():
            if update.last_event is not None:
                if self.store.resources.is_forgotten(update.scope, update.last_event):
                    return None
                self.table.put_work_item_snapshot(update)
            state = merge(self.table.get_work_item(update.scope, update.repo, update.number), update)
            self.table.put_work_item(state)
        return state

    def get(self, scope: str, repo: str, number: int) -> WorkItem | None:
        with self._lock:
            return self.table.get_work_item(scope, repo, number)

    def of_scope(self, scope: str, *, state: str | None = None) -> list[WorkItem]:
        with self._lock:
            return self.table.work_items(scope, state)

    def first_heard(self, scope: str, repo: str, number: int) -> datetime | None:
        """When the earliest delivery memubot kept about the item was sent (its payload's time)."""
        with self._lock:
            snaps = self.table.work_item_snapshots(scope, repo, number)
        return min((w.updated_at for w in snaps), default=None)

    def waiting_on(self, scope: str, login: str | None) -> list[WorkItem]:
        """Open items where a review is requested from `login`."""
        return [w for w in self.of_scope(scope, state="open") if w.waiting_on(login)]
