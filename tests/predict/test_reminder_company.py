"""What a reminder carries beside its event, and what is no event to remind of: the chatter said
around a plan is not quoted back as "worth remembering", and an afternoon off is not an
appointment. Sentences written after the code, as someone who had not read it would say them."""

from __future__ import annotations

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, say


async def test_the_chatter_around_a_plan_is_not_worth_remembering(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:40")
    say(pmemory, "c1", "it's absolutely bucketing down here, so glad i'm working from home", pclock.now)
    say(pmemory, "c2", "Stay dry!", pclock.now, role="assistant")
    say(pmemory, "c3", "eye test at specsavers on thursday 11:15, finally", pclock.now)
    say(pmemory, "c4", "Good call, it's been a while.", pclock.now, role="assistant")
    say(pmemory, "c5", "i've been on my feet all day, my back is killing me", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-05 09:20")
    assert await outbox.deliver_due() == 1
    [(_, body, _)] = bus.sent
    assert "11:15" in body["title"] and "eye test" in body["body"].lower()
    for chatter in ("bucketing", "working from home", "my back", "on my feet"):
        assert chatter not in body["body"].lower(), body["body"]


async def test_a_preference_is_still_worth_remembering(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 10:00")
    say(
        pmemory, "p1", "When you book me a train, I always want an aisle seat in the quiet coach.", pclock.now
    )
    say(pmemory, "p2", "Noted: aisle seat, quiet coach.", pclock.now, role="assistant")
    say(pmemory, "p3", "on friday at 14:20 i'm taking the train to hamburg for the trade fair", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-06 12:30")
    assert await outbox.deliver_due() == 1
    [(_, body, _)] = bus.sent
    assert "14:20" in body["title"] and "aisle seat" in body["body"]


def test_an_afternoon_off_is_no_appointment_but_the_clock_in_it_is(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 18:00")
    say(pmemory, "o1", "put in for a half day on thursday afternoon, got approved", pclock.now)
    say(pmemory, "o2", "周四下午请了假，已经批下来了", pclock.now, scope="bo")
    say(pmemory, "o3", "taking wednesday afternoon off, the physio moved me to 15:30", pclock.now, scope="cy")
    engine.after_memory(pmemory, settings, pclock.now)
    assert pmemory.suggestions.of_scope("alice") == []
    assert pmemory.suggestions.of_scope("bo") == []
    [s] = pmemory.suggestions.of_scope("cy")
    assert s.kind == "reminder" and s.source_ids == ("o3",)
