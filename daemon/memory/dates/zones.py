"""Clock times said in another place's time: "tuesday 9am boston time", "10:30 PT", "北京时间晚上八点".

A clock is read in the speaker's zone unless the words beside it name another: then it is that
zone's wall-clock time on that zone's calendar day, moved into the speaker's zone (9am in Boston
on a Tuesday in March, between the US and the European clock changes, is 13:00 in Lisbon, not
14:00). Abbreviations are read only in capitals ("ET", not the French "et"); a place needs the word
"time" after it ("boston time"), or 时间 after it in Chinese, before the clock. The zones are the
IANA ones, so each side's daylight saving is its own.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from daemon.memory.dates.common import DateMention

_NEW_YORK, _CHICAGO, _DENVER, _LA = (
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
)

# abbreviations, said in capitals after the clock
_ABBREVIATIONS = {
    **dict.fromkeys(("ET", "EST", "EDT"), _NEW_YORK),
    **dict.fromkeys(("CT", "CST", "CDT"), _CHICAGO),
    **dict.fromkeys(("MT", "MST", "MDT"), _DENVER),
    **dict.fromkeys(("PT", "PST", "PDT"), _LA),
    "GMT": "UTC",
    "UTC": "UTC",
    "BST": "Europe/London",
    **dict.fromkeys(("CET", "CEST"), "Europe/Paris"),
    "JST": "Asia/Tokyo",
    "KST": "Asia/Seoul",
    "SGT": "Asia/Singapore",
    "HKT": "Asia/Hong_Kong",
    **dict.fromkeys(("AEST", "AEDT"), "Australia/Sydney"),
    **dict.fromkeys(("NZST", "NZDT"), "Pacific/Auckland"),
}
# places and regions, said with "time" after them
_PLACES = {
    **dict.fromkeys(
        ("boston", "new york", "nyc", "ny", "toronto", "miami", "atlanta", "eastern", "east coast", "dc"),
        _NEW_YORK,
    ),
    **dict.fromkeys(("chicago", "central", "texas", "austin", "dallas", "houston"), _CHICAGO),
    **dict.fromkeys(("denver", "mountain"), _DENVER),
    **dict.fromkeys(
        (
            "la",
            "los angeles",
            "san francisco",
            "sf",
            "seattle",
            "vancouver",
            "pacific",
            "west coast",
            "california",
        ),
        _LA,
    ),
    **dict.fromkeys(("london", "uk"), "Europe/London"),
    **dict.fromkeys(("paris", "berlin", "madrid", "rome", "amsterdam", "brussels", "cet"), "Europe/Paris"),
    **dict.fromkeys(("tokyo", "japan"), "Asia/Tokyo"),
    "seoul": "Asia/Seoul",
    **dict.fromkeys(("beijing", "shanghai", "china"), "Asia/Shanghai"),
    **dict.fromkeys(("hong kong", "hk"), "Asia/Hong_Kong"),
    "singapore": "Asia/Singapore",
    **dict.fromkeys(("sydney", "melbourne"), "Australia/Sydney"),
    **dict.fromkeys(("india", "delhi", "mumbai", "bangalore", "bengaluru"), "Asia/Kolkata"),
}
# in Chinese the place comes first: "北京时间晚上八点", "美东时间周二上午九点"
_PLACES_ZH = {
    "北京": "Asia/Shanghai",
    "美东": _NEW_YORK,
    "美国东部": _NEW_YORK,
    "美西": _LA,
    "美国西部": _LA,
    "伦敦": "Europe/London",
    "东京": "Asia/Tokyo",
    "日本": "Asia/Tokyo",
    "首尔": "Asia/Seoul",
    "韩国": "Asia/Seoul",
    "香港": "Asia/Hong_Kong",
    "新加坡": "Asia/Singapore",
    "悉尼": "Australia/Sydney",
    "墨尔本": "Australia/Melbourne",
    "上海": "Asia/Shanghai",
    "国内": "Asia/Shanghai",
    "台北": "Asia/Taipei",
    "台湾": "Asia/Taipei",
    "澳门": "Asia/Macau",
    "吉隆坡": "Asia/Kuala_Lumpur",
    "曼谷": "Asia/Bangkok",
    "迪拜": "Asia/Dubai",
    "纽约": _NEW_YORK,
    "洛杉矶": _LA,
    "温哥华": "America/Vancouver",
    "多伦多": "America/Toronto",
    "巴黎": "Europe/Paris",
    "柏林": "Europe/Berlin",
}
_AFTER_ABBR = re.compile(
    r"\s*\(?(" + "|".join(sorted(_ABBREVIATIONS, key=len, reverse=True)) + r")\)?(?![A-Za-z])"
)
_AFTER_PLACE = re.compile(
    r"\s*\(?(?:in\s+)?(" + "|".join(sorted(map(re.escape, _PLACES), key=len, reverse=True)) + r")\s+time\b\)?"
)
# ... or a region's name alone, as Americans say it ("tuesday at 11 eastern, so 9 for me", "2pm
# pacific?"): not before another word that would make it a name ("5 central station", "at 6
# eastern market")
_AFTER_REGION = re.compile(
    r"\s*(eastern|pacific|central|mountain)(?=\s*(?:$|[^\w\s]|(?:so|and|on|then|tomorrow|today|tonight|tmrw|for|which|is|if|or|but)\b))"
)
# ... or after a clock said just before the day it was attached to ("10am PT thursday")
_CLOCK_BEFORE = re.compile(
    r"\d(?:[:.]\d\d)?\s*(?:[ap]\.?m\.?)?\s*\(?("
    + "|".join(sorted(_ABBREVIATIONS, key=len, reverse=True))
    + r")\)?\s*(?:on\s+|this\s+|next\s+)?$",
    re.IGNORECASE,
)
_PLACE_TIME_ZH = "(" + "|".join(sorted(_PLACES_ZH, key=len, reverse=True)) + ")时间"
_BEFORE_ZH = re.compile(_PLACE_TIME_ZH + r"\s*$")
_INSIDE_ZH = re.compile(r"\s*" + _PLACE_TIME_ZH)


def _named_zone(text: str, low: str, m: DateMention) -> tuple[str, int, int] | None:
    """The zone named beside a mention's clock, and where the mention then starts and ends (a
    Chinese "香港时间" before it is part of it)."""
    abbr = _AFTER_ABBR.match(text, m.end)
    if abbr is not None:
        return _ABBREVIATIONS[abbr.group(1)], m.start, abbr.end()
    place = _AFTER_PLACE.match(low, m.end) or _AFTER_REGION.match(low, m.end)
    if place is not None:
        return _PLACES[place.group(1)], m.start, place.end()
    before = _CLOCK_BEFORE.search(text, max(0, m.start - 16), m.start)
    if before is not None and before.group(1) in _ABBREVIATIONS:  # in capitals, as said
        return _ABBREVIATIONS[before.group(1)], m.start, m.end
    zh = _BEFORE_ZH.search(text, max(0, m.start - 8), m.start)
    if zh is not None:
        return _PLACES_ZH[zh.group(1)], zh.start(), m.end
    # ... or between the day and its clock: "下周一北京时间晚上十点" (the day is the mention, the
    # clock was attached to it)
    inside = _INSIDE_ZH.search(text, m.start, m.end) or _INSIDE_ZH.match(text, m.end)
    if inside is not None:
        return _PLACES_ZH[inside.group(1)], m.start, max(m.end, inside.end())
    return None


def zone_before(text: str, pos: int) -> tuple[str, int] | None:
    """The zone a Chinese "X时间" right before `pos` names, and where that starts: a lone clock told
    in another place's time, apart from its day ("下周二的，票上写的北京时间10:40开", told in Ürümqi)."""
    zh = _BEFORE_ZH.search(text, max(0, pos - 8), pos)
    return (_PLACES_ZH[zh.group(1)], zh.start()) if zh is not None else None


def in_named_zones(
    text: str, low: str, found: list[DateMention], tz: ZoneInfo, done: frozenset[int] = frozenset()
) -> list[DateMention]:
    """`found` with each clock said in another place's time moved into `tz` (its span taking the
    zone's name beside it); those starting at a position in `done` were read so already."""
    out = []
    for m in found:
        named = _named_zone(text, low, m) if m.has_clock and m.start not in done else None
        if named is None:
            out.append(m)
            continue
        zone, start, end = named
        wall = m.value.astimezone(tz)
        there = datetime.combine(wall.date(), wall.time(), tzinfo=ZoneInfo(zone)).astimezone(tz)
        out.append(replace(m, value=there, start=start, end=end, text=text[start:end]))
    return out
