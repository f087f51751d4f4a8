"""follow-up (e-mail): someone asked the person something and has had no answer for longer than
the person usually takes with that sender.

The usual delay is learnt from the mailbox itself: the hours the person took to answer that
sender's earlier messages (the median of them). The reminder comes when twice that has passed
without a reply, so an answer that is merely a little slower than usual is left alone; at least
an hour, at most two days; with no history, a day. When the message names a deadline ("by
Thursday"), the reminder comes on the eve of it instead (18 hours before; at least an hour after
the message). Withdrawn as soon as the person answers in the thread (or a newer message there
changes who waits on whom), or says in chat that it is done.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace
from datetime import datetime, timedelta

from daemon.memory.models.features import shared_words
from daemon.predict import mail_plans
from daemon.predict.base import Ctx, Recheck, ThreadChanged, Trigger, short
from daemon.predict.predictors.promise import is_done, said_apart
from daemon.state.suggestions import Suggestion

NAME = "email"
NO_HISTORY = timedelta(hours=24)
SHORTEST = timedelta(hours=1)
LONGEST = timedelta(hours=48)
BEFORE_DEADLINE = timedelta(hours=18)  # the evening before a deadline's day: still time to answer


def usual_wait(hours: list[float]) -> timedelta:
    """How long without a reply is unusual for this sender: twice the median of past replies."""
    if not hours:
        return NO_HISTORY
    return min(max(timedelta(hours=2 * statistics.median(hours)), SHORTEST), LONGEST)


class EmailFollowUp:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if not isinstance(trigger, ThreadChanged):
            return []
        t = trigger.state
        if not t.waiting_on_person or t.waiting_since is None or t.last_inbound_at is None:
            return []
        if t.ask and mail_plans.asks_only_the_slot(ctx.memory, t.scope, t.thread, t.ask, ctx.now):
            return []  # a confirmation or a move of the person's slot: nothing to answer
        asked = next(
            (m for m in reversed(ctx.memory.email_messages(t.scope, t.thread)) if m.id == t.last_message_id),
            None,
        )
        sender = asked.sender if asked is not None else ""
        history = ctx.memory.reply_hours(t.scope, sender, t.last_inbound_at) if sender else []
        at = t.waiting_since + usual_wait(history)
        if t.ask_due is not None and t.ask_due > t.waiting_since:
            # the ask says when the answer is needed: not late before the eve of that (a consent
            # form due Tuesday is no "unanswered" on Saturday), and never sooner than an hour
            # after the message came ("Unanswered" a minute after it arrived is a nag: it is
            # being read)
            at = max(t.ask_due - BEFORE_DEADLINE, min(t.waiting_since + SHORTEST, t.ask_due))
        expires: datetime = t.ask_due if t.ask_due is not None and t.ask_due > at else at + timedelta(days=7)
        ask = short(t.ask or t.subject, 120)
        tz = ctx.settings.tz
        who = (asked.sender_name or asked.sender) if asked is not None else "someone"
        return [
            Suggestion(
                scope=t.scope,
                kind="follow_up",
                predictor=NAME,
                dedup_key=f"email:{t.thread}:{t.last_message_id}",
                about=f"thread:{t.thread}",
                title=f"Unanswered: {who} asked “{short(ask, 70)}”",
                body=f"{who} wrote on {t.waiting_since.astimezone(tz):%a %d %b %H:%M} ({t.subject}): {ask}"
                + (f"\nThey asked for it by {t.ask_due.astimezone(tz):%a %d %b}." if t.ask_due else "")
                + (
                    f"\nYou usually answer them within {statistics.median(history):.0f} h." if history else ""
                ),
                created_at=ctx.now,
                deliver_at=at,
                expires_at=expires,
                source_ids=(t.last_message_id,),
                confidence=0.7,
                data={"thread": t.thread, "message": t.last_message_id},
            )
        ]

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        t = ctx.memory.email_thread(s.scope, s.data["thread"])
        if t is None:
            return Recheck(None, "the thread is gone")
        if not t.waiting_on_person or t.last_message_id != s.data["message"]:
            return Recheck(None, "the thread moved on: you answered, or a newer message came")
        said = _done_in_chat(ctx, s.scope, f"{t.subject}\n{t.ask or ''}", t.waiting_since or s.created_at)
        if said is not None:
            return Recheck(None, f"done, said in chat: {short(said, 60)}")
        return Recheck(replace(s))


def _done_in_chat(ctx: Ctx, scope: str, ask: str, since: datetime) -> str | None:
    """A turn of the person's since the ask that says it is done, about it (two of its words: "signed
    the NOC and mailed both to Suresh, parking sticker thing is done" of "Kindly send the signed NOC
    form … for the parking sticker"): one ask, two sources, and the chat settles it as a reply in
    the thread would."""
    for turn in ctx.memory.user_turns(scope, since, ctx.now):
        # (a done act in a sentence of its own, not a past tense anywhere: "otieno wants my slides
        # by wed. haven't even started lol. also the matatu took 1.5hrs" has done nothing)
        done = any(
            is_done(s) and not _NOT_YET.search(s) and not _someone_else_did(s) for s in said_apart(turn.text)
        )
        if done and len(shared_words(ask, turn.text)) >= 2:
            return turn.text
    return None


# ... by the person: not a sentence whose subject is someone else ("ate marites from the property mgmt
# sent the lease renewal thing": the ask itself). Chat drops the "I": a sentence that opens on a
# past verb is the person's ("took the photo and sent it to Karin", "sent ate marites everything").
_DONE_BY = re.compile(r"\b(?:sent|emailed|e-mailed|replied|called|paid|delivered|submitted|shipped)\b", re.I)
_SOMEONE_ZH = re.compile(r"^\s*(?:他|她|佢|他们|她们|佢哋)")


def _someone_else_did(sentence: str) -> bool:
    """Whether the sentence's done act is someone else's: a subject of its own before the verb."""
    if _SOMEONE_ZH.match(sentence):
        return True
    verb = _DONE_BY.search(sentence)
    if verb is None:
        return False
    before = re.findall(r"[a-z'’]+", sentence[: verb.start()].lower())
    if not before or before[0] in (
        "i",
        "we",
        "i've",
        "we've",
        "just",
        "finally",
        "already",
        "ok",
        "okay",
        "so",
        "also",
    ):
        return False
    # a regular past verb of the speaker's opens the sentence ("finished the deck, emailed it"), or the
    # verb is one of a list of the speaker's acts ("took the photo and sent it", "…, sent it")
    listed = before[-1] == "and" or sentence[: verb.start()].rstrip().endswith(",")
    return not (listed or before[0].endswith("ed"))


_NOT_YET = re.compile(
    r"\b(?:not yet|haven['’]?t|hasn['’]?t|didn['’]?t|not)\b|还没|還沒|未|没有|沒有", re.IGNORECASE
)
