"""time off: leave, a day off, a half day, annual leave, 请假, 调休, 休假, 年假, 放假 — time the person
frees, not time they give to something. It cannot clash with anything: a half day taken for the
dentist overlaps the dentist by design.

A closed vocabulary, one class a line, by language: the words people use for leave, not the shape
of any one sentence. Chinese is read in Simplified characters (`daemon.memory.dates.hant`, one
character for one), so Traditional 請假 and 調休 fall in the same class as 请假 and 调休. A leave
word said as not taken ("not taking the day off", 没请到假, 不放假) is no time off.
"""

from __future__ import annotations

import re

from daemon.memory.dates.hant import simplified

_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_TAKE = (
    r"(?:take|takes|taking|took|taken|book|booked|booking|request|requested|got|get|have|having"
    r"|put\s+in\s+for|applied\s+for|apply\s+for|asked\s+for)"
)
_EN_LEAVE = re.compile(
    # a stretch of time that is "off": "friday off", "the afternoon off", "time off"
    rf"\b(?:time|(?:half[- ])?days?|mornings?|afternoons?|evenings?|weeks?|weekend|tomorrow|today|{_DAYS})\s+off\b"
    r"|\boff\s+work\b"
    # the kinds of leave, and leave taken
    r"|\b(?:annual|sick|personal|parental|maternity|paternity|compassionate|bereavement|study|unpaid|family"
    r"|carer'?s|long[- ]service|casual)\s+leave\b"
    rf"|\b(?:on|{_TAKE})\s+leave\b|\b(?:half[- ]day|days?)\s+of\s+leave\b|\bleave\s+days?\b|\bhalf[- ]day\s+leave\b"
    rf"|\b{_TAKE}\s+(?:a\s+|the\s+)?half[- ]day\b"
    r"|\bpto\b|\bvacation\s+days?\b|\b(?:bank|public)\s+holiday\b|\bout\s+of\s+(?:the\s+)?office\b|(?-i:\bOOO\b)",
    re.IGNORECASE,
)
# said as not taken, in the same clause: "not taking friday off", "can't get the day off", "leave
# got rejected"
_EN_NOT_BEFORE = re.compile(
    r"\b(?:no|not|never|without|can'?t|cannot|couldn'?t|won'?t|didn'?t|don'?t|isn'?t|wasn'?t|aren'?t)"
    r"(?:[^\w,.;!?]+\w+){0,3}[^\w,.;!?]*\Z",
    re.IGNORECASE,
)
_EN_NOT_AFTER = re.compile(
    r"\A(?:[^\w,.;!?]+\w+){0,3}?[^\w,.;!?]+(?:denied|rejected|refused|(?:not|never|wasn'?t)\s+(?:approved|granted))\b",
    re.IGNORECASE,
)
# 请假 with what may stand between (请了半天假, 请个假, 休年假); 攞假 is Cantonese for it. Not 请你假装
_ZH_LEAVE = re.compile(
    r"(?:请|攞|休)[了个过好到咗一二两三四五六七八九十半天日周的年病事婚产丧]{0,5}假(?![装如设使若冒货扮])"
    r"|年假|放假|放[咗了]假|调休|补休|轮休|病假|事假|婚假|产假|丧假|公众假期"
)
# 不请假, 没请到假, 不放假, 唔使请假; 不许请假, 不准请假 (forbidden, so none is taken); 假没批
# (asked for, not given)
_ZH_NOT_BEFORE = re.compile(r"(?:不|没|未|别|唔|冇|不用|不必|不能|唔使|不许|不准|不让|不给|禁止|唔准|唔俾)\Z")
_ZH_NOT_AFTER = re.compile(r"\A(?:条)?(?:没|没有|未|不|冇)(?:被)?(?:批|准)|\A被拒")


def _taken(text: str, m: re.Match[str], zh: bool) -> bool:
    """Whether the leave word `m` is said as taken, not as "not taking" or refused."""
    before, after = text[max(0, m.start() - 40) : m.start()], text[m.end() : m.end() + 40]
    if zh:
        return not (_ZH_NOT_BEFORE.search(before) or _ZH_NOT_AFTER.search(after))
    return not (_EN_NOT_BEFORE.search(before) or _EN_NOT_AFTER.search(after))


def is_time_off(text: str) -> bool:
    """Whether `text` says the person takes time off: leave, a day off, 请假, 调休, 休假, 年假, 放假.
    Both vocabularies are read: a Chinese sentence may say "annual leave" and an English one 请假."""
    zh = simplified(text)  # 請 as 请, one character for one: the spans stay
    return any(_taken(zh, m, True) for m in _ZH_LEAVE.finditer(zh)) or any(
        _taken(text, m, False) for m in _EN_LEAVE.finditer(text)
    )
