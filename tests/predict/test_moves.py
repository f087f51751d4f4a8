"""A plan moved in a statement of its own, which the memory kept beside the plan (moves.py): the
old time's reminder is withdrawn and the new one says what and where as first told. Sentences
written after the code, as someone who had not read it would."""

from __future__ import annotations

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict.outbox import SuggestionOutbox
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, tell_turns


async def test_a_move_that_shares_only_part_of_a_compound_moves_the_plan(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    tell_turns(
        pmemory,
        settings,
        pclock,
        [
            (
                "2026-03-02 10:00",
                "Schlüsselübergabe for the new flat thursday at 16:00, Dunckerstraße 9, 2nd floor",
            ),
            ("2026-03-03 09:00", "argh the Übergabe got moved to friday 8:30am"),
        ],
    )
    pclock.now = at("2026-03-05 14:00")  # thursday, when the old slot's reminder was due
    assert await outbox.deliver_due() == 0
    pclock.now = at("2026-03-06 07:30")  # friday morning
    assert await outbox.deliver_due() == 1
    [title] = bus.titles
    body = bus.sent[0][1]["body"]
    assert "08:30" in title and "Schlüsselübergabe" in title and "Dunckerstraße" in body, (title, body)
    # the plan as first told is quoted without its old time, which is no longer its time
    assert "16:00" not in body and "thursday" not in body.lower(), body


async def test_a_move_that_names_nothing_moves_the_one_plan_near_it(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    tell_turns(
        pmemory,
        settings,
        pclock,
        [
            ("2026-03-02 10:00", "下周三上午十点约了皮肤科，在仁济医院东院三楼"),
            ("2026-03-04 09:00", "医院刚来电话，帮我改到这周五下午两点了"),
        ],
    )
    pclock.now = at("2026-03-06 13:00")
    assert await outbox.deliver_due() == 1
    body = bus.sent[0][1]["body"]
    assert "14:00" in bus.titles[0] and "皮肤科" in bus.titles[0] and "仁济" in body, (bus.titles, body)
    pclock.now = at("2026-03-11 09:00")  # the old slot's day
    assert await outbox.deliver_due() == 0


async def test_a_move_of_something_else_leaves_the_plan(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    # guard (passes on the code before too): the haircut was never told; the dentist stands
    tell_turns(
        pmemory,
        settings,
        pclock,
        [
            ("2026-03-02 10:00", "dentist thursday at 15:00, the practice on Elm Street"),
            ("2026-03-03 09:00", "the salon moved my haircut to friday at 17:00"),
        ],
    )
    pending = sorted(s.deliver_at for s in pmemory.suggestions.of_scope("alice") if s.status == "pending")
    assert pending == [at("2026-03-05 13:00"), at("2026-03-06 15:00")]


async def test_a_move_that_names_nothing_with_two_plans_near_moves_neither(
    pmemory: Memory, settings: Settings, pclock: FakeClock, outbox: SuggestionOutbox, bus: Bus
) -> None:
    # which plan moved is not known, so both stay (the code before retired the dentist in the
    # memory on a guess, and its reminder with it)
    tell_turns(
        pmemory,
        settings,
        pclock,
        [
            ("2026-03-02 10:00", "周四下午三点约了牙医"),
            ("2026-03-02 10:05", "周四晚上七点和老同学吃饭"),
            ("2026-03-03 09:00", "刚接到电话，给我改到下周一上午十点了"),
        ],
    )
    for when in ("2026-03-05 13:00", "2026-03-05 17:00"):
        pclock.now = at(when)
        assert await outbox.deliver_due() == 1, when


async def test_a_move_told_by_who_moved_it_and_the_new_time_now_moves_the_one_plan(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # written after the change (2026-12-07): the mover is the subject, "it" the thing, the new
    # time told with "now"
    tell_turns(
        pmemory,
        settings,
        pclock,
        [
            ("2026-03-02 10:00", "Booked the boiler service at the Hartley Road flat for Thursday at 1pm."),
            ("2026-03-02 16:30", "British Gas rescheduled it, Friday 8am now. Means another early start."),
        ],
    )
    pclock.now = at("2026-03-05 12:30")  # Thursday, the old slot's day
    assert await outbox.deliver_due() == 0
    pclock.now = at("2026-03-06 07:30")  # Friday
    assert await outbox.deliver_due() == 1
    [title] = bus.titles
    assert "08:00" in title and "boiler" in title.lower(), title
