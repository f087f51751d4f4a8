"""Value types of trigger state: pull requests and issues, e-mail threads, workflow runs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


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
    """What one e-mail says about its thread (daemon/state/email_threads.py), as the handler read it.

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
    arrival give the same state. The rules (email_threads.derive):

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
    """A completed workflow run or check suite, as one delivery reported it (workflow_runs.py).

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
    conclusion: str  # success, or one of workflow_runs.FAILED
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
