"""Reducing a GitHub payload to the fields memubot reads, for deliveries too large for the bus.

GitHub sends up to 25 MB; an event on `memubot.in.github` may be at most MAX_EVENT_BYTES
(daemon/events.py). A delivery over that is not dropped: its payload keeps only what the
handlers read (KEEP below: who, which repository, which pull request or issue and its state,
the comment, review, release, workflow or push it is about), long texts are cut, and the
payload says `"memubot_reduced": true`. This list is what docs/triggers.md documents.
"""

from __future__ import annotations

from typing import Any

Spec = dict[str, Any]  # key → None (keep the value if it is a scalar) | Spec (an object) | [Spec] (a list)

_USER: Spec = {"login": None}
_TEAM: Spec = {"slug": None, "name": None}
_TEXT = "text"  # a string that is cut to the body limit
_ITEM: Spec = {
    "number": None,
    "title": _TEXT,
    "html_url": None,
    "state": None,
    "merged": None,
    "merged_at": None,
    "draft": None,
    "created_at": None,
    "updated_at": None,
    "closed_at": None,
    "body": _TEXT,
    "user": _USER,
    "requested_reviewers": [_USER],
    "requested_teams": [_TEAM],
    "assignees": [_USER],
    "pull_request": {"html_url": None, "merged_at": None},
}
KEEP: Spec = {
    "action": None,
    "number": None,
    "ref": None,
    "ref_type": None,
    "created": None,
    "deleted": None,
    "forced": None,
    "compare": None,
    "starred_at": None,
    "sender": _USER,
    "repository": {"full_name": None, "name": None, "html_url": None},
    "pull_request": _ITEM,
    "issue": _ITEM,
    "requested_reviewer": _USER,
    "requested_team": _TEAM,
    "assignee": _USER,
    "label": {"name": None},
    "comment": {"html_url": None, "user": _USER, "body": _TEXT, "created_at": None, "updated_at": None},
    "review": {"html_url": None, "user": _USER, "body": _TEXT, "state": None, "submitted_at": None},
    "release": {"tag_name": None, "name": _TEXT, "html_url": None, "prerelease": None, "draft": None},
    "workflow": {"name": None},
    "workflow_run": {
        "name": None,
        "status": None,
        "conclusion": None,
        "head_branch": None,
        "head_sha": None,
        "html_url": None,
        "updated_at": None,
        "pull_requests": [{"number": None}],
    },
    "check_suite": {
        "status": None,
        "conclusion": None,
        "head_branch": None,
        "head_sha": None,
        "updated_at": None,
        "app": {"name": None},
        "pull_requests": [{"number": None}],
    },
    # GitHub lists at most 20 commits in a push; their count is what the summary says
    "commits": [{"id": None, "message": _TEXT}],
    "head_commit": {"id": None, "message": _TEXT},
}


def _cut(value: Any, limit: int) -> Any:
    if not isinstance(value, str) or len(value) <= limit:
        return value
    return value[: max(0, limit - 1)] + "…"


def _keep(value: Any, spec: Any, limit: int) -> Any:
    if spec is None:
        return value if value is None or isinstance(value, str | int | float | bool) else None
    if spec == _TEXT:
        return _cut(value, limit)
    if isinstance(spec, list):
        return [_keep(v, spec[0], limit) for v in value] if isinstance(value, list) else None
    if not isinstance(value, dict):
        return None
    return {k: _keep(value[k], sub, limit) for k, sub in spec.items() if k in value}


def reduce_payload(payload: dict[str, Any], text_limit: int = 4000) -> dict[str, Any]:
    """The payload with only KEEP's fields, texts cut to `text_limit` characters, marked reduced."""
    out = _keep(payload, KEEP, text_limit)
    assert isinstance(out, dict)
    out["memubot_reduced"] = True
    return out
