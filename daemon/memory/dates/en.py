"""English date expressions: candidates for daemon/memory/dates/__init__.py (conventions documented there).

Patterns run on the lower-cased text (IGNORECASE triples their cost). The family regexes start with a
literal (or a digit class), not with \\b or an optional group: only then can CPython's matcher skip
ahead to candidate positions; word starts are checked in code. Each family runs only if its cue
substring is in the text: a regex scan costs microseconds, an ``in`` test ~0.1.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from daemon.memory.dates.common import (
    Clock,
    Ctx,
    Hit,
    bare_weekday,
    bare_weekend,
    clock,
    day_of_month,
    days,
    monday,
    next_weekday,
    offset_hit,
    prev_weekday,
    shift,
    small_hours_tomorrow,
    time_hit,
    valid,
    year_month,
)
from daemon.memory.dates.cues import EN_ED_NOT_PAST, EN_PAST_WORDS
from daemon.memory.dates.en_time import (
    PERIOD_AFTER,
    PERIOD_TAIL,
    PERIOD_WORD,
    TIME_AFTER,
    TIME_ALONE,
    TIME_BEFORE,
    WORD_TIME_ALONE,
    en_clock,
    four_figures,
    has_word_time,
    written_24h,
)
from daemon.memory.dates.zones import zone_before

_EN_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_EN_NUM = (
    r"(?:\d{1,4}|a\s+couple\s+of|a\s+couple|couple\s+of|a\s+few|few|half\s+an?|an?|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)


def _en_number(s: str) -> float | None:
    s = " ".join(s.lower().split())
    if s.isdigit():
        return int(s)
    if "couple" in s:
        return 2
    if "few" in s:
        return 3  # "a few" = 3, a convention
    if s.startswith("half"):
        return 0.5
    if s in ("a", "an"):
        return 1
    return _EN_NUMBER_WORDS.get(s)


# Prefilter: an English date needs one of these substrings of the lower-cased text, or a digit.
_CUES = (
    "day week month year hour min ago noon morning evening night nite tomor tomm tmr 2mo yest yday "
    "mon tue wed thu fri sat sun half quarter clock thirty fifteen forty twenty past"
).split()


def has_cue(low: str) -> bool:
    return any(c in low for c in _CUES)


WD_NAMES = "monday tuesday wednesday thursday friday saturday sunday".split()
_EN_UNIT = r"(?P<unit>day|week|fortnight|month|year|hour|hr|minute|min)s?"

_EN_DEICTIC = re.compile(
    r"(?:the\s+day\s+before\s+yesterday|day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow"
    r"|day\s+after\s+tomorrow|today|tonight|tonite|2nite|2night|yesterday|yday|yesturday|yesterdy"
    r"|tomorrow|tomorow|tommorow|tommorrow|tmrw|tmrow|tmr|tomoz|2moro|2morrow"
    r"|this\s+morning|this\s+afternoon|this\s+evening|last\s+night)\b"
)
# Chat spellings of the deictic words
_EN_DEICTIC_ALIAS = {
    **dict.fromkeys("tonite 2nite 2night".split(), "tonight"),
    **dict.fromkeys("yday yesturday yesterdy".split(), "yesterday"),
    **dict.fromkeys("tomorow tommorow tommorrow tmrw tmrow tmr tomoz 2moro 2morrow".split(), "tomorrow"),
}
# (day offset, period) by the matched words, whitespace-normalised and without a leading "the"
_EN_DEICTIC_VALUE: dict[str, tuple[int, str | None]] = {
    "day before yesterday": (-2, None),
    "day after tomorrow": (2, None),
    "today": (0, None),
    "tonight": (0, "evening"),
    "yesterday": (-1, None),
    "tomorrow": (1, None),
    "this morning": (0, "morning"),
    "this afternoon": (0, "afternoon"),
    "this evening": (0, "evening"),
    "last night": (-1, "evening"),
}
_EN_WEEKDAY = re.compile(
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs|thur|weds"
    r"|mon|tue|wed|thu|fri|sat|sun)\b"
)
_SHORT = frozenset("mon tue wed thu fri sat sun".split())  # also words: "sat", "sun", "wed"
_SHORT_BEFORE = re.compile(r"(?<!\w)(?:on|next|last|this|coming|by|until|till|before|due)\s+\Z")
# ... or a clock time right after it: "wed, 7.30", "sat 10am", "sun at 9:15" (not "they wed in 2019"),
# or a part of the day: "wed night", "sat morning", "fri arvo", or its day of the month: "sat the 11th",
_SHORT_AFTER = re.compile(
    r"\s*,?\s*(?:at\s+|@\s*)?\d{1,2}(?:[:.h][0-5]\d|\s*[ap]\.?m\b)"
    r"|\s+(?:morning|afternoon|evening|night|arvo|lunchtime|lunch)\b"
    r"|,?\s+(?:the\s+)?[0-9]{1,2}(?:st|nd|rd|th)\b"
    # or the week it is of: "wed next week", "fri this week" (not "they wed next week": `_VERB_AFTER`)
    r"|\s+(?:of\s+)?(?:last|this|next)\s+week\b"
)
# ... after a subject it is the verb: "we sat morning till night", "they wed at 3"
_VERB_AFTER = re.compile(r"(?<!\w)(?:i|we|they|you|he|she|who)\s+\Z")
# (a day said after "since" is one gone by: what has gone on since then goes on now — "she's been
# asking for the rota since Friday", said on a Monday, is the Friday before)
_EN_WD_REL_BEFORE = re.compile(r"(?<!\w)(this\s+coming|this\s+past|last|this|next|coming|past|since)\s+\Z")
_EN_WD_WEEK_AFTER = re.compile(r"\s+(?:of\s+)?(last|this|next)\s+week\b")
# "Tuesday week", "next tue week" (British): that weekday, a week later (not "weekend", "week's")
_EN_WD_PLUS_WEEK = re.compile(r"\s+week\b(?!['’]s|-)")
_EN_WEEK_FROM_BEFORE = re.compile(r"\b(?:a|one)\s+week\s+(?:from|on)\s+\Z")
_EN_WD_NTH_AFTER = re.compile(
    r",?\s+(?P<paren>\()?(?:the\s+)?(?P<nth>[0-9]{1,2})(?:st|nd|rd|th)\b(?(paren)\))"
)
# A weekday inside a name or a habit is no date: "Sunday school", "Good Friday", "every Monday",
# "Friday Night Lights" (two more capitalised words).
_EN_WD_COMPOUND_BEFORE = re.compile(
    # ... and "on a Friday", "any Monday": a kind of day, not a day
    r"\b(?:good|black|cyber|easter|palm|ash|holy|maundy|fat|bloody|girl|man|every|each|other|a|any)\s+\Z"
)
_EN_WD_COMPOUND_AFTER = re.compile(r"\s+(?:school|best|times|league|roast)\b")
_TITLE_AFTER = re.compile(r"\s+[A-Z][a-z]+\s+[A-Z][a-z]+")
# Typos of weekday names are caught by edit distance; these words are no typo.
_NOT_TYPO = frozenset("funday someday holiday birthday weekday workday everyday heyday payday".split())
_TYPO_TOKEN = re.compile(r"[a-z]{3,9}d[a-z]?y\b")
# A deadline: the weekday (or date) is the next one on or after today, whatever the tense ("by end
# of day thursday", "COB friday" too).
_EN_DEADLINE_BEFORE = re.compile(
    r"(?<!\w)(?:until|till|til|by|before|(?:no|not)\s+later\s+than|due(?:\s+(?:on|by))?|through|thru"
    r"|(?:by\s+)?(?:the\s+)?end\s+of|(?:by\s+)?(?:the\s+)?(?:end|close)\s+of\s+(?:the\s+)?(?:day|business|play)\s*,?"
    r"|(?:by\s+)?(?:eod|cob|eob)\s*,?)\s+(?:on\s+)?\Z"
)
# ... unless its own clause is a past state that ended then: "I was in Vienna until Friday".
_EN_UNTIL = re.compile(r"(?<!\w)(?:until|till|til|through|thru)\s")
_EN_STATE_PAST = re.compile(r"\b(?:was|were|stayed|lived|remained|waited|lasted|slept|camped|visited)\b")
_EN_PRESENT = re.compile(r"\b(?:am|is|are|have|has|will|can|gonna|gotta)\b|'(?:m|s|re|ll|ve)\b")
_EN_CLAUSE_START = re.compile(r"[,;:]|\b(?:and|but|so|then|because)\b")
_EN_CAL_UNIT = re.compile(
    r"(?P<rel>this\s+coming|last|this|next|the)\s+(?P<unit>weekend|week|month|year)\b(?!-)"
)
_EN_AGO = re.compile(rf"\b(?P<n>{_EN_NUM})\s+{_EN_UNIT}\s+ago\b", re.VERBOSE)
_EN_IN = re.compile(
    rf"(?:in|within)\s+(?:(?:another|about|around|roughly|just|the\s+next)\s+)?(?P<n>{_EN_NUM})\s+{_EN_UNIT}\b(?![-'’])",
    re.VERBOSE,
)
# "the third time in two years", "twice in a month": a count over a span, not a date ahead
_EN_COUNT_BEFORE = re.compile(r"\b(?:times?|twice|once|thrice)\s+\Z")
_EN_FROM_NOW = re.compile(rf"\b(?P<n>{_EN_NUM})\s+{_EN_UNIT}\s+from\s+(?:now|today)\b", re.VERBOSE)
_EN_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_EN_MON = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
# "May 20", "May 20th, 2023", "May 2023"
_EN_MONTH_FIRST = re.compile(
    rf"""(?P<mon>{_EN_MON})\.?\s+(?:
        (?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.]\d)(?:,?\s+(?P<y>\d{{4}})\b)?
      | (?P<y3>\d{{4}})\b)""",
    re.VERBOSE,
)
# "20 May", "the 20th of May 2023", "2023-05-20"
_EN_DIGIT_FIRST = re.compile(
    rf"""(?P<num>[0-9]{{1,4}})(?:
        (?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_EN_MON})\b\.?(?:,?\s+(?P<y2>\d{{4}})\b)?
      | -(?P<im>[0-9]{{2}})-(?P<id>[0-9]{{2}})\b)""",
    re.VERBOSE,
)
_EN_IN_YEAR = re.compile(r"in\s+(?P<yy>(?:19|20)[0-9]{2})\b(?![-/:]?[0-9])")
# "Thursday 5/21", "on 21/5", "5/22/2026": a date in figures. It needs a weekday, a preposition
# or a year with it ("open 24/7", "a 50/50 split", "1/2 cup" are none). Month first on the
# American clock (a time zone of the Americas), day first elsewhere, unless only one reading is a
# date or the weekday said with it picks one.
_EN_SLASH = re.compile(
    r"(?:(?P<wd>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?P<a>[0-9]{1,2})/(?P<b>[0-9]{1,2})"
    # (ends at a non-alphanumeric or a Chinese character: "原订5/20的验机")
    r"(?:/(?P<y>[0-9]{4}|[0-9]{2}))?(?![a-z0-9])(?![/.]?[0-9])"
)
_EN_SLASH_PREP = re.compile(
    r"(?:(?<![a-z])(?:on|by|from|to|until|till|before|after|due|for|of)\s+"
    # as Chinese mails write them: 原订6/12, 于5/20, 改到5/22, 延至5/20
    r"|(?:原订|原定|于|在|到|至|改到|调到|延至|延到|顺延至))\Z"
)
# the weekday a Chinese mail writes after the date: 6/12（五）, 5/13(周三)
_ZH_WEEKDAY_AFTER = re.compile(r"\s*[（(](?:周|星期|礼拜)?(?P<zw>[一二三四五六日天])[)）]")
_WEEKDAY_INDEX = {w: i for i, w in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))}
# "on the 5th", "by the 20th", "pushed back to the 28th", "booked for the 3rd"; not "the 3rd floor"
_EN_NTH = re.compile(
    r"(?P<prep>on|by|until|till|before|to|from|for)\s+the\s+(?P<nth>[0-9]{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+(?:time|floor|place|grade|century|row|round|attempt|try|level|edition|anniversary|birthday"
    r"|percentile|generation|person|day|week|month|year|in\s+line)\b)"
)
_EN_NOON = re.compile(r"(?:noon|midday)\b")
_EN_TURNS_TO = re.compile(r"\W*(?:anyway|anyways|anyhow|btw|by\s+the\s+way|oh\s+and|unrelated(?:ly)?)\b")
_EN_NOT_BEFORE = re.compile(r"\b(?:not|never|no\s+way)\b|n['’]t\b")
_EN_IS_AT_BEFORE = re.compile(r"(?:\bis|['’]s|\bare|\bwas)\s+\Z")
_EN_END_BEFORE = re.compile(r"(?<!\w)(?:till|until|til|to|back|home|over|done|finish\w*)\s*\Z")
# an hour alone after "at" ("at 7", "around 5ish"), not a count or a measure ("at 5 a side", "at 7
# percent"), nor the start of a longer number or clock (a name after it, "at 10 Downing St", and an
# end, a negation or another thing's hour before it are ruled out where it is read)
_EN_BARE_HOUR = re.compile(
    r"(?<!\w)(?:at|around|about|@)\s+(?P<h>1[0-2]|0?[1-9])(?:ish)?\b"
    r"(?![:.,/-]?\d|\s*(?:%|percent|°|degrees|people|ppl|persons|of\b|k\b|km|kms|mi\b|miles|mph|kph|mins?\b"
    r"|minutes|hours?|hrs?\b|days?|weeks?|months?|years?|yrs?|kg|kgs|lbs?|pounds|quid|bucks|dollars|euros|each"
    r"|a\s+side|[ap]\.?m\b|o['’]?clock|h\b|st\b|nd\b|rd\b|th\b))"
)
# The start of a range takes its am/pm from the end: "from 2 to 4pm", "between 9 and 11am".
_EN_RANGE_START = re.compile(
    r"(?:(?:from|between)\s+)?(?P<h>[0-9]{1,2})(?:[:.](?P<m>[0-5][0-9]))?\s*(?:-|–|—|to|till|til|until|and)\s*"
    r"(?=(?P<h2>[0-9]{1,2})(?:[:.][0-5][0-9])?\s*(?P<ap>[ap])\.?m\b)"
)
# "in 3 days" after a whole piece of work is how long it took, not a date ahead ("I read the whole
# trilogy in 3 days", "finished the entire thing in two weeks"), unless the sentence is future.
_EN_COMPLETION = re.compile(
    r"\b(?:whole|entire|all\s+of|cover\s+to\s+cover|start\s+to\s+finish|finished|completed|read)\b"
)
# An evening outing: a time without am/pm from 5 to 11 is the evening's ("dinner at 8 tomorrow",
# "the reservation is for eight thirty on Saturday").
_EN_EVENING_CUE = re.compile(
    r"\b(?:dinner|supper|drinks|reservation|table\s+for|(?:a|our)\s+table|date\s+night|movie|film|cinema"
    r"|concert|gig|theat(?:re|er)|panto|pantomime|musical|opera|ballet|pub|bar|karaoke|nightclub|party"
    r"|(?:quiz|trivia|games?|poker|bingo|open\s+mic|comedy|club)\s+night)\b"
)


def evening_clock(ctx: Ctx, pos: int, clk: Clock) -> Clock:
    """``clk`` (said without am/pm or period word) moved to the evening when its sentence is about
    an evening outing and its hour is 5-11."""
    lo, hi = ctx.bounds(pos)
    if 5 <= clk[1] <= 11 and _EN_EVENING_CUE.search(ctx.low, lo, hi):
        return (clk[0], clk[1] + 12, clk[2])
    return clk


_EN_PREP_BEFORE = re.compile(r"(?<!\w)(?:at|around|about|by|from|until|till|@)\s*\Z")
# a clock that names a thing's time in Chinese: "6:55 那班 Amtrak", "7:05的航班", "8:30这趟" (嘅: Cantonese 的)
# ... or with what happens at it: "11:28 到 King's Cross", "7:05起飞", "9:40 开始", "6:50 集合"
_ZH_NAMED_AFTER = re.compile(
    r"\s?(?:的|嘅|那班|这班|那趟|这趟|那场|这场|班|趟|场|到站|到达|抵达|到(?![\d零一二两三四五六七八九十])|出发|发车|开车|起飞|降落|落地"
    r"|开始|开场|开门|集合|见面?|截止|登机|上课|开会|开(?![心玩学工刀])|走(?![了过完])|出门)"
)
_ZH_CLAUSE_BEFORE = re.compile(r"[\u4e00-\u9fff][，,；;]\s*\Z")
_EN_THE_BEFORE = re.compile(r"(?<!\w)the\s+\Z")
# ... or after what happens at it, as timetables and tickets say it: "leaves 6:15", "departs 0540",
# "boarding 5:40", "doors 7:30", "kicks off 7:45", "wheels up 0540", "show time 0340", "check-in 6:00"
_EN_EVENT_BEFORE_CLOCK = re.compile(
    r"(?<!\w)(?:leav(?:es|ing)|depart(?:s|ing|ure)?|board(?:s|ing)|sail(?:s|ing)?|doors(?:\s+open)?"
    r"|start(?:s|ing)?|begin(?:s|ning)?|kick(?:s|ing)?\s+off|kick-?off|land(?:s|ing)?|arriv(?:es|ing|al)"
    r"|wheels\s+up|take-?off|takes\s+off|show\s*time|report\s+time|call\s+time|check[-\s]?in|eta|etd"
    r"|start)(?:\s+time)?(?:\s+(?:is|at))?\s*[:\-–]?\s*\Z"
)


def _here(ctx: Ctx, clk: Clock, zone: str) -> Clock:
    """A clock told in `zone`, as the person's own clock reads it on the day it was said."""
    there = datetime.combine(ctx.today, time(clk[1], clk[2]), tzinfo=ZoneInfo(zone)) + timedelta(days=clk[0])
    here = there.astimezone(ctx.tz)
    return ((here.date() - ctx.today).days, here.hour, here.minute)


def _dawn_departure(ctx: Ctx, start: int, end: int) -> bool:
    """Whether a clock of 4–6 without am/pm is a departure's, read as written like a ticket's: "the
    6:05 train", "leaves 6:15", "boarding 5:40". The afternoon guess is for times people arrange;
    a departure read twelve hours late is reminded after it has gone, one read early only the
    evening before. Not one that goes home or out at night: "the 5:40 bus home", "the 6:15
    ferry after work"."""
    low = ctx.low
    if not (_EN_VEHICLE_AFTER.match(low, end) or _EN_DEPARTS_BEFORE.search(low, max(0, start - 16), start)):
        return False
    lo, hi = ctx.bounds(start)
    return not _EN_HOMEWARD.search(low, lo, hi)


_EN_VEHICLE_AFTER = re.compile(
    r"\s+(?:train|bus|flight|ferry|coach|boat|tram|shuttle|sailing|crossing|plane|departure|express)\b"
)
_EN_DEPARTS_BEFORE = re.compile(
    r"(?<!\w)(?:leav(?:es|ing)|depart(?:s|ing|ure)?|board(?:s|ing)|sail(?:s|ing)?|wheels\s+up|takes?\s+off"
    r"|take-?off)(?:\s+(?:is|at))?\s*[:\-–]?\s*\Z"
)
_EN_HOMEWARD = re.compile(
    r"\bhome\b|after\s+(?:work|school|class)|\bton(?:ight|ite)\b|evening|\bnight\b|dinner"
)


def _word_start(low: str, pos: int) -> bool:
    return pos == 0 or not (low[pos - 1].isalnum() or low[pos - 1] == "_")


def _dl1(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance of exactly 1: one insertion, deletion, substitution or swap."""
    la, lb = len(a), len(b)
    if a == b or abs(la - lb) > 1:
        return False
    i = 0
    while i < min(la, lb) and a[i] == b[i]:
        i += 1
    if la > lb:
        return a[i + 1 :] == b[i:]
    if la < lb:
        return a[i:] == b[i + 1 :]
    swap = i + 1 < la and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    return swap or a[i + 1 :] == b[i + 1 :]


# Wednesday spelt as it is said, two edits from its name ("wendsday whole day i'm at the site")
_SPELT_AS_SAID = {"wendsday": 2, "wensday": 2, "wedsday": 2, "wenseday": 2}


def _weekday_words(low: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, weekday) of weekday names, chat abbreviations and one-edit typos ("wendesday")."""
    found = []
    if any(w in low for w in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")):
        for m in _EN_WEEKDAY.finditer(low):
            s = m.start()
            short_ok = _SHORT_BEFORE.search(low, max(0, s - 8), s) or (
                _SHORT_AFTER.match(low, m.end()) and not _VERB_AFTER.search(low, max(0, s - 8), s)
            )
            if _word_start(low, s) and (m[0] not in _SHORT or short_ok):
                found.append((s, m.end(), ("mo", "tu", "we", "th", "fr", "sa", "su").index(m[0][:2])))
    if "dy" in low or "day" in low:
        for m in _TYPO_TOKEN.finditer(low):
            w = m[0]
            if _word_start(low, m.start()) and w not in _NOT_TYPO and w not in WD_NAMES:
                if w in _SPELT_AS_SAID:
                    found.append((m.start(), m.end(), _SPELT_AS_SAID[w]))
                    continue
                for wd, name in enumerate(WD_NAMES):
                    if _dl1(w, name):
                        found.append((m.start(), m.end(), wd))
                        break
    return iter(sorted(found))


def _deadline(ctx: Ctx, s: int) -> bool:
    """Whether the date at ``s`` follows a deadline word ("until", "by", "no later than" ...)."""
    low = ctx.low
    m = _EN_DEADLINE_BEFORE.search(low, max(0, s - 28), s)
    if m is None:
        return False
    if _EN_UNTIL.match(low, m.start()):
        head = low[max(0, m.start() - 80) : m.start()]
        cuts = [c.end() for c in _EN_CLAUSE_START.finditer(head)]
        clause = head[cuts[-1] if cuts else 0 :]
        if _EN_STATE_PAST.search(clause) and not _EN_PRESENT.search(clause):
            return False  # "I stayed at my parents' until Sunday": a past stay, not a deadline
    return True


# A weekday that names an event: "Saturday's row", "the match on Saturday was called off".
_EN_POSSESSIVE_AFTER = re.compile(r"['’]s\s+(?P<w>[a-z]+)")
# ... but after "Saturday's" these words make the 's an "is" or "has": "Saturday's fine", "Saturday's a
# write-off", "Saturday's looking good", "Saturday's been booked".
_EN_IS_AFTER = frozenset(
    """a an the my our your his her their its this that not no never good fine ok okay great perfect
    better best bad worse free busy full booked out off open closed available possible tough hard easy
    fun been gonna going looking getting shaping coming also still just probably definitely really too
    so pretty quite actually only when where if at on in for with from all over what why how here there
    more much""".split()
)
_EN_EVENT_BEFORE = re.compile(
    r"(?<!\w)(?:the|that|our|my|your|his|her|their)\s+(?P<np>(?:[a-z'’-]+\s+){0,2}[a-z'’-]+)\s+on\s+\Z"
)
_EN_WORD_AFTER = re.compile(r"\s+(?P<w>[a-z'’]+)")
# A finite verb right after "the match on Saturday" makes the phrase the subject of the sentence
# (past forms come from the tense cues).
_EN_AUX = frozenset(
    """is isn't are aren't was wasn't were weren't will won't would wouldn't can can't could couldn't
    has hasn't have haven't had hadn't does doesn't""".split()
)


def _a_verb(w: str, subject: bool = False) -> bool:
    """Whether ``w`` is a finite verb form; right after a ``subject`` phrase, any -s word is one
    ("the match on Saturday kicks off")."""
    if w in _EN_AUX or w in EN_PAST_WORDS:
        return True
    return (len(w) > 3 and w.endswith("ed") and w not in EN_ED_NOT_PAST) or (
        subject and len(w) > 2 and w.endswith("s") and not w.endswith("ss")
    )


def _names_an_event(low: str, s: int, e: int) -> bool:
    """Whether the weekday at [s, e) names an event rather than places an action: the possessive
    "Saturday's row", or a phrase "the row on Saturday" that is the subject of a verb ("... was
    awful"). "I met the team on Monday" places the meeting: no verb follows, so it is no name."""
    if (m := _EN_POSSESSIVE_AFTER.match(low, e)) and m["w"] not in _EN_IS_AFTER and not m["w"].endswith("ed"):
        return True
    before = _EN_EVENT_BEFORE.search(low, max(0, s - 40), s)
    after = _EN_WORD_AFTER.match(low, e)
    return bool(
        before
        and after
        and _a_verb(after["w"].replace("’", "'"), subject=True)
        and not any(_a_verb(w) for w in before["np"].split())
    )


def _weekday_hits(ctx: Ctx) -> list[Hit]:
    low, orig, today = ctx.low, ctx.text, ctx.today
    hits: list[Hit] = []
    for s, e, wd in _weekday_words(low):
        if week := _EN_WD_WEEK_AFTER.match(low, e):  # "Monday of next week"
            k = {"last": -1, "this": 0, "next": 1}[week[1]]
            hits.append(Hit(s, week.end(), monday(today, k) + timedelta(days=wd)))
            continue
        rel_m = _EN_WD_REL_BEFORE.search(low, max(0, s - 16), s)
        rel = " ".join(rel_m[1].split()) if rel_m else ""
        nth = _EN_WD_NTH_AFTER.match(low, e)
        if rel_m and nth:
            # "this tuesday (the 4th)", "next friday the 21st": the day of the month says which one
            # (said on Thursday 30 March, "this tuesday" alone would be this week's, the 28th)
            cands = [c for k in (-1, 0, 1, 2) if (c := valid(*year_month(today, k), int(nth["nth"])))]
            near = [c for c in cands if c.weekday() == wd and abs((c - today).days) <= 14]
            if near:
                hits.append(Hit(rel_m.start(), nth.end(), min(near, key=lambda c: abs((c - today).days))))
                continue
        if rel_m and rel in ("last", "this", "next"):
            k = {"last": -1, "this": 0, "next": 1}[rel]
            hits.append(Hit(rel_m.start(), e, monday(today, k) + timedelta(days=wd)))
        elif rel_m and rel in ("this coming", "coming"):
            hits.append(Hit(rel_m.start(), e, next_weekday(today, wd)))
        elif rel_m:  # "this past Monday"
            hits.append(Hit(rel_m.start(), e, prev_weekday(today, wd)))
        elif nth:  # "Friday the 21st": the month where they agree
            cands = [c for k in (-1, 0, 1, 2) if (c := valid(*year_month(today, k), int(nth["nth"])))]
            agree = [c for c in cands if c.weekday() == wd] or cands
            if agree:
                hits.append(Hit(s, nth.end(), ctx.pick(agree, s, _deadline(ctx, s))))
        elif not (
            _EN_WD_COMPOUND_BEFORE.search(low, max(0, s - 12), s)
            or _EN_WD_COMPOUND_AFTER.match(low, e)
            or (orig[s].isupper() and _TITLE_AFTER.match(orig, e))
        ):
            day = bare_weekday(ctx, wd, s, _deadline(ctx, s), _names_an_event(low, s, e))
            hits.append(Hit(s, e, day, kind="weekday"))
        if (plus := _EN_WD_PLUS_WEEK.match(low, e)) and hits and hits[-1].end == e:
            hits[-1].day += timedelta(days=7)  # "Tuesday week": a week after that Tuesday
            hits[-1].end = plus.end()
        elif (
            (ahead := _EN_WEEK_FROM_BEFORE.search(low, max(0, s - 16), s))
            and hits
            and hits[-1].start == s
            and hits[-1].kind == "weekday"
        ):
            hits[-1].day += timedelta(days=7)  # "a week from Thursday", "a week on Thursday"
            hits[-1].start = ahead.start()
    return hits


def candidates(ctx: Ctx, digits: bool) -> list[Hit]:
    text, today = ctx.low, ctx.today
    hits: list[Hit] = []
    units = any(w in text for w in ("day", "week", "fortnight", "month", "year", "hour", "min"))
    deictic = any(
        w in text
        for w in ("today", "night", "nite", "yesterday", "yday", "tomor", "tomm", "tmr", "2mo", "morning")
    ) or any(w in text for w in ("noon", "evening", "yesturday", "yesterdy"))
    for m in _EN_DEICTIC.finditer(text) if deictic else ():
        s, e = m.span()
        if _word_start(text, s):
            words = " ".join(m[0].split()).removeprefix("the ")
            offset, period = _EN_DEICTIC_VALUE[_EN_DEICTIC_ALIAS.get(words, words)]
            hits.append(Hit(s, e, days(today, small_hours_tomorrow(ctx, offset)), period=period))

    hits.extend(_weekday_hits(ctx))

    for m in _EN_CAL_UNIT.finditer(text) if units else ():
        s, e = m.span()
        if not _word_start(text, s):
            continue
        rel = " ".join(m["rel"].split())
        unit = m["unit"]
        if rel == "the":
            if unit == "weekend":
                hits.append(bare_weekend(ctx, s, e, "en", _deadline(ctx, s)))
            continue
        k = {"last": -1, "this": 0, "this coming": 0, "next": 1}[rel]
        if unit == "weekend":
            hits.append(Hit(s, e, monday(today, k) + timedelta(days=5), span_days=2))
        elif unit == "week":
            hits.append(Hit(s, e, monday(today, k), "week", takes_time=False))
        elif unit == "month":
            hits.append(Hit(s, e, shift(today, months=k, day=1), "month", takes_time=False))
        else:
            hits.append(Hit(s, e, shift(today, years=k, month=1, day=1), "year", takes_time=False))

    for m in _EN_AGO.finditer(text) if "ago" in text else ():
        n = _en_number(m["n"])
        if n is not None and (hit := offset_hit(ctx, *m.span(), n, m["unit"], -1, "en")):
            hits.append(hit)

    for m in _EN_IN.finditer(text) if units else ():
        tense = ctx.tense(m.start())
        if not _word_start(text, m.start()) or tense == "past":
            continue  # "I read it in 3 days": in a past sentence, a duration rather than a date
        if tense != "future" and _EN_COMPLETION.search(text, ctx.bounds(m.start())[0], m.start()):
            continue
        if _EN_COUNT_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        n = _en_number(m["n"])
        if n is not None and (hit := offset_hit(ctx, *m.span(), n, m["unit"], 1, "en")):
            hits.append(hit)

    for m in _EN_FROM_NOW.finditer(text) if units and " from " in text else ():
        n = _en_number(m["n"])
        if n is not None and (hit := offset_hit(ctx, *m.span(), n, m["unit"], 1, "en")):
            hits.append(hit)

    if digits:
        hits.extend(_absolute(ctx))
        for m in TIME_ALONE.finditer(text):
            s = m.start()
            if s and text[s - 1] in ":.":
                continue
            prep = _EN_PREP_BEFORE.search(text, max(0, s - 8), s)
            act = _EN_EVENT_BEFORE_CLOCK.search(text, max(0, s - 20), s)
            if m["mz"] and not four_figures(m, bool(prep or act)):
                continue  # "212 units", "at 1130 Main St": four figures are a clock only as `four_figures` says
            # "the 6:15 ferry", "8:30 retro tomorrow": a clock time that names a thing's time
            # (after "the", or opening a sentence), not a score
            named = m["mc"] and (
                _EN_THE_BEFORE.search(text, max(0, s - 4), s)
                or act
                or ctx.sentence(s)[0] != ctx.sentence(s - 1)[0]
                # ... as Chinese says it after the clock: "6:55 那班 Amtrak", "7:05的航班"
                or _ZH_NAMED_AFTER.match(text, m.end())
                # ... or opening a Chinese clause ("…过来，11:28 到…"): no score or ratio opens one
                or _ZH_CLAUSE_BEFORE.search(text, max(0, s - 3), s)
                if s
                else True
            )
            if m["md"] and not (m["ap"] or prep):
                continue  # "7.15" alone is a number ("7.15 km", "£7.15"); "by 7.15" is a time
            # a part of the day said after it decides its half and makes it a time: "6:40 in the
            # morning" (no guess of the afternoon), "at 11 at night"
            tail = None if m["ap"] else PERIOD_TAIL.match(text, m.end())
            period = PERIOD_WORD[tail["p"] or tail["n"]] if tail else None
            if (m["ap"] or not m["mc"] or prep or named or tail) and (clk := en_clock(m, period)):
                # "at 6:15" may be morning or evening; "at 14:20" or "at 08:05" is as said
                # ("17h30", "6h12" are the 24-hour clock's)
                vague = not m["ap"] and not written_24h(m) and tail is None
                if vague and (evening := evening_clock(ctx, s, clk)) != clk:
                    clk, vague = evening, False
                if vague and 16 <= clk[1] <= 18 and _dawn_departure(ctx, s, m.end()):
                    clk, vague = (clk[0], clk[1] - 12, clk[2]), False
                begin = prep.start() if prep else s
                if (zone := zone_before(ctx.text, begin)) is not None:
                    # told in another place's time, apart from its day: that time here (the span
                    # takes the zone's name; `in_named_zones` leaves a `zoned` hit alone)
                    clk, begin, vague = _here(ctx, clk, zone[0]), zone[1], False
                hits.append(time_hit(ctx, begin, m.end(), clk, "en", vague))
                hits[-1].zoned = zone is not None
    for m in _EN_RANGE_START.finditer(text) if digits else ():
        h, h2, h24 = int(m["h"]), int(m["h2"]), written_24h(m)
        ap = m["ap"] if h <= h2 or h == 12 else ("a" if m["ap"] == "p" else "p")  # "from 11 to 1pm"
        if h24:
            ap = None  # "between 05:30 and 9pm": the start's own 24-hour hour, not the end's pm
        if _word_start(text, m.start()) and (clk := clock(h, int(m["m"] or 0), None, ap, h24)):
            hits.append(time_hit(ctx, m.start(), m.end("m") if m["m"] else m.end("h"), clk, "en", False))
    for m in WORD_TIME_ALONE.finditer(text) if has_word_time(text) else ():
        if m["wh"] and not (m["wm"] or m["wap"]):
            continue  # "at seven", like "at 7", needs a date next to it
        if _word_start(text, m.start()) and (clk := en_clock(m, None)):
            vague = not m["wap"]
            if vague and (evening := evening_clock(ctx, m.start(), clk)) != clk:
                clk, vague = evening, False
            hits.append(time_hit(ctx, m.start(), m.end(), clk, "en", vague))
    for m in _EN_BARE_HOUR.finditer(text) if digits else ():
        # "on friday we're meeting them at 7", "thursday's the big one. we leave the porto at 7":
        # a bare hour after "at" is a time when a day is named with it (`needs_day`)
        before = text[max(0, m.start() - 40) : m.start()]
        if (
            ctx.text[m.end() :].lstrip()[:1].isupper()
            or _EN_END_BEFORE.search(before)
            or _EN_IS_AT_BEFORE.search(before)
            or before.rfind("(") > before.rfind(")")
            or _EN_NOT_BEFORE.search(re.split(r"[,;.!?]", before)[-1])
            or _EN_TURNS_TO.match(text, ctx.bounds(m.start())[0])
        ):
            # "at 10 Downing Street": a number of a name; "till about 12": an end; "sync is at 10",
            # "(it's at 10)": the hour of another thing, said of it; "i am NOT up at 4": no time kept;
            # "… anyway TGIF, pau hana at 5": a sentence that turns to something else
            continue
        tail = PERIOD_TAIL.match(text, m.end())
        period = PERIOD_WORD[tail["p"] or tail["n"]] if tail else None
        if (clk := clock(int(m["h"]), 0, period, None, False)) is not None:
            vague = tail is None
            if vague and (evening := evening_clock(ctx, m.start(), clk)) != clk:
                clk, vague = evening, False
            hit = time_hit(ctx, m.start(), m.end(), clk, "en", vague)
            hit.needs_day = True
            hits.append(hit)
    for m in _EN_NOON.finditer(text) if "noon" in text or "midday" in text else ():
        prep = _EN_PREP_BEFORE.search(text, max(0, m.start() - 8), m.start())
        if prep and _word_start(text, m.start()):
            hits.append(time_hit(ctx, prep.start(), m.end(), (0, 12, 0), "en", False))
    for m in _EN_SAME_TIME.finditer(text) if "same time" in text else ():
        # "…is the day after tomorrow, exact same time as right now": the clock it was said at
        hits.append(time_hit(ctx, m.start(), m.end(), (0, ctx.at.hour, ctx.at.minute), "en", False))
    return hits


_EN_SAME_TIME = re.compile(
    r"\b(?:at\s+)?(?:the\s+)?(?:exact(?:ly)?\s+)?same\s+time\s+as\s+(?:right\s+)?(?:now|today)\b"
)


def _absolute(ctx: Ctx) -> list[Hit]:
    """Calendar dates: "May 20", "20 May 2023", "2023-05-20", "May 2023", "in 2019", "on the 5th"."""
    text, orig = ctx.low, ctx.text
    hits: list[Hit] = []
    for m in _EN_MONTH_FIRST.finditer(text):
        s, e = m.span()
        if not _word_start(text, s):
            continue
        if m["y3"]:
            if d := valid(int(m["y3"]), _EN_MONTHS[m["mon"]], 1):
                hits.append(Hit(s, e, d, "month", takes_time=False))
        elif orig[s : m.end("mon")] not in ("may", "mar", "march"):  # lower-case: verbs ("you may 2 ...")
            hits.extend(_calendar_day(ctx, s, e, _EN_MONTHS[m["mon"]], int(m["d"]), m["y"]))
    for m in _EN_DIGIT_FIRST.finditer(text):
        s, e = m.span()
        num = m["num"]
        if not _word_start(text, s) or (s and text[s - 1] in ":.-/"):
            continue
        if m["im"]:
            if len(num) == 4 and (d := valid(int(num), int(m["im"]), int(m["id"]))):
                hits.append(Hit(s, e, d))
        elif len(num) <= 2 and orig[m.start("mon2") : m.end("mon2")] not in ("may", "mar", "march"):
            if text[max(0, s - 4) : s] == "the ":
                s -= 4
            hits.extend(_calendar_day(ctx, s, e, _EN_MONTHS[m["mon2"]], int(num), m["y2"]))
    for m in _EN_SLASH.finditer(text) if "/" in text else ():
        if (hit := _slash_date(ctx, m)) is not None:
            hits.append(hit)
    for m in _EN_IN_YEAR.finditer(text):
        if _word_start(text, m.start()):
            hits.append(Hit(*m.span(), date(int(m["yy"]), 1, 1), "year", takes_time=False))
    for m in _EN_NTH.finditer(text):
        s = m.start()
        deadline = m["prep"] in ("by", "until", "till", "before")
        if _word_start(text, s) and (d := day_of_month(ctx, int(m["nth"]), s, deadline)):
            hits.append(Hit(s, m.end(), d, kind="nth"))
    return hits


def _slash_date(ctx: Ctx, m: re.Match[str]) -> Hit | None:
    """A date written in figures (`_EN_SLASH`), or None when it reads as no date."""
    text = ctx.low
    s = m.start()
    # a Chinese character may stand right before it ("原订6/12（五）"), a letter or digit may not
    cjk_before = s > 0 and "\u3400" <= text[s - 1] <= "\u9fff"
    if not (_word_start(text, s) or cjk_before) or (s and text[s - 1] in "/.-"):
        return None
    zh_wd = _ZH_WEEKDAY_AFTER.match(text, m.end())
    # in a Chinese sentence the time after it is read by the Chinese rules ("5/22（五）上午10点")
    end = zh_wd.end() if zh_wd else m.end()
    lang = "zh" if cjk_before or zh_wd or (end < len(text) and "\u3400" <= text[end] <= "\u9fff") else "en"
    if not (m["wd"] or m["y"] or zh_wd or _EN_SLASH_PREP.search(text, max(0, s - 8), s)):
        return None
    a, b = int(m["a"]), int(m["b"])
    month_first = ctx.tz.key.startswith("America/")
    readings = [(a, b), (b, a)] if month_first else [(b, a), (a, b)]  # (month, day)
    years = (
        [int(m["y"]) + (2000 if len(m["y"]) == 2 else 0)]
        if m["y"]
        else [ctx.today.year + k for k in (0, 1, -1)]
    )
    if m["wd"] or zh_wd:
        # a weekday beside it: the nearest day of either reading that falls on it, whatever the
        # tense ("moved from Thursday 5/21"; "Thursday 10/9" is 10 September in a September)
        wd = _WEEKDAY_INDEX[m["wd"]] if m["wd"] else "一二三四五六日天".index(zh_wd["zw"]) % 7 if zh_wd else 0
        cands = [d for mo, da in readings for y in years if (d := valid(y, mo, da)) and d.weekday() == wd]
        near = min(cands, default=None, key=lambda c: (abs((c - ctx.today).days), c < ctx.today))
        return Hit(s, end, near, lang=lang) if near is not None else None
    for month, day in readings:
        if cands := [d for y in years if (d := valid(y, month, day))]:
            return Hit(s, end, ctx.pick(cands, s, _deadline(ctx, s)), lang=lang)
    return None


def _calendar_day(ctx: Ctx, s: int, e: int, month: int, day: int, year: str | None) -> list[Hit]:
    """A month and day, with the year said or else chosen by the sentence's tense."""
    if year:
        d = valid(int(year), month, day)
        return [Hit(s, e, d)] if d else []
    y0 = ctx.today.year
    cands = [c for y in (y0 - 1, y0, y0 + 1) if (c := valid(y, month, day))]
    return [Hit(s, e, ctx.pick(cands, s, _deadline(ctx, s)))] if cands else []


def attach(ctx: Ctx, hit: Hit) -> None:
    """Extend a day-level English mention with the time of day said next to it."""
    text = ctx.low
    pos = hit.end
    if hit.period is None and (p := PERIOD_AFTER.match(text, pos)):
        hit.period, pos = PERIOD_WORD[p["p"]], p.end()
    if (t := TIME_AFTER.match(text, pos)) and (clk := en_clock(t, hit.period, after_day=True)):
        hit.clock, pos = _evening_if_vague(ctx, hit, t, clk), t.end()
        if hit.period is None and (p := PERIOD_TAIL.match(text, pos)):
            # "tomorrow at 7 in the evening": the period decides am/pm after the fact
            period = PERIOD_WORD[p["p"] or p["n"]]
            if not (t["ap"] or t["wap"]) and (clk := en_clock(t, period, after_day=True)):
                hit.period, hit.clock, pos = period, clk, p.end()
    hit.end = pos
    if (
        hit.clock is None
        and (t := TIME_BEFORE.search(text, max(0, hit.start - 30), hit.start))
        and (clk := en_clock(t, hit.period))
    ):
        # "at 3pm tomorrow", "10am on Friday"
        hit.clock, hit.start = _evening_if_vague(ctx, hit, t, clk), t.start()


def _evening_if_vague(ctx: Ctx, hit: Hit, t: re.Match[str], clk: Clock) -> Clock:
    """The clock of a time said next to a date, in the evening when said without am/pm or a
    period word in a sentence about an evening outing ("dinner at 8 tomorrow")."""
    if hit.period is not None or t["ap"] or t["wap"] or written_24h(t):  # "dinner at 07.30": as said
        return clk
    return evening_clock(ctx, t.start(), clk)


__all__ = ["WD_NAMES", "attach", "candidates", "has_cue"]
