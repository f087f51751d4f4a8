"""The identity of a GitHub event, whichever way it arrived: a webhook delivery or a poll.

A webhook delivery is named by `X-GitHub-Delivery`; the same event read back from the Events
API has another id altogether. So that the two store it once, a delivery's resource is named
by what happened, not by how it came: `content_key` builds a key from the payload fields both
forms carry (the repository, the object's own id or number, the action, the object's
`updated_at` and who or what the action was about), and `resource_id` hashes it.

Where the two forms share no such fields (a branch created, a star, an event type memubot does
not know) there is no key and the delivery id names the resource: a webhook and a poll of that
event are then stored twice, never lost. A key never joins two events that differ in what the
handlers read: it holds the fields that tell them apart.
"""

from __future__ import annotations

import hashlib
from typing import Any

PREFIX = "github:"


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _who(payload: dict[str, Any]) -> str:
    """Who or what an action on a pull request or issue was about (a reviewer, label, assignee)."""
    for field, name in (
        ("requested_reviewer", "login"),
        ("requested_team", "slug"),
        ("assignee", "login"),
        ("label", "name"),
        ("milestone", "number"),
    ):
        value = _obj(payload.get(field)).get(name)
        if value is not None:
            return f"{field}={value}"
    return ""


def _parts(event: str, payload: dict[str, Any]) -> list[Any] | None:
    action = payload.get("action") if isinstance(payload.get("action"), str) else ""
    if event in ("pull_request", "issues"):
        obj = _obj(payload.get("pull_request" if event == "pull_request" else "issue"))
        if obj.get("number") is None or obj.get("updated_at") is None:
            return None
        return [obj["number"], action, obj["updated_at"], _who(payload)]
    if event in ("issue_comment", "pull_request_review_comment", "commit_comment"):
        comment = _obj(payload.get("comment"))
        if comment.get("id") is None:
            return None
        # an edit is a new event about the same comment: its time tells the edits apart
        return [comment["id"], action, comment.get("updated_at") if action == "edited" else ""]
    if event == "pull_request_review":
        review = _obj(payload.get("review"))
        return None if review.get("id") is None else [review["id"], action]
    if event == "push":
        after = payload.get("after") or payload.get("head")
        return None if not after else [payload.get("ref"), after]
    if event == "release":
        release = _obj(payload.get("release"))
        return None if release.get("id") is None else [release["id"], action]
    if event == "fork":
        forkee = _obj(payload.get("forkee"))
        return None if forkee.get("id") is None else [forkee["id"]]
    if event == "member":
        member = _obj(payload.get("member")).get("login")
        return None if member is None else [member, action]
    if event in ("workflow_run", "check_suite", "check_run"):
        obj = _obj(payload.get(event))
        if obj.get("id") is None:
            return None
        return [obj["id"], action, obj.get("run_attempt"), obj.get("updated_at")]
    return None


def content_key(event: str, payload: dict[str, Any]) -> str | None:
    """What happened, as a string both a webhook delivery and a polled event yield; None if unknown."""
    repo = _obj(payload.get("repository")).get("full_name")
    if not isinstance(repo, str) or not repo:
        return None
    parts = _parts(event, payload)
    if parts is None:
        return None
    return "|".join([event, repo.lower(), *("" if p is None else str(p) for p in parts)])


def resource_id(event: str, payload: dict[str, Any], delivery: str) -> str:
    """The id of the resource a GitHub event becomes: its content key's hash, else the delivery id."""
    key = content_key(event, payload)
    if key is None:
        return delivery
    return PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
