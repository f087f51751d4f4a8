"""GitHub cases: a failing workflow and the push that fixed it, as one `cases` item.

A completed workflow run (or check suite) is recorded per lane (repository, workflow, branch)
in the memory core (daemon/state/workflow_runs.py), which says when a run closes a failing
streak. This module reads runs out of payloads and words the case (pure functions), and
`case_drafts` records a batch's runs before their resources are stored, so the case item is
drafted from the delivery that completed the story and stored with it, exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from daemon.errors import InvalidEvent
from daemon.events import GithubEvent, parse_ts
from daemon.memory import Memory
from daemon.memory.types import ItemDraft
from daemon.state.types import WorkflowFix, WorkflowRun
from daemon.state.workflow_runs import FAILED, SUCCESS
from handlers.github.summary import one_line

RUN_EVENTS = ("workflow_run", "check_suite")


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _time(value: Any, fallback: datetime) -> datetime:
    try:
        return parse_ts(value) if isinstance(value, str) else fallback
    except InvalidEvent:
        return fallback  # a malformed time in the payload: the delivery's own time orders it


def run_from(event: GithubEvent, occurred_at: datetime) -> WorkflowRun | None:
    """The completed run a delivery reports, or None (not completed, no outcome, no branch)."""
    if event.event not in RUN_EVENTS or event.action != "completed":
        return None
    run = _obj(event.payload.get(event.event))
    conclusion = run.get("conclusion")
    repo = _str(_obj(event.payload.get("repository")).get("full_name"))
    branch = _str(run.get("head_branch"))
    sha = _str(run.get("head_sha"))
    if (conclusion not in FAILED and conclusion != SUCCESS) or not (repo and branch and sha):
        return None  # cancelled or skipped runs neither break nor fix anything
    if event.event == "workflow_run":
        name = _str(run.get("name")) or _str(_obj(event.payload.get("workflow")).get("name"))
        wid = run.get("workflow_id")
        workflow = f"workflow:{wid}" if wid is not None else f"workflow:{name or '?'}"
    else:
        app = _obj(run.get("app"))
        name = _str(app.get("name")) or _str(app.get("slug"))
        ident = app.get("id") or app.get("slug")
        workflow = f"checks:{ident}" if ident is not None else "checks"
        name = f"checks of {name}" if name else "checks"
    rid = run.get("id")
    key = f"{event.event}:{rid}:{run.get('run_attempt') or 1}" if rid is not None else f"delivery:{event.id}"
    head = _obj(run.get("head_commit"))
    # the run's own start (the commit it tested) orders the lane; arrival order means nothing
    started = _time(run.get("run_started_at") or run.get("created_at") or run.get("updated_at"), occurred_at)
    return WorkflowRun(
        scope=event.scope,
        run_key=key,
        delivery=event.id,
        repo=repo,
        workflow=workflow,
        workflow_name=one_line(name or "workflow", 60),
        branch=branch,
        started_at=started,
        conclusion=conclusion,
        head_sha=sha,
        head_message=one_line(str(head.get("message") or "").split("\n", 1)[0], 100),
        head_author=_str(_obj(head.get("author")).get("name")),
        url=_str(run.get("html_url")),
    )


def _when(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def case_draft(fix: WorkflowFix, at: datetime) -> ItemDraft:
    """The `cases` item: what failed, since when and which commit, and what fixed it."""
    first, last, ok = fix.failed[0], fix.failed[-1], fix.fixed
    runs = f"{len(fix.failed)} failed run{'s' if len(fix.failed) != 1 else ''}"
    by = f" by {ok.head_author}" if ok.head_author else ""
    message = f" “{ok.head_message}”" if ok.head_message else ""
    pushed = f", pushed by {fix.pusher}" if fix.push and fix.pusher else ""
    # the same commit passing on a re-run fixed nothing: the failure was flaky, and says so
    fixed_by = (
        f"passed on a re-run of commit {ok.head_sha[:7]}"
        if ok.head_sha == last.head_sha
        else f"fixed by commit {ok.head_sha[:7]}{message}{by}{pushed}"
    )
    last_one = f", the last {_when(last.started_at)}" if len(fix.failed) > 1 else ""
    l0 = (
        f"{ok.workflow_name} on {ok.branch} in {ok.repo} failed from {_when(first.started_at)}"
        f" (commit {first.head_sha[:7]}, {runs}{last_one}); {fixed_by}"
    )
    sources = [first.delivery, last.delivery, ok.delivery, *([fix.push] if fix.push else [])]
    return ItemDraft(
        category="cases",
        l0=l0,
        search_text=f"{l0} workflow CI build broken failing fixed",
        speaker=f"github:{ok.repo}",
        retires=False,  # a case is history: it never retires the repository's entity
        l1={
            "kind": "workflow_fix" if ok.head_sha != last.head_sha else "workflow_flaky",
            "repo": ok.repo,
            "workflow": ok.workflow_name,
            "branch": ok.branch,
            "failed_since": first.started_at.isoformat(),
            "failed_sha": first.head_sha,
            "failed_runs": len(fix.failed),
            "fixed_at": ok.started_at.isoformat(),
            "fixed_sha": ok.head_sha,
            "fixed_message": ok.head_message,
            "fixed_author": ok.head_author,
            "url": ok.url,
            "push": fix.push,
        },
        importance=0.6,
        confidence=0.9,
        # every delivery the story is told from: forgetting any of them forgets the case
        source_ids=tuple(dict.fromkeys(sources)),
        happened_at=ok.started_at,
        observed_at=at,
    )


def case_drafts(
    memory: Memory, events: Sequence[GithubEvent], when: dict[str, datetime]
) -> dict[str, tuple[ItemDraft, ...]]:
    """Record the completed runs of new deliveries, in order; delivery id → its case draft.

    Runs before their resources are memorized: a crash in between is repaired by the
    redelivery, which gets the same decision back (WorkflowRuns.record).
    """
    out: dict[str, tuple[ItemDraft, ...]] = {}
    for e in events:
        run = run_from(e, when[e.id])
        fix = memory.workflow_runs.record(run) if run is not None else None
        if fix is not None:
            out[e.id] = (case_draft(fix, when[e.id]),)
    return out
