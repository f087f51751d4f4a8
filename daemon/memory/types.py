"""Value types of the memory core: resources in, items stored, hits out, and the clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

EXTERNAL = "external"  # the trust of what other people wrote (GitHub, e-mail): never the person's own words
CATEGORIES = ("profile", "preferences", "entities", "events", "cases", "patterns")
TIERS = ("peripheral", "working", "core")

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The wall clock, for the composition root only: the core always receives a Clock."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class ResourceIn:
    """One raw thing that happened (a turn, an email, a GitHub event): immutable once stored."""

    id: str
    scope: str
    text: str
    occurred_at: datetime
    kind: str = "turn"
    session: str | None = None
    role: str | None = None
    speaker: str | None = None
    agent: str | None = None
    trust: str = "normal"
    meta: dict[str, Any] = field(default_factory=dict)
    # the items its handler drafted from an external resource (an e-mail's contacts and dates):
    # the person's own extractor never reads external text, so these are all it yields
    drafts: tuple[ItemDraft, ...] = ()


@dataclass(frozen=True, slots=True)
class ItemDraft:
    """An item proposed by an extractor, before it has an id and a vector."""

    category: str
    l0: str  # the one-line text, also what the embedding model sees
    search_text: str
    context_text: str = ""  # the conversation around it (indexed as a second BM25 field)
    speaker: str | None = None
    session: str | None = None
    l1: dict[str, Any] = field(default_factory=dict)
    importance: float = 0.5
    confidence: float = 0.5
    source_ids: tuple[str, ...] = ()
    happened_at: datetime | None = None  # when the fact happened ("yesterday" resolved)
    observed_at: datetime | None = None  # when it was said: orders the session's turns
    due_at: datetime | None = None
    evergreen: bool = False
    # False for a record of what happened elsewhere (a GitHub event, a CI case): history states
    # no new truth about anything, so it retires nothing (the update model still may not retire it
    # either: a past event is never retired)
    retires: bool = True


@dataclass(slots=True)
class Hit:
    """One recall result: the memory, its final score, its provenance and (optionally) its trace."""

    item_id: str
    text: str
    score: float
    category: str
    source_ids: list[str]
    occurred_at: datetime | None = None
    source: str = "long_term"
    trace: dict[str, float] = field(default_factory=dict)
    # a newer hit of the same person that seems to replace this one (the read-time net demotes,
    # never hides): {"item_id", "text", "said"}; None when nothing does
    replaced_by: dict[str, Any] | None = None

    def as_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "item_id": self.item_id,
            "text": self.text,
            "score": round(self.score, 6),
            "category": self.category,
            "source": self.source,
            "source_ids": self.source_ids,
            "occurred_at": self.occurred_at.isoformat() if self.occurred_at else None,
        }
        if self.replaced_by is not None:
            out["replaced_by"] = self.replaced_by
        if explain:
            out["trace"] = {k: round(v, 6) for k, v in self.trace.items()}
        return out


@dataclass(frozen=True, slots=True)
class MemorizeReport:
    """What a memorize call did, in counts."""

    resources_added: int = 0
    resources_skipped: int = 0
    items_added: int = 0  # created
    noise: int = 0
    merged: int = 0
    skipped: int = 0
    superseded: int = 0


@dataclass(frozen=True, slots=True)
class WorkItem:
    """A pull request or issue as memubot last saw it (also the update a delivery brings)."""

    scope: str
    repo: str
    number: int
    kind: str  # pr / issue
    state: str  # open / closed / merged
    title: str
    updated_at: datetime  # the payload's, not when memubot heard of it
    url: str | None = None
    author: str | None = None
    requested: tuple[str, ...] = ()  # logins asked to review (teams as "team:<slug>")
    assignees: tuple[str, ...] = ()
    person_acted_at: datetime | None = None  # the latest delivery sent by the person about it
    last_event: str | None = None  # the delivery whose snapshot this is
    # an issue comment on a pull request shows the PR as an issue, without its reviewers: such a
    # snapshot leaves the known reviewers alone (not stored; the stored row always knows them)
    knows_reviewers: bool = True

    def waiting_on(self, login: str | None) -> bool:
        """A review requested from `login` waits until they review, the request goes, or it closes."""
        if not login:
            return False
        return self.state == "open" and login.lower() in (r.lower() for r in self.requested)


@dataclass(frozen=True, slots=True)
class EmailMessage:
    """What one e-mail says about its thread (daemon/memory/emailthreads.py), as the handler read it.

    `outbound`: the person sent it; `to_person`: it is addressed (To) to the person; `ask`: the
    sentence that asks something of the recipient, None when it asks nothing; `promise`: for an
    outbound message, the sentence where the person promises something, with its resolved due time.
    """

    scope: str
    thread: str
    id: str  # the resource id (the event id)
    sent_at: datetime  # the message's Date: threads are ordered by it, not by arrival
    sender: str  # the sender's address, lower-case
    sender_name: str
    recipients: tuple[str, ...]  # To and Cc addresses, lower-case
    subject: str
    outbound: bool
    to_person: bool
    ask: str | None = None
    ask_due: datetime | None = None
    promise: str | None = None
    promise_due: datetime | None = None


@dataclass(frozen=True, slots=True)
class ThreadState:
    """The state of one e-mail thread of a scope, for the predictors (follow-ups, promises).

    Derived from every message of the thread in `Date` order, so redelivery and out-of-order
    arrival give the same state. The rules (emailthreads.derive):

    - `waiting_on_person`: the last message came from someone else, is addressed (To) to the
      person and asks something (`ask`, `ask_due` when it names a deadline, `waiting_since`).
    - `waiting_on_other`: the last message is the person's and asks something: no reply yet.
    - `person_promised`: the person's last message promises something ("I'll send it tomorrow",
      "我明天发给你"), `promise_due` its resolved time; a later message of the person clears it.
    """

    scope: str
    thread: str
    subject: str
    counterparts: tuple[str, ...]  # the other people's addresses, in order of appearance
    last_message_at: datetime
    last_message_id: str
    last_inbound_at: datetime | None
    last_outbound_at: datetime | None  # the person's last message
    waiting_on_person: bool
    waiting_on_other: bool
    ask: str | None  # what the message the person owes an answer to asks
    ask_due: datetime | None
    waiting_since: datetime | None
    person_promised: str | None
    promise_due: datetime | None
    promised_at: datetime | None
    source_ids: tuple[str, ...]  # the message resources of the thread, in Date order


@dataclass(frozen=True, slots=True)
class WorkflowRun:
    """A completed workflow run or check suite, as one delivery reported it (workflowruns.py).

    A lane is (repository, workflow, branch): `workflow` is a stable key (the workflow id, or
    the check suite's app), `workflow_name` what a person calls it. Runs of a lane are ordered
    by `started_at` from the payload (then `run_key`), never by arrival.
    """

    scope: str
    run_key: str  # event, run id and attempt: a re-run is a run of its own
    delivery: str  # the resource id of the delivery
    repo: str
    workflow: str
    workflow_name: str
    branch: str
    started_at: datetime
    conclusion: str  # success, or one of workflowruns.FAILED
    head_sha: str
    head_message: str = ""  # the first line of the head commit's message
    head_author: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class WorkflowFix:
    """A case: a lane's failing runs and the run that succeeded right after them."""

    failed: tuple[WorkflowRun, ...]  # the failing streak before `fixed`, oldest first
    fixed: WorkflowRun
    carrier: str  # the delivery whose resource the case item belongs to
    push: str | None = None  # the stored push delivery of the fixing commit, if any
    pusher: str | None = None
