"""Date rules of the seventeenth round: today's weekday said as what today is, "…" as a sentence
end, numbered places that are no day of the month, a Chinese clause of a thing already arranged,
an English coordinated "and <weekday> is the …" clause, "has to" / "needs to", and a Chinese zone
said between a day and its clock.

Sentences written after the code, as a stranger would type them in chat; each case fails on the
code before unless a comment says it is a guard (a behaviour that must not change)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates

SH = ZoneInfo("Asia/Shanghai")
HK = ZoneInfo("Asia/Hong_Kong")
CHI = ZoneInfo("America/Chicago")
LONDON = ZoneInfo("Europe/London")

# March 2024: Tue 12, Wed 13, Thu 14, Fri 15, Sat 16, Sun 17, Mon 18, Tue 19; last week Fri 8, Sat 9
FRI = datetime(2024, 3, 15, 9, 30, tzinfo=SH)
MON = datetime(2024, 3, 18, 8, 10, tzinfo=HK)
TUE = datetime(2024, 3, 12, 10, 0, tzinfo=SH)
TUE_CHI = datetime(2024, 3, 12, 10, 0, tzinfo=CHI)
# London is still on GMT (summer time starts 31 March); New York went to EDT on 10 March
TUE_LONDON = datetime(2024, 3, 12, 10, 0, tzinfo=LONDON)


def found(text: str, at: datetime) -> list[tuple[date, str | None, str]]:
    """(day, "HH:MM" or None, direction) of every mention, in text order, in `at`'s zone."""
    tz = at.tzinfo
    assert isinstance(tz, ZoneInfo)
    return [
        (
            m.value.astimezone(tz).date(),
            m.value.astimezone(tz).strftime("%H:%M") if m.has_time else None,
            m.direction,
        )
        for m in resolve_dates(text, at, tz)
    ]


# --- 1. today's weekday said as what today is ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "at"),
    [
        # a clause of little more than the weekday, ending in "!", "！", "…", "..." or an emoji
        ("friday feeling 🥳", FRI),
        ("TGIF friday!!!", FRI),
        ("周五啦！！", FRI),
        ("禮拜五…終於捱到", FRI),
        ("monday mood 😩", MON),
        ("ugh monday again...", MON),
        ("又係禮拜一…… 唔想返工", MON),
        ("週一！早上的會議又延了", MON),
        # the weekday alone as the message's first clause, before a comma
        ("monday, and the printer is jammed again", MON),
        ("禮拜一，條地鐵又壞咗", MON),
        ("周一，老板又开会到十二点", MON),
    ],
)
def test_todays_weekday_said_as_what_today_is_is_today(text: str, at: datetime) -> None:
    assert found(text, at) == [(at.date(), None, "present")]


@pytest.mark.parametrize(
    ("text", "at", "expected"),
    [
        # guards (pass on the code before too): the weekday with a thing and no exclamation, a
        # thing asked about, a clause of more than three other words, a clock: the one coming
        ("dentist friday", FRI, [(date(2024, 3, 22), None, "future")]),
        ("nails friday?", FRI, [(date(2024, 3, 22), None, "future")]),
        ("standup monday?", MON, [(date(2024, 3, 25), None, "future")]),
        # (and the weekday alone, asked: "friday?" asks which Friday, it does not say today is one)
        ("friday?", FRI, [(date(2024, 3, 22), None, "future")]),
        ("big presentation to the board monday 😬", MON, [(date(2024, 3, 25), None, "future")]),
        ("mon 9am standup!", MON, [(date(2024, 3, 25), "09:00", "future")]),
    ],
)
def test_todays_weekday_with_a_plan_is_still_the_one_coming(
    text: str, at: datetime, expected: list[tuple[date, str | None, str]]
) -> None:
    assert found(text, at) == expected


# --- 2. "…" ends a sentence ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "今天热到爆…下礼拜二要去深圳见客户，早上八点的高铁，晚上十点先返到屋企",
            [
                (date(2024, 3, 15), None, "present"),
                (date(2024, 3, 19), "08:00", "future"),
                (date(2024, 3, 19), "22:00", "future"),
            ],
        ),
        (
            "累死了今天…週三要飛去台北開會，早上六點半的航班，夜晚十一點先到酒店",
            [
                (date(2024, 3, 15), None, "present"),
                (date(2024, 3, 20), "06:30", "future"),
                (date(2024, 3, 20), "23:00", "future"),
            ],
        ),
        (
            "today was a mess… tuesday i fly out, 7am flight, land around 3pm",
            [
                (date(2024, 3, 15), None, "present"),
                (date(2024, 3, 19), "07:00", "future"),
                (date(2024, 3, 19), "15:00", "future"),
            ],
        ),
    ],
)
def test_lone_clocks_after_an_ellipsis_take_the_day_of_their_own_sentence(
    text: str, expected: list[tuple[date, str | None, str]]
) -> None:
    assert found(text, FRI) == expected


# --- 3. numbered places ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("明早九点在2号航站楼等你", [(date(2024, 3, 16), "09:00", "future")]),
        ("去 3 号航站楼接我妈", []),
        ("五号厅门口集合", []),
        ("12号柜台办手续", []),
        ("3號櫃台 check in 先", []),
        ("7号窗口排队好长", []),
        ("去3号诊室复诊", []),
        ("住4号舍的那个学弟", []),
        ("货先放在6号仓", []),
        # guard (passes on the code before too): a day of the month is still one
        ("25号见", [(date(2024, 3, 25), None, "future")]),
    ],
)
def test_a_numbered_terminal_hall_counter_window_room_dorm_or_store_is_no_day(
    text: str, expected: list[tuple[date, str | None, str]]
) -> None:
    assert found(text, FRI) == expected


# --- 4. a Chinese clause of a thing already arranged ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("去青岛的高铁票已经买了，礼拜六下午两点出发，民宿也已经订好了", (date(2024, 3, 16), "14:00")),
        (
            "回乡下饮喜酒的机票已经买了，礼拜五夜晚九点起飞，红包也已经准备好了 🧧",
            (date(2024, 3, 15), "21:00"),
        ),
        ("去迪士尼的两张门票已经买好了，周日早上八点出发，酒店也已经订了", (date(2024, 3, 17), "08:00")),
        ("去高雄的高鐵票已經買了，禮拜六下午兩點出發，民宿也已經訂好了", (date(2024, 3, 16), "14:00")),
    ],
)
def test_a_ticket_already_bought_leaves_the_trip_ahead(text: str, expected: tuple[date, str]) -> None:
    assert found(text, TUE) == [(*expected, "future")]


def test_a_person_already_done_still_puts_the_day_in_the_past() -> None:
    # guard (passes on the code before too): 我 opens the clause, it is no thing's state
    assert found("周六去了趟青岛，我已经累瘫了", TUE) == [(date(2024, 3, 9), None, "past")]


# --- 5. ", and <weekday> <clock> is the …" --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "took forever but i finally got the car registered, and thursday 10am is the dmv road test",
            (date(2024, 3, 14), "10:00"),
        ),
        (
            "spent all morning on hold w the bank, and friday at 2 is the mortgage signing",
            (date(2024, 3, 15), "14:00"),
        ),
        ("we finally moved the couch, and sat 11am is the open house", (date(2024, 3, 16), "11:00")),
        ("had my wisdom tooth out, and friday's the follow up", (date(2024, 3, 15), None)),
    ],
)
def test_a_coordinated_clause_saying_what_a_day_is_stays_ahead(
    text: str, expected: tuple[date, str | None]
) -> None:
    assert found(text, TUE_CHI) == [(*expected, "future")]


def test_a_past_clause_holding_the_weekday_stays_in_the_past() -> None:
    # guard (passes on the code before too): the weekday is the registering's, not an "is" clause
    text = "finally got the car registered on thursday, and the plates came in the mail"
    assert found(text, TUE_CHI) == [(date(2024, 3, 7), None, "past")]


# --- 6. "has to" / "needs to" ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("called the landlord and the car needs to be moved monday 8am", (date(2024, 3, 18), "08:00")),
        ("the boiler broke and someone has to come in on friday", (date(2024, 3, 15), None)),
        ("checked the group chat and my flatmate has to work sunday 6am", (date(2024, 3, 17), "06:00")),
    ],
)
def test_has_to_and_needs_to_make_the_sentence_future(text: str, expected: tuple[date, str | None]) -> None:
    assert found(text, TUE_CHI) == [(*expected, "future")]


def test_had_to_is_still_the_past() -> None:
    # guard (passes on the code before too)
    assert found("he said he had to leave friday", TUE_CHI) == [(date(2024, 3, 8), None, "past")]


# --- 7. a Chinese zone between the day and its clock ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "local", "said"),
    [
        # 10:30 in New York (EDT) is 14:30 in London
        ("下礼拜一美东时间上午十点半 call 客户", "2024-03-18T14:30", "下礼拜一美东时间上午十点半"),
        # noon in Seoul is 03:00 in London
        ("周五首尔时间中午十二点抢票", "2024-03-15T03:00", "周五首尔时间中午十二点"),
        # 07:00 Sunday in Sydney (AEDT) is 20:00 Saturday in London
        ("周日悉尼时间早上七点，记得给妈妈打视频", "2024-03-16T20:00", "周日悉尼时间早上七点"),
        ("下禮拜二北京時間早上九點開會", "2024-03-19T01:00", "下禮拜二北京時間早上九點"),
    ],
)
def test_a_zone_between_the_day_and_its_clock_moves_the_clock(text: str, local: str, said: str) -> None:
    [m] = resolve_dates(text, TUE_LONDON, LONDON)
    assert m.has_clock
    assert m.value.astimezone(LONDON).isoformat()[:16] == local
    assert (m.text, m.start, m.end) == (said, 0, len(said))


def test_a_day_and_clock_without_a_zone_stay_the_speakers() -> None:
    # guard (passes on the code before too)
    [m] = resolve_dates("周四晚上八点 zoom 面试", TUE_LONDON, LONDON)
    assert m.value.astimezone(LONDON).isoformat()[:16] == "2024-03-14T20:00"
