"""Work items: the SQL of the per-scope pull request / issue state (daemon/state/work_items.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from daemon.memory.store.core import Table, _require, _utc
from daemon.state.types import WorkItem

# the columns a work item and its snapshots share (what `_state` writes, in this order)
_STATE = (
    "scope, repo, number, kind, state, title, updated_at, url, author, requested, assignees, person_acted_at"
)
_COLUMNS = _STATE + ", last_event"
_SNAPSHOT = _STATE + ", knows_reviewers"


def _row(r: tuple[Any, ...]) -> WorkItem:
    return WorkItem(
        scope=r[0],
        repo=r[1],
        number=int(r[2]),
        kind=r[3],
        state=r[4],
        title=r[5],
        updated_at=r[6],
        url=r[7],
        author=r[8],
        requested=tuple(r[9] or ()),
        assignees=tuple(r[10] or ()),
        person_acted_at=r[11],
        last_event=r[12],
    )


def _state(w: WorkItem) -> list[Any]:
    """The columns a work item and a snapshot share, in table order (scope … person_acted_at)."""
    return [
        _require(w.scope),
        w.repo,
        w.number,
        w.kind,
        w.state,
        w.title,
        _utc(w.updated_at),
        w.url,
        w.author,
        list(w.requested),
        list(w.assignees),
        _utc(w.person_acted_at),
    ]


class WorkItemTable(Table):
    """One row per (scope, repo, number), replaced whole: the caller merges (workitems.merge)."""

    def drop_work_items(self, scope: str) -> int:
        """Delete the scope's work items and their snapshots (forgetting everything): returns how many."""
        self.con.execute("DELETE FROM work_item_snapshots WHERE scope = ?", [_require(scope)])
        rows = self.con.execute(
            "DELETE FROM work_items WHERE scope = ? RETURNING number", [_require(scope)]
        ).fetchall()
        return len(rows)

    def get_work_item(self, scope: str, repo: str, number: int) -> WorkItem | None:
        row = self.con.execute(
            f"SELECT {_COLUMNS} FROM work_items WHERE scope = ? AND repo = ? AND number = ?",
            [_require(scope), repo, number],
        ).fetchone()
        return _row(row) if row else None

    def put_work_item(self, w: WorkItem) -> None:
        self.con.execute(
            f"INSERT OR REPLACE INTO work_items ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [*_state(w), w.last_event],
        )

    def work_items(self, scope: str, state: str | None = None) -> list[WorkItem]:
        sql = f"SELECT {_COLUMNS} FROM work_items WHERE scope = ?"
        params: list[Any] = [_require(scope)]
        if state is not None:
            sql += " AND state = ?"
            params.append(state)
        return [
            _row(r)
            for r in self.con.execute(sql + " ORDER BY updated_at DESC, repo, number", params).fetchall()
        ]

    def drop_work_item(self, scope: str, repo: str, number: int) -> None:
        self.con.execute(
            "DELETE FROM work_items WHERE scope = ? AND repo = ? AND number = ?",
            [_require(scope), repo, number],
        )

    # ---- one snapshot per delivery (what forgetting a delivery derives the state from) ---------

    def put_work_item_snapshot(self, w: WorkItem) -> None:
        """Keep the snapshot delivery `w.last_event` brought; a redelivery keeps the first."""
        self.con.execute(
            f"INSERT INTO work_item_snapshots (delivery, {_SNAPSHOT})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [w.last_event, *_state(w), w.knows_reviewers],
        )

    def work_item_snapshots(self, scope: str, repo: str, number: int) -> list[WorkItem]:
        """The kept snapshots of one pull request / issue, oldest first (payload time, then arrival)."""
        rows = self.con.execute(
            f"SELECT {_STATE}, delivery, knows_reviewers FROM work_item_snapshots WHERE scope = ? AND repo = ? AND number = ?"
            " ORDER BY updated_at, seq",
            [_require(scope), repo, number],
        ).fetchall()
        return [replace(_row(r), knows_reviewers=bool(r[13])) for r in rows]

    def drop_work_item_snapshots(self, scope: str, deliveries: Sequence[str]) -> list[tuple[str, int]]:
        """Delete the snapshots of these deliveries; returns the (repo, number) each was about."""
        if not deliveries:
            return []
        rows = self.con.execute(
            "DELETE FROM work_item_snapshots WHERE scope = ? AND delivery IN (SELECT unnest(?))"
            " RETURNING repo, number",
            [_require(scope), list(deliveries)],
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]
