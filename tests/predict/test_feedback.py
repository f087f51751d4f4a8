"""Feedback changes behaviour: snoozed comes back, a dismissed kind speaks less, accepted reinforces."""

from __future__ import annotations

import json

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict import engine, verdicts
from daemon.predict.outbox import SuggestionOutbox
from daemon.runtime.dispatch import Dispatcher, Incoming
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, say


def test_the_bar_rises_with_net_dismissals_and_falls_with_acceptances() -> None:
    curve = [round(verdicts.bar(0, n), 2) for n in range(7)]
    assert curve == [0.5, 0.62, 0.72, 0.79, 0.84, 0.88, 0.91]
    assert verdicts.bar(2, 2) == verdicts.bar(0, 0) and verdicts.bar(5, 0) == verdicts.bar(0, 0)


def feedback(fid: str, sid: str, verdict: str, ts: str, **extra: str) -> Incoming:
    body = {"id": fid, "suggestion_id": sid, "verdict": verdict, "ts": at(ts).isoformat(), **extra}
    return Incoming("memubot.in.feedback", json.dumps(body).encode())


async def remind(memory: Memory, settings: Settings, clock: FakeClock, n: int, day: int) -> str:
    """Tell of an event on March `day` at 15:00 and return its reminder's id."""
    clock.now = at(f"2026-03-{day - 1:02d} 10:00")
    say(memory, f"r{n}", f"Tomorrow at 15:00 I have appointment number {n} with the tax office.", clock.now)
    engine.after_memory(memory, settings, clock.now)
    return next(s.id for s in memory.suggestions.of_scope("alice") if s.source_ids == (f"r{n}",))


async def test_a_kind_dismissed_again_and_again_speaks_less_until_accepted(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    dispatcher = Dispatcher(Deps(pmemory, settings, pclock))
    for n in range(4):
        sid = await remind(pmemory, settings, pclock, n, 3 + 2 * n)
        pclock.now = at(f"2026-03-{3 + 2 * n:02d} 13:00")
        assert await outbox.deliver_due() == 1
        [v] = await dispatcher.dispatch(
            [feedback(f"fb{n}", sid, "dismissed", f"2026-03-{3 + 2 * n:02d} 13:01")]
        )
        assert v.outcome == "dismissed"
    # four net dismissals: the bar (0.84) is above a reminder's confidence (0.8)
    sid = await remind(pmemory, settings, pclock, 9, 20)
    pclock.now = at("2026-03-20 13:00")
    assert await outbox.deliver_due() == 0
    s = pmemory.suggestions.get(sid)
    assert s is not None and s.status == "withdrawn" and "below the bar" in (s.reason or "")
    # another kind of the same scope, and the same kind of another scope, are not affected
    assert pmemory.suggestions.verdicts("alice", "digest") == {"accepted": 0, "dismissed": 0, "snoozed": 0}
    assert pmemory.suggestions.verdicts("bob", "reminder")["dismissed"] == 0
    # one acceptance takes one dismissal back: reminders speak again
    [v] = await dispatcher.dispatch([feedback("fbA", bus.sent[0][1]["id"], "accepted", "2026-03-20 14:00")])
    assert v.outcome == "accepted"
    sid = await remind(pmemory, settings, pclock, 10, 24)
    pclock.now = at("2026-03-24 13:00")
    assert await outbox.deliver_due() == 1


async def test_snoozed_comes_back_at_until_as_a_new_message(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    dispatcher = Dispatcher(Deps(pmemory, settings, pclock))
    sid = await remind(pmemory, settings, pclock, 1, 5)
    pclock.now = at("2026-03-05 13:00")
    assert await outbox.deliver_due() == 1
    until = at("2026-03-05 14:30").isoformat()
    [v] = await dispatcher.dispatch([feedback("sn1", sid, "snoozed", "2026-03-05 13:02", until=until)])
    assert v.outcome == "snoozed"
    assert await outbox.next_due() == at("2026-03-05 14:30")
    pclock.now = at("2026-03-05 14:29")
    assert await outbox.deliver_due() == 0
    pclock.now = at("2026-03-05 14:30")
    assert await outbox.deliver_due() == 1
    assert [m for _, _, m in bus.sent] == [sid, f"{sid}:1"]
    assert pmemory.suggestions.verdicts("alice", "reminder")["dismissed"] == 0  # a snooze is not a no


async def test_accepted_reinforces_the_evidence_and_the_verdict_is_a_resource_redelivery_changes_nothing(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    dispatcher = Dispatcher(Deps(pmemory, settings, pclock))
    sid = await remind(pmemory, settings, pclock, 1, 5)
    s = pmemory.suggestions.get(sid)
    assert s is not None
    [item] = s.evidence
    before = pmemory.get_item("alice", item)
    assert before is not None
    msg = feedback("ac1", sid, "accepted", "2026-03-05 13:05", scope="alice")
    assert [v.outcome for v in await dispatcher.dispatch([msg])] == ["accepted"]
    assert [v.outcome for v in await dispatcher.dispatch([msg])] == ["duplicate"]
    after = pmemory.get_item("alice", item)
    assert after is not None and after["access_count"] == before["access_count"] + 1
    assert pmemory.suggestions.verdicts("alice", "reminder") == {"accepted": 1, "dismissed": 0, "snoozed": 0}
    assert pmemory.known_resources([("alice", "ac1")]) == {("alice", "ac1")}
    assert len(pmemory.ledger.feedback(sid)) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"id": "x1", "suggestion_id": "sg_nope", "verdict": "accepted", "ts": "2026-03-05T13:00:00+01:00"},
        {"id": "x2", "suggestion_id": "sg_nope", "verdict": "maybe", "ts": "2026-03-05T13:00:00+01:00"},
        {
            "id": "x3",
            "suggestion_id": "s",
            "verdict": "snoozed",
            "ts": "2026-03-05T13:00:00+01:00",
            "until": "soon",
        },
    ],
)
async def test_bad_feedback_is_kept_or_dead_lettered_never_lost(
    pmemory: Memory, settings: Settings, pclock: FakeClock, body: dict[str, str]
) -> None:
    dispatcher = Dispatcher(Deps(pmemory, settings, pclock))
    [v] = await dispatcher.dispatch([Incoming("memubot.in.feedback", json.dumps(body).encode())])
    if body["id"] == "x1":
        assert v.outcome == "stored" and len(pmemory.ledger.feedback("sg_nope")) == 1
    else:
        assert v.outcome == "dead_letter" and v.reason
