"""GitHub summaries: one line of text and the meta fields for a delivery (pure functions).

The line is what the resource stores as its text ("octocat requested a review from you on
Codertocat/Hello-World#2 'Update the README'"); the meta carries event, action, repository,
number, URL, actor and the person's role. Everything taken from the payload is untrusted:
titles and names are flattened to one line and capped, never interpreted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_TITLE_CHARS = 120  # a title longer than this is cut with an ellipsis: the summary stays one line
ROLES = ("requested_reviewer", "assignee", "author", "mentioned")  # most specific first


@dataclass(frozen=True, slots=True)
class Summary:
    """What a delivery says, in one line, and the fields predictors and recall filter on."""

    text: str
    meta: dict[str, Any] = field(default_factory=dict)


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def one_line(text: Any, limit: int = MAX_TITLE_CHARS) -> str:
    """Untrusted text as one capped line: newlines and runs of spaces collapse to one space."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _login(user: Any) -> str | None:
    return _str(_obj(user).get("login"))


def _logins(users: Any) -> list[str]:
    return [login for u in users if (login := _login(u))] if isinstance(users, list) else []


def subject_of(payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The pull request or issue a delivery is about, as ("pr" | "issue", object), or None.

    An issue comment on a pull request carries the PR as an `issue` with a `pull_request` key.
    """
    pr = _obj(payload.get("pull_request"))
    if pr.get("number") is not None:
        return "pr", pr
    issue = _obj(payload.get("issue"))
    if issue.get("number") is not None:
        return ("pr" if "pull_request" in issue else "issue"), issue
    return None


def mentions(text: Any, login: str) -> bool:
    """Whether `@login` appears in a body (GitHub logins are case-insensitive)."""
    if not isinstance(text, str) or not login:
        return False
    return re.search(rf"(?<![\w-])@{re.escape(login)}(?![\w-])", text, flags=re.I) is not None


def roles_of(payload: dict[str, Any], login: str | None) -> list[str]:
    """The person's roles in what a delivery is about, most specific first (ROLES)."""
    if not login:
        return []
    me = login.lower()
    found: set[str] = set()
    subject = subject_of(payload)
    if subject is not None:
        _, obj = subject
        if me in (x.lower() for x in _logins(obj.get("requested_reviewers"))):
            found.add("requested_reviewer")
        if me in (x.lower() for x in _logins(obj.get("assignees"))):
            found.add("assignee")
        if (_login(obj.get("user")) or "").lower() == me:
            found.add("author")
        if mentions(obj.get("body"), login):
            found.add("mentioned")
    if (_login(payload.get("requested_reviewer")) or "").lower() == me:
        found.add("requested_reviewer")
    if (_login(payload.get("assignee")) or "").lower() == me:
        found.add("assignee")
    for key in ("comment", "review"):
        if mentions(_obj(payload.get(key)).get("body"), login):
            found.add("mentioned")
    return [r for r in ROLES if r in found]


def _who(user: Any, login: str | None) -> str:
    """A user as the summary names them: "you" for the person, else their login."""
    name = _login(user) or "someone"
    return "you" if login and name.lower() == login.lower() else name


def _ref_name(ref: Any) -> str:
    text = _str(ref) or "?"
    for prefix in ("refs/heads/", "refs/tags/"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _phrase(event: str, action: str | None, payload: dict[str, Any], login: str | None, where: str) -> str:
    """The verb phrase after the actor: "requested a review from you on R#2 'title'"."""
    subject = subject_of(payload)
    title = f" '{one_line(subject[1].get('title'))}'" if subject and subject[1].get("title") else ""
    on = f"{where}{title}"
    if event in ("pull_request", "issues"):
        noun = "pull request" if event == "pull_request" else "issue"
        pr = _obj(payload.get("pull_request"))
        if action == "review_requested":
            reviewer = payload.get("requested_reviewer") or payload.get("requested_team")
            name = (
                _who(reviewer, login) if _login(reviewer) else _str(_obj(reviewer).get("name")) or "someone"
            )
            return f"requested a review from {name} on {on}"
        if action == "review_request_removed":
            reviewer = payload.get("requested_reviewer") or payload.get("requested_team")
            name = (
                _who(reviewer, login) if _login(reviewer) else _str(_obj(reviewer).get("name")) or "someone"
            )
            return f"removed the review request for {name} on {on}"
        if action in ("assigned", "unassigned"):
            prep = "to" if action == "assigned" else "from"
            assignee = payload.get("assignee")
            name = _who(assignee, login)
            # the sender assigning themselves: "you assigned yourself", never "you assigned you"
            if (_login(assignee) or "").lower() == (_login(payload.get("sender")) or "-").lower():
                name = "yourself" if name == "you" else "themselves"
            return f"{action} {name} {prep} {on}"
        if action == "closed" and pr.get("merged"):
            return f"merged {noun} {on}"
        if action in ("labeled", "unlabeled"):
            label = one_line(_obj(payload.get("label")).get("name"), 60) or "a label"
            return f"{action} {on} '{label}'" if action == "labeled" else f"removed label '{label}' from {on}"
        if action == "synchronize":
            return f"pushed to {noun} {on}"
        if action == "ready_for_review":
            return f"marked {noun} {on} ready for review"
        if action == "converted_to_draft":
            return f"converted {noun} {on} to a draft"
        verb = (action or "updated").replace("_", " ")
        return f"{verb} {noun} {on}"
    if event == "issue_comment":
        return f"{'commented on' if action == 'created' else f'{action} a comment on'} {on}"
    if event == "pull_request_review":
        state = _str(_obj(payload.get("review")).get("state")) or ""
        if action == "submitted":
            verb = {
                "approved": "approved",
                "changes_requested": "requested changes on",
                "commented": "reviewed",
            }.get(state.lower(), "reviewed")
            return f"{verb} {on}"
        return f"{(action or 'updated').replace('_', ' ')} a review of {on}"
    if event == "pull_request_review_comment":
        return (
            f"{'commented on the diff of' if action == 'created' else f'{action} a review comment on'} {on}"
        )
    if event == "push":
        commits = payload.get("commits")
        n = len(commits) if isinstance(commits, list) else 0
        branch = _ref_name(payload.get("ref"))
        if payload.get("deleted"):
            return f"deleted {branch} in {where}"
        return f"pushed {n} commit{'s' if n != 1 else ''} to {branch} in {where}"
    if event in ("create", "delete"):
        kind = _str(payload.get("ref_type")) or "ref"
        return f"{'created' if event == 'create' else 'deleted'} {kind} {_ref_name(payload.get('ref'))} in {where}"
    if event == "release":
        release = _obj(payload.get("release"))
        tag = one_line(release.get("tag_name") or release.get("name"), 60) or "a release"
        verb = "released" if action == "released" else f"{(action or 'updated').replace('_', ' ')} release"
        return f"{verb} {tag} of {where}"
    if event == "star":
        return f"{'starred' if action == 'created' else 'unstarred'} {where}"
    if event in ("workflow_run", "check_suite"):
        run = _obj(payload.get(event))
        name = one_line(
            run.get("name") or _obj(payload.get("workflow")).get("name") or _obj(run.get("app")).get("name"),
            60,
        )
        noun = "workflow" if event == "workflow_run" else "checks"
        label = f"{noun} '{name}'" if name else noun
        outcome = _str(run.get("conclusion")) or _str(run.get("status")) or action or "updated"
        head = _str(run.get("head_branch"))
        return f"ran {label}: {outcome.replace('_', ' ')}{f' on {head}' if head else ''} in {where}"
    return f"sent {event}{f' ({action})' if action else ''} for {where}"


def summarize(event: str, action: str | None, payload: dict[str, Any], login: str | None) -> Summary:
    """The resource text and meta for one delivery of `event` with `action`; `login` is the person's."""
    repo = _obj(payload.get("repository"))
    repo_name = one_line(repo.get("full_name"), 200) or None
    subject = subject_of(payload)
    number = subject[1].get("number") if subject else None
    number = number if isinstance(number, int) else None
    where = f"{repo_name or 'a repository'}{f'#{number}' if number is not None else ''}"
    sender = payload.get("sender")
    actor = _login(sender)
    text = f"{_who(sender, login) if actor else 'GitHub'} {_phrase(event, action, payload, login, where)}"
    # the most precise link: the comment or review itself, else the PR or issue, else the repository
    url = (
        _str(_obj(payload.get("comment")).get("html_url"))
        or _str(_obj(payload.get("review")).get("html_url"))
        or (_str(subject[1].get("html_url")) if subject else None)
        or _str(_obj(payload.get("release")).get("html_url"))
        or _str(_obj(payload.get("workflow_run")).get("html_url"))
        or (_str(payload.get("compare")) if event == "push" else None)
        or _str(repo.get("html_url"))
    )
    roles = roles_of(payload, login)
    meta: dict[str, Any] = {
        "event": event,
        "action": action,
        "repo": repo_name,
        "number": number,
        "url": url,
        "actor": actor,
        "role": roles[0] if roles else None,
        "roles": roles,
        "by_person": bool(login and actor and actor.lower() == login.lower()),
    }
    if subject is not None:
        meta["subject"] = subject[0]
    if event in ("workflow_run", "check_suite"):
        # what a completed run says of the pull requests it ran for: "once CI is green" waits on it
        run = _obj(payload.get(event))
        meta["conclusion"] = _str(run.get("conclusion"))
        meta["pull_requests"] = [
            n for p in run.get("pull_requests") or [] if isinstance(n := _obj(p).get("number"), int)
        ]
    if event == "push" and _str(payload.get("after")):
        # the pushed head commit: a case names the push that brought the commit fixing a workflow
        meta["head_sha"] = payload["after"]
    return Summary(one_line(text, 400), meta)
