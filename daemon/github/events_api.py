"""Events API items → the webhook form memubot's GitHub handler reads (pure).

The poller (daemon/github/poll.py) reads the person's events from `GET /users/{login}/events`
and `/received_events`. Those items name the event type in CamelCase ("PullRequestEvent"),
keep the repository and the actor outside the payload, and spell a few things their own way
(a review is "created", not "submitted"; a push names its head commit `head`, not `after`).
`webhook_form` rewrites an item into the (event, payload) pair a webhook delivery of the same
event carries, so that one handler, one summary and one content key (daemon/github/ids.py) serve
both. Fields the Events API leaves out stay out: nothing is invented.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from daemon.errors import InvalidEvent
from daemon.events import parse_ts

# Events API type → webhook event name; a type not listed becomes its snake_case name
EVENT_NAMES = {
    "PullRequestEvent": "pull_request",
    "PullRequestReviewEvent": "pull_request_review",
    "PullRequestReviewCommentEvent": "pull_request_review_comment",
    "PullRequestReviewThreadEvent": "pull_request_review_thread",
    "IssuesEvent": "issues",
    "IssueCommentEvent": "issue_comment",
    "PushEvent": "push",
    "CreateEvent": "create",
    "DeleteEvent": "delete",
    "ReleaseEvent": "release",
    "ForkEvent": "fork",
    "WatchEvent": "watch",
    "MemberEvent": "member",
    "PublicEvent": "public",
    "CommitCommentEvent": "commit_comment",
    "GollumEvent": "gollum",
    "DiscussionEvent": "discussion",
    "SponsorshipEvent": "sponsorship",
}
# the Events API's action where the webhook's differs
_ACTIONS = {("pull_request_review", "created"): "submitted"}


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def event_name(kind: str) -> str:
    """The webhook event name of an Events API type ("PullRequestEvent" → "pull_request")."""
    if kind in EVENT_NAMES:
        return EVENT_NAMES[kind]
    stem = kind.removesuffix("Event") or kind
    return re.sub(r"(?<!^)(?=[A-Z])", "_", stem).lower()


def web_url(api_url: str) -> str:
    """The web root of an API root: api.github.com → github.com; GHE's /api/v3 → the host."""
    root = api_url.rstrip("/")
    if root == "https://api.github.com":
        return "https://github.com"
    return root.removesuffix("/api/v3")


def webhook_form(item: dict[str, Any], api_url: str) -> tuple[str, dict[str, Any], datetime]:
    """(event, payload, when it happened) of one Events API item; InvalidEvent if it is not one."""
    kind, repo, created = item.get("type"), _obj(item.get("repo")), item.get("created_at")
    name = repo.get("name")
    if not isinstance(kind, str) or not isinstance(name, str) or not isinstance(created, str):
        raise InvalidEvent(f"not an Events API item: type {kind!r}, repo {name!r}, created_at {created!r}")
    event = event_name(kind)
    payload = dict(_obj(item.get("payload")))
    action = payload.get("action")
    if isinstance(action, str) and (event, action) in _ACTIONS:
        payload["action"] = _ACTIONS[(event, action)]
    owner, _, short = name.partition("/")
    payload["repository"] = {
        "id": repo.get("id"),
        "name": short,
        "full_name": name,
        "owner": {"login": owner},
        "html_url": f"{web_url(api_url)}/{name}",
    }
    actor = _obj(item.get("actor"))
    if isinstance(actor.get("login"), str):
        payload["sender"] = {"login": actor["login"], "id": actor.get("id")}
    org = _obj(item.get("org"))
    if isinstance(org.get("login"), str):
        payload["organization"] = {"login": org["login"]}
    if event == "push" and "after" not in payload and isinstance(payload.get("head"), str):
        payload["after"] = payload["head"]
    if event == "pull_request":
        pr = payload.get("pull_request")
        if isinstance(pr, dict) and "number" not in pr and isinstance(payload.get("number"), int):
            payload["pull_request"] = {**pr, "number": payload["number"]}
    return event, payload, parse_ts(created)
