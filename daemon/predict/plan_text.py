"""plan_text: what a plan is, in a few words written for its reminder.

A reminder names the thing ("the renewal call", "dentist appointment", "去看牙医"), then when and
where, in the person's language; what was said of it is quoted as evidence (`said_of`: the
sentences that name a day, a clock or the thing, not the venting around them), never cut into a
title. The thing is read from the clause that names the day: "The school concert is
Friday at 6. She has a solo" → "The school concert"; "周六早上六点四十的火车，票已经买好了" → "火车".
From that clause the date phrases go, and what only carries them: a leading "I have", "I'm",
"there's", "我要", "约了"; a trailing "is now", "on", "的"; what only says it was arranged
("booked", "is confirmed", 约好了). When the date's clause holds nothing else, the thing is in the
announcement told before it ("finally booked the dentist. thurs arvo, half 2, the one on …" →
"Dentist"); failing that, the whole sentence without its date phrases stands in.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from daemon.memory.dates import DateMention, only_a_clock, planned, resolve_dates
from daemon.memory.dates.common import MOVED_TO_ZH
from daemon.memory.dates.cues import EMOJI, tense
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import activity_terms
from daemon.memory.read.bm25 import tokenize

# a sentence ends at . ! ? … (not the point of "4.15", nor a dot inside a word: "room 40.S02")
# a title's full stop ends no sentence: "I'll email Mr. Haddad the photos tonight" is one
_TITLE_DOT = (
    r"(?:(?<=\b[Mm]r)|(?<=\b[Mm]rs)|(?<=\b[Mm]s)|(?<=\b[Dd]r)|(?<=\b[Pp]rof)|(?<=\b[Ss]t)|(?<=\b[Jj]r)"
    r"|(?<=\b[Ss]r)|(?<=\bvs))\.(?=\s+\w)"
    # ... nor an avenue's before its name: "就在Av. Getúlio Vargas那家2º Ofício" (after a Chinese
    # character too, which is a word's to \b; "University Ave. already dreading it" ends one)
    r"|(?:(?<=(?<![A-Za-z])Av)|(?<=(?<![A-Za-z])Ave)|(?<=(?<![A-Za-z])Avda)|(?<=(?<![A-Za-z])Blvd))\.(?=\s+[A-ZÀ-Þ\d])"
)
# (the danda of Bengali and Hindi and the Urdu full stop end a sentence too)
_SENTENCE = re.compile(rf"(?:[^.!?。！？…।۔\n]|\.(?=[A-Za-z0-9])|{_TITLE_DOT})+[.!?。！？…।۔]*")
# a clause; a space between two Chinese characters ends one as a comma does ("…送别会 新宿的鸟贵族"),
# and so does an emoji ("周末最后一天 😌 周二晚上7点要去…"); the colon of a clock does not ("周日早上5:40的KTX")
_CLAUSE_ZH = re.compile(
    rf"(?:[^，,；;：:\s{EMOJI}]|(?<=\d)[:：](?=\d)|(?<![\u4e00-\u9fff{EMOJI}])\s(?![{EMOJI}])"
    rf"|\s(?![\u4e00-\u9fff{EMOJI}]))+"
)
# "8:30 retro" and "$1,850" are one clause; an emoji ends one, as people type it for a comma ("this weekend 🙃 …")
_CLAUSE_EN = re.compile(rf"(?:[^,;:{EMOJI}]|(?<=\d)[:,](?=\d))+")
_LEAD_EN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|oh|ah|ugh|argh|omg|welp|meh|hmm+|hey|yay|phew|btw|by the way|also|and|just|reminder|remind me|note|fyi)\b[,:]?\s*)*"
    r"(?:(?:i|we)\s+(?:have|'ve got|’ve got|have got|got|need to|have to|must|am|are|will|'ll|’ll)\s+|"
    r"(?:i'm|i’m|we're|we’re|i am|we are)\s+|(?:i'll|i’ll|we'll|we’ll)\s+|i promise(?: to)?\s+|"
    r"i've got\s+|i’ve got\s+|there's\s+|there’s\s+|there is\s+|"
    # as chat writes them, without the apostrophe ("tomorrow ive got the dentist")
    r"(?:ive|weve)\s+got\s+|(?:ive|im)\s+|"
    r"got\s+|(?:i|we)\s+|(?:is|are|'s|’s)\s+)?(?:to\s+)?"
    # "got us a table at …": for whom it was got is not what it is
    r"(?:(?:us|me)\s+(?=(?:a|an|the)\s))?",
    re.IGNORECASE,
)
_TAIL_EN = re.compile(
    r"(?:\s+(?:is|are|was|'s|’s|now|moved|got moved|has been moved|is now|will be|starts?|begins?|"
    r"on|at|by|for|from|to|until|till|in|the|this|next|and|with|around|about|between|before|after|"
    # what was done to arrange it is not what it is: "the booster is booked", "MOT sorted"
    r"booked|confirmed|scheduled|arranged|sorted|(?:got|was|is|been)\s+(?:put|set|slotted|pencill?ed)(?:\s+in)?))+\s*[.!]*$",
    re.IGNORECASE,
)
_LEAD_ZH = re.compile(
    r"^(?:(?:对了|另外|还有|然后|而且|记得|提醒我|提醒一下|别忘了)[，,]?)*"
    r"(?:我们|我)?(?:要|得|需要|会|约了|预约了|定了|订了|报了|有个|有一个|有)?"
)
_TAIL_ZH = re.compile(r"(?:的|了|在|是|有|要|改到|改成|改在|定在|定于|安排在)+$")
# what is left of a time span or a date phrase: "（八点）到十点修水管" → "修水管"
_LEFT_ZH = re.compile(
    r"^(?:的|之前|以前|前|(?:到|至|-|–)\s*(?:上午|下午|晚上|早上|中午|凌晨|傍晚)?\s*[一二两三四五六七八九十\d]+[点:：](?:半|\d+分?|[一二三四五六七八九十]+分?)?"
    # ... or a clock the date phrase left behind ("下周三（28号）下午3点去…": "下午3点去…")
    r"|(?:上午|下午|晚上|早上|中午|凌晨|傍晚)\s*[一二两三四五六七八九十\d]+[点:：](?:半|\d+分?|[一二三四五六七八九十]+分?)?)+"
)
# an aside in brackets, and a bracket a date phrase cut in two: "（居留卡延期的生物信息）", "）"
_ASIDE_ZH = re.compile(r"（[^（）]*）|\([^()]*\)")
_CONJUNCTION_EN = re.compile(r"^\s*(?:and|but|so)\s+", re.IGNORECASE)
_AND_EN = re.compile(r"\s+(?:and|but|so)\s+(?:i|we|i'm|i’m|we're|we’re|i'll|i’ll)\b.*$", re.IGNORECASE)
# ... or what of theirs has to, when the plan's date is told in it: "… like the summons said and
# my group has to report monday, 7:45am" (not "me and my cousin are doing camelback": a subject)
_AND_THEIRS_EN = re.compile(
    r"\s+(?:and|but|so)\s+(?:my|our)\s+\w+\s+(?:has|have|needs?|must)\s+to\b.*$", re.IGNORECASE
)
_AND_ANOTHER_EN = re.compile(
    r"\s+(?:and|but|so)\s+(?:he|she|they|it)(?:['’](?:s|re|ll))?\s+\w+.*$", re.IGNORECASE
)
_ARTICLE = re.compile(r"^(?:a|an)\s+", re.IGNORECASE)
_HAN = re.compile(r"[\u3400-\u9fff]")


def sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped."""
    return [m.group(0).strip() for m in _SENTENCE.finditer(text)]


def sentence_spans(text: str) -> list[str]:
    """The sentences of `text` as written (unstripped), one per line at most."""
    return [m.group(0) for m in _SENTENCE.finditer(text)]


def sentence_around(text: str, pos: int) -> str:
    """The sentence of `text` that holds the character at `pos`."""
    start, end = _span_sentence(text, pos)
    return text[start:end]


def _span_sentence(text: str, pos: int) -> tuple[int, int]:
    for m in _SENTENCE.finditer(text):
        if m.start() <= pos < m.end():
            return m.start(), m.end()
    return 0, len(text)


# why, after what: "… bc that was literally the only slot", "… because the car's in the shop"
_WHY_EN = re.compile(r"\s+(?:bc|b/c|because|cos|cuz|coz|since)\s+.*$", re.IGNORECASE)


def _strip(piece: str, zh: bool) -> str:
    piece = " ".join(piece.split()).strip(" ,，。.!！?？;；:：-–")
    if not zh and _enough(_WHY_EN.sub("", piece), zh):
        piece = _WHY_EN.sub("", piece)
    if zh:
        piece = _ASIDE_ZH.sub("", piece).strip(" （）()")
        for _ in range(2):
            piece = _LEFT_ZH.sub("", piece)
            piece = _TAIL_ZH.sub("", _LEAD_ZH.sub("", piece)).strip(" ，,。")
        return piece
    piece = _TAIL_EN.sub("", _LEAD_EN.sub("", _AND_EN.sub("", piece)).lstrip(" ,.:;-–")).strip(" ,.")
    piece = _ARTICLE.sub("", piece)
    return piece


# a clause that names only a place: "at the clinic on high st", "@ the studio"
_PLACE_ONLY_EN = re.compile(
    r"^(?:at|@)\s+(?:the\s+|a\s+)?\S"
    # ... or where to be: "gotta be at King's Daughters' in Madison", "need to be in the lobby"
    r"|^(?:i\s+)?(?:gotta|got\s+to|have\s+to|need\s+to|must|should)\s+be\s+(?:at|in)\s+\S"
    # ... or where, said of the place: "their office is in westlands, mpaka road", "it's at the old mill"
    r"|^(?:(?:their|the|his|her|its|our)\s+(?:office|offices|place|clinic|studio|venue|address|building|hq)"
    r"|it|venue|address|location)\s*(?:is|['’]s)\s+(?:in|at|on|near|by)\s+\S",
    re.IGNORECASE,
)
# ... or only who with: "tues the 7th at 4.15 with ms kowalczyk" (what it is was announced before)
# ... in Chinese: "这个星期六 15号 8pm 在 Bukit Jalil 国家体育场" (the concert was told before)
_PLACE_ONLY_ZH = re.compile(r"^(?:在|于|於)\s*\S|^(?:从|由)\s*[^，,\s]+?\s*(?:出发|起飞|发车|开|走)$")
_WITH_ONLY_EN = re.compile(r"^(?:with|w/)\s+\S", re.IGNORECASE)


# who a person can be to the speaker in Chinese chat (also read by the whose-plan and promise rules:
# 我妈 is not 我)
PEOPLE_ZH = (
    r"老公|老婆|爱人|对象|男朋友|女朋友|男友|女友|妈|爸|父母|爸妈|妹|弟|哥|姐|儿子|女儿|孩子|宝宝|奶奶|爷爷|外婆|外公|"
    r"姥姥|姥爷|舅|姨|叔|姑|表[哥姐弟妹]|堂[哥姐弟妹]|朋友|室友|舍友|邻居|老板|经理|领导|组长|主管|同事|"
    # in-laws and the next generation: 婆婆, 公公, 岳母, 丈母娘, 嫂子, 姐夫, 侄子, 孙女
    r"婆婆|公公|岳母|岳父|丈母娘|老丈人|嫂子|姐夫|妹夫|弟媳|小姑子|小叔子|大伯|侄子|侄女|外甥|孙子|孙女|亲家|"
    r"CEO|老师|班主任|房东|客户|助理|实习生|总监|上司|"
    # Cantonese for a daughter, a son, the boss
    r"阿囡|个女|阿仔|个仔|老细|姊|细佬|细妹|家姐|阿哥|老豆|老窦|"
    # ... and Taiwanese and Cantonese grandparents (read as Simplified: 阿嬤 is 阿嬷)
    r"阿嬷|阿嫲|嫲嫲|阿公|阿爷|"
    # the English words Chinese chat keeps for them ("roommate 周三凌晨五点的 flight")
    r"(?i:roommate|flatmate|housemate|bf|gf|boyfriend|girlfriend|partner|husband|wife|boss|manager|"
    r"mom|mum|dad|sister|brother|cousin|colleague|coworker|teammate|landlord)"
)
# a Chinese clause led by a person ("阿媽由香港飛過嚟"): a clause after it with no subject of its own
# is theirs ("禮拜一朝早 6:55 落機" is 阿媽's landing)
_PERSON_LEAD_ZH = re.compile(rf"^(?:我的?\s*)?阿?(?:{PEOPLE_ZH})")
_SUBJECT_ZH = re.compile(rf"^(?:我|你|您|他|她|它|佢|咱|大家|阿?(?:{PEOPLE_ZH}))")


def _enough(piece: str, zh: bool) -> bool:
    return len(piece) >= 2 if zh else len(re.findall(r"[A-Za-z]{2,}", piece)) >= 1 and len(piece) >= 4


def focus(text: str, at: datetime, tz: ZoneInfo) -> str:
    """The sentence of `text` that names the plan's day (its first date ahead), or all of it."""
    text = " ".join(text.split())
    found = resolve_dates(text, at, tz)
    if not found:
        return text
    first = next((m for m in found if m.direction == "future"), found[0])
    lo, hi = _span_sentence(text, first.start)
    return text[lo:hi].strip()


def dated_sentences(text: str, at: datetime, tz: ZoneInfo) -> list[str]:
    """The sentences of `text` that name a date ahead on the day of its first one, in order
    ("Mum lands Thursday at 5:40. I have to leave at 4:30 to get her": both)."""
    text = " ".join(text.split())
    found = [m for m in resolve_dates(text, at, tz) if m.direction == "future"]
    if not found:
        return [focus(text, at, tz)]
    day = found[0].value.date()
    spans = [_span_sentence(text, m.start) for m in found if m.value.date() == day]
    return [text[lo:hi].strip() for lo, hi in dict.fromkeys(spans)]


def told_on(text: str, at: datetime, tz: ZoneInfo) -> list[str]:
    """Each sentence `dated_sentences` gives, joined with the sentence right after it when that one
    names no date of its own: what the day is told in the next breath ("right so thursday's the
    big one. out on the boat all day with the open water lot, we leave the porto at 7")."""
    text = " ".join(text.split())
    found = [m for m in resolve_dates(text, at, tz) if m.direction == "future"]
    if not found:
        return []
    day = found[0].value.date()
    out = []
    for lo, hi in dict.fromkeys(_span_sentence(text, m.start) for m in found if m.value.date() == day):
        nxt = next((m for m in _SENTENCE.finditer(text, hi) if m.group().strip()), None)
        if nxt is not None and not any(nxt.start() <= m.start < nxt.end() for m in found):
            out.append(f"{text[lo:hi].strip()} {nxt.group().strip()}")
    return out


def other_days(text: str, at: datetime, tz: ZoneInfo) -> list[tuple[str, DateMention]]:
    """The sentences of `text` that name dates ahead on another day than its first date ahead's,
    each with the date its plan is for (`planned`), in order: "lto renewal is on the 19th. and tita's 60th is on the 24th,
    6pm at Casa Ilang-Ilang" holds a second plan. A sentence that also names the first day is
    that plan's (a move "from thursday to monday", a choice "friday or saturday"), not another."""
    text = " ".join(text.split())
    # (of days: "下周也不轻松：周二…，周四…" names the week before its days)
    found = [
        m for m in resolve_dates(text, at, tz) if m.direction == "future" and m.granularity in ("day", "time")
    ]
    if len(found) < 2:
        return []
    day = found[0].value.date()
    firsts = {_span_sentence(text, m.start) for m in found if m.value.date() == day}
    out: dict[tuple[int, int], list[DateMention]] = {}
    for m in found:
        span = _span_sentence(text, m.start)
        if m.value.date() == day or only_a_clock(m):
            # (a clock alone names no day: read as today's, it is the hour of the plan the message
            # is about — "wednesday's the recert course, whole day … leaving the yard at 6:45" —
            # not a second plan this evening)
            continue
        if span in firsts:
            # ... unless it is told in a comma clause of its own after every mention of the first
            # day: "周二下午5点半要去…签租约，周四上午11点在 UPF…做 TFM 中期汇报" is two plans
            lo, hi = span
            last_first = max(f.end for f in found if f.value.date() == day and lo <= f.start < hi)
            cut = max((c.end() for c in _COMMA.finditer(text, last_first, m.start)), default=None)
            if cut is None:
                continue
            span = (cut, hi)
        out.setdefault(span, []).append(m)
    return [(text[lo:hi].strip(), due) for (lo, hi), ms in out.items() if (due := planned(ms, text))]


_COMMA = re.compile(r"[，,；;]\s*")


# a clock, whichever way it is written: "5:15am", "7pm", "6h12", "14:00", "六点四十", "三点半"
_CLOCK_ANY = re.compile(
    r"\d{1,2}(?:[:：.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\d{1,2}[:：h]\d{2}"
    r"|(?:\d{1,2}|[一二两三四五六七八九十]{1,3})\s*[点點]",
    re.IGNORECASE,
)


# someone named before the clause that says the plan ("transfer it to her on Friday")
_PRONOUN_EN = re.compile(r"\b(?:him|her|them|his|their|he|she|they)\b", re.IGNORECASE)
_PRONOUN_ZH = re.compile(r"[他她]")
# a clause about the plan told before it: "it's in room 114", "it'll be at the annex"
_IT_LEADS = re.compile(
    r"(?:and\s+|so\s+)?it(?:['’]s|\s+is|['’]ll\s+be|\s+will\s+be)\s+(?:in|at|on|with)\b"
    # ... or that is a place alone: "thursday at 1:45pm, biometrics for the residency card, at the
    # immigration office on Medina Ascencio" (not "at least", "at all", "in the end")
    r"|(?:at|in|on|near|opposite|across\s+from)\s+(?:(?:the|a|an)\b(?!\s+(?:end|meantime|way|other\s+hand)\b)|(?-i:[A-Z]))",
    re.IGNORECASE,
)
# a name inside a clause (a capitalised word after its first character, not "I"): what a pronoun
# after it most likely points to
_NAME_EN = re.compile(r"(?<=\s)(?!I\b|I['’])[A-Z][a-z]+")
# a clause that turns from what was said before ("and the dog…", "but", "然后", "不过")
_TURNS = re.compile(
    r"(?:and|but|so|because|which|then|also|plus|anyway|though)\b|然后|但是|不过|可是|而且|还有|另外|所以|因为"
)
# characters that make a two-character piece a function word ("那个", "我们", "然后"), not a topic
_FUNCTION_ZH = frozenset("的了个那这我你他她它们是在要有和就都也还很把被给然后吗呢吧啊")


def _topic_words(thing: str, zh: bool) -> set[str]:
    """The headline's words a sentence must share to be about the plan; in Chinese its
    two-character pieces that carry meaning ("考场", "路考"; not "那个") and its Latin words
    ("Pasila"; not the "a " of "Pasila 那个")."""
    if not zh:
        return set(tokenize(thing))
    pairs = (thing[i : i + 2] for i in range(len(thing) - 1))
    return {
        p for p in pairs if _HAN.fullmatch(p[0]) and _HAN.fullmatch(p[1]) and not _FUNCTION_ZH.intersection(p)
    } | set(re.findall(r"[A-Za-z][A-Za-z0-9'-]{2,}", thing))


# the words of a date that name its day, not only a clock
_DAY_WORD = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun|tomorrow|tmrw|tonight|today)|\d(?:st|nd|rd|th)\b"
    r"|[周週期拜][一二三四五六日天]|[明今后後昨][天晚早]|[号號日月]",
    re.IGNORECASE,
)


# the person's own working-out of a time said in another place's ("tue 10am uk time so 2:30 for
# us", "10am New York time, which is… 9 here?"): the reading of the zone stands in for it, and a
# wrong sum quoted back would tell the wrong time
_CONVERSION = re.compile(
    r"(?:,\s*|\s+)(?:so|which\s+is|which's|that's|that\s+is|i\.?e\.?|=)\s*(?:…|\.\.\.)?\s*"
    r"\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?(?:\s+(?:for\s+us|for\s+me|here|my\s+time|our\s+time|local(?:\s+time)?)"
    r"(?:\s+na\b)?)?(?:\s+(?:i\s+think|i\s+guess|i\s+believe|iirc))?(?=[\s,.;!?…]|$)",
    re.IGNORECASE,
)
# a zone named with a clock: "uk time", "New York time", "10am ET", 北京时间
_ZONE_SAID = re.compile(
    r"\btime\b|\b(?:[ECMP][SD]?T|GMT|BST|CES?T|UTC|IST|JST|HKT|SGT|AES?T)\b|\b(?i:eastern|pacific|central|mountain)\b"
    r"|时间|時間"
)


def in_another_zone(text: str, at: datetime, tz: ZoneInfo) -> bool:
    """A clock of `text` is said in another place's time ("tues at 9 pacific", 北京时间九点半): the
    person's words show a clock that is not the one the reminder gives."""
    return any(_ZONE_SAID.search(m.text) for m in resolve_dates(text, at, tz) if m.has_clock)


def _without_conversion(text: str, at: datetime, tz: ZoneInfo) -> str:
    """`text` without the person's own sum of another zone's time, when a clock in it is read in
    that zone (`daemon.memory.dates.zones`)."""
    if not _CONVERSION.search(text) or not any(
        _ZONE_SAID.search(m.text) for m in resolve_dates(text, at, tz)
    ):
        return text
    return _CONVERSION.sub("", text)


def said_of(text: str, at: datetime, tz: ZoneInfo) -> str:
    """What the person said of the plan, to quote as evidence: the sentences of the turn that name
    the plan's day or a clock (its own, or when to leave, when to stop eating) or a word of its headline,
    in order, "…" where a sentence was left out. The others are how the person felt or what
    else happened ("ag i can't sleep.", "why do i do this to myself"): quoting them back reads
    as mockery, and they are not what the reminder is about. A sentence of three clauses or more
    is cut the same way, clause by clause: people run a week's complaints into one sentence with
    commas ("这周烦死了，shader 又崩了，…，下周二早上9点40要考路考，…") and only the plan's
    clauses are evidence of it."""
    text = _without_conversion(" ".join(text.split()), at, tz)
    zh = bool(_HAN.search(text))
    thing = headline(text, at, tz)
    words = _topic_words(thing, zh)
    found = resolve_dates(text, at, tz)
    ahead = [m for m in found if m.direction == "future" and m.granularity in ("day", "time")]
    # the plan's own day, as the headline takes it: "今天真的气死" and "催我周末去相亲" name other days
    day = ahead[0].value.astimezone(tz).date() if ahead else None
    own = _span_sentence(text, ahead[0].start) if ahead else (0, len(text))
    # another sentence that names the day again with a thing of its own tells another plan that
    # day ("…周二晚上7点要去…交钥匙、验房… 周二晚上本来还有瑜伽课，看来要请假了"); one that
    # gives only a clock goes on with this one ("Mum lands Thursday at 5:40. I have to leave at 4:30")
    dates = [
        m.start
        for m in found
        if (day is None or m.value.astimezone(tz).date() == day)
        and (own[0] <= m.start < own[1] or not _DAY_WORD.search(m.text))
    ]

    def dated(lo: int, hi: int) -> bool:
        return any(lo <= d < hi for d in dates) or bool(_CLOCK_ANY.search(text[lo:hi]))

    def keeps(lo: int, hi: int) -> bool:
        piece = text[lo:hi]
        shared = any(w in piece for w in words) if zh else bool(words & set(tokenize(piece)))
        if piece.rstrip().endswith(("?", "？")):
            # a question that does not name the plan is no statement of it: "星期一晚九點半？" (the
            # person working out the time difference, wrongly) quoted back tells a wrong time
            return shared
        return shared or dated(lo, hi)

    parts: list[tuple[str, bool]] = []
    for m in _SENTENCE.finditer(text):
        if m.group(0).strip():
            parts.append((_clauses_of(text, m.start(), m.end(), zh, keeps, dated), keeps(m.start(), m.end())))
    # a slot with nothing of what it is for ("the traveling dental team is finally coming!! got a
    # slot wednesday 3:15 at the clinic"): the sentence before says what, and is quoted too
    first = next((i for i, (_, keep) in enumerate(parts) if keep), 0)
    if not zh and first > 0 and _SLOT_ALONE.match(thing) and not parts[first - 1][0].rstrip().endswith("?"):
        parts[first - 1] = (parts[first - 1][0], True)
    return _elide(parts, "" if zh else " ", "" if zh else " ") or text


# a headline that names only a booking, not what it is for: "Slot at the clinic", "An appointment"
_SLOT_ALONE = re.compile(
    r"^(?:(?:a|an|the|my)\s+)?(?:slot|appt|appointment|booking|spot|reservation)\b", re.IGNORECASE
)


def plan_part(sentence: str, at: datetime, tz: ZoneInfo) -> str:
    """The clauses of a run-on sentence that tell its plan (what `said_of` quotes of it), joined
    as clauses; the sentence itself when it is not cut ("这周烦死了，shader 又崩了，然后下周二早上
    9点40要考路考" → "然后下周二早上9点40要考路考")."""
    cut = said_of(sentence, at, tz)
    sep = "，" if _HAN.search(cut) else ", "
    return re.sub(r"\s*…\s*", sep, cut).strip(" ,，")


def _clauses_of(
    text: str,
    lo: int,
    hi: int,
    zh: bool,
    keeps: Callable[[int, int], bool],
    dated: Callable[[int, int], bool],
) -> str:
    """A sentence as quoted: whole, or its kept clauses when it has three or more and not all are.
    The clause right after one with the plan's date is kept too when it goes on about it, telling
    where or what ("friday at 11:45, Cartório Notarial Seabra on Rua de São Bento"), not when it
    turns to something else ("and the dog barked all night", "隔壁的狗叫了一整晚"); so are the one or
    two before a clause of the plan that points back with a pronoun ("Mia covered my half, I'll
    transfer it to her on Friday")."""
    spans = [(lo + c.start(), lo + c.end()) for c in (_CLAUSE_ZH if zh else _CLAUSE_EN).finditer(text[lo:hi])]
    spans = [(a, b) for a, b in spans if text[a:b].strip()]

    def goes_on(i: int) -> bool:
        piece = text[spans[i][0] : spans[i][1]].strip().lower()
        return dated(*spans[i - 1]) and not _TURNS.match(piece) and tense(piece) != "past"

    def points_back(j: int) -> bool:
        # "大刘帮我垫了票钱，1280，答应他周四把钱转给他": the plan's "他" is said in a clause before;
        # not when its clause names someone before it ("Juniper's limping so I booked her in")
        piece = text[spans[j][0] : spans[j][1]]
        pronoun = _PRONOUN_ZH.search(piece) if zh else _PRONOUN_EN.search(piece)
        return (
            dated(*spans[j])
            and pronoun is not None
            and (zh or not _NAME_EN.search(piece, 1, pronoun.start()))
        )

    def says_more(i: int) -> bool:
        # "…got put at 2:20 on Wednesday, which is smack in my sleep, it's in room 114 at Harbour
        # Ridge": a clause up to two after the plan's that opens on "it", or on a place, says where
        # or with whom
        piece = text[spans[i][0] : spans[i][1]].strip()
        return (
            not zh and bool(_IT_LEADS.match(piece)) and any(dated(*spans[j]) for j in range(max(0, i - 2), i))
        )

    kept = [
        keeps(a, b)
        or (i > 0 and (goes_on(i) or says_more(i)))
        or any(points_back(j) for j in range(i + 1, min(i + 3, len(spans))))
        for i, (a, b) in enumerate(spans)
    ]
    if len(spans) < 3 or all(kept) or not any(kept):
        return text[lo:hi].strip()
    pieces = [(text[a:b].strip(" ,，;；:："), k) for (a, b), k in zip(spans, kept, strict=True)]
    return _elide(pieces, "，" if zh else ", ", "" if zh else " ")


def _elide(parts: list[tuple[str, bool]], sep: str, gap: str) -> str:
    """The kept parts in order, `sep` between two kept ones, "…" (with `gap` around it) for each
    run of parts left out; "" when none is kept."""
    if not any(keep for _, keep in parts):
        return ""
    out: list[str] = []
    for piece, keep in parts:
        if keep:
            out.append(piece)
        elif not out or out[-1] != "…":
            out.append("…")
    text = out[0]
    for before, piece in itertools.pairwise(out):
        text += (gap if "…" in (before, piece) else sep) + piece
    return re.sub(r"…(?:\s*…)+", "…", text)  # a sentence cut at both ends beside one left out


def headline(text: str, at: datetime, tz: ZoneInfo) -> str:
    """The thing a plan is about, in a few words (see the module docstring)."""
    return _headline(text, at, tz)[0]


def only_a_move(text: str, at: datetime, tz: ZoneInfo) -> bool:
    """The clause of the plan's date says only that something moved, not what ("physio rang,
    they moved me to the 30th", "诊所刚打电话来，…，给我改到下周一30号早上10:15了")."""
    return _headline(text, at, tz)[1]


def _headline(text: str, at: datetime, tz: ZoneInfo) -> tuple[str, bool]:
    """The headline, and whether the date's clause said only that something moved."""
    text = _without_conversion(" ".join(text.split()), at, tz)
    zh = bool(_HAN.search(text))
    found = resolve_dates(text, at, tz)
    if not found:
        return _cap(_strip(text, zh) or text, zh), False
    ahead = [m for m in found if m.direction == "future"]
    # the plan's own day, not a week or a month said before it ("next week: wednesday is …")
    first = next((m for m in ahead if m.granularity in ("day", "time")), ahead[0] if ahead else found[0])
    if first in ahead and not (first.has_time and not first.has_clock):
        # a time said inside it ("this weekend … 5:45am sunday"): the plan's own date is that one
        # (not the clock that only refines a part of the day told with the plan: "周六一大早要去矿上，
        # 司机说五点四十在酒店门口接人" is the trip to the mine, at 05:40)
        first = planned(ahead[ahead.index(first) :], text) or first
    lo, hi = _span_sentence(text, first.start)
    sentence = text[lo:hi]
    spans = [(m.start - lo, m.end - lo) for m in found if lo <= m.start < hi]
    # the date phrases go first, each replaced by a mark that keeps the clause boundaries
    cut = sentence
    for s, e in sorted(spans, reverse=True):
        cut = cut[:s] + "\x00" + cut[e:]
    # the mark of the plan's own date, not of one before it ("ok this week: thursday is the…")
    own_span = (first.start - lo, first.end - lo)
    own = sorted(spans).index(own_span) if own_span in spans else 0
    if not zh:
        if first.granularity == "time":
            # the day's time said apart from the day ("saturday party at 4pm"): the date took it
            # (a clock before the plan's date is one more mark before its own: "checked … after
            # 4:30 … and my group has to report monday, 7:45am")
            date_marks = [i for i, ch in enumerate(cut) if ch == "\x00"]
            own += len(_CLOCK_EN.findall(cut[: date_marks[own] if own < len(date_marks) else len(cut)]))
            cut = _CLOCK_EN.sub("\x00", cut)
        # "haircut's friday at 5": the 's before the date is "is", not a possessive
        cut = _COPULA_BEFORE_DATE.sub(" ", cut)
    clause_rx = _CLAUSE_ZH if zh else _CLAUSE_EN
    marks = [i for i, ch in enumerate(cut) if ch == "\x00"]
    cue_at = marks[own] if own < len(marks) else cut.find("\x00")
    found_clause = next((m for m in clause_rx.finditer(cut) if m.start() <= cue_at < m.end()), None)
    clause = found_clause.group(0) if found_clause is not None else cut
    own_at = cue_at - found_clause.start() if found_clause is not None else cut.find("\x00")
    tail = None if zh else (_AND_EN.search(clause) or _AND_THEIRS_EN.search(clause))
    if tail is not None and tail.start() < own_at:
        # the plan is told after "so I …", the clause before it is why: "Juniper's limping again
        # so I booked her in at Rose City Animal Clinic for tuesday at 4:15"
        clause = _CONJUNCTION_EN.sub("", clause[tail.start() :])
    elif not zh and (after := _AND_ANOTHER_EN.search(clause, own_at)) is not None:
        # ... or another clause after the date's, with a subject of its own: "pickle's dental is
        # tuesday and they want her dropped off at 7:15" is the dental
        clause = clause[: after.start()]
    if not zh:
        # a date's aside in brackets and the zone a clock is told in say when, not what: "Q3
        # check-in on Wednesday 22 July at 11:00 Blantyre time (11:00 Stockholm too …)"
        clause = _ZONE_AFTER_EN.sub("\x00", _DATED_ASIDE.sub("", clause))
    piece = _strip(_drop_marks(clause, zh), zh)
    # what was arranged, not that it was: "booked the ferry out of horseshoe bay" → "Ferry out of
    # horseshoe bay", "港澳通行证续签约上了" → "港澳通行证续签"
    arranged = (_ARRANGED_ZH if zh else _ARRANGED_EN).match(piece)
    if arranged is not None and _enough(_strip(arranged.group("thing"), zh), zh):
        piece = _strip(arranged.group("thing"), zh)
        if zh and (event := _TICKET_FOR_ZH.fullmatch(piece)) is not None and _enough(event["event"], zh):
            piece = event["event"]  # the tickets bought are for the event: "赛马票" → "赛马"
    moved = (not zh and _only_a_move(piece)) or bool(zh and piece and _ONLY_A_MOVE_ZH.fullmatch(piece))
    if not zh and _only_a_move(piece):
        # "physio rang, they moved me to the 30th": the clause of the day says only that it
        # moved; the thing is in a clause beside it, nearest first, without who rang about it
        others = [m.group(0) for m in clause_rx.finditer(cut) if "\x00" not in m.group(0)]
        before = [c for c in others if cut.find(c) < cue_at][::-1]
        for c in before + [c for c in others if c not in before]:
            other = _strip(_SAID_BY_EN.sub("", _drop_marks(c, zh)), zh)
            if _enough(other, zh) and activity_terms(other) - _WHEN_WORDS - _MOVE_WORDS - _MESSAGES:
                piece = other
                break
    if zh and piece and _ONLY_A_MOVE_ZH.fullmatch(piece):
        # "诊所刚打电话来，…，给我改到下周一30号早上10:15了": the date's clause says only that it
        # moved; who rang about it is what it is ("诊所"), the nearest clause before that names one
        others = [m.group(0) for m in clause_rx.finditer(cut) if "\x00" not in m.group(0)]
        before = [c for c in others if cut.find(c) < cue_at][::-1]
        for c in before:
            other = _strip(_SAID_BY_ZH.sub("", _drop_marks(c, zh)), zh)
            if other != _strip(_drop_marks(c, zh), zh) and _enough(other, zh):
                piece = other
                break
    if zh and found_clause is not None and 0 < len(piece) <= 6 and not _SUBJECT_ZH.match(simplified(piece)):
        before_it = [c.group(0).strip() for c in clause_rx.finditer(cut) if c.end() <= found_clause.start()]
        lead = _PERSON_LEAD_ZH.match(simplified(before_it[-1])) if before_it else None
        if lead is not None:
            piece = before_it[-1][: lead.end()] + piece
    if (zh and _PLACE_ONLY_ZH.match(piece)) or (
        not zh and (_PLACE_ONLY_EN.match(piece) or _WITH_ONLY_EN.match(piece) or _POINTS_BACK_EN.match(piece))
    ):
        # "wed 4:15pm at the clinic on tanjong pagar rd": the date's clause says only where; what
        # it is was announced before it ("finally got a physio slot for my shoulder!!"); or it
        # points back to it ("signed up for the wheel class at Kiln & Co!! first one is thursday")
        told = _told_before(text[:lo], cut, cue_at, zh)
        if told:
            return _cap(told, zh), moved
    if not zh and _IT_LEADS_EN.match(piece):
        # "booked it for tomorrow half one at sportmed": "it" is what the sentence before told,
        # whatever its form ("rugby club finally want me sports medical done before i can play")
        prior = sentences(text[:lo])
        thing = _strip(prior[-1], zh) if prior else ""
        if _enough(thing, zh) and names_a_thing(thing):
            return _cap(thing, zh), moved
    if not zh and piece and not names_a_thing(piece):
        # the date's clause says only how full the day is ("wednesday is gone"): the thing is in a
        # clause after it in the sentence ("the whole day is the district nutrition workshop")
        after_it = [
            m.group(0) for m in clause_rx.finditer(cut) if m.start() > cue_at and "\x00" not in m.group(0)
        ]
        # (or the next sentence, when it says what the day is: "Saturday's toast. it's my niece's …")
        first_after = _CLAUSE_EN.match(text[hi:])
        if first_after is not None and (
            _DAY_IS_EN.match(first_after.group(0))
            # ... or whatever it says, when the date's whole sentence says only how big the day is
            # ("thursday's the big one. out on the boat all day with the open water lot")
            or ranks_only(_strip(_drop_marks(cut, zh), zh))
        ):
            after_it.append(first_after.group(0))
        for c in after_it:
            other = _strip(_DAY_IS_EN.sub("", _drop_marks(c, zh)), zh)
            if _enough(other, zh) and names_a_thing(other):
                return _cap(other, zh), moved
    said_only = zh and bool(_ONLY_SAID_ZH.fullmatch(piece))
    if zh and _STARTS_ONLY_ZH.fullmatch(simplified(piece)):
        # the clause says only that it starts ("晚上七点半开场"): what starts is
        # the thing announced before ("周六晚上《暗恋桃花源》的票我上周就买好了")
        told = _told_before(text[:lo], cut, cue_at, zh)
        if not told:
            # ... or named right after it ("周日早上六点半开跑！半马，在 Rambla 上…集合起跑")
            after = _CLAUSE_ZH.match(text[hi:].lstrip(" ！!。，,"))
            told = after.group(0) if after is not None else ""
        for m in sorted(resolve_dates(told, at, tz), key=lambda m: m.start, reverse=True):
            told = told[: m.start] + told[m.end :]  # its own day is the reminder's to say
        if _enough(_strip(told, zh), zh):
            return _cap(_strip(told, zh), zh), moved
    if not _enough(piece, zh) or said_only or (zh and _COMES_ONLY_ZH.fullmatch(simplified(piece))):
        # (nor does "佢哋話" — "they said" — before the date: what it is, the clause before)
        told = _told_before(text[:lo], cut, cue_at, zh)
        if told:
            return _cap(told, zh), moved
        before = [
            c.group(0) for c in clause_rx.finditer(cut) if c.end() <= cue_at and "\x00" not in c.group(0)
        ]
        thing = _strip(before[-1] if said_only and before else "", zh)
        if _enough(thing, zh):
            return _cap(thing, zh), moved
        piece = _strip(_drop_marks(cut, zh), zh)
    return _cap(piece if _enough(piece, zh) else _strip(sentence, zh) or text, zh), moved


_DATED_ASIDE = re.compile(r"\s*\([^()]*\x00[^()]*\)?")
_ZONE_AFTER_EN = re.compile(r"\x00\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s+time\b")


# what a clause says the day is, before the thing: "the whole day is", "it's", "all day is"
_DAY_IS_EN = re.compile(
    r"^\W*(?:(?:the\s+)?(?:whole|entire)\s+(?:day|thing)|all\s+day|it)\s*(?:is|'s|’s|will\s+be)\s+",
    re.IGNORECASE,
)


# a clause whose thing is "it", said where or for whom: "it at sportmed on slezská"
_IT_LEADS_EN = re.compile(r"^it\s+(?:at|on|in|with|for|@)\b", re.IGNORECASE)


# a thing named only as one of what was told before: "first one", "the next one", "that"
_POINTS_BACK_EN = re.compile(
    r"^(?:the\s+)?(?:(?:first|next|second|1st|2nd)(?:\s+one)?|it|its|it['’]s|it\s+is|that(?:\s+one)?|this\s+one)$",
    re.IGNORECASE,
)


# a sentence that announces an arrangement: "finally booked the dentist", "Got the MOT sorted",
# "体检约好了", "签证面签终于约上了"; what was arranged is what is left
_ARRANGED_EN = re.compile(
    # (the ones who booked, the speaker among them: "me n the girls", "the girls and i")
    r"^(?:(?:ok(?:ay)?|so|right|yay|woo+|phew|just|finall?y|ugh+|argh+|omg|welp|oh)\b[,!]?\s*)*"
    r"(?:(?:i|we|me\s+(?:n|and|&)\s+(?:\w+\s+){0,2}?\w+|(?:\w+\s+){0,2}?\w+\s+(?:and|n|&)\s+i)\s+)?(?:(?:have|'ve|’ve)\s+)?"
    r"(?:just\s+|finall?y\s+)?(?:booked(?:\s+in)?|got\s+(?:seats|tickets|spots|places)\s+(?:on|for|to)|made|got|scheduled"
    r"|set up|arranged|confirm(?:ed|ing)|sorted(?:\s+out)?"
    r"|managed\s+to\s+(?:get|book|grab|snag)|snagged|grabbed|landed"
    r"|signed\s+up\s+(?:for|to)|enrolled\s+(?:in|on)|registered\s+for)\s+"
    # who was booked in is not what: "booked her in at Rose City Animal Clinic" → the clinic
    r"(?:(?:her|him|them|me|us|it)\s+in\s+(?:at|with)\s+)?"
    r"(?:(?:an?|the|my|our)\s+)?(?:appointment\s+(?:for|with|at)\s+(?:(?:an?|the|my|our)\s+)?)?(?P<thing>.+?)"
    r"(?:\s+(?:sorted|booked|confirmed|on\s+the\s+(?:books|calendar|cal|schedule)|(?:is|'s|’s)\s+(?:booked|confirmed|on)))?$",
    re.IGNORECASE,
)
_ON_THE_BOOKS = re.compile(r"\s+on\s+the\s+(?:books|calendar|cal|schedule)\s*$", re.IGNORECASE)
# ... or sent by someone: "marisol sent over the larkspur kickoff, its tues at 9", "ops invited us to the
# dr drill"
_SENT_EN = re.compile(
    r"^(?:(?:oh|so|ok(?:ay)?|right|btw|big\s+news|news|guess\s+what)\b[,!.:]*\s*)*(?P<caller>(?:[A-Za-z]+\s+){1,3}?)(?:just\s+|finally\s+)?"
    r"(?:sent(?:\s+(?:over|through|me|us))?|shared|forwarded|invited\s+(?:me|us)\s+(?:to|for)"
    # ... or called someone in for it: "tembo pay called me back for the final round"
    # ... or fitted them in: "the cardiologist finally got me in for the stress test"
    r"|(?P<called>called|rang|emailed|texted|messaged|asked|got)\s+(?:me|us)\s+(?:back\s+|in\s+)?(?:for|to)(?!\s+(?:say|tell|ask)\b))"
    r"\s+(?:(?:the|an?|her|his|their|our|my)\s+)?(?P<thing>.+)$",
    re.IGNORECASE,
)
# ... or moved by someone: "they had to shuffle my skin check", "the clinic moved my MRI again"
_MOVED_THING_EN = re.compile(
    r"\b(?:mov(?:e|ed|ing)|shuffl(?:e|ed|ing)|reschedul(?:e|ed|ing)|push(?:ed)?(?:\s+back)?|bump(?:ed)?|shift(?:ed)?"
    r"|chang(?:e|ed))\s+(?:my|our|the|her|his)\s+(?P<thing>[^,.;!?]+?)(?:\s+(?:again|back|up|forward))?$",
    re.IGNORECASE,
)
# ... or said of the thing: "the quote is confirmed", "MOT's booked in", "flights are sorted"
_ARRANGED_PASSIVE_EN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|right|yay|woo+|phew|and|also)\b[,!]?\s*)*(?P<thing>.+?)\s*(?:\s+(?:finally|just|now|already))?"
    r"(?:\s(?:is|are|has been|have been|got)|['’]s)"
    r"\s+(?:finally\s+|now\s+|all\s+)?(?:booked(?:\s+in)?|confirmed|sorted|scheduled|arranged|set up|set|locked in"
    # ... or that it takes place: "lease signing is finally happening!!", "the offsite is a go"
    r"|happening|going ahead|a go)"
    # what it is for belongs to the thing: "flight is sorted for the music educators thing in ottawa"
    r"(?:\s+(?P<purpose>for\s+.+))?$",
    re.IGNORECASE,
)
_ARRANGED_ZH = re.compile(
    # (when it was done, between who did it and the doing: "…的票我上个月就已经抢到了")
    r"^(?P<thing>.+?)\s*(?:我|我们)?(?:(?:上个?月|上周|上礼拜|上星期|昨天|前天|前几天|几天前|老早)就?|就)?"
    r"(?:早就|早已|终于|已经|也|总算)?(?:在?网上)?(?:已经|终于|总算)?"
    r"(?:约好|约上|预约好|预约上|订好|定好|搞定|敲定|确定|排上|挂上号|挂好号|抢到|买到|买好|拿到|订到|约到|报名|报好名|报上名)了?"
    # (a particle after it: "搶到了啦", "约好了哦")
    r"[啦喇咯哦呀嘞~～!！]*$"
)


# a Chinese clause that says only that something starts or opens (in English the clock of such a
# clause joins the day of the sentence before, and the headline is that sentence's)
_STARTS_ONLY_ZH = re.compile(
    r"(?:准时|正式)?(?:开场|开始|开演|开球|开赛|入场|进场|检票|开门|开跑|起跑|鸣枪)"
    # ... or that it leaves from somewhere ("從 Piraeus 港 E8 那個門開", "从南站出发"), or where to
    # gather for it ("在 San Ignacio 的 Burns Avenue 那間 Jaguar Path 旅行社門口集合")
    r"|从[^，,。]{1,24}?(?:开|出发|发车|开船|起飞)|在[^，,。]{1,60}?集合"
)
# a Chinese clause that says only that someone comes to do it ("这周三下午来装", "师傅上门"): what
# is done is the thing announced before ("宽带终于约好了")
_COMES_ONLY_ZH = re.compile(r"(?:师傅|人)?(?:会|要)?(?:来|过来|上门)(?:装|修|送|拿|取|看|量|测|收)?")
# a ticket for an event, not a ticket that is the journey (机票, 车票, 船票 stay as they are)
_TICKET_FOR_ZH = re.compile(r"(?P<event>.+?[^机機车車船])(?:的)?(?:门|門)?票")


def _told_before(before: str, cut: str, cue_at: int, zh: bool) -> str:
    """The thing of a plan whose date's clause names nothing but the date, told as details after
    an announcement: the clause just before the date's clause ("港澳通行证续签约上了，下下周三早上
    八点半，行政服务中心"), or, when the dated sentence opens with its date, the sentence before
    ("finally booked the dentist. thurs arvo, half 2, the one on latrobe tce" → "Dentist"). ""
    when what comes before announces no arrangement."""
    clause_rx = _CLAUSE_ZH if zh else _CLAUSE_EN
    clauses = list(clause_rx.finditer(cut))
    ahead = [c for c in clauses if c.end() <= cue_at and _strip(_drop_marks(c.group(0), zh), zh)]
    if ahead:
        announced = ahead[-1].group(0)  # the clause before the date's own
        if not zh and "\x00" in announced:
            # the date is said over several clauses, and the first of them names the thing
            # ("tita baby's 60th is on the 24th, sat, 6pm at Casa Ilang-Ilang")
            thing = _strip(_drop_marks(announced, zh), zh)
            return thing if _enough(thing, zh) and names_a_thing(thing) else ""
    else:
        prior = sentences(before)
        if not prior:
            return ""
        announced = prior[-1]
        if zh:  # the clause of it that announces ("星海乐队演唱会的门票已经抢到了，rock zone 的！")
            # (a list's 、 parts it too, and it is read in Simplified: "Tikal 的 tour 已經報名了、錢也已經付了")
            parts = [
                p.strip(" ,，.。!！?？…~:：")
                for c in clause_rx.finditer(announced)
                for p in c.group(0).split("、")
            ]
            announced = next((c for c in reversed(parts) if _ARRANGED_ZH.match(simplified(c))), announced)
    if zh:  # an aside after it ("…买好了（打折那天抢的 🥳）") is no part of the announcement
        announced = _ASIDE_ZH.sub("", re.sub(r"[（(][^）)]*$", "", announced))
    announced = announced.strip(" ,，.。!！?？…~:：")
    # a lead-in before a colon is not the announcement: "ANYWAY good news: finally got the MRI"
    announced = re.split(r"[:：]\s*", announced)[-1]
    m = (
        # (read in Simplified, one character for one: the thing is cut from the words as written)
        _ARRANGED_ZH.match(simplified(announced))
        if zh
        else _ARRANGED_EN.match(announced)
        or _ARRANGED_PASSIVE_EN.match(announced)
        or _SENT_EN.match(announced)
        # ... or a move told before the new time: "they had to shuffle my skin check. it's now monday"
        or _MOVED_THING_EN.search(announced)
    )
    if m is None:
        return ""
    purpose = m.groupdict().get("purpose")
    # who called them in for it is whom it is with: "tembo pay called me back for the final round"
    caller = m.groupdict().get("caller") if m.groupdict().get("called") else None
    named = announced[m.start("thing") : m.end("thing")]
    if not zh and "," in named and _enough(_strip(named.split(",")[0], zh), zh):
        # (what comes after a comma is another clause: "got the cataract surgery on the books, doc's
        # office just called")
        named = _ON_THE_BOOKS.sub("", named.split(",")[0])
    thing = _strip(
        named + (f" {purpose}" if purpose else "") + (f" with {caller.strip()}" if caller else ""), zh
    )
    if zh:  # the ticket is for the thing: "星海乐队演唱会的门票" → "星海乐队演唱会"
        ticket = re.search(r"(?<=.{2})的?(?:门票|票|入场券)$", simplified(thing))
        thing = thing[: ticket.start()] if ticket else thing
    # an acronym is a thing too ("booked an MRI", "Got the MOT sorted")
    if not (len(thing) >= 2 if zh else re.search(r"[A-Za-z]{2,}", thing)) or not names_a_thing(thing):
        return ""
    # the details after the date are left to the body's quote: a clause of them is as likely to
    # be a remark ("the engineer's called Dev") as a place
    return thing


# a clock time in so many words: "4pm", "4.15 pm", "16:00", "7:30am" (not a bare "4" or "4.15")
_CLOCK_EN = re.compile(
    r"\b(?:\d{1,2}:\d{2}(?:\s*(?:am|pm)\b)?|\d{1,2}(?:\.\d{2})?\s*(?:am|pm)\b)", re.IGNORECASE
)

# the 's of "is" glued to a word right before the date, with nothing of a noun after the date
# ("haircut's friday at 5", "flight's 7:05 on the 3rd from stansted"; not "Jo's friday party")
_COPULA_BEFORE_DATE = re.compile(
    r"(?:['’]s|\s+is|\s+are)(?=\s*\x00\s*(?:$|[,;.!?]|\x00|(?:and|at|on|in|from|with|to|between|by|around|for|till|until)\b))",
    re.IGNORECASE,
)


# a move said of a plan with no word of what moved ("they moved me", "it got pushed")
_MOVE_WORDS = frozenset(
    tokenize(
        "moved move moves moving pushed push rescheduled reschedule bumped shifted changed switched rebooked"
        " booked put got they them me us he she him her you we"
    )
)
_MOVES = frozenset(tokenize("moved pushed rescheduled bumped shifted changed switched rebooked"))
# how the news came is not what moved ("got a text, they've moved it to friday")
_MESSAGES = frozenset(
    tokenize("text texts call calls email emails mail message messages voicemail letter note")
)
# who told of the move: "physio rang", "the school emailed" → "physio", "the school"
_SAID_BY_EN = re.compile(
    r"\s+(?:rang|rung|called|phoned|texted|emailed|e-mailed|messaged|wrote|said|confirmed)\b.*$",
    re.IGNORECASE,
)


# ... in Chinese: "给我改到了", "又推到", "帮我挪到"; and who told of it: "诊所刚打电话来" → "诊所"
_ONLY_A_MOVE_ZH = re.compile(rf"(?:[又都就]|[给帮把替]我(?:的)?|他们|她们|他|她)*(?:{MOVED_TO_ZH}|改)?了?")
_ONLY_SAID_ZH = re.compile(
    r"(?:他们|她们|他|她|佢哋|佢|对方|對方|人家|[A-Za-z]+)?\s*(?:说|說|话|話|讲|講)了?"
)
_SAID_BY_ZH = re.compile(
    r"(?:刚刚?|刚才|今天|早上|上午|下午)?(?:打(?:了)?电话|来电话?|发(?:了)?(?:短信|消息|邮件)|通知(?:我)?|说)(?:来|过来)?了?$"
)


def _only_a_move(piece: str) -> bool:
    """The words say that something moved and nothing of what: "they moved me", "it got pushed",
    or who moved it, with "it" for the thing ("Gestoría bumped it", "the surgery moved us")."""
    terms = activity_terms(piece) - _WHEN_WORDS
    return (
        (bool(terms & _MOVES) and not terms - _MOVE_WORDS)
        or bool(_MOVED_IT_EN.fullmatch(piece.strip()))
        # the date's clause is the new time "now" ("…rescheduled it, Friday 8am now"): a time
        # that is so now was another before
        or bool(_NOW_ONLY_EN.fullmatch(piece.strip()))
    )


_NOW_ONLY_EN = re.compile(r"(?:(?:it|that)(?:['’]s|\s+is)\s+|is\s+)?now\W*", re.IGNORECASE)


# who moved it, and "it" (or the person) for what: the subject is the mover, not the thing moved
_MOVED_IT_EN = re.compile(
    r"(?:[\w'’.&-]+\s+){1,4}?(?:(?:has|have|had|'s|’s|'ve|’ve)\s+)?(?:just\s+)?"
    r"(?:moved|pushed|shifted|bumped|rescheduled|changed|postponed)\s+(?:it|me|us|them|that|things)"
    r"(?:\s+(?:again|back|forward|up|over|around))?\W*",
    re.IGNORECASE,
)


def _drop_marks(s: str, zh: bool) -> str:
    if zh:
        # "周五之前" is the date's own deadline: "by Friday", like "by" in English
        # (and the end of a span after it: "…定在\x00–22:30，腾讯会议", "\x00到\x00带他们去沙漠")
        s = re.sub(r"\x00\s*(?:到|至|-|–|~)\s*\x00", "\x00", s)
        return re.sub(r"\x00(?:之前|以前|前|\s*(?:到|至|-|–|~)\s*\d{1,2}[:：]\d\d)?", "", s)
    # "\x00 to \x00" is one span of time; "on \x00", "at \x00" lose their preposition with the date
    s = re.sub(r"\x00\s*(?:to|until|till|-|–)\s*\x00", "\x00", s, flags=re.IGNORECASE)
    s = re.sub(r"\b(?:on|at|by|for|from|until|till|this|next)\s+\x00", " ", s, flags=re.IGNORECASE)
    return " ".join(s.replace("\x00", " ").split())


def _cap(s: str, zh: bool) -> str:
    return s if zh or not s else s[:1].upper() + s[1:]


# what only says when, beyond the calendar words `activity_terms` leaves out: chat spellings
# and roundings of a time ("tmrw", "noonish", "half seven", "明早"), and the words of a mood
# around a day ("Saturday week, finally", "又周一了啊"), in the form `tokenize` gives them
_WHEN_WORDS = frozenset(
    t
    for w in (
        "tmrw tmr tmw tomoz 2moro nite tonite noonish ish half quarter past sharp latest early late day days"
        " morning evening afternoon night arvo noon midday first"
        " asap soon later again finally already yay ugh argh phew lol hooray ok okay yes nope"
        " 明早 今早 一早 大早 明晨 终于 又 啊 呀 哎"
        # light verbs and pronouns name nothing to do: "will have a look", "want them", "do it"
        " do doing does done have having look want wants get getting go going it them this that stuff"
        " thing things something ill will"
    ).split()
    for t in tokenize(w)
)


# where a plan's thing says it takes place: "… at the notary's office on av amsterdam", "在 Pigneto
# 那边跟中介交接钥匙"
_AT_PLACE_EN = re.compile(r"\s+(?:at|@)\s+\S.*$", re.IGNORECASE)
_AT_PLACE_ZH = re.compile(r"^(?:在|到)\s*[^，,\s]{1,12}?\s*(?:那边|那里|这边|这里|附近|门口)\s*")


# the person's own words about themselves, said back to them: "MRI slot for my knee" → "MRI slot
# for your knee" (a suggestion is written for the person, not their words quoted as a title)
_TO_YOU_EN = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
    "ourselves": "yourselves",
    "i'm": "you're",
    "i've": "you've",
    "i'll": "you'll",
    "i'd": "you'd",
    "we're": "you're",
    "we've": "you've",
    "we'll": "you'll",
}
_FIRST_PERSON = re.compile(
    r"(?<![\w'’])(?:i['’](?:m|ve|ll|d)|we['’](?:re|ve|ll)|ourselves|myself|mine|ours|my|our|me|us|we|i)(?![\w'’])",
    re.IGNORECASE,
)


def for_them(thing: str) -> str:
    """An English headline said to the person: their "I", "my", "we" as "you", "your" (a Chinese
    one as written: "你妈" is no way to say the person's mother)."""
    if _HAN.search(thing):
        return thing

    def you(m: re.Match[str]) -> str:
        said = m.group(0)
        if len(said) > 1 and said.isupper():
            return said  # "US embassy", "ME" for Maine: a name, not the speaker
        to = _TO_YOU_EN[said.lower().replace("’", "'")]
        return to[:1].upper() + to[1:] if said[:1].isupper() and m.start() == 0 else to

    return _FIRST_PERSON.sub(you, thing)


def without_place(thing: str) -> str:
    """`thing` without the place it says it is at, for a plan that moved elsewhere; `thing` when
    that would leave nothing that names it."""
    zh = bool(_HAN.search(thing))
    left = _AT_PLACE_ZH.sub("", simplified(thing)) if zh else _AT_PLACE_EN.sub("", thing)
    if zh:
        left = thing[len(thing) - len(left) :]  # (one character for one: the tail as written)
    return left if _enough(left, zh) and names_a_thing(left) else thing


def names_a_thing(thing: str) -> bool:
    """Whether a plan's headline names something to do or go to, not only when: "tuesday.
    raining sideways" leaves "Tuesday", "next tue week" leaves "Week", "the 5:50" leaves "5:50",
    "7ish in the evening" a rounded hour; nothing there to remind anyone of."""
    if _DOES_IT_EN.match(thing) or _DOES_IT_ZH.fullmatch(thing.strip(" ，,。.!！~")):
        return False
    return any(
        not _ROUGH_HOUR.fullmatch(t)
        for t in activity_terms(thing) - _WHEN_WORDS - _HOW_BUSY - _FILLERS - _RANKS_ONLY
    )


def ranks_only(thing: str) -> bool:
    """A headline that says only how big the day is ("right so 's the big one", "the main one"):
    what the day is for is told next."""
    terms = activity_terms(thing) - _WHEN_WORDS - _HOW_BUSY - _FILLERS
    return bool(terms) and terms <= _RANKS_ONLY


# chat's asides name nothing: "thursday is gone btw"
_FILLERS = frozenset(tokenize("btw lol tbh ngl fyi imo imho haha ugh omg honestly basically literally"))
# ... nor does how big the day is: "right so thursday's the big one", "friday is the main event"
_RANKS_ONLY = frozenset(tokenize("right so big one main huge important special"))


# a headline that only points at a thing named elsewhere, with a verb that needs it ("Do it after
# lunch", "Deal w it prob", "发过去") or only hedges ("大概吧"): it names nothing to remind anyone of
_DOES_IT_EN = re.compile(
    r"^(?:(?:i'?ll|i\s+will|gonna|will|let\s+me|prob(?:ably)?|maybe)\s+)*"
    r"(?:do|deal\s+(?:w|w/|with)|handle|sort(?:\s+out)?|tackle|look\s+(?:at|into)|get\s+(?:to|on|round\s+to)|check"
    r"|finish|start|read|send|file|fix|answer|reply\s+to)\s+(?:it|that|this|them|those)"
    r"(?:\s+(?:out|over|back|first|then|later|tho|though|lol|prob(?:ably)?|maybe|i\s+guess|i\s+think"
    r"|(?:after|before|over|during|at)\s+(?:lunch|dinner|breakfast|work|school|class|the\s+gym)))*\W*$",
    re.IGNORECASE,
)
_DOES_IT_ZH = re.compile(
    r"(?:大概|可能|应该|估计|也许|或许|差不多)?(?:吧|啦|呢|咯|了|喇|啰)?"
    r"|(?:再)?(?:发|寄|送|交|传|拿|带|弄|搞|做|看)(?:过去|过来|回去|回来|上去|出去|一下|完|好)?(?:了|吧|啦)?"
)


# how full a day is says nothing on it: "at least wednesday's quiet", "friday's mental"
_HOW_BUSY = frozenset(
    tokenize(
        "quiet free busy clear empty chill dead packed hectic mad mental crazy rammed slammed least full"
        # ... or taken whole: "wednesday is gone, the whole day is the workshop up in Zomba"
        " gone taken blocked toast wiped"
    )
)
_ROUGH_HOUR = re.compile(r"\d+(?:ish|am|pm|h)?")
