"""Sentence-level cues of the date resolver, English and Chinese: tense, habits, reschedules.

A turn is split into sentences (on . ! ? ; 。！？；and newlines) and each sentence into clauses at a
contrast ("but", "though", 但是, 不过 ...). Each sentence gets a tense and each clause a habit flag;
en / zh read them through ``Ctx``. The rules are documented in daemon/memory/dates/__init__.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

SENTENCE_END = re.compile(r"[.!?;](?=\s|\Z)|[。！？；\n]|…+")

# --- tense --------------------------------------------------------------------------------------------
# Looked up word by word in sets: one regex over the words is ~5x slower than a findall plus set lookups.
EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
EN_PAST_WORDS = frozenset(
    """was wasn't were weren't did didn't had hadn't went came saw met got made took gave left ate told
    said bought paid spent sent found felt thought ran wrote began brought caught drove flew forgot heard
    held kept knew lost slept spoke stood woke won broke fell chose drank drew fought froze grew hid hung
    led lent meant rode rang rose sang shook sold stole stuck swam threw tore wore taught understood
    last ago yesterday yday already""".split()
)
# "-ed" words that are no past tense, or are participles of planned things ("scheduled for Monday").
EN_ED_NOT_PAST = frozenset(
    """need feed seed speed weed breed bleed indeed proceed exceed succeed embed hundred sacred naked
    wicked kindred scheduled planned supposed expected excited interested booked reserved tired
    confirmed""".split()
)
EN_FUTURE_WORDS = frozenset(
    """will won't shall gonna gotta wanna let's next tomorrow tmrw tmr tonight tonite upcoming coming
    can could should would might i'll you'll we'll they'll he'll she'll it'll that'll""".split()
)
EN_FUTURE_PHRASES = (
    "going to",
    "want to",
    "plan to",
    "planning to",
    "hope to",
    "need to",
    "have to",
    "has to",
    "needs to",
    # "would" contracted: "they said it'd be ready thursday after 2" (not "'d been", a past perfect)
    "'d be ",
)
# Moving an appointment talks about its new (and old) slot, both ahead: "rescheduled for Monday",
# "moved my haircut from Wednesday to Friday", "pushed back to the 28th". The sentence is future.
_EN_SLOT = (
    r"(?:the\s+|next\s+|this\s+|following\s+)?"
    r"(?:mon|tue|wed|thu|fri|sat|sun|tomorrow|tmrw|week\b|month\b|\d{1,2}(?:st|nd|rd|th)\b"
    r"|\d{1,2}(?::\d\d)?\s*[ap]\.?m\b|\d{1,2}:\d\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d)"
)
EN_RESCHEDULE = re.compile(
    r"\b(?:re-?schedul\w*|postpon\w*|push(?:ed|es|ing)?|mov(?:e|ed|es|ing)|delay\w*|bump\w*|shift\w*"
    r"|switch\w*|chang(?:e|ed|es|ing)|brought\s+forward|put\s+off|rebook\w*|retim\w*|swap\w*)\b[^.!?;]*?"
    rf"\b(?:to|till|until|for)\s+{_EN_SLOT}"
)
# ... or the new slot told after the move with "now": "British Gas rescheduled it, Friday 8am now"
EN_MOVED_NOW = re.compile(
    r"\b(?:re-?schedul\w*|postpon\w*|push(?:ed|es|ing)?|mov(?:e|ed|es|ing)|bump\w*|shift\w*|chang(?:e|ed|es|ing)"
    # (the "now" of the slot's own words, not of another clause: "we moved to berlin on friday and
    # now im broke")
    rf"|rebook\w*|swap\w*)\b[^.!?;]*?\b{_EN_SLOT}(?:(?!\b(?:and|but|so)\b)[^.!?;,]){{0,16}}?\bnow\b"
)
# ... or the new slot said as what it is now: "class got moved — Bruna can't do friday so it's
# saturday half 3 instead" (the move is past, the class is ahead)
EN_INSTEAD = re.compile(rf"\b(?:it's|it is|it'll be|now)\s+(?:on\s+|at\s+)?{_EN_SLOT}[^.!?;]*?\binstead\b")
# Arranging a slot tells when the thing will be, as ZH_ARRANGED's 约了 does: "booked her in at the
# clinic for Tuesday at 4:15 bc that was the only slot" — the booking and the "was" are past, the
# visit is not. Only "for" + a day or clock: "booked it for the 14th", "got us in for 9am".
EN_ARRANGED = re.compile(
    r"\b(?:book(?:ed)?|reserv(?:e|ed)|schedul(?:e|ed)|got\s+(?:\w+\s+)?in|fit\s+(?:\w+\s+)?in|squeez\w*\s+(?:\w+\s+)?in"
    # ("bronwyn locked the design review for tuesday 2pm", "pencilled us in for the 9th", "fixed it for friday")
    r"|lock(?:ed)?(?:\s+in)?|pencill?(?:ed)?|fix(?:ed)?|confirm(?:ed)?|arrang(?:e|ed)|organi[sz](?:e|ed)|plann?(?:ed)?"
    r"|made\s+(?:an?|the)\s+appointment|set\s+(?:it\s+|that\s+)?up|sign(?:ed)?\s+(?:\w+\s+)?up)\b[^.!?;]*?"
    rf"\bfor\s+{_EN_SLOT}"
    # ... or taken on, with its day: what one is roped into, signs up or agrees to is ahead ("just got
    # roped into chaperoning the field trip on Thursday", "volunteered to drive on Saturday")
    r"|\b(?:roped\s+(?:\w+\s+)?into|volunteered\s+(?:\w+\s+)?(?:for|to)|agreed\s+to"
    r"|(?:got|was|were|been)\s+(?:asked|invited|picked|chosen|drafted|volunteered)\s+(?:to|for))\b[^.!?;]*?"
    rf"\b(?:on|for|at)\s+{_EN_SLOT}"
    # ... or given a slot, in the passive: "the interview got put at 2:20 on Wednesday", "was set for"
    # (or with the slot right after it, past an emoji or a dash: "finally got booked 🙌 tuesday at 7.15")
    r"|\b(?:got|was|were|been|is|are)\s+(?:put|set|slotted|pencill?ed|scheduled|booked)\s+(?:in\s+|down\s+)?"
    rf"(?:(?:for|at|on)\s+|[^\w.!?;]*){_EN_SLOT}"
    # ... or booked in for a named thing, its slot after the thing: "car's booked in for its
    # tehnički pregled (their MOT basically) friday half 5" (not "… for its MOT last friday")
    r"|\b(?:booked|scheduled|reserved|pencill?ed)\s+(?:in\s+)?for\s+(?:its|the|my|our|his|her|their|an?)\s+"
    rf"(?:(?!last\b|ago\b)[^\s.!?;()]+\s+|\([^()]{{0,40}}\)\s+){{0,5}}?{_EN_SLOT}"
)
# ... or an appointment got, with its slot anywhere after: "got a cleaning at the dental surgery
# wednesday 3.40", "finally got an appointment with the GP, thurs 10am" (it is ahead)
EN_GOT_SLOT = re.compile(
    r"\bgot\s+(?:us\s+|me\s+|him\s+|her\s+)?(?:an?|the|my|our)\s+(?:[\w-]+\s+){0,3}?(?:appointment|appt|slot"
    r"|booking|reservation|session|consultation|consult|cleaning|check-?up|fitting|viewing)s?\b[^.!?;]*?"
    rf"\b{_EN_SLOT}"
    # ... or seats, tickets, a table for it: "finally got seats on the phillip island boat trip for saturday"
    # (what they are for named after them: "got tickets for the gondola ride on sunday")
    r"|\bgot\s+(?:us\s+|me\s+)?(?:\w+\s+)?(?:seats|tickets|spots|places|a\s+table|a\s+spot|a\s+place)\s+"
    rf"(?:on|for|to|at)\b[^.!?;]*?\b{_EN_SLOT}"
)
# called off: the past tense is the calling off's, the event was ahead ("friday's yoga got cancelled")
EN_CALLED_OFF = re.compile(
    r"\b(?:got|been|was|were|is|are|'s|’s)\s+(?:just\s+)?(?:cancel+ed|called\s+off|postponed|scrapped)\b"
)
# a day said as what something is, in the present, right before it: "the earliest slot they had
# is monday 6:45am", "the hearing is on tuesday": the coming one, whatever was done to arrange it
EN_IS_BEFORE = re.compile(r"\b(?:is|are)\s+(?:on\s+)?$")
_TARGET_WORDS = frozenset(("to", "for", "till", "until"))
# 过 of experience (去过, 吃过), not the direction of 过来 / 过去 ("飞过来", coming over; "我过去帮他
# 抬冰箱", going over — 过去 as "the past" is 过去的, 过去三年) nor the wait of 过几天 / 过两天 ("in a
# few days"); 了 of a done act, not of 对了 ("oh, and…"), 为了 ("so as to"), 除了 ("besides"), 算了
# ("never mind"), 了解 ("understand") or 别忘了 / 不要忘了 ("don't forget", said of what is ahead)
ZH_PAST = re.compile(
    r"(?<![对为除算])(?<!别忘)(?<!要忘)(?<!莫忘)了(?!解)|(?<!不)过(?!来|去(?![的一二两三四五六七八九十几\d])|几|两天|两周|一阵)"
    r"|已经|刚才|刚刚|上次|昨天|前天|去年|曾经"
    r"|咗"  # Cantonese 了: "send咗", "去咗"
)
# 会 "will", not 会 "a meeting" ("组会迟到了十分钟" was late to the group meeting: past)
ZH_FUTURE = re.compile(
    r"要|(?<![开组例周晚聚年班大散早月约茶舞展])会(?![议面员场所长谈])|将|打算|准备|计划|下次|明天|后天|明年|下周"
)
# 约了/定了/改到...了: the arrangement is done, the appointment is ahead.
ZH_ARRANGED = re.compile(
    # (咗 is Cantonese 了: "约咗", "报咗名"; signing up is arranging too: 报了名)
    r"(?:约|定|订|预约|安排|约好|说好|报名)[了咗]|报[了咗]名|(?:改|推迟|推|挪|延|延期|延后|提前|换|调)(?:到|至|成|为)"
    # set for a day: "年会定在一月十八号", "婚礼定于五月"
    r"|(?:定|约|安排|订)在|定于"
    # got the booking at last: "签证延期终于约上了！！…周四下午两点", "抢到了周六的票"
    r"|(?:约|订|预约|抢|买|挂)(?:上|到)[了咗]"
    # called off: the past is the calling off, the event was ahead ("周五的语言交换取消了")
    r"|取消[了咗]"
)
# a word given, told in the past: what was promised is ahead ("i promised Sefanaia from the co-op
# i'd email him the quote on thursday"; not "told him I'd already sent it", the past perfect)
EN_WORD_GIVEN = re.compile(
    r"\b(?:promised|told|said|agreed|swore)\b(?:\s+[\w'-]+){0,7}?\s+(?:that\s+)?"
    r"(?:i'd|i would|i'll|i will|we'd|we'll|we would)\b(?!\s+(?:already|just|been|gone|done|had|never)\b)"
)
EN_CONTINUES = re.compile(r"\s*(?:or|and)\b")


def _possessive_got(words: list[str], i: int) -> bool:
    """ "I've got a haircut on Saturday", "she's got", "have got": possession now, no past."""
    if words[i] != "got" or i == 0:
        return False
    before = words[i - 1]
    return before in ("have", "has", "'ve") or before.endswith(("'ve", "'s"))


# "got the piano tuner booked for wednesday", "got the MOT sorted for the 3rd": the causative
# "got" of an arrangement is done, the appointment it arranged ("for" a day) is ahead; "got it
# confirmed on friday" tells when the confirming happened, and stays past
_ARRANGED_PARTICIPLES = frozenset("booked scheduled reserved confirmed sorted arranged planned".split())


def _causative_got(words: list[str], i: int) -> bool:
    if words[i] != "got":
        return False
    return any(
        w in _ARRANGED_PARTICIPLES and "for" in words[j + 1 : j + 3]
        for j, w in enumerate(words[i + 1 : i + 6], start=i + 1)
    )


# "is closed", "we're booked", "I'm married": an -ed word after a present "be" is a state now.
_BE_NOW = frozenset("am is are 'm 're 's i'm we're you're they're it's he's she's that's be".split())


# A past verb is not said right after a preposition, an article, a possessive or a quantifier: "from
# stansted", "the red one", "a shed", "my bed", "one fixed thing" are names and nouns.
_NOUN_BEFORE = frozenset(
    "from to at in into via near of by the a an my our your his her their its one no any".split()
)


# The irregular past forms that are also participles: after a present "be" they are a state now
# ("I'm stuck in a recert on Thursday", "we're sold out", "the keys are lost"), as "-ed" words are.
_PARTICIPLES = frozenset(
    """stuck lost sold held kept made paid told sent found left bought spent taught understood won
    hung led lent meant shook torn worn broke""".split()
)


def _passive_ahead(words: list[str], i: int) -> bool:
    """A participle of a passive still to happen: "pickle's getting spayed monday", "the bike is
    being fixed monday", "the kitchen gets painted friday", "getting her teeth cleaned" (the thing
    between, no one doing it: not "being tired i skipped it"; not "got spayed")."""
    for k in range(max(0, i - 3), i):
        if words[k] in ("getting", "being", "gets") and _SUBJECTS.isdisjoint(words[k + 1 : i]):
            return True
    return False


_SUBJECTS = frozenset("i we you he she they it i'm we're you're he's she's they're".split())


def _state_now(words: list[str], i: int) -> bool:
    return i > 0 and (
        words[i - 1] in _NOUN_BEFORE
        or words[i - 1] in _BE_NOW
        or _passive_ahead(words, i)
        or (i > 1 and words[i - 2] in _BE_NOW and words[i - 1] in ("all", "still", "fully", "now"))
    )


def tense(low: str) -> str:
    """'past' | 'future' | '' for one lower-cased sentence (the module docstring's cue rule)."""
    low = low.replace("’", "'")
    words = EN_WORD.findall(low)
    zh = ZH_ARRANGED.sub("", low) if not low.isascii() else ""
    if (
        (zh and zh != low)
        or (not _TARGET_WORDS.isdisjoint(words) and EN_RESCHEDULE.search(low))
        or (("for" in words or "at" in words or "on" in words) and EN_ARRANGED.search(low))
        or EN_GOT_SLOT.search(low)
        or EN_CALLED_OFF.search(low)
        or ("instead" in words and EN_INSTEAD.search(low))
        or ("now" in words and EN_MOVED_NOW.search(low))
        or EN_WORD_GIVEN.search(low)
    ):
        return "future"
    past = any(
        (
            w in EN_PAST_WORDS
            and not _possessive_got(words, i)
            and not _causative_got(words, i)
            and not (w in _PARTICIPLES and _state_now(words, i))
        )
        or (len(w) > 3 and w.endswith("ed") and w not in EN_ED_NOT_PAST and not _state_now(words, i))
        for i, w in enumerate(words)
    ) or bool(zh and ZH_PAST.search(zh))
    future = (
        any(w in EN_FUTURE_WORDS for w in words)
        or any(p in low for p in EN_FUTURE_PHRASES)
        or bool(zh and ZH_FUTURE.search(zh))
    )
    return "past" if past and not future else ("future" if future else "")


# --- whose account -----------------------------------------------------------------------------------
# A past sentence with a clock time and no day is either the speaker telling their own day as it goes
# ("I woke up at 10:30", "got home at 11:30, shattered": the latest such time) or an account of an
# incident ("The first unit arrived on scene at 08:05"), often told days later: its day is not given.
_EN_FIRST_PERSON = frozenset("i we i've we've i'd we'd".split())
_EN_LEAD_ADVERBS = frozenset("just only then so finally eventually also still and but".split())
_ZH_FIRST_PERSON = re.compile(r"我(?!们?的)")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# All that stands before the time in a sentence without a subject: nothing, or adverbs (终于十一点才睡).
_ZH_NO_SUBJECT = re.compile(r"[\s，,]*(?:终于|居然|竟然|结果|然后|后来|就|才|刚|又|也|都|还)*[\s，,]*\Z")


def _en_own_account(words: list[str]) -> bool:
    if not _EN_FIRST_PERSON.isdisjoint(words):
        return True
    lead = [w for w in words if w not in _EN_LEAD_ADVERBS and not w.endswith("ly")]
    # a chat sentence that drops its "I": it opens with the past verb ("woke up at 10:30")
    return bool(lead) and (
        lead[0] in EN_PAST_WORDS or (lead[0].endswith("ed") and lead[0] not in EN_ED_NOT_PAST)
    )


def own_account(before: str, after: str) -> bool:
    """Whether a past sentence tells the speaker's own doings: a first-person subject ("I", "we",
    我/我们, not 我们的), or no subject at all, as chat drops it ("woke up at 10:30", 十一点半就睡了).
    ``before``/``after`` are the lower-cased sentence before and after its clock time; the subject
    is looked for before the time, or after it when the time opens the sentence ("At 08:05 the
    first unit arrived")."""
    if _CJK.search(before) or _CJK.search(after):
        # Chinese: 我 before the time, or nothing but adverbs there (十一点半就睡了: no subject)
        return bool(_ZH_FIRST_PERSON.search(before) or _ZH_NO_SUBJECT.match(before))
    before, after = before.replace("’", "'"), after.replace("’", "'")
    return _en_own_account(EN_WORD.findall(before) or EN_WORD.findall(after))


# --- habits -------------------------------------------------------------------------------------------
_WD = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# A recurring schedule: "every day", "usually", "on Tuesdays", "Wednesday afternoons", "twice a week".
EN_HABIT = re.compile(
    rf"""\b(?:
        (?:every|each)\s+(?:other\s+|second\s+|single\s+)?
            (?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|{_WD})s?
      | usually|normally|generally|typically|always|often|regularly|routinely|mostly|sometimes
      | tends?\s+to|used\s+to|daily|nightly|weekly|monthly|everyday|most\s+days|whenever|every\s+time
      | (?:{_WD})s|weekdays|weekends
      | (?:most|on|in\s+the|mostly|some|{_WD})\s+(?:mornings|afternoons|evenings|nights)
      | (?:once|twice|thrice|\w+\s+times)\s+(?:a|per|each|every)\s+(?:day|week|month|year)
    )\b""",
    re.VERBOSE,
)
ZH_HABIT = re.compile(
    # a routine said to stop is none: "终于不用天天对着论文了" (no longer every day)
    r"(?<!不用)(?<!不再)(?<!不必)(?<!不想)(?<!不要)(?<!不会)"
    r"(?:每[一两二三四五六七八九十\d]*个?(?:天|日|晚|早|周|星期|礼拜|月|年|逢|次|隔|工作日|周末)|天天|平时|平常|平日|一般|通常"
    # (隔天 / 隔周 are "every other day / week" before a count, "隔天跑一次"; else "the day after":
    # "演唱会隔天一定挂掉")
    r"|总是|经常|常常|往往|习惯|向来|一向|老是|工作日|(?:隔周|隔天)(?=[^，。！？；,]{0,6}次)"
    r"|(?:周末|晚上|早上|中午|下午|上午|白天)(?:我们?|他们?|她们?|你们?)?都"
    r"|[一每](?:周|星期|个星期|礼拜|天|个月|月)[^，。！？；,]{0,6}?[一二两三四五六七八九十\d]+次"
    # "whenever it comes to …": "一到周一早上项目群就开始炸", "一到下雨天就堵"
    r"|一到[^，。！？；,就]{1,10}就)"
)
# Present simple with a pronoun subject states a routine: "I run at 6am", "she walks the dog at 7".
EN_SUBJECT_VERB = re.compile(
    r"\b(?:(?P<p1>i|we|they)|he|she)\s+(?:(?:just|also|still|only)\s+)?(?P<v>[a-z]+)\b(?!')"
)
_NOT_HABIT_VERBS = frozenset(
    """am are was were will would shall should can could may might must have had need want wanna gotta gonna
    think guess hope plan expect know mean feel believe suppose wonder wish promise bet agree do don't
    didn't won't can't cannot is has says thinks wants needs hopes plans knows means does said
    at to in on for from with by of the a an and or but so all both too here there later then""".split()
)
# "are you free at 3pm?", "when you get here at 6": the pronoun is no habit's subject.
_NOT_BEFORE_SUBJECT = frozenset(
    """are do does did can could will would should shall is was were have has may might must when if once
    after before until till as because so""".split()
)
CONTRAST = re.compile(
    r"\b(?:but|except|although|though|however|whereas|instead)\b|但是|但|可是|不过|然而|只是"
)


def simple_present(low: str) -> bool:
    for m in EN_SUBJECT_VERB.finditer(low):
        v = m["v"]
        before = EN_WORD.findall(low[max(0, m.start() - 12) : m.start()])
        if before and before[-1] in _NOT_BEFORE_SUBJECT:
            continue
        if v in _NOT_HABIT_VERBS or v in EN_PAST_WORDS or v.endswith(("ed", "ing", "n't")):
            continue
        if m["p1"] or v.endswith("s"):
            return True
    return False


@dataclass(slots=True)
class Clause:
    start: int  # absolute offsets in the turn
    end: int
    habit: bool  # a recurrence cue: every weekday, time and "on the 5th" in it is a routine
    routine_time: bool  # present simple without tense cues: its lone times of day are a routine
    # comma clauses past the reach of the habit cue that say a one-off of their own (`_habit_reach`)
    one_offs: tuple[tuple[int, int], ...] = ()


# A comma and a coordinator start a clause with a tense of its own: "We're hosting a barbecue on
# Sunday, and I've ordered the burgers" — the order is past, the barbecue is not.
EN_COORDINATED = re.compile(r",\s*(?:and|so|then|plus)\b")
# The present progressive of an arrangement: "we're hosting … on Sunday", "I'm seeing her Friday".
EN_PROGRESSIVE = re.compile(
    r"\b(?:i'm|i am|we're|we are|you're|you are|they're|they are|he's|she's|is|are|am)"
    r"\s+(?:\w+ly\s+|still\s+|also\s+)?(?!going\b)\w{3,}ing\b"
)


# A coordinated clause in the present that says what is when: "…, and wednesday 11am is the closing
# on the condo" is ahead, whatever the clause before it did ("at 4:15 i finally got the PT eval")
# (the day, with its clock, is what the clause is about: not "grandma's still recovering from Saturday")
_IS_NOW = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*(?:\s+(?:at\s+)?\d[\d:.]*\s*(?:[ap]\.?m\b\.?)?)?\s*(?:is|'s)\s"
)


# "on/this Friday", or a bare "Friday" ("I'm taking friday off"), not "from/since Saturday"
_ON_DAY = re.compile(r"(?<!from )(?<!since )\b(?:(?:on|this)\s+)?(?:mon|tue|wed|thu|fri|sat|sun)\w*")


# Chinese chat often separates clauses with a space instead of a comma ("周六早上五点五十的高铁去
# 黄山 杭州东 五点就得打车出门 我是不是疯了"): a space between two Chinese characters is one too
# ... and so is an emoji between two clauses ("周日早上七点的高铁去杭州 🚄 终于不用天天改方案了")
# (EMOJI: the pictographs and symbols chat uses as punctuation, with the joiner and the variation
# selector that build one emoji out of several ("😮‍💨"), for a character class)
EMOJI = "\U0001f300-\U0001faff\u2600-\u27bf\u200d\ufe0f"
ZH_COMMA = re.compile(rf"[，,]|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|\s*[{EMOJI}]+\s*")
_PROPER_ED = re.compile(r"(?<=[\w,]\s)[A-Z][a-z]+ed\b")
# a clause that opens on a thing (no person: 我, 你, 他, 她, 咱, 大家) and says it is already so,
# the thing said with what it is for ("去伊瓜苏的机票已经买好了") or as one more ("酒店也已经订好了")
ZH_STATE = re.compile(
    r"^\s*(?![我你他她咱大])(?:[^，,的\s]{1,10}的)?[\u4e00-\u9fff]{1,6}?(?:都|也)?(?:已经|早就|已)"
)


# the characters of Chinese dates and times (and what stands around them in a clause): a clause
# with two other characters names something beside its date
_ZH_DATE_CHARS = re.compile(
    r"[周星期礼拜一二三四五六七日天早中晚上下午夜凌晨傍点半刻分号月年今明后前两零〇十百整钟这个下每第\d\s:：]"
)


# English words of dates and times, and the little words around them
_EN_DATE_WORDS = frozenset(
    """the a an on at for by in of this next coming tomorrow tonight today morning afternoon evening night
    noon midday am pm monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur
    thurs fri sat sun january february march april may june july august september october november
    december jan feb mar apr jun jul aug sep sept oct nov dec week weekend month is are it's and or
    then so just""".split()
)


# a clause that names a day or a time of its own (digits, a weekday or month, 点 / 号 / 周X / 星期)
_TIMED = re.compile(
    r"\d|[一二三四五六七八九十两]+[点号]|周[一二三四五六日天末]|星期|礼拜|[一二三四五六七八九十]月"
    r"|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*day\b|\b(?:yesterday|today|tomorrow|tonight|noon|midnight)\b"
)


# ... and one that names a day or a time as a date does, not any number: "the 28 was packed again"
# (a tram) is no step of a timeline
_TIMED_AS_DATE = re.compile(
    r"\d{1,2}[:.：]\d\d|\d\s*(?:[ap]\.?m\b|[点點号號时時日月])|\b(?:at|on|by|till|until)\s+\d|\d(?:st|nd|rd|th)\b"
    # a year is a date too ("(June 1 - Aug 31, 2022) offered …": the campaign's days are past)
    r"|\b(?:19|20)\d\d\b"
    r"|[一二三四五六七八九十两]+[点号]|周[一二三四五六日天末]|星期|礼拜|[一二三四五六七八九十]月"
    r"|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*day\b|\b(?:yesterday|today|tomorrow|tonight|noon|midnight)\b"
)


def _plain_event(part: str) -> bool:
    """A clause that names something beside its date (two words or characters of its own) and
    has no tense cue of its own."""
    if tense(part) != "":
        return False
    if not _han(part):
        words = [w for w in EN_WORD.findall(part) if w not in _EN_DATE_WORDS and not w[0].isdigit()]
        return len(words) >= 2
    return len(re.findall(r"[\u4e00-\u9fff]", _ZH_DATE_CHARS.sub("", part))) >= 2


def _ahead_of_its_own(part: str) -> bool:
    """A comma clause beside a past one that is not in the past: a plain event with its date, or
    a clause whose own tense is the future or an arrangement."""
    return _plain_event(part) or tense(part) == "future" or _arranged(part)


def _arranged(part: str) -> bool:
    """An arrangement: a present progressive and an "on/this <weekday>" in the same clause
    ("recovering from Saturday" is no arrangement)."""
    return bool(EN_PROGRESSIVE.search(part.replace("’", "'")) and _ON_DAY.search(part))


@dataclass(slots=True)
class Part:
    """A coordinated clause and its own tense ('' when it has no cue of its own)."""

    start: int  # absolute offsets in the turn
    end: int
    tense: str


@dataclass(slots=True)
class Sentence:
    tense: str
    continues: bool  # starts with "or"/"and": a fragment that keeps the previous sentence's tense
    clauses: list[Clause] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)  # only when the sentence is coordinated

    def tense_at(self, pos: int) -> str:
        """The tense around ``pos``: its coordinated clause's own, else the sentence's."""
        for part in self.parts:
            if part.start <= pos < part.end:
                return part.tense or self.tense
        return self.tense

    def habitual(self, pos: int, kind: str, days: tuple[int, ...] = ()) -> bool:
        """Whether a hit of ``kind`` at ``pos`` is part of a routine, not a one-off date. ``days``:
        where the sentence's other date expressions (not times) start. A present simple beside a
        one-off day is a timetable, not a routine ("sunday we play in Milwaukee at 6:55am", "the
        train leaves Friday at 7:05"): its time stays."""
        if kind == "fixed":
            return False
        for c in self.clauses:
            if c.start <= pos < c.end:
                dated = any(c.start <= d < c.end for d in days)
                for lo, hi in c.one_offs if c.habit else ():
                    if lo <= pos < hi and (kind != "time" or any(lo <= d < hi for d in days)):
                        return False
                return c.habit or (kind == "time" and c.routine_time and not dated)
        return False


def _han(text: str) -> bool:
    """Chinese text, read with the Chinese cues: an English sentence with an emoji is not ASCII
    and is still English ("mondays are the worst and monday i have 1:1s 🙃 …")."""
    return bool(_HAN.search(text))


_EN_COMMA = re.compile(
    rf"[,;]|\s*[{EMOJI}]+\s*"
)  # (an emoji is a comma in chat: "… to noon 🙃 THEN at 4:15 …")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _habit_reach(part: str, offset: int) -> tuple[tuple[int, int], ...]:
    """The comma clauses a clause's recurrence cue does not reach. A cue said with a statement of
    its own in its comma clause ("组里天天开会", "I run every morning") is about that statement; a
    later comma clause that says a one-off of its own, by its tense or an arrangement ("…，周五下午
    三点半约了牙医", "…, friday I'm seeing the dentist at 3"), is not part of the routine. A later
    clause without one stays in it ("我平时七点起床，周末睡到九点"), and so does everything after a
    cue said alone ("every other week, friday at 4, the retro", "每周，周一…"). Offsets in the turn."""
    cut_at = [m.end() for m in (_EN_COMMA if not _han(part) else ZH_COMMA).finditer(part)]
    bounds = list(pairwise([0, *cut_at, len(part)]))
    last = None
    for k, (lo, hi) in enumerate(bounds):
        piece = part[lo:hi]
        cue = EN_HABIT.search(piece) or (None if not _han(piece) else ZH_HABIT.search(piece))
        if cue is None:
            continue
        rest = piece[: cue.start()] + " " + piece[cue.end() :]
        if (len(EN_WORD.findall(rest)) < 2) if not _han(piece) else (len(_HAN.findall(rest)) < 3):
            return ()  # the cue alone heads what follows
        last = k
    if last is None:
        return ()
    return tuple(
        (offset + lo, offset + hi)
        for lo, hi in bounds[last + 1 :]
        if tense(part[lo:hi]) in ("future", "past") or _arranged(part[lo:hi]) or _IS_NOW.search(part[lo:hi])
    )


def sentence(text: str, low: str, offset: int) -> Sentence:
    """The cues of one sentence ``text`` (``low`` lower-cased) that starts at ``offset`` in the turn."""
    # a capitalised "-ed" word inside the sentence is a name ("out of Stansted"), not a past tense:
    # blanked (same length, offsets hold) before the tense is read
    for m in _PROPER_ED.finditer(text) if len(text) == len(low) else ():
        low = low[: m.start()] + " " * (m.end() - m.start()) + low[m.end() :]
    info = Sentence(tense(low), bool(EN_CONTINUES.match(low)))
    bounds = [0, *(m.start() for m in CONTRAST.finditer(low)), len(low)]
    for lo, hi in pairwise(bounds):
        part = low[lo:hi]
        habit = bool(EN_HABIT.search(part) or (_han(part) and ZH_HABIT.search(part)))
        routine = (
            not habit and simple_present(part) and (tense(part) if len(bounds) > 2 else info.tense) == ""
        )
        one_offs = _habit_reach(part, offset + lo) if habit else ()
        info.clauses.append(Clause(offset + lo, offset + hi, habit, routine, one_offs))
    if _han(low):
        # "周六早上六点四十的火车，票已经买好了": a clause whose subject is a thing and whose cue is
        # 已(经) states that thing now (the ticket is bought); it does not put the train in the past
        cuts = [0, *(m.end() for m in ZH_COMMA.finditer(low)), len(low)]
        state = [(lo, hi) for lo, hi in pairwise(cuts) if ZH_STATE.match(low[lo:hi])]
        # ... and only beside a clause that names an event with 的 (周六的火车, not a bare 周六，)
        named = any("的" in low[lo:hi] for lo, hi in pairwise(cuts) if (lo, hi) not in state)
        if state and named and len(cuts) > 2:
            rest = "".join(low[lo:hi] for lo, hi in pairwise(cuts) if (lo, hi) not in state)
            info.tense = tense(rest)
            info.parts = [
                Part(offset + lo, offset + hi, tense(low[lo:hi]) if (lo, hi) in state else "")
                for lo, hi in pairwise(cuts)
            ]
    if not _han(low):
        cuts = [0, *(m.start() for m in EN_COORDINATED.finditer(low)), len(low)]
        if len(cuts) > 2:
            for lo, hi in pairwise(cuts):
                part = low[lo:hi]
                own = tense(part) or ("future" if _arranged(part) or _IS_NOW.search(part) else "")
                info.parts.append(Part(offset + lo, offset + hi, own))
    if not info.parts and info.tense == "past":
        # A past word in one clause does not date the others: in "rang the vet, the booster is
        # booked for the 3rd at 4.15" or "3号下午两点半洗牙，…，终于约上了" / "周日早上六点半集合，
        # …，名我已经报上了" the past belongs to the phone call or the booking, and the
        # appointment's own clause says nothing of the past. A comma clause that names something
        # beside its date and has no cue of its own is not put in the past by its neighbours; a
        # bare date clause ("on Saturday, went hiking", "周六，去爬山了") still takes the sentence's.
        # A timeline is the exception: "事故下午两点二十开始，三点十分才恢复了" — when the past
        # clause names a time of its own, the clauses before it are earlier steps of the same story.
        # A clause that says its own future or arrangement is ahead all the more ("been swamped all
        # week, on friday I'm getting my teeth cleaned").
        cuts = [0, *(m.end() for m in ZH_COMMA.finditer(low)), len(low)]
        spans = list(pairwise(cuts))
        past_dated = any(
            tense(low[lo:hi]) == "past" and _TIMED_AS_DATE.search(low[lo:hi]) and not _arranged(low[lo:hi])
            for lo, hi in spans
        )
        if len(cuts) > 2 and not past_dated:
            ahead = [_ahead_of_its_own(low[lo:hi]) for lo, hi in spans]
            # a bare date clause before a clause that names only the thing or the place, with no
            # tense of its own, is that thing's date ("抢了一周，周四下午两点，木洞那个出入境"); not
            # a clause that says more than its date ("假条批了，30号下午请半天，领导居然没多问")
            for k, (lo, hi) in enumerate(spans[:-1]):
                nlo, nhi = spans[k + 1]
                if (
                    not ahead[k]
                    and _TIMED.search(low[lo:hi])
                    and not _HAN.search(
                        _ZH_DATE_CHARS.sub("", low[lo:hi]).replace("八", "").replace("九", "")
                    )
                    and tense(low[lo:hi]) == ""
                    and _plain_event(low[nlo:nhi])
                ):
                    ahead[k] = True
            info.parts = [
                Part(offset + lo, offset + hi, "future" if a else "")
                for (lo, hi), a in zip(spans, ahead, strict=True)
            ]
    return info
