"""follow-up (GitHub): a review requested from the person, an issue assigned to them.

Mentioned once it has stayed open for `followup_delay_minutes` (GitHub already notified; memubot
nudges about what is still waiting, and says nothing about a request withdrawn a minute later).
Withdrawn when it is resolved: reviewed or otherwise acted on by the person, the request
removed, the person unassigned, the pull request or issue closed or merged. A new request after
the person acted is a new follow-up (the dedup key names when they last acted).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from daemon.predict.base import Ctx, Recheck, Trigger, WorkItemChanged, short
from daemon.state.suggestions import Suggestion
from daemon.state.types import WorkItem

NAME = "github"


def waits_for(w: WorkItem, login: str | None) -> str | None:
    """'review' / 'assigned' when the item waits on the person, else None."""
    if not login or w.state != "open":
        return None
    if w.kind == "pr" and w.waiting_on(login):
        return "review"
    if login.lower() in (a.lower() for a in w.assignees):
        return "assigned"
    return None


def ref(w: WorkItem) -> str:
    return f"{w.repo}#{w.number}"


class GithubFollowUp:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if not isinstance(trigger, WorkItemChanged):
            return []
        w = trigger.state
        why = waits_for(w, ctx.settings.github_login)
        if why is None:
            return []
        acted = w.person_acted_at.isoformat() if w.person_acted_at else "never"
        if why == "review":
            title = f"Review requested: {ref(w)} “{short(w.title, 70)}”"
            body = f"{w.author or 'Someone'} asked you to review {ref(w)}: {w.title}" + (
                f"\n{w.url}" if w.url else ""
            )
        else:
            title = f"Assigned to you: {ref(w)} “{short(w.title, 70)}”"
            body = f"{ref(w)} is assigned to you and still open: {w.title}" + (f"\n{w.url}" if w.url else "")
        return [
            Suggestion(
                scope=trigger.scope,
                kind="follow_up",
                predictor=NAME,
                dedup_key=f"{why}:{ref(w)}:{acted}",
                about=f"{w.kind}:{ref(w)}",
                title=title,
                body=body,
                created_at=ctx.now,
                deliver_at=ctx.now + timedelta(minutes=ctx.settings.followup_delay_minutes),
                expires_at=ctx.now + timedelta(days=14),
                source_ids=(trigger.event_id,),
                confidence=0.8,
                data={"repo": w.repo, "number": w.number, "why": why, "acted": acted},
            )
        ]

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        w = ctx.memory.work_items.get(s.scope, s.data["repo"], int(s.data["number"]))
        if w is None:
            return Recheck(None, "the pull request / issue is gone")
        if w.state != "open":
            return Recheck(None, f"it was {w.state}")
        if waits_for(w, ctx.settings.github_login) != s.data["why"]:
            return Recheck(None, "it no longer waits on you")
        acted = w.person_acted_at.isoformat() if w.person_acted_at else "never"
        if acted != s.data["acted"]:
            return Recheck(None, "you acted on it since")
        return Recheck(replace(s))
