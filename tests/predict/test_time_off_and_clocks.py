"""Time off clashes with nothing, and a range written in 24-hour form is read as written.

Written after the change (2026-12-05), in sentences made up for it: a half day taken for an
appointment is no clash with that appointment, while two real appointments still are.
"""

from __future__ import annotations

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.types import ItemView
from daemon.predict import engine
from daemon.predict.predictors.conflict import end_of
from daemon.predict.spans import day_span
from daemon.predict.time_off import is_time_off
from tests.conftest import FakeClock
from tests.predict.conftest import at, say


def _item(text: str) -> ItemView:
    return ItemView("i1", "alice", "events", text, {"what": text})


def _clashes(memory: Memory) -> list[set[str]]:
    return [set(s.source_ids) for s in memory.suggestions.of_scope("alice") if s.kind == "conflict"]


@pytest.mark.parametrize(
    ("text", "off"),
    [
        ("Booked Thursday afternoon off so I can get the boiler looked at", True),
        ("I'm on annual leave the whole of next week", True),
        ("Took a half day on Friday for the physio", True),
        ("周五下午请了半天假去办签证", True),
        ("下週一調休，剛好可以去驗車", True),  # Traditional: 調休 is 调休
        ("禮拜三請了一天假陪我媽去醫院", True),
        ("清明放假三天", True),
        # said as not taken, or no leave at all
        ("Can't get the day off, so the dentist will have to wait", False),
        ("I'm off to the dentist at 4", False),
        ("Remember to leave at 7 for the airport", False),
        ("请你假装没看见", False),
        ("这周不放假，周六照常上班", False),
        ("没请到假，只能晚上去", False),
    ],
)
def test_time_off_is_a_closed_class_of_leave_words_in_both_languages(text: str, off: bool) -> None:
    assert is_time_off(text) is off


def test_a_half_day_off_for_an_appointment_is_no_clash_but_two_appointments_are(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")
    say(pmemory, "o1", "Thursday at 3pm I've got the optician on Bridge Street.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-02 18:00")
    say(pmemory, "o2", "Sorted, I've booked Thursday 2 to 5pm as time off.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert _clashes(pmemory) == []  # the time off was taken for the optician
    pclock.now = at("2026-03-03 08:00")
    say(pmemory, "o3", "Thursday at 3:30pm I have a call with the letting agent.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert _clashes(pmemory) == [{"o1", "o3"}]  # two things at once still clash


def test_leave_taken_in_chinese_is_no_clash_but_two_appointments_are(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")
    say(pmemory, "z1", "周四下午三点约了眼科复查。", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-04 20:00")
    # Traditional, as a person in Taipei writes it: annual leave tomorrow afternoon
    say(pmemory, "z2", "明天下午休年假，終於可以喘口氣", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-04 20:30")
    say(pmemory, "z3", "明天下午三点半还要跟房东视频看合同。", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    # the leave overlaps both and clashes with neither; the eye check and the call still clash
    assert _clashes(pmemory) == [{"z1", "z3"}]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Stocktake on Wednesday, 07.30 to 11, all hands", "2026-03-04 07:30", "2026-03-04 11:00"),
        ("Wednesday's harbour clean-up runs 06h00-09h00", "2026-03-04 06:00", "2026-03-04 09:00"),
        ("Wednesday night shift at the depot, 22:00-06:00", "2026-03-04 22:00", "2026-03-05 06:00"),
        ("Wednesday the viewing slot is 1-3pm", "2026-03-04 13:00", "2026-03-04 15:00"),
        ("Wednesday the audit, 9 to 5", "2026-03-04 09:00", "2026-03-04 17:00"),  # a bare hour: pm guessed
        ("周三仓库盘点，22点到06点通宵", "2026-03-04 22:00", "2026-03-05 06:00"),
    ],
)
def test_a_day_span_written_in_24_hour_form_is_read_as_written(text: str, start: str, end: str) -> None:
    assert day_span(_item(text), at("2026-03-04 00:00")) == (at(start), at(end))


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Saturday 06h00-09h00 I'm marshalling the parkrun", "2026-03-07 06:00", "2026-03-07 09:00"),
        ("Friday 22:00 to 01:00 I'm doing the late sound check", "2026-03-06 22:00", "2026-03-07 01:00"),
        ("Friday 8:00 – 9:30 breakfast with the investors", "2026-03-06 08:00", "2026-03-06 09:30"),
        ("周五20:00到08:00在急诊值班", "2026-03-06 20:00", "2026-03-07 08:00"),
        ("Friday from 2 to 4 the workshop", "2026-03-06 14:00", "2026-03-06 16:00"),  # bare: pm guessed
    ],
)
def test_an_end_written_in_24_hour_form_is_read_as_written(text: str, start: str, end: str) -> None:
    assert end_of(_item(text), at(start)) == at(end)


@pytest.mark.parametrize("text", ["周五团建，老板说全员必须到，不许请假", "年底冲业绩，公司不准请假"])
def test_leave_forbidden_is_no_time_off(text: str) -> None:
    # written after the rule: a day nobody may take off is a day at work
    assert not is_time_off(text)
