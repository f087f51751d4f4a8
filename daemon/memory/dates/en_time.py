"""English times of day for the date resolver: "3pm", "10:30", "at 7", "noon", "half past six",
"quarter to five", "half six", "eight thirty", "in the evening". Conventions: daemon/memory/dates/__init__.py.
"""

from __future__ import annotations

import re

from daemon.memory.dates.common import Clock, clock

# "arvo": the afternoon in Australian English ("thurs arvo, half 2")
PERIOD_WORD = {
    "morning": "morning",
    "afternoon": "afternoon",
    "arvo": "afternoon",
    "evening": "evening",
    "night": "evening",
}

_ONES = "one two three four five six seven eight nine".split()
_HOURS = {w: i + 1 for i, w in enumerate([*_ONES, "ten", "eleven", "twelve"])}
_TEENS = {
    w: 10 + i
    for i, w in enumerate(
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_HOURW = "|".join(sorted(_HOURS, key=len, reverse=True))
_ONESW = "|".join(_ONES)
_MINW = (
    rf"o['’]?clock|oh\s+(?:{_ONESW})|(?:twenty|thirty|forty|fifty)(?:[-\s](?:{_ONESW})\b)?"
    rf"|{'|'.join(sorted(_TEENS, key=len, reverse=True))}"
)
# Written-out times: "half past six", "quarter to five", "ten past nine", "half six", "eight thirty".
_WORD_TIME = rf"""
    (?:a\s+)?(?P<rq>half|quarter|twenty[-\s]five|twenty|ten|five)(?:\s+minutes?)?
        \s+(?P<rel>past|to|after)\s+(?P<rh>{_HOURW}|[0-9]{{1,2}})\b
  | (?P<rqd>[0-9]{{1,2}})(?:\s+minutes?)?\s+(?:past|after)\s+(?P<rhd>{_HOURW}|[0-9]{{1,2}})\b
  | half\s+(?P<bh>{_HOURW}|[0-9]{{1,2}})\b(?![:.][0-9])
  | (?P<wh>{_HOURW})\b(?:\s+(?P<wm>{_MINW})\b)?(?:\s*(?P<wap>[ap])\.?m\b\.?)?
"""
CORE = rf"""(?:
    (?P<noon>noon|midday)(?:ish)?
  | (?P<h>\d{{1,2}})(?:[:.](?P<m>[0-5]\d))?\s*(?P<ap>[ap])\.?m\b\.?
  | (?P<hc>\d{{1,2}}):(?P<mc>[0-5]\d)\b(?!:\d)
  | (?P<hd>\d{{1,2}})\.(?P<md>[0-5]\d)\b(?![.,]?\d)
  | (?P<hf>\d{{1,2}})h(?P<mf>[0-5]\d)?\b
  | (?P<ho>\d{{1,2}})\s*o['’]?clock\b
  | {_WORD_TIME}
  | (?P<hx>[0-2]?\d)(?P<mx>[0-5]\d)\b(?![:.,]?\d|\s*(?:%|percent|°|degrees|k?m\b|kg\b|people|ppl))
  | (?P<hb>\d{{1,2}})\b(?![:.]\d|\s*(?:%|percent|°|degrees))
)"""
TIME_AFTER = re.compile(rf"\s*,?\s*(?:(?P<prep>at|around|about|by|from|until|till|@)\s*)?{CORE}", re.VERBOSE)
TIME_BEFORE = re.compile(
    rf"(?<![\w:.])(?:(?P<prep>at|around|about|by|from|until|till|@)\s*)?{CORE}\s+(?:on\s+)?\Z", re.VERBOSE
)
# A time with no date next to it: "3pm", "10 a.m.", "at 10:30", "at noon" (a lone "10:30" may be a score;
# a dotted "7.15" is a time only after a preposition: "by 7.15", not "7.15 km").
# A Chinese character may follow the minutes ("7:25那趟"): a word boundary would not end the clock there.
TIME_ALONE = re.compile(
    r"""(?P<h>[0-9]{1,2})(?:
        (?:[:.](?P<m>[0-5][0-9]))?\s*(?P<ap>[ap])\.?m\b\.?
      | :(?P<mc>[0-5][0-9])(?![0-9A-Za-z_])(?!:[0-9])
      | \.(?P<md>[0-5][0-9])(?![0-9A-Za-z_%])(?!\.[0-9])
      | h(?P<mh>[0-5][0-9])\b
      | \s*o['’]?clock\b
      | (?P<mz>[0-5][0-9])(?P<hrs>\s*(?:hrs?|hours)\b)?(?![0-9A-Za-z_])(?![.,:/-]?[0-9]))""",
    re.VERBOSE,
)
# (the last form is the 24-hour clock written as four figures, "0540", "1430 hrs": `four_figures`)
# ... or written out after a preposition: "at quarter to five", "at half six" (not a bare "at seven").
WORD_TIME_ALONE = re.compile(rf"(?P<prep>at|around|about|by|until|till|@)\s+(?:{_WORD_TIME})", re.VERBOSE)
PERIOD_AFTER = re.compile(r"\s+(?:in\s+the\s+)?(?P<p>morning|afternoon|arvo|evening|night)\b")
PERIOD_TAIL = re.compile(r"\s+(?:in\s+the\s+(?P<p>morning|afternoon|arvo|evening)|at\s+(?P<n>night))\b")
_WORD_CUES = ("at ", "around ", "about ", "by ", "until ", "till ", "@")


def has_word_time(low: str) -> bool:
    return any(c in low for c in _WORD_CUES)


def hour_24h(raw_hour: str, h_form: bool = False) -> bool:
    """Whether an hour as written is of the 24-hour clock: zero-padded ("06", "07.30"), past 12
    ("17:30") or with an "h" after it ("06h01", "19h"). Its hour is the hour: no am/pm guess may
    move it."""
    return h_form or (raw_hour.isdigit() and (raw_hour.startswith("0") or int(raw_hour) > 12))


def written_24h(m: re.Match[str]) -> bool:
    """Whether a match of the patterns above is a clock in 24-hour form (`hour_24h`)."""
    g = m.groupdict()
    raw = next((g[k] for k in ("h", "hc", "hd", "ho", "hb") if g.get(k)), "")
    return hour_24h(raw, bool(g.get("hf") or g.get("mh") or g.get("mz")))


def four_figures(m: re.Match[str], named: bool) -> bool:
    """Whether a `TIME_ALONE` match of four figures ("0540", "1430") is a clock: the 24-hour clock
    of rosters, tickets and flight plans, said with "hrs" after it, or zero-led ("0540": no count,
    year or street number starts with 0) or an hour 13–23, right after a word that `named` its time
    ("at", "leaves", "show time"), not a year's 19 or 20. Not "212 units", "at 1130 Main St",
    "starts 2027"."""
    raw = m["h"]
    if len(raw) != 2 or int(raw) > 23:
        return False
    year = raw in ("19", "20")  # "starts 2027"
    return bool(m["hrs"]) or (named and (raw.startswith("0") or (int(raw) >= 13 and not year)))


def _minutes(words: str) -> int | None:
    """Minutes written as words or digits: "thirty five", "oh five", "o'clock", "twenty-five", "20"."""
    parts = words.replace("-", " ").replace("’", "'").split()
    if parts[-1] in ("minute", "minutes"):
        parts = parts[:-1]
    if parts[0].isdigit():
        return int(parts[0])
    if parts[0] in ("o'clock", "oclock"):
        return 0
    if parts[0] == "oh":
        return _HOURS[parts[1]]
    if parts[0] in _TEENS:
        return _TEENS[parts[0]]
    if parts[0] in _TENS:
        return _TENS[parts[0]] + (_HOURS[parts[1]] if len(parts) > 1 else 0)
    return {"half": 30, "quarter": 15, "five": 5}.get(parts[0])


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _HOURS[word]


def en_clock(m: re.Match[str], period: str | None, after_day: bool = False) -> Clock | None:
    """Clock of a match of the time patterns above; a bare hour needs a preposition ("at 10").
    `after_day`: the match follows a day just said ("Wed, 7.30"), which makes a dotted number a
    time without its preposition."""
    g = m.groupdict()
    if g.get("noon"):
        return (0, 12, 0)
    if g.get("ap"):
        return clock(int(m["h"]), int(m["m"] or 0), None, m["ap"], False)
    if g.get("hc"):
        return clock(int(m["hc"]), int(m["mc"]), period, None, m["hc"].startswith("0"))
    if g.get("hd"):  # "at 4.15", "Wed, 7.30" (British and European); else a decimal number
        if not (g.get("prep") or after_day):
            return None
        return clock(int(m["hd"]), int(m["md"]), period, None, m["hd"].startswith("0"))
    if g.get("hf"):  # "17h30", "6h12" (French and more): "14h" alone only after a preposition
        if not (g.get("mf") or g.get("prep")) or int(m["hf"]) > 23:
            return None
        return clock(int(m["hf"]), int(m["mf"] or 0), period, None, True)
    if g.get("rq") or g.get("rqd"):
        minute, hour = _minutes(m["rq"] or m["rqd"]), _hour(m["rh"] or m["rhd"])
        if minute is None or minute >= 60:
            return None
        if m["rel"] == "to":
            hour, minute = (hour - 1) or 12, 60 - minute
        return clock(hour, minute, period, None, False)
    if g.get("hx"):
        # "saturday 945", "tmrw 1430": chat leaves the colon out; only right after the day, and not
        # a year ("friday 2026")
        if not after_day or g.get("prep") or (m["hx"] in ("19", "20") and len(m["hx"] + m["mx"]) == 4):
            return None
        if int(m["hx"]) > 23:
            return None
        return clock(int(m["hx"]), int(m["mx"]), period, None, len(m["hx"]) == 2 and hour_24h(m["hx"]))
    if g.get("bh"):
        return clock(_hour(m["bh"]), 30, period, None, m["bh"].startswith("0"))
    if g.get("wh"):
        if not (m["wm"] or m["wap"] or g.get("prep")):
            return None
        minute = _minutes(m["wm"]) if m["wm"] else 0
        if minute is None:
            return None
        return clock(_hour(m["wh"]), minute, None if m["wap"] else period, m["wap"], False)
    if "hc" not in g:  # TIME_ALONE: "10:30", "17h30" or "3 o'clock"
        raw = m["h"]
        said_minute: str = m["mc"] or g.get("mh") or g.get("md") or g.get("mz") or "0"
        h24 = raw.startswith("0") or bool(g.get("mh") or g.get("mz"))
        return clock(int(raw), int(said_minute), period, None, h24)
    raw = m["ho"] or m["hb"]
    if m["hb"] and not m["prep"]:
        return None
    return clock(int(raw), 0, period, None, raw.startswith("0"))
