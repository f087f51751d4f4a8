"""Rule-based extraction: kept resources in, item drafts in six categories out (pure functions).

Each turn that is not noise becomes one item whose category is decided by surface rules
(preference → profile → entity → case → pattern → event, first match wins) and whose L1 holds
the fields of that category. The item's L0 is the turn itself, attributed to its speaker
("Caroline: I went to a support group yesterday."), with relative dates resolved against the
event time in the scope's time zone. Importance and confidence follow rules stated below.
The optional LLM extractor (`daemon.memory.llm`) produces the same drafts when configured.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import rjieba

from daemon.memory.dates import DateMention, planned, resolve_dates, span_days
from daemon.memory.types import ItemDraft, ResourceIn
from daemon.memory.write.noise import is_noise

_UTC = ZoneInfo("UTC")
_END = r"(?=[.,;!?。，；！？]|\s+(?:and|but|because|since|so|when|though)\b|$)"  # where a value stops
_VALUE = rf"(?P<value>[^.,;!?。，；！？]{{1,60}}?){_END}"

# ---- preferences: {key, value, negative, instead_of} --------------------------------------
_PREF_FAV = re.compile(
    rf"\bmy\s+(?:all[- ]time\s+)?favou?rite\s+(?P<key>[a-z][a-z ]{{0,30}}?)\s+(?:is|are|was|has to be)\s+{_VALUE}",
    re.IGNORECASE,
)
_PREF_INSTEAD = re.compile(
    r"\b(?:use|using|switch(?:ed|ing)? to|go(?:ing)? with|went with|prefer|moved to|chose|choose)\s+"
    r"(?P<value>[\w .+#'-]{1,40}?),?\s+(?:not|instead of|rather than|over)\s+(?P<old>[\w .+#'-]{1,40}?)"
    + _END,
    re.IGNORECASE,
)
_PREF_NEG = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|just\s+|still\s+)?(?:"
    # a negated liking verb ("I don't like X", "I no longer eat X") ...
    r"(?:don't|do not|no longer|never|won't)\s+(?:really\s+|much\s+)?(?:like|love|enjoy|eat|drink|use|want|care for)"
    # ... or a verb of dislike ("I hate X", "I can't stand X")
    r"|can't stand|cannot stand|hate|dislike|detest|am not (?:a fan of|into))\s+" + _VALUE,
    re.IGNORECASE,
)
_PREF_POS = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|also\s+|just\s+|still\s+|absolutely\s+|totally\s+|always\s+|usually\s+|generally\s+)?"
    r"(?:like|love|prefer|enjoy|adore|am (?:a (?:big |huge )?fan of|into|passionate about))\s+" + _VALUE,
    re.IGNORECASE,
)
_ZH_STOP = r"(?=[，。！？,.!?；;]|$)"
_PREF_ZH_FAV = re.compile(
    rf"我最(?:喜欢|爱)的(?P<key>[^，。！？,.!?的]{{1,6}})是(?P<value>[^，。！？,.!?]{{1,20}}?){_ZH_STOP}"
)
_PREF_ZH_INSTEAD = re.compile(
    rf"(?:以后都?|都|请|就)?(?:用|改用|换成|选)(?P<value>[^，。！？,.!?]{{1,20}}?)[，,]?\s*(?:不要|别|不|而不是)(?:再)?(?:用|选)?(?P<old>[^，。！？,.!?]{{1,20}}?){_ZH_STOP}"
)
_PREF_ZH_NEG = re.compile(
    rf"我(?:不再|不太|不|从不|讨厌|受不了)(?:喜欢|爱|吃|用)?(?P<value>[^，。！？,.!?]{{1,20}}?){_ZH_STOP}"
)
_PREF_ZH_POS = re.compile(
    rf"我(?:很|真|特别|非常|最|也|还是|一直)?(?:喜欢|爱|偏好|热爱)(?P<value>[^，。！？,.!?]{{1,20}}?){_ZH_STOP}"
)
_PREF_ZH_ALWAYS = re.compile(rf"以后都(?:用|要|喝|吃)(?P<value>[^，。！？,.!?]{{1,20}}?){_ZH_STOP}")

# ---- profile: {attribute, value} ---------------------------------------------------------
_PROFILE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("name", re.compile(rf"\b(?:my name is|i'm called|i am called|call me)\s+{_VALUE}", re.IGNORECASE)),
    ("age", re.compile(r"\bi(?:'m| am)\s+(?P<value>\d{1,3})\s+years?\s+old\b", re.IGNORECASE)),
    ("job", re.compile(rf"\bi(?:'m| am)?\s*work(?:ing)? as\s+(?:an?\s+)?{_VALUE}", re.IGNORECASE)),
    ("employer", re.compile(rf"\bi(?:'m| am)?\s*work(?:ing)? (?:at|for)\s+{_VALUE}", re.IGNORECASE)),
    (
        "location",
        re.compile(
            rf"\bi(?:'ve| have)?\s*(?:live|living|moved|relocated)\s+(?:in|to)\s+{_VALUE}", re.IGNORECASE
        ),
    ),
    ("origin", re.compile(rf"\bi(?:'m| am) (?:originally )?from\s+{_VALUE}", re.IGNORECASE)),
    ("origin", re.compile(rf"\bi grew up in\s+{_VALUE}", re.IGNORECASE)),
    ("birthday", re.compile(rf"\bmy birthday is\s+{_VALUE}", re.IGNORECASE)),
    ("name", re.compile(r"我(?:叫|的名字是)(?P<value>[^，。！？,.!?\s]{1,8})")),
    ("age", re.compile(r"我(?:今年)?(?P<value>\d{1,3}|[一二三四五六七八九十]{1,3})岁")),
    ("employer", re.compile(r"我在(?P<value>[^，。！？,.!?]{2,12}?)(?:工作|上班)")),
    (
        "job",
        re.compile(
            r"我(?:的工作|的职业)?是(?:一名|一个|一位)?(?P<value>[^，。！？,.!?]{1,10}?(?:师|员|家|生|工|医生|经理|老师|律师))"
        ),
    ),
    ("location", re.compile(r"我(?:住在|搬到了?|定居在?)(?P<value>[^，。！？,.!?]{2,12})")),
    ("origin", re.compile(r"我(?:来自|是)(?P<value>[^，。！？,.!?]{2,8}?)人")),
]
_PROPER = frozenset({"name", "employer", "location", "origin"})
# Attributes a person has one of at a time: a new value supersedes the old one.
SINGLE_VALUED = frozenset({"name", "age", "job", "employer", "location", "birthday"})

# ---- entities: {name, type, attribute} -----------------------------------------------------
_RELATIONS_EN = (
    "dog|cat|pet|puppy|kitten|horse|sister|brother|mom|mother|dad|father|wife|husband|partner|boyfriend|"
    "girlfriend|fiance|fiancee|son|daughter|friend|best friend|boss|manager|colleague|coworker|doctor|"
    "dentist|therapist|neighbor|neighbour|landlord|roommate|teacher|mentor|grandma|grandpa|aunt|uncle|cousin"
)
# The relation is matched case-insensitively, the name must be capitalised: "my boss called me"
# names nobody.
_ENTITY_EN = re.compile(
    rf"(?i:\bmy\s+(?:new\s+|little\s+|older\s+|younger\s+|old\s+)?(?P<rel>{_RELATIONS_EN})(?:'s name is|\s+is called|"
    r"\s+is named|\s+named|\s+called|,))\s+(?P<name>[A-Z][\w'-]+)"
)
_ENTITY_EN_IS = re.compile(
    rf"\b(?P<name>[A-Z][\w'-]+)\s+is\s+my\s+(?:new\s+|little\s+|older\s+|younger\s+)?(?P<rel>{_RELATIONS_EN})\b"
)
_RELATIONS_ZH = "狗|猫|宠物|姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|老婆|老公|妻子|丈夫|女朋友|男朋友|儿子|女儿|朋友|老板|经理|同事|医生|室友|老师"
_ENTITY_ZH = re.compile(
    rf"我的?(?P<rel>{_RELATIONS_ZH})(?:叫|名叫|的名字是)(?P<name>[^，。！？,.!?\s]{{1,6}})"
)
_ENTITY_ZH_IS = re.compile(rf"(?P<name>[^，。！？,.!?\s我]{{1,4}})是我的?(?P<rel>{_RELATIONS_ZH})")
# Relations a person has one of at a time: a new name for them supersedes the old one.
SINGULAR_RELATIONS = frozenset(
    "wife husband partner boyfriend girlfriend fiance fiancee boss manager dentist doctor therapist landlord "
    "老婆 老公 妻子 丈夫 女朋友 男朋友 老板 经理 医生".split()
)

# ---- cases {problem, solution} and patterns {behavior, frequency} ---------------------------
_CASE = re.compile(
    r"\b(?P<verb>fixed|solved|resolved|the (?:fix|solution|workaround|trick) (?:is|was)|turned out|figured out|"
    r"learned that|worked around)\b|(?P<zh>解决了|修好了|原来是|解决办法是|办法是)",
    re.IGNORECASE,
)
_CASE_BY = re.compile(r"\b(?:by|with|after)\s+(?P<solution>[^.;!?]{3,80})", re.IGNORECASE)
_PATTERN = re.compile(
    r"\b(?P<freq>always|usually|normally|every (?:single )?(?:day|week|month|morning|night|evening|weekend|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|often|most (?:days|mornings|nights)|"
    r"each (?:day|week|morning)|never|habit|routine|weekly|daily)\b"
    r"|(?P<zh>总是|经常|每天|每周|每个?月|每晚|每早|习惯|从不|一般都|通常)",
    re.IGNORECASE,
)
_EXPLICIT = re.compile(
    r"\b(remember|always|never|important|don't forget|do not forget|make sure)\b|记住|以后都|千万|重要|一定要|别忘",
    re.IGNORECASE,
)
_PIN = re.compile(r"\b(remember (that|this)|don't forget|do not forget)\b|记住|别忘了", re.IGNORECASE)
_HEDGE = re.compile(
    r"\b(maybe|perhaps|probably|might|i think|i guess|not sure|possibly)\b|可能|也许|大概|好像", re.IGNORECASE
)
_WHERE = re.compile(r"\b(?:at|in|to|near|from)\s+(?:the\s+)?(?P<where>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,3})")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_ZH_PLACE_CUES = frozenset({"在", "到", "去"})
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b(?P<name>[A-Z][a-z]{2,})\b")
_NOT_NAMES = frozenset(
    """The This That These Those What When Where Who Why How Yes Yeah Hey Thanks Thank Wow Oh Well And But
    So Also Just Really Sure Okay Great Good Nice Cool Awesome Sounds Hope Have Had Did Does Was Were Are Is
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July
    August September October November December Christmas Easter English Chinese LGBTQ""".split()
)
_PRONOUN = re.compile(r"\b(she|he|her|him|his|hers)\b|[他她]", re.IGNORECASE)
_VALUE_TRIM = re.compile(
    r"^(?:the|a|an|to|some|my|our|of)\s+|\s+(?:a lot|so much|very much|too|as well|more|the most|anymore|now)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What the extractor may know beyond the turn itself: the turn before it in the session."""

    prev_speaker: str = ""
    prev_text: str = ""
    tz: ZoneInfo = _UTC


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _clean(value: str) -> str:
    value = value.strip(" \"'“”‘’()[]")
    for _ in range(2):
        value = _VALUE_TRIM.sub("", value).strip()
    return value


def preference_fields(text: str) -> dict[str, Any] | None:
    """{key, value, negative, instead_of} of a stated preference, or None."""
    for rx in (_PREF_FAV, _PREF_ZH_FAV):
        m = rx.search(text)
        if m:
            return {"key": _clean(m["key"]).casefold(), "value": _clean(m["value"]), "negative": False}
    for rx in (_PREF_INSTEAD, _PREF_ZH_INSTEAD):
        m = rx.search(text)
        if m:
            return {"key": "", "value": _clean(m["value"]), "negative": False, "instead_of": _clean(m["old"])}
    for rx, negative in ((_PREF_NEG, True), (_PREF_ZH_NEG, True), (_PREF_POS, False), (_PREF_ZH_POS, False)):
        m = rx.search(text)
        if m and _clean(m["value"]):
            return {"key": "", "value": _clean(m["value"]), "negative": negative}
    m = _PREF_ZH_ALWAYS.search(text)
    if m:
        return {"key": "", "value": _clean(m["value"]), "negative": False}
    return None


def profile_fields(text: str) -> dict[str, Any] | None:
    """{attribute, value} of a fact about the speaker themself, or None."""
    for attribute, rx in _PROFILE_RULES:
        m = rx.search(text)
        if m:
            value = _clean(next((v for v in m.groups() if v), ""))
            # In English a place, employer or name is a proper noun: "I live in Boston", not
            # "I live in fear", "I'm working at home", "I moved to a new team".
            if attribute in _PROPER and value[:1].isascii() and not value[:1].isupper():
                continue
            if value:
                return {"attribute": attribute, "value": value}
    return None


def entity_fields(text: str) -> dict[str, Any] | None:
    """{name, type, attribute}: a named person, pet or thing in the speaker's life, or None."""
    for rx in (_ENTITY_EN, _ENTITY_EN_IS, _ENTITY_ZH, _ENTITY_ZH_IS):
        m = rx.search(text)
        if m:
            rel = m["rel"].casefold()
            kind = (
                "pet"
                if rel in {"dog", "cat", "pet", "puppy", "kitten", "horse", "狗", "猫", "宠物"}
                else "person"
            )
            return {"name": m["name"], "type": kind, "attribute": rel}
    return None


def case_fields(text: str) -> dict[str, Any] | None:
    """{problem, solution}: how something was solved, or None."""
    m = _CASE.search(text)
    if not m:
        return None
    before, after = text[: m.start()].strip(" ,.;"), text[m.end() :].strip(" ,.;:")
    by = _CASE_BY.search(after)
    solution = by["solution"].strip() if by else after
    problem = after[: by.start()].strip(" ,.;") if by else before
    return {"problem": problem or before, "solution": solution}


def pattern_fields(text: str) -> dict[str, Any] | None:
    """{behavior, frequency}: a habit or routine, or None."""
    m = _PATTERN.search(text)
    if not m:
        return None
    return {"behavior": text, "frequency": m.group(0).casefold()}


def _names(text: str, speaker: str) -> list[str]:
    found = []
    for m in _NAME.finditer(text):
        name = m["name"]
        if name not in _NOT_NAMES and name != speaker and name not in found:
            found.append(name)
    return found


def _where_zh(text: str) -> str:
    """The word after 在/到/去 (jieba segments it: 在西湖划船 → 西湖), for Chinese events; else a
    clause that is nothing but a venue's name (`_VENUE_CLAUSE_ZH`)."""
    if not _HAN.search(text):
        return ""
    # a venue's whole name after 在/到/去, not its first word ("在市中心的伊丽莎白女王剧院": the
    # theatre, not 市中心)
    if (at := _AT_VENUE_ZH.search(text)) is not None:
        return at["v"].rsplit("的", 1)[-1].strip()
    # ... or a place written in Latin letters after it ("在 Rambla 上 Kibón 那儿集合": Rambla)
    if (latin := _AT_LATIN_ZH.search(text)) is not None:
        return latin["p"].strip()
    words = [w for w in rjieba.cut(text) if w.strip() and w != "了"]
    for cue, word in itertools.pairwise(words):
        if cue in _ZH_PLACE_CUES and _HAN.search(word) and len(word) >= 2 and not _ZH_NOT_PLACE.match(word):
            return str(word)
    for clause in _CLAUSE_CUT_ZH.split(text):
        venue = " ".join(clause.split())
        if _VENUE_CLAUSE_ZH.fullmatch(venue) and not _NOT_A_NAME_ZH.search(venue):
            return venue
    return ""


# a clause that names only where, as chat lists the details after the plan ("下午一点半第一场，
# 路易港 Champ de Mars 赛马场，第一次去"): a name ending in what kind of place it is
_CLAUSE_CUT_ZH = re.compile(r"[，,。！？!?；;\n]|\s*[\U0001f300-\U0001faff\u2600-\u27bf]+\s*")
_VENUE_CLAUSE_ZH = re.compile(
    r"[\w'’.\- ]{1,40}?(?:场|館|馆|中心|医院|醫院|诊所|診所|广场|廣場|公园|公園|大厦|大廈|机场|機場|车站|車站|酒店"
    r"|餐厅|餐廳|大学|大學|学院|學院|教堂|剧院|劇院|影院|商场|商場)"
)
_AT_VENUE_ZH = re.compile(
    r"(?:在|到|去)(?P<v>[^，,。！!？?\n]{2,30}?(?:剧院|劇院|体育场|體育場|体育馆|體育館|音乐厅|音樂廳|医院|醫院|诊所|診所"
    r"|博物馆|博物館|美术馆|美術館|会展中心|會展中心|机场|機場|车站|車站|酒店|大学|大學|教堂|影院|赛马场|賽馬場))"
)
_AT_LATIN_ZH = re.compile(r"(?:在|到|去)\s*(?P<p>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})")
# ... and no clause with a person, a verb or a particle in it ("我去的那个场", "第一场")
_NOT_A_NAME_ZH = re.compile(r"[我你他她佢了要去在是有和就都也还還很把被给給吗嗎呢吧啊第一两兩个個]")


# what follows 在 and is no place: an adverb ("好在已经请好假了": 好在 is "luckily"), "together",
# now, here or there, or the start of a date ("就在這禮拜天", "在明天")
_ZH_NOT_PLACE = re.compile(
    r"(?:已经|已經|一起|现在|現在|这里|這裡|那里|那裡|这儿|那儿|这边|那边|這邊|那邊|这|這|那|今天|明天|后天|後天|昨天"
    r"|今晚|明晚|明早|今早|本周|本週|下周|下週|上周|上週|每|周[一二三四五六日天末]|週[一二三四五六日天末]|星期|礼拜|禮拜)"
)


def event_fields(
    text: str, speaker: str, dates: list[DateMention], at: datetime, ctx: TurnContext
) -> dict[str, Any]:
    """{what, when, where, who}. `who` starts with the speaker; a he/she is resolved to the one
    person the previous turn named, when it named exactly one (the rule cannot do better)."""
    when = dates[0].value if dates else at.astimezone(ctx.tz)
    where = _WHERE.search(text)
    place = where["where"] if where else _where_zh(text)
    who = [speaker] if speaker else []
    who += [n for n in _names(text, speaker) if n not in who and n not in place]
    if _PRONOUN.search(text):
        named = [n for n in _names(ctx.prev_text, speaker) if n != ctx.prev_speaker]
        if len(named) == 1 and named[0] not in who:
            who.append(named[0])
    return {
        "what": text,
        "when": when.isoformat(),
        "where": place or None,
        "who": who,
    }


def categorise(text: str) -> tuple[str, dict[str, Any] | None]:
    """The category and its L1 fields; the first matching rule decides, events by default."""
    for category, rule in (
        ("preferences", preference_fields),
        ("profile", profile_fields),
        ("entities", entity_fields),
        ("cases", case_fields),
        ("patterns", pattern_fields),
    ):
        fields = rule(text)
        if fields is not None:
            return category, fields
    return "events", None


MAX_DATE_CHARS = 2000
MAX_DATE_NOTES = 4

# The share each category adds to importance: facts about the person outlive episodes.
CATEGORY_IMPORTANCE = {
    "profile": 0.15,
    "preferences": 0.1,
    "entities": 0.05,
    "cases": 0.1,
    "patterns": 0.05,
    "events": 0.0,
}


def importance(resource: ResourceIn, text: str, category: str = "events", planned: bool = False) -> float:
    """Explainable importance in [0, 1]:
    - 0.5 for what the person (role user) says, 0.35 for the assistant's or other roles' turns;
    - +0.2 for explicit markers ("always", "never", "remember", "以后都", "记住");
    - + the category's share (profile 0.15, preferences and cases 0.1, patterns and entities 0.05);
    - +0.1 for a plan (an event with a date in the future).
    Repeated mentions add more later, when dedup finds the restatement."""
    base = 0.5 if resource.role in (None, "user") else 0.35
    if _EXPLICIT.search(text):
        base += 0.2
    base += CATEGORY_IMPORTANCE.get(category, 0.0)
    if planned:
        base += 0.1
    return round(min(base, 1.0), 3)


def confidence(resource: ResourceIn, text: str) -> float:
    """Explainable confidence in [0, 1]: first-hand statements of the person 0.7, the assistant's
    0.4; hedges ("maybe", "I think", "可能") take 0.2 off; a question asserts nothing (0.3 at most)."""
    c = 0.7 if resource.role in (None, "user") else 0.4
    if _HEDGE.search(text):
        c -= 0.2
    if text.rstrip().endswith(("?", "？")):
        c = min(c, 0.3)
    return round(max(c, 0.1), 3)


def date_label(ts: datetime) -> str:
    """The event date as words ("8 May 2023"), so that date questions can match it lexically."""
    return f"{ts.day} {ts.strftime('%B %Y')}"


def _date_note(dates: list[DateMention]) -> str:
    """ "(yesterday: 7 May 2023)": the resolved dates, so that the item means the same tomorrow."""
    parts = []
    for d in dates:
        label = date_label(d.value)
        if d.has_time:
            label += d.value.strftime(" %H:%M")
        parts.append(f"{d.text}: {label}")
    return f" ({'; '.join(parts)})" if parts else ""


def turn_line(text: str, speaker: str, at: datetime, tz: ZoneInfo) -> tuple[str, list[DateMention]]:
    """A turn as one attributed line with its relative dates resolved ("Caroline: I went there
    yesterday (yesterday: 7 May 2023)"): an item's L0, and what the embedding model sees of a
    turn, also when the understanding models are trained. Returns the dates found too."""
    text = _one_line(text)
    local = at.astimezone(tz)
    # dates are looked for at the start of long texts only, and at most a few are noted
    dates = resolve_dates(text[:MAX_DATE_CHARS], local, tz)[:MAX_DATE_NOTES]
    return (f"{speaker}: {text}" if speaker else text) + _date_note(dates), dates


_FIELDS = {
    "preferences": preference_fields,
    "profile": profile_fields,
    "entities": entity_fields,
    "cases": case_fields,
    "patterns": pattern_fields,
}


def extract(resource: ResourceIn, ctx: TurnContext, category: str | None = None) -> list[ItemDraft]:
    """Item drafts for one resource (empty for noise). Pure: same input, same drafts.

    `category` files the turn under a category decided elsewhere (the category model); by
    default the surface rules decide. The L1 fields are the category's own when its rule finds
    them, else the event fields (what, when, where, who)."""
    text = _one_line(resource.text)
    if is_noise(text):
        return []
    speaker = resource.speaker or resource.role or ""
    local = resource.occurred_at.astimezone(ctx.tz)
    l0, dates = turn_line(text, speaker, resource.occurred_at, ctx.tz)
    when = f"[{date_label(local)}]"
    prev = _one_line(ctx.prev_text)
    # The turn before often holds the question whose words the answer omits ("What got you
    # into running?" → "My doctor suggested it"): it is indexed as the item's context, with the
    # turn after it once that arrives, but never cited as the item's source.
    context = f"{when} {ctx.prev_speaker}: {prev}\n{l0}" if prev else f"{when} {l0}"
    if category is None:
        category, fields = categorise(text)
    else:
        rule = _FIELDS.get(category)
        fields = rule(text) if rule is not None else None
    future = [d for d in dates if d.direction == "future"]
    past = [d for d in dates if d.direction != "future"]
    # a habit is not due ("I run at 6am" recurs): the date resolver gives a routine no date, so a
    # date ahead it did find is a one-off, whatever the category model says ("明早七点半体检 …
    # 要空腹" read as a routine would get no reminder)
    due = planned(future, text)
    due_at = due.value if due is not None else None
    if category == "events" or fields is None:
        fields = event_fields(text, speaker, dates, resource.occurred_at, ctx)
    l1 = {**fields, "speaker": speaker, "role": resource.role}
    return [
        ItemDraft(
            category=category,
            l0=l0,
            search_text=f"{when} {l0}",
            context_text=context,
            speaker=speaker or None,
            session=resource.session,
            l1=l1,
            importance=importance(resource, text, category, planned=due_at is not None),
            confidence=confidence(resource, text),
            source_ids=(resource.id,),
            happened_at=past[0].value if past else resource.occurred_at,
            observed_at=resource.occurred_at,
            due_at=due_at,
            days=tuple(d.value for d in dates if span_days(d) == 1),
            evergreen=bool(_PIN.search(text)),
        )
    ]


def from_facts(
    resource: ResourceIn,
    ctx: TurnContext,
    rule: ItemDraft,
    facts: list[tuple[str, str, dict[str, Any], float, float]],
) -> list[ItemDraft]:
    """Drafts from facts an LLM extracted from one turn: (category, l0, l1, importance,
    confidence). Context, dates and provenance come from the turn's rule draft `rule`, so both
    paths index alike."""
    when = f"[{date_label(resource.occurred_at.astimezone(ctx.tz))}]"
    speaker = resource.speaker or resource.role or ""
    return [
        replace(
            rule,
            category=category,
            l0=" ".join(l0.split()),
            search_text=f"{when} {' '.join(l0.split())}",
            l1={**l1, "speaker": speaker, "role": resource.role},
            importance=round(min(max(imp, 0.0), 1.0), 3),
            confidence=round(min(max(conf, 0.0), 1.0), 3),
        )
        for category, l0, l1, imp, conf in facts
    ]


def context_line(resource: ResourceIn) -> str:
    """How a turn appears in its neighbours' context."""
    speaker = resource.speaker or resource.role or ""
    text = _one_line(resource.text)
    return f"{speaker}: {text}" if speaker else text
