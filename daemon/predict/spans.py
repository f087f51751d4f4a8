"""spans: the hours an event without a time of day still takes ("the offsite, 9 to 5", "九点到五点",
"the whole day"), for the clash it can be part of and the reminder that should come before it."""

from __future__ import annotations

import re
from datetime import datetime

from daemon.memory.dates.zh import number as zh_number
from daemon.memory.types import ItemView
from daemon.predict.base import is_cjk, what

_EN_DAY_SPAN = re.compile(
    r"\b(?:from\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*(?:to|until|till|-|–)\s*(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b",
    re.IGNORECASE,
)
_ZH_DAY_SPAN = re.compile(
    r"(上午|早上|下午|晚上)?\s*(十[一二]?|[一二两三四五六七八九]|\d{1,2})\s*点(半)?\s*(?:到|至|-|–)\s*"
    r"(上午|中午|下午|晚上)?\s*(十[一二]?|[一二两三四五六七八九]|\d{1,2})\s*点(半)?"
)
_ALL_DAY = re.compile(
    r"\b(?:all[- ]day|the whole day|whole day|all day long)\b|全天|一整天|整天", re.IGNORECASE
)
WORKING_DAY = (9, 18)  # "the whole day" without hours: it takes the working day, not the evening


def _hour(raw: str) -> int | None:
    n = zh_number(raw)
    return int(n) if n is not None and n == int(n) and 0 <= n < 24 else None


def day_span(item: ItemView, day: datetime) -> tuple[datetime, datetime] | None:
    """The hours an event without a time of day still takes: "9 to 5", "九点到五点", "the whole
    day" (the working day); None when its sentence names none (a birthday takes no hours)."""
    text = what(item)
    if is_cjk(text):
        z = _ZH_DAY_SPAN.search(text)
        if z:
            h1, h2 = _hour(z.group(2)), _hour(z.group(5))
            if h1 is not None and h2 is not None:
                if z.group(1) in ("下午", "晚上") and h1 < 12:
                    h1 += 12
                if h2 <= h1 and h2 + 12 < 24:
                    h2 += 12  # "九点到五点": five in the afternoon
                if h1 < h2:
                    m1, m2 = 30 if z.group(3) else 0, 30 if z.group(6) else 0
                    return day.replace(hour=h1, minute=m1), day.replace(hour=h2, minute=m2)
    else:
        m = _EN_DAY_SPAN.search(text)
        if m:
            h1, h2 = int(m.group(1)), int(m.group(4))
            if (m.group(3) or "").lower() == "pm" and h1 < 12:
                h1 += 12
            if (m.group(6) or "").lower() == "pm" and h2 < 12:
                h2 += 12
            if h2 <= h1 and h2 + 12 < 24:
                h2 += 12  # "9 to 5": five in the afternoon
            if h1 < h2 < 24:
                m1, m2 = int(m.group(2) or 0), int(m.group(5) or 0)
                if m1 < 60 and m2 < 60:
                    return day.replace(hour=h1, minute=m1), day.replace(hour=h2, minute=m2)
    if _ALL_DAY.search(text):
        return day.replace(hour=WORKING_DAY[0]), day.replace(hour=WORKING_DAY[1])
    return None
