"""GitHub deliveries → work-item snapshots: the state of a pull request or issue as sent (pure)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from daemon.errors import InvalidEvent
from daemon.events import GithubEvent, parse_ts
from daemon.state.types import WorkItem
from handlers.github.summary import one_line, subject_of

# issues that leave the repository are no longer open there
_GONE = frozenset({"deleted", "transferred"})


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _time(value: Any, fallback: datetime) -> datetime:
    try:
        return parse_ts(value) if isinstance(value, str) else fallback
    except InvalidEvent:
        return fallback  # a malformed time in the payload is GitHub's problem, not a reason to lose state


def _logins(users: Any) -> tuple[str, ...]:
    if not isinstance(users, list):
        return ()
    return tuple(u["login"] for u in users if isinstance(u, dict) and isinstance(u.get("login"), str))


def work_item_from(event: GithubEvent, login: str | None, occurred_at: datetime) -> WorkItem | None:
    """The snapshot a delivery carries of its pull request or issue, or None if it is about neither.

    `updated_at` is the object's own (GitHub's last activity), so that a late or repeated
    delivery never overwrites a newer state; `person_acted_at` is set when the person sent it.
    """
    subject = subject_of(event.payload)
    repo = _obj(event.payload.get("repository")).get("full_name")
    if subject is None or not isinstance(repo, str) or not repo:
        return None
    kind, obj = subject
    number = obj.get("number")
    if not isinstance(number, int):
        return None
    updated = _time(obj.get("updated_at"), occurred_at)
    merged = bool(obj.get("merged") or obj.get("merged_at") or _obj(obj.get("pull_request")).get("merged_at"))
    state = "merged" if merged else ("closed" if obj.get("state") == "closed" else "open")
    if event.event == "issues" and event.action in _GONE:
        state = "closed"
    teams = tuple(
        f"team:{t['slug']}"
        for t in obj.get("requested_teams") or []
        if isinstance(t, dict) and isinstance(t.get("slug"), str)
    )
    sender = _obj(event.payload.get("sender")).get("login")
    acted = None
    if login and isinstance(sender, str) and sender.lower() == login.lower():
        # when the person did it: the review or comment itself, else the object's last activity
        when = _obj(event.payload.get("review")).get("submitted_at") or _obj(
            event.payload.get("comment")
        ).get("updated_at")
        acted = _time(when, updated)
    user = _obj(obj.get("user")).get("login")
    requested = _logins(obj.get("requested_reviewers")) + teams
    # the action says who was just added or removed; a payload's list may lag behind it
    named = _obj(event.payload.get("requested_reviewer")).get("login")
    if isinstance(named, str) and event.action == "review_request_removed":
        requested = tuple(r for r in requested if r.lower() != named.lower())
    elif isinstance(named, str) and event.action == "review_requested" and named not in requested:
        requested += (named,)
    # a review submitted answers its reviewer's request, whatever the payload's list still says
    # (GitHub drops the reviewer from it; a request made again comes as a new review_requested)
    reviewer = _obj(_obj(event.payload.get("review")).get("user")).get("login")
    if event.event == "pull_request_review" and event.action == "submitted" and isinstance(reviewer, str):
        requested = tuple(r for r in requested if r.lower() != reviewer.lower())
    assignees = _logins(obj.get("assignees"))
    moved = _obj(event.payload.get("assignee")).get("login")
    if isinstance(moved, str) and event.action == "unassigned":
        assignees = tuple(a for a in assignees if a.lower() != moved.lower())
    elif isinstance(moved, str) and event.action == "assigned" and moved not in assignees:
        assignees += (moved,)
    return WorkItem(
        scope=event.scope,
        repo=repo,
        number=number,
        kind=kind,
        state=state,
        title=one_line(obj.get("title"), 300),
        updated_at=updated,
        url=obj.get("html_url") if isinstance(obj.get("html_url"), str) else None,
        author=user if isinstance(user, str) else None,
        requested=requested,
        assignees=assignees,
        person_acted_at=acted,
        last_event=event.id,
        # an issue-shaped pull request (issue_comment, issues) does not list its reviewers
        knows_reviewers=kind == "issue" or "requested_reviewers" in obj,
    )
