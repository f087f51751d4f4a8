"""What the person tells themselves not to forget before a plan is said again in its reminder: a
note with no day of its own, after the plan was told, with no other plan of theirs told by then and
due first. Written after the code (2026-12-07), in sentences of its own; each case fails on e7d7784
unless marked a guard."""

from __future__ import annotations

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict.outbox import SuggestionOutbox
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, deliver_at, tell_turns

PLAN = "Friday 7:40am I'm on the ferry to Rottnest with the birdwatching club, meeting at B Shed."


async def _reminders(
    pmemory: Memory,
    settings: Settings,
    outbox: SuggestionOutbox,
    bus: Bus,
    pclock: FakeClock,
    turns: list[tuple[str, str]],
) -> list[str]:
    tell_turns(pmemory, settings, pclock, turns)
    # Thursday, and Friday before the ferry
    await deliver_at(
        outbox, pclock, ("2026-03-05 12:00", "2026-03-05 18:00", "2026-03-05 21:45", "2026-03-06 07:30")
    )
    return [b["title"] + "\n" + b["body"] for _, b, _ in bus.sent if b["kind"] == "reminder"]


@pytest.mark.parametrize(
    "note",
    [
        "binoculars are at mum's, don't let me forget to grab them on the way",
        "周五那天千万别忘了带望远镜和防晒霜",
    ],
)
async def test_a_note_to_self_before_the_plan_is_in_its_reminder(
    note: str, pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    said = await _reminders(
        pmemory, settings, outbox, bus, pclock, [("2026-03-02 19:00", PLAN), ("2026-03-04 21:00", note)]
    )
    assert len(said) == 1 and ("binoculars" in said[0] or "望远镜" in said[0]), said


async def test_a_note_before_another_timed_plan_of_theirs_is_not_this_ones(  # guard
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    said = await _reminders(
        pmemory,
        settings,
        outbox,
        bus,
        pclock,
        [
            ("2026-03-02 19:00", PLAN),
            ("2026-03-02 19:30", "Thursday at 6pm I've got the dentist on Hay Street."),
            ("2026-03-04 21:00", "must remember the insurance card, they asked for it last time"),
        ],
    )
    ferry = [s for s in said if "Rottnest" in s or "ferry" in s.lower()]
    assert ferry and "insurance" not in ferry[0], said
