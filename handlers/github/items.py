"""What a GitHub delivery teaches memory: items drawn from it (pure functions).

- **events**: what happened, in the delivery's own one-line summary, for the actions that
  change something a person would remember (a PR or issue opened, closed, merged, reopened,
  assigned; a review requested or submitted; a release published; a branch or tag created or
  deleted; a workflow run that completed with a failure or after one). Edits, labels, stars and
  the like stay resources only.
- **entities**: the repository, and the pull request or issue with its title and author.

Every item's speaker is the repository or the PR/issue (`github:<repo>[#n]`), never the person:
GitHub text is other people's words (trust `external`), and the newest-truth model only compares
statements of one speaker, so a retitled PR updates its own entity and nothing of the person's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from daemon.memory.types import ItemDraft
from handlers.github.summary import Summary, one_line, subject_of

EVENT_ACTIONS: dict[str, frozenset[str | None]] = {
    "pull_request": frozenset(
        {"opened", "closed", "reopened", "assigned", "review_requested", "ready_for_review"}
    ),
    "pull_request_review": frozenset({"submitted"}),
    "issues": frozenset({"opened", "closed", "reopened", "assigned"}),
    "release": frozenset({"published", "released"}),
    "create": frozenset({None}),
    "delete": frozenset({None}),
    "workflow_run": frozenset({"completed"}),
}


def _worth_an_event(event: str, action: str | None, payload: dict[str, Any]) -> bool:
    if action not in EVENT_ACTIONS.get(event, frozenset()):
        return False
    if event == "workflow_run":
        # a failure, or a success after one ("recovered"): a green run like every other is no news
        run = payload.get("workflow_run") or {}
        return run.get("conclusion") in ("failure", "timed_out") or bool(run.get("previous_attempt_url"))
    return True


def drafts_for(
    event: str, action: str | None, payload: dict[str, Any], summary: Summary, delivery: str, at: datetime
) -> tuple[ItemDraft, ...]:
    """The items a delivery becomes (none for what carries no knowledge)."""
    repo = summary.meta.get("repo")
    if not isinstance(repo, str) or not repo:
        return ()
    out: list[ItemDraft] = []
    number = summary.meta.get("number")
    thing = f"github:{repo}" + (f"#{number}" if number is not None else "")

    def draft(
        category: str, l0: str, search: str, speaker: str, l1: dict[str, Any], importance: float
    ) -> ItemDraft:
        # what happened is history, not a new truth: an event retires nothing (it once retired
        # its own PR's entity, "closed pull request #2" over "Pull request #2 …")
        return ItemDraft(
            category=category,
            l0=l0,
            search_text=search,
            speaker=speaker,
            l1=l1,
            importance=importance,
            confidence=0.9,
            source_ids=(delivery,),
            happened_at=at,
            observed_at=at,
            retires=category != "events",
        )

    if _worth_an_event(event, action, payload):
        l1 = {k: summary.meta.get(k) for k in ("event", "action", "repo", "number", "url", "actor", "role")}
        out.append(
            draft("events", summary.text, summary.text, thing, l1, 0.6 if summary.meta.get("role") else 0.4)
        )
    description = one_line((payload.get("repository") or {}).get("description"))
    out.append(
        draft(
            "entities",
            f"GitHub repository {repo}",
            f"GitHub repository {repo} {description}",
            f"github:{repo}",
            {"kind": "repository", "name": repo},
            0.3,
        )
    )
    subject = subject_of(payload)
    if subject is not None and number is not None:
        kind, obj = subject
        title = one_line(obj.get("title"))
        author = (obj.get("user") or {}).get("login")
        label = "Pull request" if kind == "pr" else "Issue"
        l0 = f"{label} {repo}#{number} “{title}”" + (f" by {author}" if author else "")
        l1 = {"kind": kind, "repo": repo, "number": number, "title": title, "author": author}
        out.append(draft("entities", l0, l0, thing, l1, 0.4))
    return tuple(out)
