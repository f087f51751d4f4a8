"""Parts of the day a person gives themselves for a piece of work, which the date resolver leaves
undated ("after lunch", 午饭后, 食完晏, "end of day", 放工后, 下昼), each at its usual hour.

Closed vocabularies, one class a line, by language: the words people use, not the shape of any
one sentence. They read text in Simplified characters (`daemon.memory.dates.hant.simplified`, one
character for one), so Traditional 午飯後 and 下班後 fall in the Mandarin classes, and Hong Kong's
食完晏 and 下晝 are read as 食完晏 and 下昼.

Cantonese names lunch 晏 (食晏 "to have lunch", 晏昼 the lunch hour), the afternoon 下昼, the
evening 晚黑, leaving work 放工/收工, and tomorrow 听日 (听朝 its morning, 听晚 its evening). Hong Kong
offices lunch from 13:00 to 14:00, so a Cantonese "after lunch" is fair from 14:00, where the
Mandarin and English ones are from 13:00.
"""

from __future__ import annotations

import re
from datetime import time

# a part of the day with its clock (下午三点) is the date resolver's to read
_NO_HOUR = r"(?![\d一二两三四五六七八九十])"
_LUNCH_HK = time(14, 0)

DAY_PARTS: tuple[tuple[re.Pattern[str], time], ...] = (
    # English
    (
        re.compile(r"\b(?:after|post)[- ]lunch\b|\bonce i'?ve (?:had|eaten) lunch\b", re.IGNORECASE),
        time(13, 0),
    ),
    (re.compile(r"\b(?:end of (?:the )?day|eod|close of play|later today)\b", re.IGNORECASE), time(17, 0)),
    # the start of a working morning: "first thing", "after standup" (a team's morning meeting)
    (
        re.compile(
            r"\bfirst thing\b|\bafter (?:the |our |my )?(?:stand-?ups?|morning (?:meeting|sync)|scrum)\b",
            re.IGNORECASE,
        ),
        time(9, 30),
    ),
    # Mandarin, Simplified and Traditional (午餐 is Taiwan's 午饭)
    (re.compile(r"午饭后|吃完午饭|吃完饭|午休后|中午之后|午饭之后|午餐(?:之)?后|吃完午餐"), time(13, 0)),
    (re.compile(r"下班前|今天之内|今天下班(?![之以]?后)"), time(17, 0)),
    (re.compile(r"(?:早会|晨会|站会)(?:开完)?[之以]?后|开完(?:早会|晨会|站会)|一早|一上班"), time(9, 30)),
    (re.compile(r"下班[之以]?后"), time(18, 0)),
    # a bare part of the day (下午看, 晚上弄), at the hours the date resolver gives its parts
    (re.compile(rf"上午{_NO_HOUR}"), time(9, 0)),
    (re.compile(rf"下午{_NO_HOUR}"), time(15, 0)),
    (re.compile(rf"晚上{_NO_HOUR}"), time(20, 0)),
    # Cantonese
    (re.compile(r"食完(?:晏|饭|lunch)|食晏[之以]?后|晏昼", re.IGNORECASE), _LUNCH_HK),
    (re.compile(r"[放收]工前|今日之内|今日[放收]工(?![之以]?后)"), time(17, 0)),
    (re.compile(r"[放收]工[之以]?后|[放收]工先"), time(18, 0)),
    (re.compile(rf"下昼{_NO_HOUR}"), time(15, 0)),
    (re.compile(rf"(?:晚黑|夜晚){_NO_HOUR}"), time(20, 0)),
)

# Cantonese words for tomorrow (not 听日语 "listening to Japanese"): the date resolver reads them
# too, and this is the fallback when it gave the turn no date ahead; the parts of the day said
# with them are that day's.
_DAY_AHEAD = re.compile(r"听(?P<w>日(?![语文本剧])|朝|晚(?!会))")


def day_ahead(plain: str, morning: time) -> tuple[int, time | None] | None:
    """(days ahead, the part of that day the word itself names) of a Cantonese word for tomorrow
    in `plain` (Simplified text): 听日 (1, None), 听朝 (1, `morning`), 听晚 (1, 20:00); else None."""
    m = _DAY_AHEAD.search(plain)
    if m is None:
        return None
    return 1, {"日": None, "朝": morning, "晚": time(20, 0)}[m["w"][0]]
