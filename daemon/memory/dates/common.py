"""Shared parts of the date resolver: the mention type, calendar arithmetic, clock times, the
per-turn context and the resolution of candidates into mentions. Conventions: daemon/memory/dates/__init__.py.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from dateutil.relativedelta import relativedelta

from daemon.memory.dates import cues


@dataclass(frozen=True, slots=True)
class DateMention:
    """One date expression found in a text, resolved against the event time."""

    start: int  # span in the input text: text[start:end] == self.text
    end: int
    text: str
    value: datetime  # aware, in the given tz; 00:00 of the day when no time of day was said
    has_time: bool  # a time of day was given ("at 10", "下午三点", "3pm", "tonight" → 20:00)
    direction: str  # "past" | "future" | "present" relative to the event time
    granularity: str  # "day" | "week" | "month" | "year" | "time"
    # a clock was said ("at 10", 下午三点), not only a part of the day ("tonight", 5月27日上午)
    has_clock: bool = False


# a date mention that is only a clock ("at 6:45", "7pm", "15:00", "早上七点半"): no day word of its own
_ONLY_A_CLOCK = re.compile(
    # ("at at 11:20": a Turkish "saat 11:20'de" as `mail_words` writes it)
    r"^(?:(?:at|@|around|about|by|from)\s+)*\d{1,2}(?:[:.h]\d{2})?\s*(?:[ap]\.?m\.?|h|o['’]clock)?$"
    r"|^(?:凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|朝早)?\s*(?:\d{1,2}\s*[:：]\s*\d\d"
    r"|[零〇一二两三四五六七八九十\d]{1,3}[点點](?:半|一刻|三刻|[零〇一二三四五六七八九十\d]{1,3}分?)?)$",
    re.IGNORECASE,
)


def only_a_clock(m: DateMention) -> bool:
    """The mention says an hour and no day: read as today's, the day is whatever its text is about
    ("wednesday's the course … leaving the yard at 6:45"; "17-ны өдөр (Лхагва гараг) 15:00")."""
    return bool(_ONLY_A_CLOCK.match(m.text))


# ---------------------------------------------------------------------------------------------------
# Calendar arithmetic on wall-clock dates. Months and years go through relativedelta, which clamps
# month ends (Jan 31 + 1 month = Feb 29). Days, weeks and weekdays are plain date arithmetic: a
# ``date`` has no DST, and relativedelta costs ~7 µs per addition against ~1 µs for a timedelta
# (the tests check these helpers against relativedelta's MO(+1)/MO(-1)).


def shift(
    d: date, *, months: int = 0, years: int = 0, month: int | None = None, day: int | None = None
) -> date:
    """Month/year arithmetic: relative `months`/`years`, then absolute `month`/`day` if given."""
    out: date = d + relativedelta(months=months, years=years, month=month, day=day)
    return out


def days(d: date, n: int) -> date:
    return d + timedelta(days=n)


# Before this hour, someone still up calls the coming daytime "tomorrow" ("明天下午两点面签" said
# at 00:40 is this afternoon): the day they have not slept into yet.
SMALL_HOURS_END = 4


def small_hours_tomorrow(ctx: Ctx, offset: int) -> int:
    """The day offset of a deictic word (tomorrow = 1), read as a person still up reads it: said
    between midnight and SMALL_HOURS_END, "tomorrow" is the calendar day that has just begun.
    Both clocks must say so, the scope's time zone and the event's own offset: a turn sent at
    19:08 in Denver is 02:08 in UTC, and there "tomorrow" is still tomorrow."""
    small = ctx.at.hour < SMALL_HOURS_END and ctx.said_hour < SMALL_HOURS_END
    return 0 if offset == 1 and small else offset


def monday(d: date, weeks: int = 0) -> date:
    """The Monday of the ISO week of ``d``, moved by ``weeks``."""
    return d - timedelta(days=d.weekday() - 7 * weeks)


def next_weekday(d: date, wd: int) -> date:
    """The nearest weekday ``wd`` (0 = Monday) strictly after ``d``: relativedelta(days=1, weekday=X(+1))."""
    return d + timedelta(days=(wd - d.weekday() - 1) % 7 + 1)


def prev_weekday(d: date, wd: int) -> date:
    """The nearest weekday ``wd`` strictly before ``d``: relativedelta(days=-1, weekday=X(-1))."""
    return d - timedelta(days=(d.weekday() - wd - 1) % 7 + 1)


def valid(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def year_month(d: date, months: int) -> tuple[int, int]:
    shifted = shift(d, months=months, day=1)
    return shifted.year, shifted.month


# ---------------------------------------------------------------------------------------------------
# Periods of the day: (representative hour, range start hour, range end hour)

PERIODS: dict[str, tuple[int, int, int]] = {
    "early": (5, 0, 6),
    "morning": (9, 5, 12),
    "noon": (12, 11, 14),
    "afternoon": (15, 12, 18),
    "evening": (20, 18, 24),
}

Clock = tuple[int, int, int]  # (day offset, hour, minute)


def clock(hour: int, minute: int, period: str | None, ampm: str | None, h24: bool) -> Clock | None:
    """(day offset, hour, minute) of a said time, or None when it is no valid time of day. ``h24``:
    written in 24-hour form ("06:01", "06h01", "17:30"), whose hour is the hour: no guess moves it."""
    if minute > 59:
        return None
    if ampm is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "p" else 0)
    elif period in ("afternoon", "evening"):
        if hour == 12 and period == "evening":
            return (1, 0, minute)  # 晚上十二点 / "tonight at 12": midnight, the start of the next day
        if hour < 12:
            hour += 12
    elif period == "noon":
        if hour <= 3:
            hour += 12  # 中午一点 → 13:00
    elif period == "early":
        if hour == 12:
            hour = 0
    elif period is None and 1 <= hour <= 6 and not h24 and minute % 5 == 0:
        # "tomorrow at 3" is 15:00 far more often than 03:00: the afternoon guess is for times
        # people arrange, on the five-minute grid. A minute off it ("the 6:01 train", 6点07的高铁)
        # is copied from a timetable or a ticket, where dawn departures are as common as evening
        # ones and a reminder read twelve hours late comes after the departure: read as written.
        hour += 12
    if hour > 23:
        return None
    return (0, hour, minute)


# ---------------------------------------------------------------------------------------------------
# Candidates


@dataclass(slots=True)
class Hit:
    """A candidate mention before overlap resolution; ``day`` is a local calendar date."""

    start: int
    end: int
    day: date
    granularity: str = "day"
    span_days: int | None = None  # interval length override (a weekend is 2 days)
    period: str | None = None
    clock: Clock | None = None
    instant: datetime | None = None  # "2 hours ago": an exact local time
    takes_time: bool = True  # a time of day may attach
    lang: str = "en"
    # "weekday", "weekend", "time" (no date said), "nth" ("on the 5th"): the kinds a habit cancels;
    # "fixed" for everything said with its own calendar anchor ("tomorrow", "next Monday", "May 20").
    kind: str = "fixed"
    said: Clock | None = None  # a lone time's clock as read next to a date (1-6 → pm)
    ambiguous: bool = False  # a lone time said without am/pm or a part of the day ("at 4:30", 四点半)
    # a bare hour ("at 7"): a time only on a day its sentence (or the one before) names
    needs_day: bool = False
    zoned: bool = False  # a clock told in another place's time, already read as the person's own


@dataclass(slots=True)
class Ctx:
    text: str
    low: str  # text.lower() with the same length, so spans carry over
    today: date
    at: datetime  # local
    tz: ZoneInfo
    said_hour: int = 12  # the hour on the speaker's own clock (the event's offset), when it was said
    _ends: list[int] | None = None
    _info: dict[int, cues.Sentence] = field(default_factory=dict)

    def sentence(self, pos: int) -> tuple[int, cues.Sentence]:
        """The index and the cue summary of the sentence around ``pos``."""
        if self._ends is None:
            self._ends = [m.end() for m in cues.SENTENCE_END.finditer(self.text)]
        i = bisect.bisect_right(self._ends, pos)
        if i not in self._info:
            lo = self._ends[i - 1] if i else 0
            hi = self._ends[i] if i < len(self._ends) else len(self.text)
            info = cues.sentence(self.text[lo:hi], self.low[lo:hi], lo)
            if info.tense == "" and i and info.continues:  # "... on monday? or maybe tuesday"
                info.tense = self.sentence(lo - 1)[1].tense
            self._info[i] = info
        return i, self._info[i]

    def bounds(self, pos: int) -> tuple[int, int]:
        """The [start, end) offsets of the sentence around ``pos``."""
        i = self.sentence(pos)[0]
        assert self._ends is not None
        return (self._ends[i - 1] if i else 0, self._ends[i] if i < len(self._ends) else len(self.text))

    def tense(self, pos: int) -> str:
        """'past' | 'future' | '' around ``pos``: its coordinated clause's own tense, else the
        sentence's (cue rule, module docstring)."""
        if cues.EN_IS_BEFORE.search(self.low, max(0, pos - 12), pos):
            return "future"
        return self.sentence(pos)[1].tense_at(pos)

    def pick(self, candidates: list[date], pos: int, deadline: bool = False) -> date:
        """The candidate date consistent with the sentence's tense (on or after today for a
        deadline), else the nearest (ties → future)."""
        tense = "future" if deadline else self.tense(pos)
        if tense == "past":
            past = [c for c in candidates if c <= self.today]
            if past:
                return max(past)
        elif tense == "future":
            future = [c for c in candidates if c >= self.today]
            if future:
                return min(future)
        return min(candidates, key=lambda c: (abs((c - self.today).days), c < self.today))


def offset_hit(ctx: Ctx, start: int, end: int, n: float, unit: str, sign: int, lang: str) -> Hit | None:
    """'N units ago/later': days/weeks/months/years on the calendar, hours/minutes on the instant."""
    if unit in ("hour", "hr", "小时", "钟头", "minute", "min", "分钟"):
        minutes = n * (60 if unit in ("hour", "hr", "小时", "钟头") else 1)
        if minutes != int(minutes):
            return None
        instant = (ctx.at.astimezone(UTC) + sign * timedelta(minutes=minutes)).astimezone(ctx.tz)
        instant = instant.replace(second=0, microsecond=0)
        return Hit(start, end, instant.date(), "time", instant=instant, takes_time=False, lang=lang)
    if unit in ("year", "年") and n == 0.5:
        n, unit = 6, "month"  # 半年 / "half a year"
    if unit == "fortnight":
        n, unit = 2 * n, "week"
    if n != int(n):
        return None
    k = sign * int(n)
    try:
        if unit in ("day", "天", "日"):
            return Hit(start, end, days(ctx.today, k), "day", lang=lang)
        if unit in ("week", "周", "星期", "礼拜"):
            return Hit(start, end, days(ctx.today, 7 * k), "week", takes_time=False, lang=lang)
        if unit in ("month", "月"):
            return Hit(start, end, shift(ctx.today, months=k), "month", takes_time=False, lang=lang)
        return Hit(start, end, shift(ctx.today, years=k), "year", takes_time=False, lang=lang)
    except (ValueError, OverflowError):
        return None  # "5000 years ago" falls off the calendar datetime can hold


def weekend(ctx: Ctx, weeks: int, start: int, end: int, lang: str) -> Hit:
    return Hit(start, end, monday(ctx.today, weeks) + timedelta(days=5), "day", span_days=2, lang=lang)


def bare_weekend(ctx: Ctx, start: int, end: int, lang: str, deadline: bool = False) -> Hit:
    if ctx.today.weekday() >= 5:
        hit = weekend(ctx, 0, start, end, lang)
    else:
        hit = weekend(ctx, -1 if ctx.tense(start) == "past" and not deadline else 0, start, end, lang)
    hit.kind = "weekend"
    return hit


def bare_weekday(ctx: Ctx, wd: int, pos: int, deadline: bool = False, event: bool = False) -> date:
    """A weekday said without last/this/next: strictly after today, or strictly before in a past
    sentence; after a deadline word ("until Friday", 周五之前) on or after today, whatever the tense.

    A weekday that names an ``event`` ("Saturday's row", "the match on Saturday is ...", 周六的比赛)
    is today when said on that weekday, in any tense: the event is picked out by its day, and on
    that day today's is the one meant (a week ago it would be "last Saturday's"). A weekday placing
    an action ("see you on Saturday", "I ran on Saturday") keeps the strict reading: had today been
    meant, the speaker would have said "today"."""
    if deadline or (event and ctx.today.weekday() == wd):
        return ctx.today if ctx.today.weekday() == wd else next_weekday(ctx.today, wd)
    if ctx.today.weekday() == wd and _said_as_today(ctx, pos):
        return ctx.today
    if ctx.tense(pos) == "past" and not (event and _past_dated_otherwise(ctx, pos)):
        return prev_weekday(ctx.today, wd)
    return next_weekday(ctx.today, wd)


# A past time word of its own (not a weekday's "last"/上 that makes one mention with it: 上周六)
_PAST_TIME = re.compile(
    r"上(?:周|星期|个?礼拜|个?月)(?![一二三四五六日天末])|昨天|前天|去年|\b(?:last\s+(?:week|month|year|night)"
    r"|yesterday|yday|\w+\s+(?:days|weeks|months)\s+ago)\b"
)


# ... for an act that gets something for the event: buying, booking, signing up
_GETS_FOR = re.compile(
    r"买|购|订|抢|约|报名|拿到|\b(?:bought|booked|got|grabbed|ordered|reserved|paid\s+for|signed\s+up|picked\s+up)\b"
)


def _past_dated_otherwise(ctx: Ctx, pos: int) -> bool:
    """Whether the past sentence around an event named by its weekday ("周六的赛马票我上周就已经买好了",
    "got saturday's tickets last week") got something for it at a time of its own: the past is the
    buying's, which has its day, and the event picked out by the weekday is the coming one ("the
    match on saturday last week was great" has no such act: its Saturday is gone)."""
    lo, hi = ctx.bounds(pos)
    return bool(_GETS_FOR.search(ctx.low, lo, hi)) and any(
        not (m.start() <= pos < m.end()) for m in _PAST_TIME.finditer(ctx.low, lo, hi)
    )


# What bounds a weekday said as an exclamation: a sentence end, a comma, an ellipsis, an emoji
_CLAUSE_EDGE = re.compile(rf"[.!?;。！？；\n,，…~～]|[{cues.EMOJI}]")
# ... and what ends one: "!", an ellipsis or an emoji (not "?": "friday?" asks which Friday)
_EXCLAIMED = re.compile(rf"\s*(?:[!！…~～]|\.\.|[{cues.EMOJI}])")
_WORD_OR_HAN = re.compile(r"[a-z]+|[\u4e00-\u9fff]")


def _said_as_today(ctx: Ctx, pos: int) -> bool:
    """Today's weekday said as what today is, not as a day of the calendar: "Monday blues 啊…",
    "又是禮拜一…", "周五！", "happy friday 🎉". A clause that is little more than the weekday (at
    most three other words or characters, no digit) and ends in an exclamation, an ellipsis or an
    emoji names the day it is said on, and so does the weekday alone set off by a comma at the start
    of a message ("周一，地铁又瘫了"); "dentist friday" said on a Friday, without one, still reads as
    the Friday coming, as does "星期三" said alone, and "friday?" asks."""
    low = ctx.low
    lo = max((m.end() for m in _CLAUSE_EDGE.finditer(low, 0, pos)), default=0)
    edge = _CLAUSE_EDGE.search(low, pos)
    hi = edge.start() if edge else len(low)
    clause = low[lo:hi]
    if any(c.isdigit() for c in clause):
        return False
    # the weekday itself: one English word, or its two to three characters (周五, 星期五, 礼拜一)
    own = (
        1
        if low[pos].isascii()
        else 1 + next((len(w) for w in ("星期", "礼拜", "周") if low.startswith(w, pos)), 0)
    )
    others = len(_WORD_OR_HAN.findall(clause)) - own
    # (set off by a comma before the rest of the message: the weekday said alone is the one coming)
    opens = (
        others == 0
        and not low[:lo].strip()
        and low[hi : hi + 1] in (",", "，")
        and bool(low[hi + 1 :].strip())
    )
    return (others <= 3 and bool(_EXCLAIMED.match(low, hi))) or opens


def day_of_month(ctx: Ctx, day: int, pos: int, deadline: bool = False) -> date | None:
    """A day of the month said without its month ("on the 19th", 19号), in a nearby month. A past
    sentence ("we landed on the 19th") means the latest one on or before today; any other sentence
    the next one on or after today. The nearest one is no good guess: a sentence that does not look
    back names a day still ahead ("We're flying out on the 19th" said on the 26th is next month's
    19th). Two months either side cover a 31st; None for a day no month has ("the 32nd")."""
    cands = [c for k in range(-2, 3) if (c := valid(*year_month(ctx.today, k), day))]
    if not cands:
        return None
    if not deadline and ctx.tense(pos) == "past":
        return max(c for c in cands if c <= ctx.today)
    return min(c for c in cands if c >= ctx.today)


def time_hit(ctx: Ctx, start: int, end: int, clk: Clock, lang: str, ambiguous: bool) -> Hit:
    """A time said without a date. Its day is the event's day, unless the tense says it already passed
    ("let's meet at 3pm" said at 4pm → tomorrow) or has yet to come ("I woke at 11pm" said at 8am →
    yesterday). An ``ambiguous`` one (no am/pm, no period word: "at 6:15", 十点半) is its next
    occurrence between 05:00 and 22:00 ("wake me at 6:15" said at 22:15 → 06:15 tomorrow), or its
    latest one in a past sentence. ``said`` keeps the clock as read next to a date, for merging."""
    offset, hour, minute = clk
    said = (offset * 24 + hour) * 60 + minute
    now = ctx.at.hour * 60 + ctx.at.minute
    tense = ctx.tense(start)
    if ambiguous and offset == 0:
        cands = [d * 1440 + (hour % 12 + h) * 60 + minute for d in (-1, 0, 1) for h in (0, 12)]
        if tense == "past":
            said = max(c for c in cands if c <= now)
        else:
            ahead = [c for c in cands if c >= now]
            said = min([c for c in ahead if 300 <= c % 1440 < 1320] or ahead)
    elif tense == "future" and said < now:
        said += 1440
    elif tense == "past" and said > now:
        said -= 1440
    day = days(ctx.today, said // 1440)
    when = (0, said % 1440 // 60, minute)
    return Hit(
        start,
        end,
        day,
        "time",
        clock=when,
        takes_time=False,
        lang=lang,
        kind="time",
        said=clk,
        ambiguous=ambiguous,
    )


# ---------------------------------------------------------------------------------------------------
# Resolution


def _local(d: date, hour: int = 0, minute: int = 0, tz: ZoneInfo | None = None) -> datetime:
    return datetime(d.year, d.month, d.day, hour, minute, tzinfo=tz)


def mention(ctx: Ctx, hit: Hit) -> DateMention:
    tz = ctx.tz
    # [start, end) is the interval the expression denotes; it decides the direction.
    if hit.instant is not None:
        value, granularity = hit.instant, "time"
        start, end = value, value + timedelta(minutes=1)
    elif hit.clock is not None:
        offset, hour, minute = hit.clock
        value, granularity = _local(hit.day + timedelta(days=offset), hour, minute, tz), "time"
        start, end = value, value + timedelta(minutes=1)
    elif hit.period is not None:
        hour, lo, hi = PERIODS[hit.period]
        value, granularity = _local(hit.day, hour, 0, tz), "time"
        start = _local(hit.day, lo, 0, tz)
        end = _local(hit.day + timedelta(days=hi // 24), hi % 24, 0, tz)
    else:
        value, granularity = _local(hit.day, tz=tz), hit.granularity
        start = value
        if hit.span_days is not None:
            end = _local(hit.day + timedelta(days=hit.span_days), tz=tz)
        else:
            step = {"day": 1, "week": 7}.get(granularity)
            nxt = (
                days(hit.day, step)
                if step
                else shift(hit.day, months=int(granularity == "month"), years=int(granularity == "year"))
            )
            end = _local(nxt, tz=tz)
    # Same tzinfo on both sides: Python compares wall-clock times, which is the intended meaning.
    direction = "future" if start > ctx.at else ("past" if end <= ctx.at else "present")
    return DateMention(
        start=hit.start,
        end=hit.end,
        text=ctx.text[hit.start : hit.end],
        value=value,
        has_time=granularity == "time",
        direction=direction,
        granularity=granularity,
        has_clock=hit.instant is not None or hit.clock is not None,
    )


# how long a coarse date lasts, for a finer one said inside it
_SPAN_DAYS = {"week": 7, "month": 31, "year": 366}
_WEEKEND = re.compile(r"weekend|周末|週末", re.IGNORECASE)


def span_days(d: DateMention) -> int:
    """How many days a date said covers from its value: 1 for a day or a time, 2 for a
    weekend, 7 for a week, 31 for a month, 366 for a year."""
    if d.has_time:
        return 1
    return _SPAN_DAYS.get(d.granularity, 2 if _WEEKEND.search(d.text) else 1)


# the Chinese words of a plan moved to a time: 改到下周二, 挪到周五, 提前到九点
MOVED_TO_ZH = "改到|改成|改在|推到|推迟到|挪到|换到|调到|延到|提前到"
# the slot a move lands on, said before it: "改到下周二", "pushed it to monday"
_MOVED_TO_BEFORE = re.compile(
    rf"(?:{MOVED_TO_ZH}|"
    r"\b(?:moved|pushed|rescheduled|bumped|shifted|changed|brought)\b[^.;!?]{0,20}?\b(?:to|till|until|forward to))\s*$",
    re.IGNORECASE,
)
# the slot a change lands on: "Bruna can't do friday so it's saturday half 3 instead"
_INSTEAD_AFTER = re.compile(r"[^.!?;。！？；\n]{0,40}?\binstead\b(?!\s+of)", re.IGNORECASE)


def planned(ahead: list[DateMention], text: str | None = None) -> DateMention | None:
    """The date a plan is for, of the dates ahead in its turn: the first, or a time said inside
    it ("regionals are this weekend … check-in is 5:45am sunday": Sunday 05:45, not Saturday);
    with the turn's `text`, the one said with "instead" after it ("can't do friday so it's
    saturday half 3 instead": Saturday)."""
    if not ahead:
        return None
    if text is not None and "instead" in text.lower():
        ahead = next(
            (ahead[i:] for i, d in enumerate(ahead) if i and _INSTEAD_AFTER.match(text, d.end)), ahead
        )
    if text is not None and len(ahead) > 1:
        # ... or the one it was moved to ("师傅周四没空，帮我改到下周二上午十点", "moved from thursday
        # to monday 9am")
        ahead = next(
            (
                ahead[i:]
                for i, d in enumerate(ahead)
                if i and _MOVED_TO_BEFORE.search(text, max(0, d.start - 40), d.start)
            ),
            ahead,
        )
    first = ahead[0]
    if first.has_time and not first.has_clock:
        # a part of the day, refined by a clock said near its hour ("禮拜天一早 … 6:55 那班",
        # "sunday afternoon, kick-off 2:30"); not by one hours away ("evening drinks, then the
        # 11:15 train home")
        return next(
            (
                d
                for d in ahead[1:]
                if d.has_clock
                and d.value.date() == first.value.date()
                and abs(d.value - first.value) <= timedelta(hours=3)
            ),
            first,
        )
    if first.has_time:
        return first
    end = first.value + timedelta(days=span_days(first))
    return next((d for d in ahead[1:] if d.has_time and first.value <= d.value < end), first)
