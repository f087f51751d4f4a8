"""Workflow runs: the SQL of the per-lane completed runs that cases are found in (daemon/state/workflow_runs.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from daemon.memory.store.core import Table, _require, _utc
from daemon.state.types import WorkflowRun

_COLUMNS = (
    "scope, run_key, delivery, repo, workflow, workflow_name, branch, started_at, conclusion,"
    " head_sha, head_message, head_author, url"
)
_LANE = "scope = ? AND repo = ? AND workflow = ? AND branch = ?"


def _run(r: tuple[Any, ...]) -> WorkflowRun:
    return WorkflowRun(*r[:13])


def _lane(run: WorkflowRun) -> list[Any]:
    return [_require(run.scope), run.repo, run.workflow, run.branch]


class WorkflowRunTable(Table):
    """One row per (scope, run key); `case_in` marks a run whose fix is a case already."""

    def put_workflow_run(self, run: WorkflowRun) -> bool:
        """Keep a run (a redelivery keeps the first); True when it was new."""
        rows = self.con.execute(
            f"INSERT INTO workflow_runs ({_COLUMNS}) VALUES ({', '.join('?' * 13)})"
            " ON CONFLICT DO NOTHING RETURNING run_key",
            [
                _require(run.scope),
                run.run_key,
                run.delivery,
                run.repo,
                run.workflow,
                run.workflow_name,
                run.branch,
                _utc(run.started_at),
                run.conclusion,
                run.head_sha,
                run.head_message,
                run.head_author,
                run.url,
            ],
        ).fetchall()
        return bool(rows)

    def workflow_run(self, scope: str, run_key: str) -> tuple[WorkflowRun, str | None] | None:
        """A kept run and the delivery whose resource carries the case it fixed (or None)."""
        row = self.con.execute(
            f"SELECT {_COLUMNS}, case_in FROM workflow_runs WHERE scope = ? AND run_key = ?",
            [_require(scope), run_key],
        ).fetchone()
        return (_run(row), row[13]) if row else None

    def neighbour_run(self, run: WorkflowRun, *, after: bool) -> tuple[WorkflowRun, str | None] | None:
        """The lane's run right before (or after) `run`, by start time then run key."""
        cmp, order = (">", "ASC") if after else ("<", "DESC")
        row = self.con.execute(
            f"SELECT {_COLUMNS}, case_in FROM workflow_runs WHERE {_LANE}"
            f" AND (started_at, run_key) {cmp} (?, ?) ORDER BY started_at {order}, run_key {order} LIMIT 1",
            [*_lane(run), _utc(run.started_at), run.run_key],
        ).fetchone()
        return (_run(row), row[13]) if row else None

    def runs_before(self, run: WorkflowRun, limit: int) -> list[WorkflowRun]:
        """Up to `limit` runs of the lane before `run`, the latest first."""
        rows = self.con.execute(
            f"SELECT {_COLUMNS} FROM workflow_runs WHERE {_LANE} AND (started_at, run_key) < (?, ?)"
            " ORDER BY started_at DESC, run_key DESC LIMIT ?",
            [*_lane(run), _utc(run.started_at), run.run_key, limit],
        ).fetchall()
        return [_run(r) for r in rows]

    def mark_case(self, scope: str, run_key: str, carrier: str) -> None:
        self.con.execute(
            "UPDATE workflow_runs SET case_in = ? WHERE scope = ? AND run_key = ?",
            [carrier, _require(scope), run_key],
        )

    def case_carried_by(self, scope: str, delivery: str) -> WorkflowRun | None:
        """The fixing run whose case the resource of `delivery` carries, if any."""
        row = self.con.execute(
            f"SELECT {_COLUMNS} FROM workflow_runs WHERE scope = ? AND case_in = ? LIMIT 1",
            [_require(scope), delivery],
        ).fetchone()
        return _run(row) if row else None

    def push_of(self, scope: str, repo: str, sha: str) -> tuple[str, str | None] | None:
        """The stored push delivery (id, actor) whose head commit is `sha`, the first stored."""
        row = self.con.execute(
            "SELECT id, json_extract_string(meta, '$.actor') FROM resources WHERE scope = ? AND kind = 'github'"
            " AND json_extract_string(meta, '$.event') = 'push' AND json_extract_string(meta, '$.repo') = ?"
            " AND json_extract_string(meta, '$.head_sha') = ? ORDER BY seq LIMIT 1",
            [_require(scope), repo, sha],
        ).fetchone()
        return (row[0], row[1]) if row else None

    def passed_for(self, scope: str, repo: str, number: int, since: datetime) -> datetime | None:
        """When the first completed run that passed for pull request `repo#number` arrived after
        `since` (a stored workflow_run or check_suite delivery naming it), or None."""
        row = self.con.execute(
            "SELECT min(occurred_at) FROM resources WHERE scope = ? AND kind = 'github'"
            " AND json_extract_string(meta, '$.event') IN ('workflow_run', 'check_suite')"
            " AND json_extract_string(meta, '$.repo') = ?"
            " AND json_extract_string(meta, '$.conclusion') = 'success'"
            " AND json_contains(json_extract(meta, '$.pull_requests'), ?) AND occurred_at > ?",
            [_require(scope), repo, str(int(number)), _utc(since)],
        ).fetchone()
        return row[0] if row and row[0] is not None else None

    def drop_workflow_runs(self, scope: str, deliveries: Sequence[str] | None = None) -> int:
        """Delete the runs these deliveries reported (all of the scope's for None); a case carried
        by one of them is gone with its resource, so its fixing run is unmarked. Returns runs."""
        scope = _require(scope)
        if deliveries is None:
            rows = self.con.execute(
                "DELETE FROM workflow_runs WHERE scope = ? RETURNING 1", [scope]
            ).fetchall()
            return len(rows)
        if not deliveries:
            return 0
        rows = self.con.execute(
            "DELETE FROM workflow_runs WHERE scope = ? AND delivery IN (SELECT unnest(?)) RETURNING 1",
            [scope, list(deliveries)],
        ).fetchall()
        self.con.execute(
            "UPDATE workflow_runs SET case_in = NULL WHERE scope = ? AND case_in IN (SELECT unnest(?))",
            [scope, list(deliveries)],
        )
        return len(rows)
