"""The recurring schedule a sentence states ("I run at 6am", "Tuesdays are piano at 7", 每天晚上十点睡觉):
what a habit carries instead of a date. Public entry: ``daemon.memory.dates.recurrence``.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import TypedDict

from daemon.memory.dates import cues
from daemon.memory.dates.en_time import CORE, PERIOD_WORD, en_clock
from daemon.memory.dates.zh import PERIOD_WORD as ZH_PERIOD_WORD
from daemon.memory.dates.zh import TIME, time_clock


class Recurrence(TypedDict):
    time: str | None  # "06:00": the clock time said, read with the module's am/pm conventions
    period: str | None  # "morning" | "afternoon" | "evening" | "noon" | "early", when said
    weekdays: list[str]  # ["tuesday"], in week order; [] when none is named
    frequency: str | None  # "daily" | "weekly" | "biweekly" | "weekdays" | "weekends" | "monthly" |
    # "yearly" | "times_per_week:3" | "times_per_day:2", or None when only a time or weekday says it


_NAMES = "monday tuesday wednesday thursday friday saturday sunday".split()
# weekdays said with last/this/next (这周六, "next Monday") are one-off dates, not the routine's
_EN_WD = re.compile(
    r"(?<!last )(?<!this )(?<!next )\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs|thur|weds)s?\b"
)
_ZH_WD = re.compile(r"(?<![上下这本个])(?:周|星期|礼拜)([一二三四五六日天])(?![直起样般定切些次遍下共边气])")
_ZH_WD_INDEX = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_RANGE = re.compile(r"\s*(?:to|through|thru|-|–|到|至)\s*")
_EN_TIME = re.compile(rf"(?<![\w:.])(?:(?P<prep>at|around|about|by|@|from)\s*)?{CORE}", re.VERBOSE)
_EN_PERIOD = re.compile(r"\b(morning|afternoon|evening|night)s?\b|\b(noon|midday)\b")
_EN_PERIOD_NEAR = re.compile(r"\s+(?:in\s+the\s+)?(morning|afternoon|evening|night)\b|\s+at\s+(night)\b")
_ZH_TIME_START = re.compile(
    r"(?:凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜晚)?\s*(?:\d{1,2}[:：]\d{2}|(?:\d{1,2}|[零一二两三四五六七八九十]{1,3})\s*点)"
)
_ZH_PERIOD = re.compile("|".join(ZH_PERIOD_WORD))
_COUNT = {"once": 1, "twice": 2, "thrice": 3, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ZH_COUNT = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_EN_PER = re.compile(
    r"\b(?P<n>once|twice|thrice|one|two|three|four|five|six|\d)(?:\s*(?:times?|x))?\s+(?:a|per|each|every)\s+"
    r"(?P<unit>day|week)\b"
)
_ZH_PER = re.compile(
    r"[每一](?:个)?(?P<unit>天|周|星期|礼拜)[^，。！？；,]{0,6}?(?P<n>\d|[一两二三四五六七])次"
)
# (frequency, English pattern, Chinese pattern), first match wins
_FREQUENCIES = [
    (
        "biweekly",
        r"\bevery\s+(?:other|second)\s+(?:week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
        r"|\b(?:fortnightly|biweekly)\b",
        r"隔周|每隔一周|每两周|双周",
    ),
    ("weekdays", r"\bweekdays?\b", r"工作日|平日"),
    ("weekends", r"\bweekends\b|\bevery\s+weekend\b", r"周末"),
    (
        "daily",
        r"\b(?:every|each)\s+(?:single\s+)?(?:day|morning|afternoon|evening|night)\b"
        r"|\b(?:daily|nightly|everyday)\b|\bmost\s+(?:days|nights|mornings|evenings)\b",
        r"每天|天天|每日|每晚|每早|每个晚上|每个早上",
    ),
    ("monthly", r"\b(?:every|each)\s+month\b|\bmonthly\b", r"每个?月"),
    ("yearly", r"\b(?:every|each)\s+year\b|\b(?:yearly|annually)\b", r"每年"),
    ("weekly", r"\b(?:every|each)\s+week\b|\bweekly\b", r"每周|每个?星期|每个?礼拜|每逢"),
]
_FREQUENCY_PATTERNS = [(name, re.compile(en), re.compile(zh)) for name, en, zh in _FREQUENCIES]


def _weekdays(low: str) -> list[int]:
    found: set[int] = set()
    spans: list[tuple[int, int, int]] = []
    for m in _EN_WD.finditer(low):
        spans.append((m.start(), m.end(), ("mo", "tu", "we", "th", "fr", "sa", "su").index(m[1][:2])))
    for m in _ZH_WD.finditer(low):
        spans.append((m.start(), m.end(), _ZH_WD_INDEX[m[1]]))
    spans.sort()
    for i, (_, end, wd) in enumerate(spans):
        found.add(wd)
        if i + 1 < len(spans) and _RANGE.fullmatch(low[end : spans[i + 1][0]]):  # "Monday to Friday"
            nxt = spans[i + 1][2]
            found.update(range(wd, nxt + 1) if nxt >= wd else [])
    return sorted(found)


def _frequency(low: str, zh: bool, weekdays: list[int]) -> str | None:
    if m := _EN_PER.search(low):
        n = _COUNT.get(m["n"]) or int(m["n"])
        return ("daily" if m["unit"] == "day" else "weekly") if n == 1 else f"times_per_{m['unit']}:{n}"
    if zh and (m := _ZH_PER.search(low)):
        n = _ZH_COUNT.get(m["n"]) or int(m["n"])
        unit = "day" if m["unit"] == "天" else "week"
        return ("daily" if unit == "day" else "weekly") if n == 1 else f"times_per_{unit}:{n}"
    if weekdays == [0, 1, 2, 3, 4]:
        return "weekdays"
    for name, en, zh_pattern in _FREQUENCY_PATTERNS:
        if en.search(low) or (zh and zh_pattern.search(low)):
            return name
    return "weekly" if weekdays else None


def _en_time(low: str) -> tuple[str | None, str | None]:
    said = _EN_PERIOD.search(low)
    period = (PERIOD_WORD[said[1]] if said[1] else "noon") if said else None
    for m in _EN_TIME.finditer(low):
        near = _EN_PERIOD_NEAR.match(low, m.end())
        clk = en_clock(m, PERIOD_WORD[near[1] or near[2]] if near else period)
        if clk:
            return f"{clk[1]:02d}:{clk[2]:02d}", period or (PERIOD_WORD[near[1] or near[2]] if near else None)
    return None, period


def _zh_time(text: str) -> tuple[str | None, str | None]:
    said = _ZH_PERIOD.search(text)
    period = ZH_PERIOD_WORD[said[0]] if said else None
    for m in _ZH_TIME_START.finditer(text):
        t = TIME.match(text, m.start())
        if t and t["hp"] and (clk := time_clock(t, None)):
            return f"{clk[1]:02d}:{clk[2]:02d}", period
    return None, period


def _routine_clauses(text: str, low: str) -> tuple[str, str, bool]:
    """The clauses of ``text`` that state a routine (original, lower-cased, joined), and whether one
    has an explicit recurrence cue (not just the present simple)."""
    ends = [0, *(m.end() for m in cues.SENTENCE_END.finditer(text)), len(text)]
    orig: list[str] = []
    lows: list[str] = []
    cue = False
    for lo, hi in pairwise(ends):
        for c in cues.sentence(text[lo:hi], low[lo:hi], lo).clauses:
            if c.habit or c.routine_time:
                orig.append(text[c.start : c.end])
                lows.append(low[c.start : c.end])
                cue = cue or c.habit
    return " ; ".join(orig), " ; ".join(lows), cue


def recurrence(text: str) -> Recurrence | None:
    """The recurring schedule ``text`` states, or None when it states none (see dates.py)."""
    text, low, habit = _routine_clauses(text, text.lower())
    if not low:
        return None
    zh = not low.isascii()
    weekdays = _weekdays(low)
    time, period = _zh_time(text) if zh else (None, None)
    if time is None and period is None:
        time, period = _en_time(low)
    frequency = _frequency(low, zh, weekdays)
    if not habit and time is None:
        return None  # present simple without a time is no schedule ("I like tea")
    if time is None and period is None and not weekdays and frequency is None:
        return None
    return Recurrence(time=time, period=period, weekdays=[_NAMES[d] for d in weekdays], frequency=frequency)
