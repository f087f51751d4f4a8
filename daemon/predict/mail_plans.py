"""mail_plans: a meeting set by e-mail that the person agreed to is their plan (one plan, several sources).

Lerato writes "let's do the sign-off call on Wednesday at 14:00" and the person answers "great,
speak then": the call is in the person's day as surely as what they said in chat, and it clashes
with the all-day expo stand they told of there. A meeting an e-mail names (an item the e-mail
handler drew, `l1.kind == "meeting"`) is the person's when the person sent that message, or when
a later message of theirs in the same thread accepts it — turns nothing down, asks nothing, and
says yes or names the meeting's day (`plan_news.accepts`, the rule that lets a reply accept a new
time). An invitation left unanswered, or answered with a question, is not yet theirs.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from daemon.memory import Memory
from daemon.memory.types import ItemView
from daemon.predict.plan_news import accepts
from daemon.state.email_rules import fresh_text


def is_mail_meeting(item: ItemView) -> bool:
    """An item the e-mail handler drew from a message: a meeting it names, with its time."""
    return item.l1.get("source") == "email" and item.l1.get("kind") == "meeting" and item.due_at is not None


def agreed(memory: Memory, scope: str, item: ItemView, now: datetime, tz: ZoneInfo) -> bool:
    """Whether the person sent or, by `now`, accepted the e-mailed meeting `item`."""
    if not is_mail_meeting(item) or item.due_at is None:
        return False
    thread = item.l1.get("thread")
    if not isinstance(thread, str) or not thread:
        return False
    told = set(item.source_ids)
    messages = memory.email_messages(scope, thread)
    sent_at = next((m.sent_at for m in messages if m.id in told), None)
    if sent_at is None:
        return False
    for msg in messages:
        if not msg.outbound or msg.sent_at > now:
            continue
        if msg.id in told:
            return True  # the person proposed it
        if msg.sent_at <= sent_at:
            continue
        own = memory.resources(scope, [msg.id])
        if own and accepts(fresh_text(own[0].text), item.due_at, msg.sent_at, tz):
            return True
    return False
