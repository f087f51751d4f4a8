"""Chinese date expressions: candidates for daemon/memory/dates/__init__.py (conventions documented there)."""

from __future__ import annotations

import re
from datetime import date, timedelta

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
    offset_hit,
    shift,
    small_hours_tomorrow,
    time_hit,
    valid,
)

PERIOD_WORD = {
    "凌晨": "early",
    "清晨": "morning",
    "早上": "morning",
    "早晨": "morning",
    "上午": "morning",
    "中午": "noon",
    "下午": "afternoon",
    "傍晚": "evening",
    "晚上": "evening",
    "夜里": "evening",
    "夜晚": "evening",
    # Cantonese, in Simplified characters: 朝早 morning, 晏昼 midday, 下昼 afternoon, 晚黑 evening
    "朝早": "morning",
    "晏昼": "noon",
    "下昼": "afternoon",
    "晚黑": "evening",
    # northern and north-western Mandarin: 前晌 / 头晌 the morning, 晌午 midday, 后晌 the afternoon
    "前晌": "morning",
    "头晌": "morning",
    "晌午": "noon",
    "后晌": "afternoon",
    # only right after a day ("礼拜天一早"): alone, Cantonese 一早 is "long since" (我一早知道)
    "一大早": "early",
    "一早": "early",
}
_DIGIT = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_NUM_WELLFORMED = re.compile(
    r"^(?:[一二两三四五六七八九]?百)?零?(?:[一二两三四五六七八九]?十)?[零一二两三四五六七八九]?$"
)


def number(s: str) -> float | None:
    """A Chinese (or digit) cardinal up to 999; None for vague runs like 三四 ("three or four")."""
    if s.isdigit():
        return int(s)
    if s == "半":
        return 0.5
    if s == "几":
        return 3  # 几天前 "a few days ago", the same convention as "a few"
    # 廿 and 卅 are twenty and thirty in one character, as Cantonese says minutes ("九點廿" is 9:20)
    s = s.replace("廿", "二十").replace("卅", "三十")
    if not _NUM_WELLFORMED.match(s):
        return None
    total = cur = 0
    for ch in s:
        if ch == "百":
            total += (cur or 1) * 100
            cur = 0
        elif ch == "十":
            total += (cur or 1) * 10
            cur = 0
        else:
            cur = _DIGIT[ch]
    return total + cur


# Prefilter: a Chinese date needs one of these characters.
_CUE = re.compile(r"[天日晚早夜晨儿周星拜月年午时钟点号]")


def has_cue(text: str) -> bool:
    return not text.isascii() and _CUE.search(text) is not None


_NUM = r"\d{1,4}|[零〇一二两三四五六七八九十百]{1,5}"
_MONTH_NUM = r"\d{1,2}|十[一二]?|[一二三四五六七八九]"
_DAY_NUM = r"\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九]"
_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
# 一 after 周 starts many words: 这周一直 "all this week", 周一起, 这周一下 ...; 天 starts 天气 "weather".
# 周一下午 and 周一下班 are Monday's afternoon and Monday after work.
_WD_TAIL = r"(?:(?<=一)(?![直起样般定切些次遍共边])(?!下(?![午班]))|(?<=天)(?![气空数内里])|(?<=[二三四五六日]))(?![次遍回趟个])"
# and Cantonese, read in Simplified characters (聽日 as 听日): 听日 tomorrow, 听朝 / 听晚 its morning and
# evening, 后日 the day after, 今朝 this morning, 寻日 / 琴日 yesterday
_DEICTIC = re.compile(
    r"大前天|大后天|今[天日儿晚夜早晨]|昨[天日儿晚夜]|明[天日儿早晚]|前天|后天|"
    # not 听日语 ("listening to Japanese"), 日文, 日本, 日元; not 听晚会 (listening to a gala)
    r"(?:大后日|后日|听日|[寻琴]日)(?![语文本元剧])|听朝|听晚(?!会)|今朝|[寻琴]晚"
)
# Characters that make the match part of another word: 聪明天才, 以前天天, 然后天气, 以后年年.
_NOT_AFTER = {
    "明": "聪光透清证发英神鲜开文分表黎",
    "前": "以之从提目先事此向往面眼跟门当空几多数十百0123456789",
    "后": "以之然最先前落背随午饭过此今日往向身几多数十百0123456789",
}
_DEICTIC_VALUE: dict[str, tuple[int, str | None]] = {
    "大前天": (-3, None),
    "大后天": (3, None),
    "今天": (0, None),
    "今日": (0, None),
    "今儿": (0, None),
    "今晚": (0, "evening"),
    "今夜": (0, "evening"),
    "今早": (0, "morning"),
    "今晨": (0, "morning"),
    "昨天": (-1, None),
    "昨日": (-1, None),
    "昨儿": (-1, None),
    "昨晚": (-1, "evening"),
    "昨夜": (-1, "evening"),
    "明天": (1, None),
    "明日": (1, None),
    "明儿": (1, None),
    "明早": (1, "morning"),
    "明晚": (1, "evening"),
    "前天": (-2, None),
    "后天": (2, None),
    "听日": (1, None),
    "听朝": (1, "morning"),
    "听晚": (1, "evening"),
    "后日": (2, None),
    "大后日": (3, None),
    "今朝": (0, "morning"),
    "寻日": (-1, None),
    "琴日": (-1, None),
    "寻晚": (-1, "evening"),
    "琴晚": (-1, "evening"),
}
# and Cantonese 今个 / 呢个 ("今個星期六", "呢個禮拜"): this one
_WEEK_REL = {"上上": -2, "下下": 2, "上": -1, "下": 1, "这": 0, "本": 0, "今": 0, "呢": 0}
_WEEK = re.compile(
    rf"(?P<rel>上上|下下|上|下|这|本|[今呢](?=个))个?(?:(?P<we>周末)|(?:周|星期|礼拜)(?:(?P<x>[一二三四五六日天]){_WD_TAIL})?)"
)
# (not after 个: "两个礼拜三次" is a count of weeks; but "那个礼拜五", "that Friday", is the day)
_WEEK_BARE = re.compile(
    rf"(?<![一二两三四五六七八九十几每\d上下这本])(?<!(?<!那)个)(?:(?P<we>周末)|周(?P<xz>[一二三四五六日]){_WD_TAIL}"
    rf"|(?:星期|礼拜)(?P<x>[一二三四五六日天]){_WD_TAIL})"
)
# A deadline: 截止到周四, 最晚周三, 周五之前, 周五下班前, 到周日为止 → on or after today.
_DEADLINE_BEFORE = re.compile(r"(?:截止到|截止|截至|最晚|最迟|不晚于|赶在)\s*\Z")
_DEADLINE_AFTER = re.compile(
    r"(?:下班|放学|中午|上午|下午|晚上|早上|午饭|晚饭|结束|收盘)?(?:(?:\d{1,2}|[一二两三四五六七八九十]{1,3})点半?)?"
    r"\s*(?:之前|以前|前(?!天)|为止|截止)"
)
# A weekday that names an event: 周六的比赛, 周六那场吵架 (not 周六的时候 "on Saturday", 周六的话 "if
# Saturday", 周六的下午 "Saturday afternoon": a time of that day, no event).
_EVENT_AFTER = re.compile(
    r"的(?!时候|话|时|凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜晚|\d|[零一二两三四五六七八九十])"
    r"|那(?:场|次|顿|回)"
    # ... or the tickets for it: 周日足球赛的票, 周六音乐会门票, 周六晚上《暗恋桃花源》的票
    r"|(?:早上|上午|中午|下午|晚上)?[^，,。！!？?\s]{1,12}?的?门?票"
)
# A day of the month without its month: 19号, 二十号, 19日 (the month's own date is _ABSOLUTE's: 8月19号).
# Not a number of something: 3号线 (line 3), 5号楼, 2号床, 2 号航站楼 (terminal 2), 1号选手, 5号电池, 二十号人, 第3号; nor a duration:
# 7日内, 3日游, 30日无理由退货 (一日 is "one day", so 日 takes digits only).
_DAY_ALONE = re.compile(
    rf"(?<![\d零〇一二两三四五六七八九十百千月第几每号.:/-])"
    rf"(?:(?P<d>{_DAY_NUM})\s*号|(?P<dd>\d{{1,2}})\s*日(?![游内无均后前以之]))"
    r"(?![线楼门房室床位桌台车厢站口机码字院馆店区街路巷层栋单选球牌人航厅柜窗诊舍仓]|电池)"
)
_MONTH_REL = {
    "上上个": -2,
    "下下个": 2,
    "上个": -1,
    "下个": 1,
    "这个": 0,
    "今个": 0,
    "呢个": 0,
    "本": 0,
    "上": -1,
    "下": 1,
}
_MONTH = re.compile(r"(?P<rel>上上个|下下个|上个|下个|这个|今个|呢个|本|上|下)月(?![球亮光])")
_MONTH_DAY = re.compile(
    rf"(?P<rel>上上个|下下个|上个|下个|这个|今个|呢个|本|上|下)月\s*(?P<d>{_DAY_NUM})\s*[日号]"
)
_YEAR_REL = {"大前年": -3, "大后年": 3, "今年": 0, "去年": -1, "明年": 1, "前年": -2, "后年": 2}
_YEAR = re.compile(r"大前年|大后年|今年|去年|明年|前年|后年")
_RELATIVE = re.compile(
    rf"(?P<n>{_NUM}|几|半)\s*(?P<ge>个)?\s*(?P<unit>天|日|周|星期|礼拜|月|年|小时|钟头|分钟)"
    r"(?P<dir>以前|之前|前|以后|之后|过后|后)"
)
# 2023年5月20日, 五月二十号, 去年十月, 明年3月5号
_ABSOLUTE = re.compile(
    rf"(?:(?:(?P<y>\d{{4}}|[零〇一二三四五六七八九]{{4}})\s*年|(?P<ry>大前年|大后年|今年|去年|明年|前年|后年))\s*)?"
    rf"(?P<m>{_MONTH_NUM})\s*月\s*(?:(?P<d>{_DAY_NUM})\s*[日号])?"
)
TIME = re.compile(
    r"""\s*[的嘅]?\s*(?P<period>凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜晚|朝早|晏昼|下昼|晚黑|前晌|头晌|晌午|后晌|一大早|一早)?\s*
    (?:(?P<hp>
        (?P<hd>\d{1,2})[:：](?P<md>[0-5]\d)
      | (?P<h>\d{1,2}|[零一二两三四五六七八九十]{1,3})\s*(?:点钟?|(?<=\d)\s*时)
    )(?:(?P<half>半)|(?P<q>[一三])刻|[搭踏]\s*(?P<five>十一|[一二三四五六七八九十]|1[01]|[1-9])
       |(?P<m>\d{1,2}|[零一二三四五六七八九十廿卅]{1,3})\s*(?P<fen>分)?)?)?""",
    re.VERBOSE,
)
_PERIOD_AFTER = re.compile(
    r"\s*(?P<p>凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|朝早|晏昼|下昼|晚黑|前晌|头晌|晌午|后晌)"
)
_TIME_ALONE = re.compile(
    r"凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜晚|朝早|晏昼|下昼|晚黑|前晌|头晌|晌午|后晌"
)
# An hour with its minutes needs no period word to count: 十点半, 3点15分, 九点一刻 (a bare 三点 does).
_CLOCK_ALONE = re.compile(
    r"(?<![\d零一二两三四五六七八九十])(?:\d{1,2}|[一二两三四五六七八九十]{1,3})点"
    r"(?:半|[一三]刻|\d{1,2}分?|[一二三四五六七八九十]{1,3}分|零[一二三四五六七八九]分?"  # 八点零五(分): 8:05
    # 五点四十, 四点二十: twenty minutes and more need no 分 (not a count: 三点四十个人)
    r"|[二三四五]十[一二三四五六七八九]?(?![个人块岁多号度分钟天次位名元斤米里]|[一二三四五六七八九十])"
    r"|[廿卅][一二三四五六七八九]?|[搭踏][一二三四五六七八九十])"  # 九点廿, 三点搭五: Cantonese
)


def _inside_word(text: str, m: re.Match[str]) -> bool:
    s = m.start()
    return s > 0 and text[s - 1] in _NOT_AFTER.get(m[0][0], "")


def _deadline(text: str, s: int, e: int) -> bool:
    return bool(_DEADLINE_BEFORE.search(text, max(0, s - 4), s) or _DEADLINE_AFTER.match(text, e))


def candidates(ctx: Ctx) -> list[Hit]:
    text, today = ctx.text, ctx.today
    hits: list[Hit] = []
    week = "周" in text or "星期" in text or "礼拜" in text
    month = "月" in text
    for m in _DEICTIC.finditer(text):
        if _inside_word(text, m):
            continue
        offset, period = _DEICTIC_VALUE[m[0]]
        offset = small_hours_tomorrow(ctx, offset)
        hits.append(Hit(*m.span(), days(today, offset), period=period, lang="zh"))

    for m in _WEEK.finditer(text) if week else ():
        s, e = m.span()
        k = _WEEK_REL[m["rel"]]
        if m["we"]:
            hits.append(Hit(s, e, monday(today, k) + timedelta(days=5), span_days=2, lang="zh"))
        elif m["x"]:
            hits.append(Hit(s, e, monday(today, k) + timedelta(days=_WD[m["x"]]), lang="zh"))
        else:
            hits.append(Hit(s, e, monday(today, k), "week", takes_time=False, lang="zh"))

    for m in _WEEK_BARE.finditer(text) if week else ():
        s, e = m.span()
        deadline = _deadline(text, s, e)
        if m["we"]:
            hits.append(bare_weekend(ctx, s, e, "zh", deadline))
        else:
            event = bool(_EVENT_AFTER.match(text, e))
            day = bare_weekday(ctx, _WD[m["x"] or m["xz"]], s, deadline, event)
            hits.append(Hit(s, e, day, lang="zh", kind="weekday"))

    for m in _MONTH.finditer(text) if month else ():
        k = _MONTH_REL[m["rel"]]
        hits.append(Hit(*m.span(), shift(today, months=k, day=1), "month", takes_time=False, lang="zh"))
    for m in _MONTH_DAY.finditer(text) if month else ():
        first = shift(today, months=_MONTH_REL[m["rel"]], day=1)
        n = number(m["d"])
        if n is not None and (d := valid(first.year, first.month, int(n))):
            hits.append(Hit(*m.span(), d, lang="zh"))

    for m in _YEAR.finditer(text) if "年" in text else ():
        if _inside_word(text, m):
            continue
        k = _YEAR_REL[m[0]]
        hits.append(
            Hit(*m.span(), shift(today, years=k, month=1, day=1), "year", takes_time=False, lang="zh")
        )

    for m in _RELATIVE.finditer(text) if "前" in text or "后" in text else ():
        unit = m["unit"]
        if unit == "月" and not m["ge"]:
            continue  # 三月前 is "before March"; months need 个 (三个月前)
        n = number(m["n"])
        if n is None or (n == 0.5 and unit not in ("年", "小时", "钟头")):
            continue  # 半天 "half a day / ages", 半个月: too vague
        sign = -1 if "前" in m["dir"] else 1
        if hit := offset_hit(ctx, *m.span(), n, unit, sign, "zh"):
            hits.append(hit)

    for m in _ABSOLUTE.finditer(text) if month else ():
        if hit := _absolute(ctx, m):
            hits.append(hit)
    for m in _DAY_ALONE.finditer(text) if "号" in text or "日" in text else ():
        n = number(m["d"] or m["dd"])
        s, e = m.span()
        if n is not None and (d := day_of_month(ctx, int(n), s, _deadline(text, s, e))):
            hits.append(Hit(s, e, d, lang="zh", kind="nth"))

    for m in _TIME_ALONE.finditer(text):
        t = TIME.match(text, m.start())
        if t and t["hp"] and (clk := time_clock(t, None)):
            hits.append(time_hit(ctx, m.start(), _time_end(t), clk, "zh", False))
    for m in _CLOCK_ALONE.finditer(text) if "点" in text else ():
        t = TIME.match(text, m.start())
        if t and t["hp"] and _minute(t) is not None and (clk := time_clock(t, None)):
            raw = t["hd"] or t["h"]
            # 十点半 may be morning or evening; 14点20分 or 08:05 is as said
            vague = not raw.startswith("0") and (number(raw) or 0) <= 12
            hits.append(time_hit(ctx, m.start(), _time_end(t), clk, "zh", vague))
    return hits


def _year(s: str) -> int:
    return int(s) if s.isdigit() else int("".join(str(_DIGIT[c]) for c in s))


def _absolute(ctx: Ctx, m: re.Match[str]) -> Hit | None:
    s, e = m.span()
    month = number(m["m"])
    if month is None:
        return None
    year = _year(m["y"]) if m["y"] else (ctx.today.year + _YEAR_REL[m["ry"]] if m["ry"] else None)
    if not m["d"]:
        if year is None:
            return None  # 三月 alone: a month name, often not a date cue
        d = valid(year, int(month), 1)
        return Hit(s, e, d, "month", takes_time=False, lang="zh") if d else None
    day = number(m["d"])
    if day is None:
        return None
    if year is not None:
        d = valid(year, int(month), int(day))
        return Hit(s, e, d, lang="zh") if d else None
    y0 = ctx.today.year
    cands = [c for y in (y0 - 1, y0, y0 + 1) if (c := valid(y, int(month), int(day)))]
    return (
        Hit(s, e, ctx.pick(cands, s, bool(_DEADLINE_AFTER.match(ctx.text, e))), lang="zh") if cands else None
    )


def _minute(t: re.Match[str]) -> int | None:
    """Minutes after 点, or None when what follows is no minute (三点一起 is "three, together")."""
    if t["half"]:
        return 30
    if t["q"]:
        return 15 if t["q"] == "一" else 45
    if t["five"]:
        # Cantonese counts the minute hand's numbers: "三點搭五" is 3:25, "十點踏九" 10:45
        fives = number(t["five"])
        return int(fives) * 5 if fives is not None else None
    raw = t["m"]
    if raw is None:
        return 0
    if not t["fen"] and not (len(raw) >= 2 or any(c in raw for c in "十廿卅")):
        return None
    n = number(raw)
    return int(n) if n is not None and n < 60 else None


def _time_end(t: re.Match[str]) -> int:
    if t["hp"] and t["hd"] is None and _minute(t) is None:
        return t.end("hp")
    return t.end()


def time_clock(t: re.Match[str], anchor_period: str | None) -> Clock | None:
    """Clock of a match of TIME, read with the period of the date it follows if it says none."""
    period = PERIOD_WORD[t["period"]] if t["period"] else anchor_period
    if t["hd"]:
        return clock(int(t["hd"]), int(t["md"]), period, None, t["hd"].startswith("0"))
    raw = t["h"]
    hour = number(raw)
    if hour is None:
        return None
    minute = _minute(t)
    if raw == "一" and period is None and t["m"] is None and not t["half"] and not t["q"]:
        nxt = t.string[t.end() : t.end() + 1]
        if nxt in ("也", "都", "儿", "点", "些", "不", "没"):
            return None  # 明天一点也不冷: 一点 is "a little"
    return clock(int(hour), minute or 0, period, None, raw.startswith("0"))


# the weekday a notice writes between a date and its time: 6月5日（星期四）上午10时
# between a day and its time: its weekday in brackets ("3月5日（周四）下午", in a Japanese mail
# "7月4日（土）14時"), or its day of the month after a weekday ("下周一30号早上10:15")
# (or its date in brackets, "本周五（11月20日）21:30"), and then the place whose time it is, "本周五
# （11月20日）北京时间 21:30–22:30" (`zones` moves the clock into the speaker's zone)
_WEEKDAY_BETWEEN = re.compile(
    r"(?:\s*[（(](?:周|星期|礼拜)?[一二三四五六日天月火水木金土][)）]|\s*(?P<dom>[12]\d|3[01]|0?[1-9])\s*[号日](?!\d)"
    r"|\s*[（(]\d{1,2}\s*月\s*\d{1,2}\s*[日号]?[)）])?(?:\s*[\u4e00-\u9fff]{2,4}时间)?"
)


def _weekday_on(day: date, dom: int, today: date) -> date | None:
    """The first date from `today` on, within a year, that falls on `day`'s weekday and on the
    `dom`-th of its month; None when there is none."""
    for k in range(13):
        month = (today.month - 1 + k) % 12 + 1
        year = today.year + (today.month - 1 + k) // 12
        try:
            d = date(year, month, dom)
        except ValueError:
            continue
        if d >= today and d.weekday() == day.weekday():
            return d
    return None


def attach(ctx: Ctx, hit: Hit) -> None:
    between = _WEEKDAY_BETWEEN.match(ctx.text, hit.end)
    t = TIME.match(ctx.text, between.end() if between else hit.end)
    if t is None or not (t["period"] or t["hp"]):
        return
    if between is not None and between["dom"] and hit.day.day != int(between["dom"]):
        # the day of the month says which of the weekdays ("周五 3号" a fortnight on is that Friday)
        hit.day = _weekday_on(hit.day, int(between["dom"]), ctx.today) or hit.day
    # the part of the day said right after the clock ("下禮拜三 6:20 朝早開", "周五 7:30 早上出发")
    after = _PERIOD_AFTER.match(ctx.text, _time_end(t)) if t["hp"] and not t["period"] else None
    said_after = PERIOD_WORD[after["p"]] if after is not None else None
    if t["hp"] and (clk := time_clock(t, said_after or hit.period)):
        hit.clock, hit.end = clk, _time_end(t)
        if t["period"] or said_after:
            hit.period = PERIOD_WORD[t["period"]] if t["period"] else said_after
        return
    if t["period"] and hit.period is None:
        hit.period, hit.end = PERIOD_WORD[t["period"]], t.end("period")
