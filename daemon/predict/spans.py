"""spans: the hours an event without a time of day still takes ("the offsite, 9 to 5", "九点到五点",
"the whole day"), for the clash it can be part of and the reminder that should come before it.

A clock written in 24-hour form ("08:00–14:30", "07.30 to 11", "06h00-09h00", "14点到16点") is
read as written; only a bare hour ("9 to 5") takes the afternoon guess."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from daemon.memory.dates.en_time import hour_24h
from daemon.memory.dates.hant import simplified
from daemon.memory.dates.zh import number as zh_number
from daemon.memory.types import ItemView
from daemon.predict.base import is_cjk, what

# an hour and its minutes: "9", "9:30", "07.30", "06h00", "19h" (not a price: "$12.50 - 15")
_EN_CLOCK = (
    r"(?P<h{n}>\d{{1,2}})(?:[:.](?P<m{n}>[0-5]\d)|(?P<hf{n}>h)(?P<mh{n}>[0-5]\d)?)?\s*(?P<ap{n}>am|pm)?"
)
# a hedge on an hour: "from around 7 until about 4", "8.30 till like 4.30"
_ABOUT = r"(?:(?:about|around|roughly|approx(?:imately|\.)?|like|maybe|probably|prob|~)\s*)?"
_EN_DAY_SPAN = re.compile(
    rf"(?<![$€£¥\d.,])(?:\bfrom\s+{_ABOUT}|\b){_EN_CLOCK.format(n=1)}\s*(?:to|until|till|-|–)\s*{_ABOUT}"
    rf"{_EN_CLOCK.format(n=2)}\b",
    re.IGNORECASE,
)
# (Cantonese says 朝早 for the morning, 下昼 / 晏昼 for the afternoon, 晚黑 / 夜晚 for the evening)
_ZH_DAY_SPAN = re.compile(
    r"(上午|早上|朝早|下午|下昼|晏昼|晚上|晚黑|夜晚)?\s*(十[一二]?|[一二两三四五六七八九]|\d{1,2})\s*点(半)?\s*(?:到|至|-|–)\s*"
    r"(上午|中午|下午|下昼|晏昼|晚上|晚黑|夜晚)?\s*(十[一二]?|[一二两三四五六七八九]|\d{1,2})\s*点(半)?"
)
_ZH_AFTER_NOON = ("下午", "下昼", "晏昼", "晚上", "晚黑", "夜晚")
# (Cantonese 成日 right after its day is that whole day, "禮拜四成日要出海"; else it is "always":
# "佢成日都遲到")
_ALL_DAY = re.compile(
    r"\b(?:all[- ]day|the whole day|whole day|all day long|(?:the\s+)?full[- ]day|day[- ]long)\b|全天|一整天|整天"
    r"|(?<=[一二三四五六日天])成日(?![都系咁])",
    re.IGNORECASE,
)
WORKING_DAY = (9, 18)  # "the whole day" without hours: it takes the working day, not the evening


def _hour(raw: str) -> int | None:
    n = zh_number(raw)
    return int(n) if n is not None and n == int(n) and 0 <= n < 24 else None


def _span(day: datetime, h1: int, m1: int, h2: int, m2: int) -> tuple[datetime, datetime]:
    start, end = day.replace(hour=h1, minute=m1), day.replace(hour=h2, minute=m2)
    return start, end if start < end else end + timedelta(days=1)  # "22:00–02:00": into the night


# the clock said as when the day's thing is over: back home, done ("won't be home till 8pm", "晚上八点
# 才能回到家")
_ENDS = re.compile(
    r"回到家|回家|到家|回来|收工|结束|\b(?:home|back|done|finish(?:ed)?|wrap(?:s|ped)?\s+up)\b", re.I
)


def ends_the_whole_day(item: ItemView, due: datetime) -> bool:
    """A day said to take all of it whose clock is after the working day and is said as when it is
    over: the time it ends ("一整天都要去 Rotterdam 做 audit，…估计晚上八点才能回到家"), not a time to
    be somewhere ("thursday 7pm dinner with Ana, gonna need it after a whole day of meetings")."""
    text = simplified(what(item))
    return bool(_ALL_DAY.search(text)) and due.hour >= WORKING_DAY[1] and bool(_ENDS.search(text))


def day_span(item: ItemView, day: datetime) -> tuple[datetime, datetime] | None:
    """The hours an event without a time of day still takes: "9 to 5", "九点到五点", "the whole
    day" (the working day); None when its sentence names none (a birthday takes no hours).
    Traditional is read as Simplified ("9點到5點")."""
    text = simplified(what(item))
    if is_cjk(text):
        z = _ZH_DAY_SPAN.search(text)
        if z:
            h1, h2 = _hour(z.group(2)), _hour(z.group(5))
            if h1 is not None and h2 is not None:
                if z.group(1) in _ZH_AFTER_NOON and h1 < 12:
                    h1 += 12
                m1, m2 = 30 if z.group(3) else 0, 30 if z.group(6) else 0
                as_written = hour_24h(z.group(5))
                if (h2, m2) <= (h1, m1) and h2 + 12 < 24 and not as_written:
                    h2 += 12  # "九点到五点": five in the afternoon
                if (h1, m1) < (h2, m2) or (as_written and (h1, m1) != (h2, m2)):
                    return _span(day, h1, m1, h2, m2)
    else:
        m = _EN_DAY_SPAN.search(text)
        if m:
            h1, h2 = int(m["h1"]), int(m["h2"])
            if (m["ap1"] or "").lower() == "pm" and h1 < 12:
                h1 += 12
            if (m["ap2"] or "").lower() == "pm" and h2 < 12:
                h2 += 12
                if not m["ap1"] and not hour_24h(m["h1"], bool(m["hf1"])) and h1 + 12 < h2:
                    h1 += 12  # "1-3pm": the pm is the start's too
            m1, m2 = int(m["m1"] or m["mh1"] or 0), int(m["m2"] or m["mh2"] or 0)
            as_written = hour_24h(m["h2"], bool(m["hf2"]))
            if (h2, m2) <= (h1, m1) and h2 + 12 < 24 and not as_written:
                h2 += 12  # "9 to 5": five in the afternoon
            if h1 < 24 and h2 < 24 and ((h1, m1) < (h2, m2) or (as_written and (h1, m1) != (h2, m2))):
                return _span(day, h1, m1, h2, m2)
    if _ALL_DAY.search(text):
        return day.replace(hour=WORKING_DAY[0]), day.replace(hour=WORKING_DAY[1])
    return None


_CLAUSE = re.compile(r"[^,，;；.。!！?？]+")


def span_clause(item: ItemView) -> str:
    """The clause of the event's sentence that names the hours it takes ("估计要折腾一整天" of
    "周五搬家，请了一天假，估计要折腾一整天"), or "" when none does (read as Simplified, quoted as
    written)."""
    written = what(item)
    text = simplified(written)
    found = (_ZH_DAY_SPAN.search(text) if is_cjk(text) else _EN_DAY_SPAN.search(text)) or _ALL_DAY.search(
        text
    )
    if found is None:
        return ""
    return next(
        (c.group(0) for c in _CLAUSE.finditer(written) if c.start() <= found.start() < c.end()), written
    )
