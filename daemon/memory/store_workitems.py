"""Work items: the SQL of the per-scope pull request / issue state (daemon/memory/workitems.py)."""

from __future__ import annotations

from typing import Any

from daemon.memory.store_core import StoreBase, _require, _utc
from daemon.memory.types import WorkItem

_COLUMNS = (
    "scope, repo, number, kind, state, title, updated_at, url, author, requested, assignees,"
    " person_acted_at, last_event"
)


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


class StoreWorkItems(StoreBase):
    """One row per (scope, repo, number), replaced whole: the caller merges (workitems.merge)."""

    def drop_work_items(self, scope: str) -> int:
        """Delete the scope's work items (forgetting everything): returns how many."""
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
            [
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
                w.last_event,
            ],
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
