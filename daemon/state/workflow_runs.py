"""Workflow runs: per lane (repository, workflow, branch), the completed runs that cases come from.

A **case** is a lane's failing run and the run that succeeded right after it: what broke, since
when, and which commit fixed it. Runs are ordered by the payload's start time, never by arrival,
so a success older than the failure fixes nothing; a failure that arrives after the newer
success that fixed it still makes the case (its own resource carries it). Each fixing run makes
at most one case (`case_in` marks it), and a redelivery gets the decision made the first time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

from daemon.memory.store import Store
from daemon.state.tables.workflow_runs import WorkflowRunTable
from daemon.state.types import WorkflowFix, WorkflowRun

FAILED = frozenset({"failure", "timed_out", "startup_failure"})
SUCCESS = "success"
MAX_STREAK = 20  # failing runs looked back over for "since when": enough for any story worth telling


def _streak(table: WorkflowRunTable, fixed: WorkflowRun) -> tuple[WorkflowRun, ...]:
    """The failing runs right before `fixed`, oldest first (empty when the run before passed)."""
    out: list[WorkflowRun] = []
    for run in table.runs_before(fixed, MAX_STREAK):
        if run.conclusion not in FAILED:
            break
        out.append(run)
    return tuple(reversed(out))


class WorkflowRuns:
    """Record completed runs and find the cases they close; shares the memory's lock."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self.table = WorkflowRunTable(store)
        self._lock = lock

    def forget(self, scope: str, deliveries: Sequence[str] | None) -> dict[str, int]:
        """Forgetting hook: drop the runs forgotten deliveries reported (None: every run of the
        scope). The caller holds the memory's locks."""
        return {"workflow_runs": self.table.drop_workflow_runs(scope, deliveries)}

    def record(self, run: WorkflowRun) -> WorkflowFix | None:
        """Keep one completed run, in one transaction; the case its delivery carries, if any.

        A success right after a failure of its lane is fixed by itself; a failure right before a
        success that is no case yet makes that case. A delivery forgotten before it came again
        is not brought back (None).
        """
        if run.conclusion not in FAILED and run.conclusion != SUCCESS:
            raise ValueError(f"workflow run {run.run_key!r}: conclusion {run.conclusion!r} is no outcome")
        with self._lock, self.store.transaction():
            if self.store.resources.is_forgotten(run.scope, run.delivery):
                return None
            if not self.table.put_workflow_run(run):
                # seen before: the case this delivery carries, as decided the first time
                fixed = self.table.case_carried_by(run.scope, run.delivery)
                return self._fix(fixed, run.delivery) if fixed is not None else None
            if run.conclusion == SUCCESS:
                before = self.table.neighbour_run(run, after=False)
                if before is None or before[0].conclusion not in FAILED:
                    return None
                fixed = run
            else:
                after = self.table.neighbour_run(run, after=True)
                if after is None or after[0].conclusion != SUCCESS or after[1] is not None:
                    return None
                fixed = after[0]
            self.table.mark_case(run.scope, fixed.run_key, run.delivery)
            return self._fix(fixed, run.delivery)

    def passed_for(self, scope: str, repo: str, number: int, since: datetime) -> datetime | None:
        """When a run that passed for pull request `repo#number` first arrived after `since`."""
        with self._lock:
            return self.table.passed_for(scope, repo, number, since)

    def _fix(self, fixed: WorkflowRun, carrier: str) -> WorkflowFix | None:
        failed = _streak(self.table, fixed)
        if not failed:
            return None
        push = self.table.push_of(fixed.scope, fixed.repo, fixed.head_sha)
        return WorkflowFix(
            failed=failed,
            fixed=fixed,
            carrier=carrier,
            push=push[0] if push else None,
            pusher=push[1] if push else None,
        )
