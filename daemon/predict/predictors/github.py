"""follow-up (GitHub): a review requested from the person, an issue assigned to them.

Mentioned once it has stayed open for `followup_delay_minutes` (GitHub already notified; memubot
nudges about what is still waiting, and says nothing about a request withdrawn a minute later),
or, when the person said in the conversation when they would get to it ("I'll look at #418 after
lunch", "#233 我四点的会开完再看"), once that time has passed with it still waiting
(`said_when`); a later word moves it again. Withdrawn when it is resolved: reviewed or otherwise
acted on by the person, the request removed, the person unassigned, the pull request or issue
closed or merged. A new request after the person acted is a new follow-up (the dedup key names
when they last acted). A pull request of the person's own waits on its reviewers, not on them:
being assigned to it says nothing they need to do.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from daemon.predict import said_when
from daemon.predict.base import Ctx, Recheck, Trigger, WorkItemChanged, short
from daemon.predict.timing import hm
from daemon.state.suggestions import Suggestion
from daemon.state.types import WorkItem

NAME = "github"


def waits_for(w: WorkItem, login: str | None) -> str | None:
    """'review' / 'assigned' when the item waits on the person, else None."""
    if not login or w.state != "open":
        return None
    if w.kind == "pr" and w.waiting_on(login):
        return "review"
    own = w.kind == "pr" and (w.author or "").lower() == login.lower()
    if not own and login.lower() in (a.lower() for a in w.assignees):
        return "assigned"
    return None


# how often a follow-up held until CI passes looks again
CI_RECHECK = timedelta(hours=1)


def fair_from(w: WorkItem, ctx: Ctx) -> datetime | None:
    """When the person's own word on `w` makes a follow-up fair (`said_when`), if they gave one.
    Held until its CI passes ("I'll review once CI is green"): an hour after a passing run
    arrived, or, while none has, the next look (CI_RECHECK from now)."""
    s = ctx.settings
    turns = ctx.memory.user_turns(w.scope, ctx.now - said_when.LOOKBACK, ctx.now + timedelta(seconds=1))
    held = said_when.waits_on_ci(turns, w.repo, w.number, w.title, w.author) if w.kind == "pr" else None
    if held is not None:
        passed = ctx.memory.workflow_runs.passed_for(w.scope, w.repo, w.number, held)
        return passed + said_when.GRACE if passed is not None else ctx.now + CI_RECHECK
    heard = ctx.memory.work_items.first_heard(w.scope, w.repo, w.number)
    return said_when.said_about(turns, w.repo, w.number, s.tz, hm(s.morning_at), w.title, w.author, heard)


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
        at = ctx.now + timedelta(minutes=ctx.settings.followup_delay_minutes)
        fair = fair_from(w, ctx)
        if fair is not None:
            at = max(at, fair)
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
                deliver_at=at,
                expires_at=at + timedelta(days=14),
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
        fair = fair_from(w, ctx)
        if fair is not None and fair > ctx.now and fair > s.deliver_at:
            # they said since when they would get to it: not before then
            return Recheck(replace(s, deliver_at=fair), "you said when you would get to it")
        return Recheck(replace(s))
