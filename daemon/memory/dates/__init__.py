"""Relative date resolution: "yesterday", "next Monday at 10", "下周一", "明天下午三点" → aware datetimes.

A turn says *when* something happened or is due relative to the moment it was said. This module finds
those date mentions in English and Chinese text and resolves each one against the event time ``at`` in
the user's time zone. Pure functions: no I/O, no clock reads; the time always comes in as an argument.
It also tells a habit from a date: ``recurrence(text)`` returns the schedule a routine states.

Why not ``dateparser``: measured here, ``dateparser.parse("next Monday at 10")`` took 3 s to return
None, and it returns None for "下周一", "明天下午三点", "两天前" and "上周五". So the expressions are
recognised with precompiled regexes, and months/years are shifted with ``dateutil.relativedelta``.

Layout: this package's ``__init__`` holds the public API and the conventions; ``common`` the types,
calendar arithmetic and resolution into mentions; ``cues`` the sentence cues (tense, habits,
reschedules); ``en`` / ``en_time`` / ``zh`` the expressions of each language; ``recurrence`` the
schedule of a habit.

Conventions (each one a decision, tested):

* Arithmetic happens on the local wall-clock date of ``at`` in ``tz``; results are built with
  ``datetime(..., tzinfo=tz)`` so zoneinfo picks the offset. "tomorrow at 10" across a DST change is
  10:00 local. A wall time that does not exist (inside a spring-forward gap) is left as zoneinfo
  resolves it (fold=0). Only "N hours/minutes ago/later" count elapsed time.
* Weeks are ISO weeks, Monday first. "this Monday"/这周一/本周一 = the Monday of the current week (may
  be in the past); "next Monday"/下周一 = the Monday of the following week (on a Sunday: tomorrow);
  "last Monday"/上周一 = the Monday of the previous week; 下下周/上上周 = two weeks on/back.
  "last/this/next week"/上周/这周/下周 → that week's Monday, granularity "week". "this coming Monday"/
  "this past Monday" = the nearest one strictly after/before today. "Friday the 21st" = the 21st of
  the nearest month (by tense) where it is a Friday. A weekday right after another week ("next week:
  thursday", "last week, on Monday", 下周：周四) is that week's day, and so is each weekday joined to it
  ("next week on thursday or friday"), unless it is read the other way in time from the week; after
  "this week" the weekday keeps its own reading below.
* A bare weekday ("on Monday", 周一, 星期五, "thurs", "on sat", "wendesday": chat abbreviations, and
  one-edit typos of the full names) is the nearest one strictly after today, unless its sentence is
  past tense, then the nearest one strictly before today. A weekday that names an event, the
  possessive "Saturday's row" or a subject "the match on Saturday" with its verb ("... was awful",
  "... kicks off at 3"), 周六的比赛, 周六那场吵架, is today when said on that weekday, in any tense
  (a week ago would be "last Saturday's"); "see you on Saturday"/"I ran on Saturday" said on a
  Saturday stay a week off, as "today" would have been said. Tense is a deliberately simple cue rule:
  the sentence (split on . ! ? ; 。！？；and newlines) has a past cue ("was", "did", "went", "had",
  "-ed" words minus a stoplist like "need"/"scheduled", "last", "ago", "yesterday"; 了/过/已经/刚才/
  上次) and no future cue ("will", "'ll", "going to", "gotta", "next", "tomorrow", "can", "could",
  "want to"; 要/会/将/打算/准备). A sentence that moves an appointment ("rescheduled for Monday",
  "moved it from Wednesday to Friday", 改到周五, 推迟到) or states one (约了/定了) is future: the change
  is past, the slots are ahead. A fragment starting with "or"/"and" ("... on Monday? or Tuesday")
  keeps the tense of the sentence before it. An English clause after a comma and "and"/"so"/"then"
  ("We're hosting a barbecue on Sunday, and I've ordered the burgers") has its own tense when it has
  a cue of its own, or when it is an arrangement (a present progressive with "on/this <weekday>":
  future); else the sentence's. The same rule picks the year of a date said without one
  ("May 20" → the nearest such day on or before today in a past sentence, on or after today in a
  future one, else the nearest), the day of a lone time ("call me at 3pm" said at 4pm → tomorrow),
  and drops "in 3 days" from a past sentence, where it is a duration ("I read it in 3 days"); so is
  "in 3 days" after a whole piece of work in a sentence that is not future ("I read the whole
  trilogy in 3 days", "finished the entire course in two weeks"; "I'll read it in 3 days" is 3 days
  on).
* A day of the month without its month ("on the 19th", "by the 5th", 19号, 28日) is the latest one on
  or before today in a past sentence ("we landed on the 19th" said on 26 August → 19 August), else
  the next one on or after today, not the nearest: a sentence that does not look back names a day
  ahead ("We're flying to Reykjavík on the 19th" said on 26 August → 19 September). Not 3号线, 5号楼.
* A deadline is never in the past: a bare weekday, "the weekend", "the 20th" or a date without a year
  after "until"/"till"/"by"/"before"/"no later than"/"due"/"through", or with 之前/以前/前/为止/截止
  after it (周五之前, 周五下班前) or 截止到/最晚/最迟 before it, is the next one on or after today, whatever
  the tense ("Month-end close again, so I'm buried until Friday" said on a Monday → that Friday; said
  on the Friday → today). Exception: "until"/"till" closing a past state in its own clause ("I was in
  Vienna until Friday", "we stayed till Sunday") keeps the past reading.
* A habit is not a date. In a clause (a sentence split at "but"/"though"/"except"/但是/不过 ...) with a
  recurrence cue ("every", "each", "usually", "always", "often", "on Tuesdays", "Wednesday
  afternoons", "most nights", "weekdays", "twice a week", "used to"; 每天/每周/每逢/天天/一般/通常/平时/
  经常/习惯/工作日/周末都/一周三次), bare weekdays, bare weekends, lone times and "on the 5th" yield no
  mention; so do lone times in a clause with a pronoun subject in the present simple and no tense cue
  ("I run at 6am before work", "she walks the dog at 7"; not "I have a call at 4", "are you free at
  3pm?"). Dates with their own anchor stay: "I usually finish at 5:30 but today I'm staying late" →
  today. ``recurrence(text)`` returns what such a sentence states: {"time": "06:00" | None, "period":
  "evening" | None, "weekdays": ["tuesday"], "frequency": "daily" | "weekly" | "biweekly" |
  "weekdays" | "weekends" | "monthly" | "yearly" | "times_per_week:3" | "times_per_day:2" | None},
  or None when it states no routine.
* "the weekend"/周末 → its Saturday (granularity "day"; direction looks at both days). Bare "the
  weekend" is the current one on Sat/Sun, else the coming one, or the last one in a past sentence.
* Deictic days accept chat spellings: "tmrw", "tmr", "tomorow", "2moro", "yday", "tonite".
* Times of day: "at 10", "10am", "3 pm", "10:30", "noon", "in the evening", written-out times ("half
  past six", "quarter to five", "ten past nine", British "half six" = 6:30, "eight thirty", "seven
  o'clock"), 上午/下午/晚上 + N点(半|一刻|三刻|N分) or 3:30 attach to the date expression next to them
  ("tomorrow at 3pm", "at 3pm tomorrow", "10am on Friday", 明天下午三点). A bare hour 1-6 with no am/pm
  and no period word is read as afternoon ("tomorrow at 3" → 15:00). A clock in 24-hour form, a
  zero-padded hour, an hour past 12 or an "h" ("at 03:00", "07.30", "17:45", "06h01"), is as said:
  no guess moves it, not this one, not the evening outing's below, not a range's am/pm ("between
  05:30 and 9pm" starts at 05:30). Nor does the afternoon guess take a minute off the five-minute
  grid ("the 6:01 eurostar on monday" → 06:01, 明天6点07的高铁 → 06:07): a time copied from a
  timetable, where dawn departures are common, and read twelve hours late it comes after the
  departure. Local wall time throughout: 06:01 on the day the clocks change is 06:01. Period
  words without an hour resolve to a representative hour with has_time=True, granularity "time":
  morning/早上/上午 09:00, 中午 12:00, afternoon/下午 15:00, evening/night/tonight/
  今晚/晚上 20:00, 凌晨 05:00. A time with no date next to it counts only when unambiguous ("3pm", "at
  10:30", "at noon", "at quarter to five", 下午三点, 十点半; not "at 10", "at seven", a lone "10:30" or
  三点). A lone time without am/pm or period word ("at 6:15", "at half seven", 十点半) is its next
  occurrence between 05:00 and 22:00, or its latest occurrence in a past sentence ("let's meet at
  10:30" said at noon → 10:30 tomorrow; "wake me up at 6:15" said at 22:15 → 06:15 tomorrow; "see
  you at half seven" said at noon → 19:30); a 24-hour "at 14:20" is as said. A lone time in a past
  account of something else ("The first unit arrived on scene at 08:05", "the outage started at
  14:20 and was resolved by 15:10", 事故下午两点二十开始，三点十分恢复了) yields no mention: it is the
  time of a past incident whose day is not given, often told days later, not a time of the day it
  is told. The speaker's own day keeps its latest occurrence: a first-person subject or none ("I
  woke up at 10:30", "got home at 11:30", 十一点半就睡了); so does a time in a sentence that says its
  day. When a sentence holds exactly one lone time and exactly one day expression without a time,
  the time is that day's, read as it would be next to it ("Lunch at noon with the team tomorrow" →
  tomorrow 12:00; the mention keeps the day's words). The two
  ends of a range joined by "to"/"until"/"-"/"and" share the day said next to either ("From 2pm to
  4pm tomorrow", "9am–11am next Tuesday": both tomorrow's / that Tuesday's), and the start of
  "from 2 to 4pm" / "between 9 and 11am" takes the end's am/pm.
* An evening outing (dinner, drinks, a reservation, "table for", a film, concert, gig, show, pub,
  party) reads an hour from 5 to 11 said without am/pm or a period word as evening ("dinner at 8
  tomorrow" → 20:00, "the reservation is for eight thirty on Saturday" → 20:30); elsewhere "eight
  thirty on Saturday" is 08:30 and a 24-hour "08:00" or "07.30" is as said.
* Chinese relative years and months take a month or day: 去年十月 → 1 October of last year (granularity
  "month"), 上个月十号 → the 10th of last month.
* ``value`` is 00:00 of the day when no time was said; the first day of the unit for calendar units
  ("last month" → the 1st, "next year" → 1 January); the shifted day for offsets ("3 weeks ago" →
  exactly 21 days back, granularity "week"; "in a fortnight" = in 2 weeks; "in 1 month" on Jan 31 →
  Feb 29 2024, as relativedelta clamps). "2 hours ago"/"in 30 minutes" shift the instant and truncate
  it to the minute.
* ``granularity`` is the unit the expression was said in ("day", "week", "month", "year"), or "time"
  when a time of day was said (then ``has_time`` is True).
* ``direction`` compares the whole interval the expression denotes with ``at``: "future" if it starts
  after ``at``, "past" if it ends at or before ``at``, else "present" ("today", "this week", "this
  morning" said at 10:00, "tonight" said at 19:00, "at 3pm" said at 15:00:30).
* Overlapping candidates keep the longest ("the day before yesterday" beats "yesterday", "上周五" beats
  "周五", "三天前" beats "前天"). Names are no dates: "Sunday school", "Good Friday", "every Monday",
  "Sunday roast", and a capitalised weekday followed by two capitalised words ("Friday Night Lights").

Cost: a turn is lower-cased once and checked for cue substrings ("day", "week", "ago", "tmr", "mon",
a digit, 天, 周, 点 ...); a turn without any returns before a single pattern runs. Each pattern family
runs only if its own cue is present, and every pattern starts with a literal so the regex engine can
skip ahead. ``python bench/dates.py`` measures accuracy on hand-labelled chat sentences.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from daemon.memory.dates import cues
from daemon.memory.dates import en as dates_en
from daemon.memory.dates import zh as dates_zh
from daemon.memory.dates.common import (
    PERIODS,
    Clock,
    Ctx,
    DateMention,
    Hit,
    mention,
    monday,
    only_a_clock,
    planned,
    span_days,
    valid,
)
from daemon.memory.dates.cues import own_account
from daemon.memory.dates.hant import simplified
from daemon.memory.dates.recurrence import Recurrence, recurrence
from daemon.memory.dates.zones import in_named_zones

__all__ = ["DateMention", "Recurrence", "only_a_clock", "planned", "recurrence", "resolve_dates", "span_days"]


def _has_digit(text: str) -> bool:
    # ten substring tests beat re.search(r"\d") 5x; full-width digits only matter in Chinese text
    return (
        "0" in text
        or "1" in text
        or "2" in text
        or "3" in text
        or "4" in text
        or "5" in text
        or "6" in text
        or "7" in text
        or "8" in text
        or "9" in text
    )


def _bare_day(hit: Hit) -> bool:
    return (
        hit.granularity == "day"
        and hit.takes_time
        and hit.span_days is None
        and hit.clock is None
        and hit.period is None
        and hit.instant is None
    )


def _part_of_a_day(hit: Hit) -> bool:
    """A day with a part of it said and no clock yet ("wed morning")."""
    return _bare_day(replace(hit, period=None)) and hit.period is not None


# a sentence with only a time goes on with the day and time of the one before it, or of the one
# before that when a sentence without a day stands between ("老爸礼拜四…落地是四点二十。伊英文一句弗会
# 讲，我一定要到到达口去接。我三点一刻从 Şişli 坐 Havaist 过去": 15:15 on Thursday)
_ASIDE = 2


def _lone_times_to_days(ctx: Ctx, kept: list[Hit]) -> list[Hit]:
    """A sentence's first lone time becomes the time of its only day expression without one, and
    its other lone times fall on that day too ("Tomorrow from 2pm to 4pm": tomorrow 14:00, and
    the 16:00 is tomorrow's, not today's)."""
    by_sentence: dict[int, list[Hit]] = {}
    for hit in kept:
        by_sentence.setdefault(ctx.sentence(hit.start)[0], []).append(hit)
    dropped: set[int] = set()
    placed: set[int] = set()  # the lone times given a day here
    before: list[Hit] = []  # the bare days of the sentence before, still without a time
    timed: list[Hit] = []  # ... and the days it gave a time of day
    prev = -2
    for i, group in sorted(by_sentence.items()):
        times = [h for h in group if h.kind == "time"]
        bare = [h for h in group if _bare_day(h)]
        only_times = len(times) == len(group)
        if not times and prev >= 0 and all(h.granularity not in ("day", "time") for h in group):
            continue  # an aside told of a week or a month ("sorted that with the tour fella last week")
        if times and only_times and i <= prev + _ASIDE and len(before) == 1:
            # "knee scope is Tuesday. Check in 6am at the Mater": a sentence that gives only a
            # time goes on with the day of the one before
            bare = before
        elif times and only_times and i <= prev + _ASIDE and not before and len(timed) == 1:
            # "Mum lands Thursday at 5:40. I have to leave at 4:30 to get her": the same day, and
            # of a time said without am/pm the reading nearest the one before (04:30, not 16:30)
            _same_day_as(timed[0], times)
            placed.update(id(t) for t in times)
            before, timed, prev = [], [], i
            continue
        timed = [h for h in group if _day_with_time(h)]
        open_days = [h for h in group if _bare_day(h) or _part_of_a_day(h)]
        last = [h for h in open_days if h.end <= times[0].start][-1:] if times else []
        if len(open_days) > 1 and last and _part_of_a_day(last[0]):
            # several days and a lone time after a part of one: that part's clock ("today n tmrw im
            # with the auditors so ill look at it wed morning after standup (standup's at half 9)")
            bare = last
        if times and len(bare) == 1:
            bare[0].clock = _starts_before_it_ends(ctx, times[0], bare[0])
            dropped.add(id(times[0]))
            if _DAY_THEN_TIME.fullmatch(ctx.low, bare[0].end, times[0].start):
                bare[0].end = times[0].end  # "15号 8pm": one mention, one span
            for later in times[1:]:
                later.day, later.clock = bare[0].day, later.said
                placed.add(id(later))
        elif times and not bare and len(timed) == 1:
            # "flight's 7:05 on the 3rd, which means the 03:50 coach": a lone time after the
            # sentence's one day with a time is that day's, at the reading nearest it (one
            # before it is the day it is said: "call at 3pm, and the dentist at 5pm tomorrow")
            after = [t for t in times if t.start > timed[0].start]
            _same_day_as(timed[0], after)
            placed.update(id(t) for t in after)
        before = [h for h in bare if h.clock is None] if not times else []
        # (a day of an earlier sentence given its time by this one is the day with a time now:
        # "…boat trip for saturday. boat leaves at 6.30am. gotta leave burnt pine by 5.45" is 05:45 then)
        timed = [h for h in group if _day_with_time(h)] or [
            h for h in bare if h not in group and _day_with_time(h)
        ]
        prev = i
    # (a bare hour no day was named with is no time: "see you at 7" says nothing of a day)
    return [h for h in kept if id(h) not in dropped and (not h.needs_day or id(h) in placed)]


# the end the sentence gives what starts at a lone time: "won't be back before five", "till 4:30",
# "home by 6" (an hour from 1 to 11 without am/pm read in the afternoon, as the end of a day out)
_END_CLOCK = re.compile(
    r"\b(?:back|till|til|until|home|return\w*|finish\w*|done|over|wrap\w*\s+up)\s+(?:(?:by|before|at|about|around)\s+)?"
    r"(?P<h>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven)(?:[:.](?P<m>[0-5]\d))?"
    r"(?!\s*(?:[ap]\.?m\b|h\b|hours?|mins?|minutes|days?|weeks?|people|of\b)|[:.\d])",
    re.IGNORECASE,
)
_WHOLE_DAY = re.compile(
    r"\b(?:all[- ]day|whole[- ]day|full[- ]day|day[- ]long)\b|全天|一整天|整天", re.IGNORECASE
)
_HOURS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven".split())}


def _sentence_of(ctx: Ctx, pos: int) -> str:
    """The sentence of the message around `pos`, lower-cased."""
    start = 0
    for m in cues.SENTENCE_END.finditer(ctx.text):
        if m.end() > pos:
            return ctx.low[start : m.end()]
        start = m.end()
    return ctx.low[start:]


def _starts_before_it_ends(ctx: Ctx, first: Hit, day: Hit) -> Clock | None:
    """The clock of a day's first lone time, read so that the thing starts before the end its
    sentence gives: "We leave at quarter to seven and won't be back before five" leaves at 06:45,
    not at 18:45 (the afternoon guess for 1–6 without am/pm), since it is back by 17:00; and in the
    morning when the day's sentence or the time's says the thing takes the whole day (not "spent
    the whole day cleaning. dinner friday at 6", of another thing)."""
    said = first.said
    if said is None or not first.ambiguous or said[1] < 13:
        return said
    if _WHOLE_DAY.search(_sentence_of(ctx, day.start)) or _WHOLE_DAY.search(_sentence_of(ctx, first.start)):
        # a day told to take all of it starts in the morning ("wednesday's the recert course,
        # whole day. … leaving the yard at 6:45" leaves at 06:45)
        return (said[0], said[1] - 12, said[2])
    stop = cues.SENTENCE_END.search(ctx.text, first.end)
    end = _END_CLOCK.search(ctx.low, first.end, stop.start() if stop is not None else len(ctx.low))
    if end is None:
        return said
    h = int(end["h"]) if end["h"].isdigit() else _HOURS[end["h"].lower()]
    if not 1 <= h <= 11:
        return said
    if (said[1], said[2]) > (h + 12, int(end["m"] or 0)):
        return (said[0], said[1] - 12, said[2])
    return said


# between a day and its time, when the two are one mention: a space, a comma, "at" ("15号 8pm"),
# the place whose time it is ("下周一北京时间晚上十点")
_DAY_THEN_TIME = re.compile(r"[\s,，]*(?:(?:at|@)\s*|[\u4e00-\u9fff]{2,4}时间\s*)?")
# between: a comma, or an opening bracket ("本周五（5月15日）", "Friday (the 15th)")
_WEEKDAY_THEN_DATE = re.compile(r"[\s,，]*[（(]?\s*(?:the\s+)?")


_YEAR_WRITTEN = re.compile(r"\b(?:19|20)\d\d\b|年")


def _year_of_its_weekday(ctx: Ctx, date_hit: Hit, wd: int) -> date:
    """A written date without its year, named with a weekday it does not fall on this time: the
    nearest year it does ("Monday, 1 November" said in a past sentence of October 2027 is 2027's,
    a Monday, not 2026's, a Sunday). A weekday and a date together name one day exactly; the tense
    only guesses. A date with its year written is as written (a wrong weekday there is a slip)."""
    if _YEAR_WRITTEN.search(ctx.low, date_hit.start, date_hit.end):
        return date_hit.day
    d = date_hit.day
    cands = [c for y in (d.year - 1, d.year + 1) if (c := valid(y, d.month, d.day)) and c.weekday() == wd]
    return min(cands, key=lambda c: abs((c - ctx.today).days)) if cands else d


def _weekday_named_with_its_date(ctx: Ctx, kept: list[Hit]) -> list[Hit]:
    """A weekday right before a written date only names that date's day ("Friday, October 25,
    2024", "本周五（5月15日）" are one day; alone, "Friday" would be read as the Friday nearest the day it is said)."""
    drop = set()
    for a, b in pairwise(kept):
        if (
            # (or a weekday named by its week, with its date beside it: "本周五（5月15日）",
            # "this Monday (March 30)": the written date says which)
            (
                a.kind == "weekday"
                or (
                    a.day.weekday() == b.day.weekday()
                    and not any(c.isdigit() for c in ctx.low[a.start : a.end])
                )
            )
            and b.kind in ("fixed", "nth")
            and any(c.isdigit() for c in ctx.low[b.start : b.end])  # a written date, not "tomorrow"
            and _WEEKDAY_THEN_DATE.fullmatch(ctx.low, a.end, b.start)
        ):
            drop.add(id(a))
            if a.kind == "weekday" and b.kind == "fixed" and b.day.weekday() != a.day.weekday():
                b.day = _year_of_its_weekday(ctx, b, a.day.weekday())
            b.start = a.start  # "这个星期六 15号", "Friday, October 25": one mention, one span
            if b.clock is None and a.clock is not None:  # "at 10:05 AM on Monday, October 21st"
                b.clock = (0, a.clock[1], a.clock[2])
    return [h for h in kept if id(h) not in drop]


# Between a week and a weekday that says which day of it: "next week: thursday", "next week, on
# Thursday", "this week - tues"; and between two weekdays of that week: "thursday and friday".
_WEEK_THEN_WEEKDAY = re.compile(r"[\s,，:：]*(?:[-–—]\s*)?(?:on\s+)?(?:the\s+)?")
# … or later in the same sentence, with words but no sentence end between ("next week is mad, the
# only fixed thing is thursday 2pm", "下周很忙，周四下午两点要见审计")
# (not past a contrast: "next week is busy, but thursday works" is the Thursday coming)
_SAME_SENTENCE = re.compile(
    r"(?:(?!\b(?:but|though|however|except|instead|so)\b|不过|但|可是|倒是|所以)[^.!?。！？\n;；])*"
)
# A count of weeks from now ("3 weeks ago", "in two weeks", 两周后) is a distance, not a calendar
# week whose days are named next.
_WEEKS_COUNTED = re.compile(r"\d|\bago\b|\bin\b|later|from now|[一二两三四五六七八九十几]|前|后")
_WEEKDAY_AND_WEEKDAY = re.compile(
    r"[\s,，、]*(?:(?:and|or|&|to|through|thru|till|until|[-–—]|和|或|到|至)\s*)?(?:on\s+)?"
)


def _weekdays_of_the_week_named(ctx: Ctx, kept: list[Hit]) -> list[Hit]:
    """A weekday said right after a week, or later in its sentence, is that week's day ("next
    week: thursday is the review", "next week is mad, the only fixed thing is thursday 2pm" are
    the Thursday of next week, not the Thursday coming), and so is each weekday joined to it
    ("next week, thursday and friday"). The week stays a mention of its own, as before: what reads
    a turn's clauses finds the weekday in its own clause. Not the current week: there the weekday's
    own reading (the one coming, or the one gone in a past account) is the day meant, and on a
    Sunday evening "this week: thursday" is the Thursday coming, not the one of the ISO week that
    ends that night. Nor a weekday read the other way in time from the week: in "I was away last
    week; Monday I start the new job" the Monday is ahead, a clause of its own."""
    week: Hit | None = None
    this_week = monday(ctx.today)

    def along(week: Hit, day: Hit) -> bool:  # the weekday's own reading is on the week's side of today
        return day.day > ctx.today if week.day > this_week else day.day < ctx.today

    for a, b in pairwise(kept):
        if (
            a.granularity == "week"
            and a.day != this_week
            and not _WEEKS_COUNTED.search(ctx.low, a.start, a.end)
            and b.kind == "weekday"
            and (
                _WEEK_THEN_WEEKDAY.fullmatch(ctx.low, a.end, b.start)
                or _SAME_SENTENCE.fullmatch(ctx.low, a.end, b.start)
            )
            and along(a, b)
        ):
            week = a
        elif not (
            week is not None
            and a.kind == "fixed"
            and b.kind == "weekday"
            and _WEEKDAY_AND_WEEKDAY.fullmatch(ctx.low, a.end, b.start)
            and along(week, b)
        ):
            week = None
            continue
        b.day = week.day + timedelta(days=b.day.weekday() - week.day.weekday())
        b.kind = "fixed"  # anchored to a calendar week, as "next Monday" is
    return kept


def _day_with_time(hit: Hit) -> bool:
    """A day said with its time of day: a clock ("Thursday at 5:40") or a part of the day
    ("禮拜天一早", "Sunday morning"), whose lone times later in the sentence are that day's."""
    return (
        hit.kind != "time"
        and hit.granularity == "day"
        and (hit.clock is not None or (hit.period is not None and hit.takes_time and hit.span_days is None))
    )


def _same_day_as(anchor: Hit, times: list[Hit]) -> None:
    """Put lone times on the day of `anchor` (a day said with its time), each at the reading of
    it nearest the anchor's time when it was said without am/pm (of a part of the day, its
    representative hour: "禮拜天一早 … 6:55 那班" is 06:55)."""
    assert anchor.clock is not None or anchor.period is not None
    offset, hour, minute = anchor.clock or (0, PERIODS[anchor.period or "morning"][0], 0)
    at = hour * 60 + minute
    for t in times:
        if t.said is None:
            continue
        _, h, m = t.said
        options = [(h % 12) * 60 + m, (h % 12 + 12) * 60 + m] if t.ambiguous and h % 12 else [h * 60 + m]
        best = min(options, key=lambda c: abs(c - at))
        t.day, t.clock = anchor.day + timedelta(days=offset), (0, best // 60, best % 60)


# Two times joined into a range: "from 2pm to 4pm tomorrow", "9am–11am next Tuesday", "between 2pm
# and 4pm on Friday", "tomorrow 2pm to 4pm".
_RANGE_JOIN = re.compile(r"\s*(?:-|–|—|to|till|til|until|and|through|thru)\s*")


def _ranges_share_a_day(ctx: Ctx, kept: list[Hit]) -> None:
    """A lone time joined by a range word to a time said with its day takes that day: in "from
    2pm to 4pm tomorrow" the 2pm is tomorrow's too, not today's."""
    for a, b in pairwise(kept):
        if not _RANGE_JOIN.fullmatch(ctx.low, a.end, b.start):
            continue
        lone, dated = (a, b) if a.kind == "time" else (b, a)
        if lone.kind == "time" and dated.kind != "time" and dated.clock is not None and lone.said:
            lone.day, lone.clock = dated.day + timedelta(days=dated.clock[0]), lone.said


def _undated_past_times(ctx: Ctx, kept: list[Hit]) -> list[Hit]:
    """Drop the lone times of a past account whose day is not given: "The first unit arrived on
    scene at 08:05", "the outage started at 14:20 and was resolved by 15:10" is the time of a past
    incident, often told days later, not a time of the day it is told (nor, read as ahead, an
    appointment). The speaker's own day told as it goes keeps its latest occurrence ("I woke up at
    10:30", "got home at 11:30"); so does any time in a sentence that says its day too."""
    dated = {ctx.sentence(h.start)[0] for h in kept if h.kind != "time"}
    out = []
    for hit in kept:
        if hit.kind == "time" and ctx.tense(hit.start) == "past":
            i = ctx.sentence(hit.start)[0]
            lo, hi = ctx.bounds(hit.start)
            if i not in dated and not own_account(ctx.low[lo : hit.start], ctx.low[hit.end : hi]):
                continue
        out.append(hit)
    return out


def _routine(ctx: Ctx, hit: Hit, days: tuple[int, ...]) -> bool:
    """Whether a hit is part of a routine (`cues.Sentence.habitual`). A lone time in the present
    simple right after a sentence that names a one-off day, in a sentence naming no day of its
    own, is that day's timetable, not a routine: "thursday is the strategy workshop. we start at
    9am and it goes till late" starts the workshop at 9 (a habit word still makes it one: "the
    dentist is thursday. I usually get up at 7")."""
    i, info = ctx.sentence(hit.start)
    if not info.habitual(hit.start, hit.kind, days):
        return False
    if hit.kind != "time" or info.habitual(hit.start, "weekday", days):
        return True
    with_days = {ctx.sentence(d)[0] for d in days}
    return not (i - 1 in with_days and i not in with_days)


def resolve_dates(text: str, at: datetime, tz: ZoneInfo) -> list[DateMention]:
    """Every date expression in ``text``, in text order, resolved against the event time ``at``.

    ``at`` must be aware; it is converted to ``tz`` first, so "昨天" said at 2024-03-01T18:00Z is
    resolved against the Shanghai date 2024-03-02. Conventions are in the module docstring.
    """
    if at.tzinfo is None:
        raise ValueError("resolve_dates needs an aware event time")
    written = text
    text = simplified(text)  # "下週三兩點" is read as "下周三两点", at the same positions
    found = _resolve(text, at, tz)
    if text == written:
        return found
    return [replace(m, text=written[m.start : m.end]) for m in found]


def _resolve(text: str, at: datetime, tz: ZoneInfo) -> list[DateMention]:
    """`resolve_dates` on text already read as Simplified (the same length as written)."""
    low = text.lower()
    if len(low) != len(text):  # "İ".lower() is two characters: lower char by char to keep the spans
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    digits = _has_digit(text)
    en = digits or dates_en.has_cue(low)
    zh = dates_zh.has_cue(text)
    if not (en or zh):
        return []
    if at.utcoffset() is None:
        raise ValueError("resolve_dates needs an aware event time")
    local = at.astimezone(tz)
    ctx = Ctx(text=text, low=low, today=local.date(), at=local, tz=tz, said_hour=at.hour)
    hits = (dates_en.candidates(ctx, digits) if en else []) + (dates_zh.candidates(ctx) if zh else [])
    if not hits:
        return []
    for hit in hits:
        if hit.granularity == "day" and hit.takes_time and hit.span_days is None:
            (dates_zh.attach if hit.lang == "zh" else dates_en.attach)(ctx, hit)
    days = tuple(
        h.start for h in hits if h.kind != "time" and not ctx.sentence(h.start)[1].habitual(h.start, h.kind)
    )
    hits = [h for h in hits if not _routine(ctx, h, days)]
    # Longest first, then leftmost: "the day before yesterday" over "yesterday", 上周五 over 周五.
    kept: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start - h.end, h.start)):
        if all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    kept.sort(key=lambda h: h.start)
    kept = _weekday_named_with_its_date(ctx, kept)
    kept = _weekdays_of_the_week_named(ctx, kept)
    kept = _undated_past_times(ctx, _lone_times_to_days(ctx, kept))
    _ranges_share_a_day(ctx, kept)
    done = frozenset(h.start for h in kept if h.zoned)
    return in_named_zones(text, low, [mention(ctx, h) for h in kept], tz, done)
