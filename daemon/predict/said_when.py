"""said_when: when the person said they would get to a work item, read from their own words.

"I'll look at #418 after lunch", "#233 我下午四点的周会开完再看", "will review the pagination PR
(#418) before Thursday": GitHub does not know this, the conversation does. A follow-up about the
item should not come before the time the person gave themselves, and should come once it has
passed with the item still waiting (issue 21). Reading the time:

- a day or a time the date resolver finds ahead of the moment it was said ("at 4", "tomorrow
  morning", 下午四点): the person gets an hour from then to do it;
- a deadline ("before Thursday", "by Friday", 周四之前): the morning of that day, still in time;
- a part of the day the resolver does not date ("after lunch", 午饭后, 食完晏, "end of day"): its
  usual hour today (or on the Cantonese 听日, tomorrow), and an hour from then (`day_parts`);
- a condition on the pull request's CI ("once CI is green", 等CI跑绿了再看): an hour after a run
  that passed for it arrives (`waits_on_ci`).

Only the person's most recent turn that names the item counts: a newer word moves the time again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from daemon.memory.dates import resolve_dates
from daemon.memory.dates.common import clock
from daemon.memory.dates.hant import simplified
from daemon.memory.dates.zh import number as zh_number
from daemon.memory.models.features import shared_words
from daemon.memory.read.bm25 import tokenize
from daemon.memory.types import TurnView
from daemon.predict.base import is_cjk
from daemon.predict.day_parts import DAY_PARTS, day_ahead

# how long the person has, after the time they named, before a nudge is fair
GRACE = timedelta(hours=1)
# how long a thing named by the hour it starts at lasts, when the person will get to the work item
# once it is over ("after the 2pm retro", "等下午三点的组会开完再看"): an hour, as a meeting is booked
MEETING = timedelta(hours=1)
# a day named for a work item without a part of it: ask from its early afternoon
WHOLE_DAY = time(14, 0)
# how far back the conversation is read for what the person said about an item
LOOKBACK = timedelta(days=3)
# a part of the day this close to a date is that date's ("tomorrow after lunch"), not today's
_NEAR = 20

_DEADLINE_BEFORE = re.compile(r"(?:before|by|until|till|no later than)\s*$", re.IGNORECASE)
_DEADLINE_AFTER_ZH = re.compile(r"^\s*(?:之前|以前|前)")


_ANY_REF = re.compile(
    r"(?<![\w&#])[\w.-]*#\d{1,6}(?!\d)"
    # ... or by the word for it and its number ("PR 57", "review 57")
    r"|(?<![a-z])(?:pr|pull request|review(?:ing)?)\s*#?\s*\d{1,6}(?![\d:.]|\s*(?:am|pm|min|h\b))"
    # ... or as what the person was tagged or asked on ("callum just tagged me on 418")
    r"|\b(?:tagged|pinged|added|requested|assigned)\s+(?:me\s+)?(?:on|to|for)\s+#?\d{2,6}(?![\d:.]|\s*(?:am|pm|min|h\b))"
    # ... or put on it, whoever did ("Faiz wants me on 2614", "they've put me on 1180")
    # (not a phone number: "call me on 0412 555 019")
    r"|\bme\s+on\s+#?(?!0)\d{3,6}(?!\d|[:.]\d|\s*\d|\s*(?:am|pm|min|h\b))",
    re.IGNORECASE,
)


def names_a_work_item(text: str) -> bool:
    """Whether `text` names a pull request or issue by number ("#512", "api#77"): with GitHub
    connected, what the person says about it moves that item's follow-up, it is no plan or
    promise of its own (one follow-up for one thing, from the source that knows when it is done)."""
    return bool(_ANY_REF.search(text) or _A_PR_TO_REVIEW.search(text))


# a pull request given to the person to review, told without its number ("家偉丟了一支 PR 給我
# review，我週三下午 demo 完再來看", "Sam sent me a PR to review"): GitHub's request names it
_A_PR_TO_REVIEW = re.compile(
    r"(?<![a-z])(?:pr|pull request)s?(?![a-z])[^。.!?！？]{0,12}?(?<![a-z])review|review(?:ing)?\s+(?:a|the|his|her|their)\s+(?:pr|pull request)(?![a-z])",
    re.IGNORECASE,
)


def github_follows(text: str, github_login: str | None) -> bool:
    """Whether GitHub's follow-up, not a reminder, promise or clash of its own, speaks for a
    statement: GitHub is connected and the statement names a pull request or issue."""
    return bool(github_login) and names_a_work_item(text)


def names(text: str, repo: str, number: int, title: str | None = None, author: str | None = None) -> bool:
    """Whether `text` names the pull request or issue `repo#number` ("#418", "orders-api#418",
    "PR 418", "pull request 418", "issue 418", "review 418", or "418" opening the turn or a clause), or, given
    its `title` and `author`, speaks of a review or a PR by its author's name or a word of its
    title ("aoife wants my eyes on her shift swap PR", "周浩让我review退款那个PR")."""
    n = str(number)
    short = re.escape(repo.rsplit("/", 1)[-1])
    return bool(
        re.search(rf"(?<![\w#])(?:{short})?#{n}(?!\d)", text, re.IGNORECASE)
        or re.search(rf"\b(?:pr|pull request|issue|ticket)\s*#?\s*{n}(?!\d)", text, re.IGNORECASE)
        # asked to review it by number ("志豪叫我 review 57", "reviewing 88 now")
        or re.search(rf"(?<![a-z])review(?:ing)?\s*#?\s*{n}(?![\d:.])", text, re.IGNORECASE)
        # a number of three digits or more opening the turn or a clause, as people name the item
        # they were just asked about ("421 is tiny, doing it now", "1050 周五再说")
        or (number >= 100 and re.search(rf"(?:^|[,.;:!?，。；：！？]\s*){n}(?=\s|[，,]|$)(?![\d.:])", text))
        # ... or after a verb of seeing or doing it ("saw 611. will do it once i've eaten")
        or (
            number >= 100
            and re.search(
                rf"\b(?:saw|seen|see|got|get|checking|check|doing|do|did|on|opened|open)\s+{n}\b(?!\.\d|[\d:%])",
                text,
                re.I,
            )
        )
        or (_REVIEW_TALK.search(text) is not None and _by_name_or_title(text, title, author))
        # ... or anywhere, beside its author's name ("saw Lina's ping on 1207")
        or (
            number >= 100
            and re.search(rf"(?<![\w#.:]){n}(?![\w:]|\.\d)", text) is not None
            and _by_name_or_title(text, None, author)
        )
    )


# a turn about reviewing or a pull request, in the words people use for one
_REVIEW_TALK = re.compile(
    # not inside another word ("provider"), but next to Chinese ("让我review退款那个PR")
    r"(?<![a-z])(?:pr|prs|pull request|review|code review|diff|merge request)(?![a-z])|评审|代码|合并请求",
    re.IGNORECASE,
)
# title words that say what kind of change, not which one
_GENERIC = frozenset(
    tokenize("add adds fix fixes update updates bump remove refactor change changes chore feat wip draft pr")
)


def _by_name_or_title(text: str, title: str | None, author: str | None) -> bool:
    """The turn names the item's author (a part of the login: "aoife" of aoife-kav) or shares a
    word of its title that says which change it is ("shift", "退款")."""
    low = text.casefold()
    if author and any(
        len(part) >= 3 and re.search(rf"\b{re.escape(part)}", low)
        for part in re.split(r"[-_.\d]+", author.casefold())
    ):
        return True
    return bool(title) and bool(shared_words(text, title or "") - _GENERIC)


def promised_at(
    text: str, said: datetime, tz: ZoneInfo, morning: time, own: Callable[[str], bool] | None = None
) -> datetime | None:
    """When a follow-up becomes fair, from the time the person gave themselves in `text` (said at
    `said`); None when the text names no time ahead. `own` tells the item's own reference
    ("#431") from another's ("#428") when the turn names several: the time said nearest it counts."""
    local = said.astimezone(tz)
    plain = simplified(text)  # the word lists are Simplified; 午飯後 and 下晝 read as 午饭后, 下昼
    found: list[tuple[int, datetime | None]] = []  # (where said, when fair) per date ahead
    for m in resolve_dates(text, said, tz):
        if m.direction == "past":
            continue
        if _DEADLINE_BEFORE.search(text[: m.start]) or _DEADLINE_AFTER_ZH.match(text[m.end :]):
            # still in time on the morning of the deadline's day
            day = m.value.astimezone(tz).date()
            found.append((m.start, datetime.combine(day, morning, tz) if day > local.date() else None))
        elif m.has_time:
            then = m.value.astimezone(tz)
            # a part of the day, then an hour said after it: "週三下午 demo 完再來看，大概四點半吧" is 16:30
            hour_after = None if m.has_clock else _hour_after(plain[m.end : m.end + _NEAR * 2])
            if hour_after is not None:
                pm = then.hour >= 12 and hour_after.hour < 12
                then = then.replace(
                    hour=hour_after.hour + 12 if pm else hour_after.hour, minute=hour_after.minute
                )
            elif _starts_a_thing(text, m.start, m.end):
                then += MEETING  # "after the 2pm retro": after it is over, not once it begins
            found.append((m.start, then + GRACE))
        elif m.value.astimezone(tz).date() > local.date():
            # a day without a time ("tomorrow", "on Friday"): the part of the day the turn names
            # for it ("tomorrow after lunch"), else the whole day is the person's — its morning
            # is when they do it, not when to ask (a stranger's "I'll get to it monday", approved
            # at 10:05 on Monday, was nudged at 10:00)
            day = m.value.astimezone(tz).date()
            parts = [at for rx, at in DAY_PARTS if rx.search(plain)]
            # ... or an hour said apart from it ("tuesday after standup, like half 10"): that one
            said_hour = _hour_after(plain[m.end : m.end + _NEAR * 2])
            at = said_hour if said_hour is not None else max(parts) if parts else max(morning, WHOLE_DAY)
            found.append((m.start, datetime.combine(day, at, tz) + GRACE))
    if found:
        # a part of the day ahead today said on its own ("i'll look at it after lunch"), beside a
        # date said of something else ("she's on leave till wed"): one more time to choose from
        dated = [at for at, _ in found]
        found += [
            (m.start(), when + GRACE)
            for rx, at in DAY_PARTS
            for m in rx.finditer(plain)
            if (when := datetime.combine(local.date(), at, tz)) > local
            and all(abs(m.start() - d) > _NEAR for d in dated)
        ]
    if not found and (later := day_ahead(plain, morning)):
        # a Cantonese day the resolver does not read (#77 听日下昼先睇): the parts said are that day's
        n, its_part = later
        parts = [at for rx, at in DAY_PARTS if rx.search(plain)] + ([its_part] if its_part else [])
        return datetime.combine(local.date() + timedelta(days=n), max(parts, default=morning), tz) + GRACE
    if not found and (hour := _hour_today(plain, local)) is not None:
        # an hour alone, today's ("will do it once i've eaten, so 2-ish", "around 4"): the date
        # rules want a day beside a bare hour, a follow-up's word is about today
        return hour + GRACE
    if not found and _NOT_TODAY.search(plain):
        # "no way today", 今天没空: not before tomorrow morning
        return datetime.combine(local.date() + timedelta(days=1), morning, tz) + GRACE
    if found and _NOT_BEFORE_THEN.search(plain):
        # "dont bug me about it before then", "之前唔好提我": the time asked for is the last one
        # named, whatever else the turn is busy with before it ("cant touch it till monday … monday
        # after lunch, like 1:30, i'll do it"; "我聽日同禮拜一朝早都要做 on-call 交接，禮拜一下晝三點
        # 之後先睇")
        return max(when for _, when in found if when is not None) if any(w for _, w in found) else None
    if found:
        # of two times, the one said with the doing: "今天下午要盯灰度发布，实在没空，明天下午看吧"
        # gives this afternoon as the reason and tomorrow afternoon as when
        # else the one said nearest the item ("tonight is book club so #77 will have to be thursday")
        # (in one clause, the time said nearest the doing: "tues morning is sprint planning till 12
        # so tues arvo i'll get onto it" is the afternoon)
        doing = [
            (when, _clause_at(plain, at))
            for at, when in sorted(found, key=lambda f: _from_the_doing(plain, f[0]))
            if _person_does(_clause_at(plain, at))
        ]
        if doing:
            # after a meeting said with its hours, its end: "两点到三点一刻都在开会，开完会再看" is 15:15
            ends = [when for when, clause in doing if when is not None and _AFTER_IT.search(clause)]
            if ends:
                return max(ends)
            return doing[0][0]
        refs = [m.start() for m in _ANY_REF.finditer(text) if own is None or own(m.group(0))] or [found[0][0]]
        return min(found, key=lambda f: min(abs(f[0] - r) for r in refs))[1]
    # of the parts of the day still ahead, the one said nearest the item: "上午要盯发版走不开，#77
    # 下午看" says why not this morning and when instead; "#12 晚上弄，下午要开会" means the evening
    refs = [m.start() for m in _ANY_REF.finditer(text) if own is None or own(m.group(0))] or [0]
    ahead = [
        (min(abs(m.start() - r) for r in refs), when)
        for rx, at in DAY_PARTS
        for m in rx.finditer(plain)
        if (when := datetime.combine(local.date(), at, tz)) > local
    ]
    return min(ahead)[1] + GRACE if ahead else None


# the person asks not to be reminded before the time they named
_NOT_BEFORE_THEN = re.compile(
    r"\b(?:don['’]?t|do\s+not|dont|no\s+need\s+to|pls\s+don['’]?t)\s+(?:bug|remind|ping|nudge|chase|poke|nag|hassle)"
    r"\s+me\b[^.!?\n]{0,40}?\b(?:before|till|until)\b"
    r"|之前(?:唔好|不要|别|別|不用|唔使)(?:再)?(?:提|催|烦|煩|叫|吵)|(?:唔好|不要|别|別)(?:提|催)我[^。！？]{0,6}?(?:之前|前)",
    re.IGNORECASE,
)


# today ruled out, and no other time given
# an hour said with a hedge or a preposition and no day: "around 2", "at 4:30", "2-ish", "by 5"
_HOUR_ALONE = re.compile(
    r"(?:\b(?:at|around|about|by|after|till|until)\s+|~\s*)(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?(?:\s*-?\s*ish)?(?![\d:.%]|\s*(?:[ap]\.?m|h|hrs?|hours?|min|mins|minutes|days?|weeks?|%|k|km)\b)"
    r"|\b(?P<h2>\d{1,2})(?::(?P<m2>[0-5]\d))?\s*-?\s*ish\b",
    re.IGNORECASE,
)


def _hour_today(text: str, local: datetime) -> datetime | None:
    """The first hour said alone in `text` (`_HOUR_ALONE`) as a time later today, read as the date
    rules read a bare hour (1 to 6 in the afternoon), or None."""
    for m in _HOUR_ALONE.finditer(text):
        hour = _hour_of(m)
        if hour is None:
            continue
        when = local.replace(hour=hour.hour, minute=hour.minute, second=0, microsecond=0)
        if when > local:
            return when
    return None


def _hour_of(m: re.Match[str]) -> time | None:
    """The hour a match of `_HOUR_ALONE` or `_HALF` says, read as the date rules read a bare hour."""
    half = m.re is _HALF
    raw = m["h"] if half else m["h"] or m["h2"]
    minute = "30" if half else (m["m"] or m["m2"] or "0")
    clk = clock(int(raw), int(minute), None, None, raw.startswith("0"))
    return time(clk[1], clk[2]) if clk is not None else None


# an hour said of another thing: "standup's at 10", "it starts at 9"
_OTHERS_HOUR = re.compile(r"\b(?:it['’]?s|is|['’]s|starts?|begins?|opens?)\s*(?:at\s*)?$", re.IGNORECASE)
# "half 10": half past ten, as Irish and British English say it
_HALF = re.compile(r"\bhalf\s+(?P<h>1[0-2]|[1-9])\b(?![:.]\d)", re.IGNORECASE)


def _hour_after(text: str) -> time | None:
    """An hour said alone just after a day ("…, like half 10", "…, around 4"), read as the date
    rules read a bare hour, or None. Not the hour of something else said there: "monday once
    standup's done (it's at 10)" is when standup is, in an aside."""
    zh = _HOUR_ZH.search(text)
    zh_hour = zh_number(zh["h"]) if zh is not None else None
    if zh is not None and zh_hour is not None and 0 < zh_hour < 24:
        # ... in Chinese: "大概四點半吧", "五点左右"
        minute = 30 if zh["half"] else 15 if zh["q"] else int(zh_number(zh["m"]) or 0) if zh["m"] else 0
        clk = clock(int(zh_hour), minute, None, None, False)
        if clk is not None:
            return time(clk[1], clk[2])
    m = next(
        (
            h
            for h in (*_HALF.finditer(text), *_HOUR_ALONE.finditer(text))
            if text[: h.start()].count("(") <= text[: h.start()].count(")")
            and not _OTHERS_HOUR.search(text[: h.start()])
        ),
        None,
    )
    return _hour_of(m) if m is not None else None


# an hour said alone in Chinese (Simplified): "四点半", "5点", "十点一刻", "三点二十"
_HOUR_ZH = re.compile(
    r"(?P<h>[一二两三四五六七八九十]{1,3}|\d{1,2})\s*点(?:(?P<half>半)|(?P<q>一刻)|(?P<m>[一二三四五六七八九十]{1,3}|\d{1,2})分?)?"
)

_NOT_TODAY = re.compile(
    r"\b(?:no way|not|can'?t|cannot|won'?t get to it|no chance|no time)\s+(?:\w+\s+)?today\b"
    r"|今天(?:不行|没空|没时间|肯定不行|搞不了|看不了|顾不上)|今天.{0,8}(?:没空|没时间|顾不上)"
    r"|今日(?:唔得|冇空|冇时间|搞唔掂|睇唔到|顾唔到)|今日.{0,8}(?:冇空|冇时间)",  # Cantonese
    re.IGNORECASE,
)
# what the person will do to the item, in the clause that says when
_ACT = re.compile(
    r"\b(?:look|review|check|do|go through|get (?:on)?to|get round to|tackle|jump on|pick (?:it|that|this) up"
    r"|have a (?:look|squiz|peek)|read|test|merge|approve)\b"
    r"|看|睇|审|弄|处理|搞|过一下|过一遍|review",  # 睇: Cantonese "look"
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[^,;，；。.!！?？\n]+")
# the clock as when a thing starts, the person waiting for it to be over: "after the 2pm retro",
# "after my 10:30 call", "下午三点的组会开完再看", "两点那个会结束后"; not "after 2pm", "三点以后"
_AFTER_THE_EN = re.compile(r"\bafter\s+(?:the|my|our|this|that)\s+$", re.IGNORECASE)
_THING_AFTER_EN = re.compile(r"\s*[a-z][\w-]*", re.IGNORECASE)
_OVER_ZH = re.compile(
    r"(?:的|那个|那個|嗰个|嗰個)?[^，。,.！!？?\s\d]{1,8}?(?:开完|開完|结束|結束|散会|散會|完了?再|完之?后|完之?後)"
)


def _starts_a_thing(text: str, start: int, end: int) -> bool:
    if _AFTER_THE_EN.search(text[max(0, start - 16) : start]):
        return bool(_THING_AFTER_EN.match(text, end))
    return bool(_OVER_ZH.match(simplified(text[end : end + 16])))


# the doing comes after what the times are of: "开完会再看", "看完再说", "after the meeting"
_AFTER_IT = re.compile(r"完[^，。,.]{0,4}?再|之后|以后|后再|\bafter\b|\bonce\b", re.IGNORECASE)


def _person_does(clause: str) -> bool:
    """The clause says what the person will do to the item: a doing word after the speaker or a
    modal ("so ill look at it wed morning", "I'll review it after lunch"), not a noun of someone
    else's ask ("ciara's after a review before the release cut thurs 10am"); Chinese leaves the
    speaker out ("明天下午看", "明天下午review一下")."""
    act = _ACT.search(clause)
    if act is None:
        return False
    return is_cjk(clause) or bool(_SPEAKER_BEFORE.search(clause[: act.start()]))


# the speaker or a modal before the doing word, as chat writes them ("ill", "im gonna", "lemme")
_SPEAKER_BEFORE = re.compile(
    r"\b(?:i|ill|i'll|i’ll|im|i'm|i’m|we|we'll|we’ll|gonna|will|shall|let me|lemme|can|could|to)\b[^,;.]{0,30}$",
    re.IGNORECASE,
)


def _from_the_doing(text: str, pos: int) -> int:
    """How far `pos` is from the doing said in its clause (0 when the clause says none)."""
    for m in _CLAUSE.finditer(text):
        if m.start() <= pos < m.end():
            act = _ACT.search(m.group(0))
            return abs(m.start() + act.start() - pos) if act else 0
    return 0


def _clause_at(text: str, pos: int) -> str:
    """The clause of `text` that holds position `pos`."""
    return next((m.group(0) for m in _CLAUSE.finditer(text) if m.start() <= pos < m.end()), text)


# a review held until the pull request's CI passes ("I'll review once CI is green", 等CI跑绿了再看)
_ON_CI = re.compile(
    r"\b(?:once|when|after|until|till|as soon as)\b[^.,;!?]{0,24}?\b(?:ci|build|checks?|pipeline|tests?)\b"
    r"[^.,;!?]{0,16}?\b(?:green|pass(?:es|ing)?|passed|fixed)\b"
    r"|(?:ci|CI|流水线|构建|单测|测试|检查)[^，。,.；;！!？?]{0,6}?(?:跑?绿|变绿|过了|通过|修好|好了)",
    re.IGNORECASE,
)


def waits_on_ci(
    turns: list[TurnView], repo: str, number: int, title: str | None = None, author: str | None = None
) -> datetime | None:
    """When the person's latest word on `repo#number` held it until its CI passes ("I'll
    review once CI is green"): the time of that word, or None."""
    for turn in reversed(turns):
        if names(turn.text, repo, number, title, author):
            return turn.at if _ON_CI.search(turn.text) else None
    return None


def said_about(
    turns: list[TurnView],
    repo: str,
    number: int,
    tz: ZoneInfo,
    morning: time,
    title: str | None = None,
    author: str | None = None,
    heard: datetime | None = None,
) -> datetime | None:
    """From the person's turns (oldest first), the time their latest word on `repo#number` makes a
    follow-up fair, or None when they gave none. With `heard` (when memubot first heard of the
    item), a turn about a review said within `JUST_ASKED` after it, naming no item, is about this
    one: "家偉丟了一支 PR 給我 review，我週三下午 demo 完再來看" seven minutes after the request
    names neither the number nor the author's login."""
    for turn in reversed(turns):
        if names(turn.text, repo, number, title, author):
            return promised_at(turn.text, turn.at, tz, morning, lambda ref: names(ref, repo, number))
    if heard is not None:
        for turn in reversed(turns):
            if (
                heard <= turn.at <= heard + JUST_ASKED
                and _REVIEW_TALK.search(turn.text)
                and not _ANY_REF.search(turn.text)
            ):
                return promised_at(turn.text, turn.at, tz, morning)
    return None


# how soon after a review request a word about "the PR" that names none is about it
JUST_ASKED = timedelta(hours=2)
