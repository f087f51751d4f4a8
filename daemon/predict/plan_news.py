"""plan_news: a plan told in chat, called off or moved by someone else's e-mail (one plan, two sources).

"yoga w hannah wednesday 6:30" in the conversation, then Hannah writes "I have to bail on
tomorrow": the reminder for Wednesday is wrong. "周四晚上七点跟大学室友在小院子聚", then a friend
writes "周四去不了了，改到周六中午十二点吧，还是小院子": the reminder moves to Saturday. The memory
keeps both (the e-mail is the friend's statement, which never retires the person's own), so the
reminder asks at delivery. An e-mail is news of the plan when all of these hold:

- it came after the plan was told, and from someone else (the person's own mail is not news to them);
- it says a plan changed (moved, cancelled, can't make it, instead, 改到, 去不了, bail, 鸽);
- it names the plan's day (a date that resolves to the day of the plan), and
- it is tied to the plan by more than the day: the sender's name is in the plan ("w hannah"),
  or a word of the plan is in the mail ("小院子", "yoga").

It moves the plan when it names another day or time ahead that is not a question or a vague
"next week" (a proposal is no new plan); otherwise it calls the plan off. A proposal the person
accepts in their own reply in the thread ("Could we do Thursday at 10:30 instead?" — "Thursday
10:30 works for me") moves the plan to the proposed time: the two messages together are the new
plan.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from daemon.memory import Memory
from daemon.memory.dates import DateMention, resolve_dates
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import activity_terms, plan_change_cue
from daemon.predict.mail_change_model import reader_for
from daemon.predict.plan_text import sentence_around, sentence_spans, sentences
from daemon.state.email_rules import fresh_text
from daemon.state.mail_words import NO_REPLY, YES_REPLY, as_english, as_english_always, foreign

# colloquial ways to call something off that the memory's change cues leave to context
# (English words are bounded by letters, not \b: a Chinese mail writes "要cancel咗佢")
_OFF = re.compile(
    r"(?<![a-z])(?:bail(?:ed|ing)?|flak(?:e|ed|ing)|skip(?:ping)?|scrap(?:ped|ping)?|count me out"
    r"|can['’]?t swing it|pull(?:ed|ing)? out|drop(?:ped|ping)? out|bow(?:ed|ing)? out"
    r"|(?:won['’]?t|will not|not) be able to (?:make|come|do)|no (?:class|lesson|session|practice))(?![a-z])"
    r"|鸽|放鸽子|来不成|搞唔成|唔去住|去唔到|停课|暂停|不签了|不租了|不出租了|不用过来了",
    re.IGNORECASE,
)
# a plan moved in so many words beyond the memory's change cues: "rebooked your tour for Sunday",
# "retimed", "swapped our 1:1 to Wednesday", 顺延至, 调到, 调整至, 搬咗去
_MOVED = re.compile(
    r"(?<![a-z])(?:rebook(?:ed|ing)?|retimed|swap(?:ped|ping)?|bump(?:ed|ing)? (?:to|back))(?![a-z])"
    r"|顺延|调到|调整至|调整为|调整到|搬咗去|搬到|改咗|变更",
    re.IGNORECASE,
)
_QUESTION_TAIL = re.compile(r"^[^.!。！\n]*[?？]")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b|\d{4}\s*年|(?:今|去|明)年")
_LAST = re.compile(r"\blast\b|上(?:周|週|个|個)|前天|昨", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|(?:周|週|星期|礼拜|禮拜)[一二三四五六日天]", re.IGNORECASE
)
MAX_MAIL_CHARS = 2000  # the news is in the first lines; a long quote below is old news


# a plan called off in so many words, beside a move ("instead", "moved") that may only be a new
# place: "book club is at Lena's tomorrow instead … same time, 7pm" calls nothing off
_CANCEL = re.compile(
    r"(?<![a-z])(?:cancel+[a-z]*|call(?:ed|ing)? off|(?:is|are|'s|’s) off|can['’]?t make|cannot make"
    r"|won['’]?t make|no longer|not happening|rain check)(?![a-z])|取消|去不了|来不了|不去了|泡汤|改天",
    re.IGNORECASE,
)


# a sentence that asks for another time rather than setting it: "would you be able to bring the
# vehicle in on Wednesday", "we would like to propose rescheduling", 能否调整到, 考虑把…改到
_PROPOSES = re.compile(
    r"(?<![a-z])(?:would (?:you|it)|could (?:we|you|it)|can (?:we|you)|any chance|is there any|how about|what about"
    r"|propos(?:e|ed|ing)|suggest(?:ed|ing)?|if (?:that|it) works|let me know if|does .{1,40} work)(?![a-z])"
    r"|能否|能不能|可不可以|可否|是否可以|考虑|建议|征询|行不行|好不好|怎么样|如何",
    re.IGNORECASE,
)
# a sentence that sets the plan's new time: moved, rescheduled, instead, now, 改到, 调到, 顺延
_MOVES = re.compile(
    r"(?<![a-z])(?:mov(?:e|ed|es|ing)|re-?schedul\w*|postpon\w*|push(?:ed|es|ing)?|delay\w*|bump\w*|shift\w*"
    r"|brought forward|put off|instead|switch\w*|chang(?:e|ed|es|ing)|now|rebook\w*|retimed|swap\w*"
    r"|new (?:\w+ )?(?:time|departure|arrival|start|slot|date))(?![a-z])"
    r"|改到|改为|改在|改成|改咗|改期|推迟|推到|延期|延后|延至|顺延|提前|挪到|换到|换成|调到|调整|搬|移到|移至|新的?时间|新日时|变更",
    re.IGNORECASE,
)


# a clock the date reader leaves alone when no day stands beside it ("New departure: 17:20",
# 由21:10调整为19:35): read in a mail that names the plan's day, it is an hour of that day
_LONE_CLOCK = re.compile(
    r"(?<![\d:.])(?:(?P<h24>[01]?\d|2[0-3])[:：](?P<m24>[0-5]\d)(?!\d)(?!\s*(?:am|pm|a\.m|p\.m))"
    r"|(?P<h12>1[0-2]|0?[1-9])(?:[:.](?P<m12>[0-5]\d))?\s*(?P<ap>am|pm|a\.m\.?|p\.m\.?)(?![a-z]))",
    re.IGNORECASE,
)
# what the old time is written after: "(previously 14:50)", "instead of 9:30", 由21:10, 原定
_BEFORE_OLD = re.compile(
    r"(?:previously|originally|was|from|instead of|rather than|由|原定?|从)\s*$", re.IGNORECASE
)


def _another_time(sentence: str, sent: datetime, tz: ZoneInfo, due: datetime) -> bool:
    """The sentence names a day or a time still ahead of when the mail was sent, other than the
    plan's own (`due`)."""
    local = due.astimezone(tz)
    return any(
        m.direction != "past"
        and m.granularity in ("day", "time")
        and (
            m.value.astimezone(tz).date() != local.date()
            or (m.has_clock and m.value.astimezone(tz).time() != local.time())
        )
        for m in resolve_dates(sentence, sent, tz)
    )


# a change offered to the reader, not made: "you can reschedule online until Monday 5pm", "it can
# be cancelled free of charge up to 24 hours before", "Puede reprogramar la cita hasta el martes",
# "Vous pouvez modifier votre rendez-vous jusqu'à …" — the time after it is when the offer ends.
# (The modal verbs of the languages `mail_words` reads, left as written by it; a foreign one
# counts only when no "not" stands beside it: "kan helaas niet doorgaan" changes the plan.)
_OPTION = re.compile(
    r"(?<![a-z])(?:you|u)\s+(?:can|may|could|are\s+(?:able|welcome|free)\s+to|have\s+the\s+option\s+to)"
    r"|(?<![a-z])(?:can|may)\s+(?:also\s+)?be(?![a-z])|(?<![a-z])(?:feel\s+free|possible)\s+to(?![a-z])"
    r"|(?<![^\W\d_])(?P<foreign>puede[sn]?|podr[aá]n?|podr[eé]is|pouvez|pourrez|peut|peuvent|k[oö]nnen|koennen|kann"
    r"|pu[oò]|puoi|potete|potr[aà]|pode[ms]?|poder[aá]|kunt|kan|dapat|bisa|boleh)(?![^\W\d_])",
    re.IGNORECASE,
)
_NOT_BESIDE = re.compile(
    r"(?<![^\W\d_])(?:not|no|non|nicht|kein\w*|niet|pas|ne|n['’]|tidak|tak|ikke|inte|ei)(?![^\W\d_])",
    re.IGNORECASE,
)
_BESIDE = 12  # characters either side of a foreign modal verb looked at for its "not"


def _offered(clause: str) -> bool:
    """Whether the clause offers a change to the reader rather than making it: a modal verb of
    the reader's option before its first word of change."""
    cue = _MOVES.search(clause)
    if cue is None:
        return False
    for m in _OPTION.finditer(clause, 0, cue.start()):
        if m["foreign"] is None:
            return True
        if not _NOT_BESIDE.search(clause[max(0, m.start() - _BESIDE) : m.end() + _BESIDE]):
            return True
    return False


def _moves(sentence: str) -> bool:
    """Whether a clause of the sentence says the plan moves (not only how it could be moved)."""
    return any(_MOVES.search(c) and not _offered(c) for c in _CLAUSE.findall(sentence))


def _proposes(sentence: str) -> bool:
    return bool(_PROPOSES.search(sentence))


def offers_a_time(sentence: str) -> bool:
    """The sentence asks for a time rather than setting it ("could we do Wednesday", "能否")."""
    return _proposes(sentence)


def _lone_clock_move(
    text: str,
    mentions: list[DateMention],
    day: date,
    due: datetime,
    moves: Callable[[str], bool] = _moves,
    proposes: Callable[[str], bool] = _proposes,
) -> datetime | None:
    """The plan's new hour told without its day, in a sentence that says it moves (`moves`, and
    not `proposes`): the first clock no date expression covers, not written as the old time, and
    not the plan's own."""
    for m in _LONE_CLOCK.finditer(text):
        if any(d.start <= m.start() < d.end for d in mentions) or _BEFORE_OLD.search(
            text[max(0, m.start() - 14) : m.start()]
        ):
            continue
        said_in = sentence_around(text, m.start())
        if not moves(said_in) or proposes(said_in):
            continue
        hour = int(m["h24"] or m["h12"])
        minute = int(m["m24"] or m["m12"] or 0)
        if m["ap"]:
            hour = hour % 12 + (12 if m["ap"].lower().startswith("p") else 0)
        if (hour, minute) != (due.hour, due.minute):
            return due.replace(year=day.year, month=day.month, day=day.day, hour=hour, minute=minute)
    return None


# a cancellation said as a condition: "如需更改或取消预约，请提前致电", "if you need to cancel, call us"
_IF_ZH = "如需|如要|如果|若需|若要|如有需要"
_IF_BEFORE = re.compile(
    rf"(?:{_IF_ZH}|(?<![a-z])(?:if you|should you|in case)(?![a-z]))[^,，。.;；]{{0,20}}$", re.IGNORECASE
)


# (a clock's or a date's colon or dot parts no clause: "bis Mittwoch 18:00 Uhr kostenlos verschieben")
_CLAUSE = re.compile(r"(?:[^,，;；:：.!?。！？\n]|(?<=\d)[:.](?=\d))+[,，;；:：.!?。！？]*")
# … or opening its sentence: the whole sentence is the condition
_IF_START = re.compile(rf"^\W*(?:{_IF_ZH}|(?:if|should you|in case)(?![a-z]))", re.IGNORECASE)


def _tells_change(text: str, plan_text: str) -> bool:
    """Whether the mail tells a change, not only how one would ask for it: a clause with a
    change cue that is no condition ("如需更改或取消预约", "if you need to reschedule, call us")."""
    plan = activity_terms(plan_text)
    for s in sentence_spans(text):
        if _IF_START.search(s):
            continue  # "If you need to cancel, please call": the whole sentence is the condition
        if any((_changes(c) and not _offered(c)) or _no_plan(c, plan) for c in _CLAUSE.findall(s)):
            return True
    return False


# "no pilates on Thursday", "no choir this week": the plan's own activity, said not to happen
_NO_THING = re.compile(r"(?<![a-z])no\s+([a-z][a-z'’-]+)", re.IGNORECASE)


def _no_plan(clause: str, plan: set[str]) -> bool:
    return any(activity_terms(m.group(1)) & plan for m in _NO_THING.finditer(clause))


def _called_off(text: str, plan_text: str) -> bool:
    """Whether the mail calls something off, not only says how one would."""
    plan = activity_terms(plan_text)
    return any(
        not _IF_BEFORE.search(text[max(0, m.start() - 24) : m.start()])
        for cue in (_CANCEL, _OFF)
        for m in cue.finditer(text)
    ) or any(_no_plan(s, plan) for s in sentence_spans(text) if not _IF_START.search(s))


# a plan said to stand: "still on for lunch", "remains booked for Tuesday at 9am", "will still
# start at 10:00", 照常, 照旧, 照打, 如期, 时间不变 (a place that stays, 地点不变, says nothing of when)
_STANDS = re.compile(
    r"(?<![a-z])(?:still (?:on|happening|going ahead|going|starts?|at|set|booked|scheduled)|remains?"
    r" (?:booked|on|scheduled|unchanged|as (?:planned|scheduled))|stays? (?:at|on|as)|(?:is|are) unchanged"
    r"|as planned|as scheduled|goes ahead|going ahead|not affected|unaffected|we['’]ll keep|see you)(?![a-z])"
    r"|照常|照旧|照打|照去|照开|照样|如期|不受影响",
    re.IGNORECASE,
)
# … and said of the day and time themselves, which needs no word of the plan beside it ("Same day
# and time, Saturday 2–4pm", 时间不变): a mail that names the plan's day says it of that plan
_STANDS_TIME = re.compile(
    r"(?<![a-z])(?:same (?:day|date),? and time|same time and (?:day|date)|(?:class |start )?times? (?:is |are |stays? |remains? )?"
    r"(?:unchanged|the same))(?![a-z])|时间不变|时间维持|时间照旧|时间没变",
    re.IGNORECASE,
)


# "we will not be going ahead with your interview", "no longer on", 不再照常
_NOT_BEFORE = re.compile(
    r"(?:\b(?:not|never|no longer)\b|n['’]t\b|不|没|未)\W*(?:\w+\W+){0,2}\W*$", re.IGNORECASE
)


def _says_stands(sentence: str) -> bool:
    return any(not _NOT_BEFORE.search(sentence[: m.start()]) for m in _STANDS.finditer(sentence))


# the new slot given as a heading: "New time: Monday 1 November at 09:15", "Novi termin:" (read
# as "new slot :"), 新时间：
_NEW_SLOT = re.compile(
    r"(?<![a-z])new (?:\w+ )?(?:time|slot|date|appointment|departure|start)\s*[:：]|新的?(?:时间|日期)\s*[:：]",
    re.IGNORECASE,
)


def _changes(sentence: str) -> bool:
    return bool(
        plan_change_cue(sentence)
        or _NEW_SLOT.search(sentence)
        or _OFF.search(sentence)
        or _CANCEL.search(sentence)
        or _MOVED.search(sentence)
    )


def _stands(text: str, plan_text: str, due: datetime, sent: datetime, tz: ZoneInfo) -> tuple[bool, str]:
    """Whether the mail says the plan stands ("周一上午例会照常" — in a mail that moves another
    event), and what else it says changed about it: (False, "") when no sentence about the plan
    (one of its words, and no day but the plan's) says it stands; (True, "") when the only
    changes the mail tells are in sentences about something else; (True, sentence) when a
    change is told of the plan itself ("stays at 14:00, but we'll be in room Jacarandá")."""
    plan = activity_terms(plan_text)
    spans = sentence_spans(text)
    day = due.date()

    def about(s: str) -> bool:
        return bool(activity_terms(s) & plan)

    stand = [
        s
        for s in spans
        if ((_says_stands(s) and about(s)) or _STANDS_TIME.search(s))
        and all(
            _on_day(m, day, tz)
            and not (m.has_clock and (m.value.astimezone(tz).hour, m.value.minute) != (due.hour, due.minute))
            for m in resolve_dates(s, sent, tz)
            if m.granularity in ("day", "time")
        )
    ]
    if not stand:
        return False, ""
    told = [s for s in spans if _changes(s) and (s in stand or about(s) or not activity_terms(s))]
    return True, (told[0] if told else "")


# a mail naming where a moved plan is now ("New location: …", "新地点：…"; other languages through
# `mail_words`)
_NEW_PLACE = re.compile(
    r"\bnew (?:location|venue|address|place)\b|新地点|新地址|地点改|地点变|新场所|新会场|集合场所|集合地点"
    # ... or a line labelled with where, in a mail that moves the plan: "Local: Posto SAC Shopping
    # Barra", "Lugar: …", "Lieu : …", "Ort: …", "Location: …", "地点：…"
    r"|(?m:^[ \t]*(?:local|lugar|lieu|ort|luogo|sede|endere[çc]o|direcci[óo]n|location|venue|address|地点|地址)"
    r"[ \t]*(?=[:：]))",
    re.IGNORECASE,
)
# … or with no label, the address a moved plan is at now, written as streets are in most of the
# world's mail: a street word, its name, its number ("Av. Río Mixcoac 112", "Via Prenestina 212",
# "Rua Augusta 45", "Keizersgracht 123", "Hauptstraße 5")
_ADDRESS = re.compile(
    r"\b(?:Av(?:da)?\.|Avenida|Avenue|Ave\.|Via|Viale|Piazza|Corso|Calle|Carrer|Paseo|Rua|Rue|Boulevard|Blvd\.?"
    r"|Street|St\.|Road|Rd\.|Lane|Ulica|ul\.|Jalan|Jl\.|Bulevar|Bulevardul|Trg|Strada|Str\."
    # (in Cyrillic and Greek: "вул. Дегтярівська, 27", "ул. Ленина 5", "просп. Абая 150", "Οδός Ερμού 12")
    r"|вул\.|вулиця|ул\.|улица|пр\.|просп\.|проспект|пл\.|бул\.|Οδός|οδός|Λεωφόρος"
    # (Albanian: "Rruga e Kavajës 54", "Rrugën e Durrësit 12")
    r"|Rrug[aë]n?|Rr\.)"
    r"\s+(?:(?:de|del|della|di|da|do|dos|la|le|du|des|e)\s+)?"
    r"(?:[A-ZÀ-ÝА-ЯЁЄІЇҐΑ-Ω][\w'’ʼ.-]*\s+){0,3}[A-ZÀ-ÝА-ЯЁЄІЇҐΑ-Ω][\w'’ʼ.-]*,?\s+\d+[A-Za-z]?\b"
    r"|\b[A-ZÀ-Ý][\wäöüß]*(?:straße|strasse|gasse|weg|platz|gracht|laan|straat|gatan|vej|gade|katu|utca)\s+\d+[a-z]?\b"
    # … or numbered twice, as Czech and Slovak houses are ("Plzeňská 214/9")
    r"|\b[A-ZÀ-ÝČŘŠŽĎŤŇ][^\W\d_]+\s+\d+/\d+[a-z]?\b"
    # … or named before its street word, as Slavic, Turkish and Baltic addresses are ("Leninskim
    # Prospekcie 30", "Bağdat Caddesi 145", "Brīvības iela 40", "Gedimino gatvė 9")
    r"|\b[A-ZÀ-ÝČŘŠŽĎŤŇĀĒĪŪĢĶĻŅ][^\W\d_]+\s+(?:Prospe[kc]\w*|prospe[kc]\w*|Caddesi|Sokağı|Sokak|iela|gatvė|tee|cesta"
    r"|[Bb]ulvar\w*)\s+\d+[A-Za-z]?\b"
)


def _moved_to_alone(
    text: str,
    mentions: list[DateMention],
    due: datetime,
    sent: datetime,
    plan_text: str,
    sender: str = "",
    moves: Callable[[str], bool] = _moves,
) -> datetime | None:
    """The one new time a mail moves a plan to, when it names no other day at all and shares a
    word of what the plan is about, or comes from the place the plan names ("physio … at the
    Kinetyka place" and a mail from zapys@kinetyka.com.ua; a person's name alone is not enough
    here); else None."""
    org = _organisation(sender.rpartition("<")[2].rstrip(">"))
    from_the_place = (
        len(org) >= 4 and re.search(rf"(?<![a-z]){re.escape(org)}(?![a-z])", plan_text.lower()) is not None
    )
    if not (from_the_place or activity_terms(simplified(plan_text)) & activity_terms(text)):
        return None
    days = [m for m in mentions if m.granularity in ("day", "time")]
    if not days or any(m.direction == "past" for m in days):
        return None
    moved = [m for m in days if moves(sentence_around(text, m.start))]
    if len({m.value for m in days}) != 1 or not moved or moved[0].value <= sent:
        return None
    when = moved[0].value
    return when if moved[0].has_time else when.replace(hour=due.hour, minute=due.minute)


_STREET_WORDS = {
    w[:4]
    for w in (
        "avenida",
        "avenue",
        "via",
        "viale",
        "piazza",
        "corso",
        "calle",
        "carrer",
        "paseo",
        "rua",
        "rue",
        "boulevard",
        "blvd",
        "street",
        "road",
        "lane",
        "ulica",
        "jalan",
        "della",
        "del",
        "des",
        "dos",
    )
}


def _stems(text: str) -> set[str]:
    """Each word of `text` but the street words, without its last two letters (three letters at
    least): enough to know a street told in another case ("hoża 41" and "ul. Hożej 41")."""
    words = re.findall(r"[^\W\d_]{3,}", text.lower())
    return {w[: max(3, len(w) - 2)] for w in words if w[:4] not in _STREET_WORDS}


def _told_street(address: str, told: set[str]) -> bool:
    """Every word of the address's name begins as a word of the plan as told does."""
    named = _stems(address)
    return bool(named) and all(any(a.startswith(t) or t.startswith(a) for t in told) for a in named)


def _new_place(read: str, raw: str, plan_text: str) -> str:
    """Where a moved plan is now, as the mail writes it: what follows the label naming a new place
    ("Địa điểm mới: xưởng số 2 … tại KCN Sóng Thần", "Miejsce: ul. Marszałkowska 87") to the end of
    its sentence, without asides in brackets; else the first street address of the mail that is
    not the plan's as told ("La firma será en nuestra oficina de Av. Río Mixcoac 112"); else the
    place it "will be held at" (`_HELD_AT`); "" when it names none. `read`: the mail as the rules read it (`as_english`; as long as `raw` when only
    its characters were mapped)."""
    same = read == simplified(raw)  # only its characters mapped: the same places as written
    label = _NEW_PLACE.search(read.split("\n\n", 1)[-1])
    if label is not None:
        at = len(read) - len(read.split("\n\n", 1)[-1]) + label.end()
        rest = (raw if same else read)[at:].split("\n", 1)[0]
        rest = _SENTENCE_END.split(rest.lstrip(" :：-–"), maxsplit=1)[0]
        found = " ".join(re.sub(r"\s*[(（][^()（）]*[)）]", "", rest).split()).strip(" .。,，")
        if found:
            return found
    body = raw.split("\n\n", 1)[-1]
    told = _stems(plan_text)
    street = next((a.group(0) for a in _ADDRESS.finditer(body) if not _told_street(a.group(0), told)), "")
    if street:
        return street.rstrip(",")
    # (the last: "originally to be held at …, it will now take place at …" names the old place first)
    held = [h.group("place") or h.group("place_zh") for h in _HELD_AT.finditer(body)]
    return " ".join(held[-1].split()).strip(" .。,，") if held else ""


# ... or, with no label and no street, the place a moved plan "will be held at" now, in the
# languages mail comes in ("se realizará en el Hangar 3 del Aeropuerto …", "aura lieu à la Maison
# des Associations", "改在机场三号机库举行"; the last one named): a named place (a capital
# letter), up to an aside or the sentence's end
_HELD_AT = re.compile(
    r"\b(?:(?:will\s+)?(?:be\s+held|take\s+place|takes\s+place)|se\s+(?:realizar[áa]|celebrar[áa]|llevar[áa]\s+a\s+cabo|"
    r"tiendra|d[ée]roulera)|tendr[áa]\s+lugar|aura\s+lieu|avr[àa]\s+luogo|si\s+terr[àa]|ter[áa]\s+lugar|"
    r"ser[áa]\s+realizad[ao]|findet)\s+(?:(?:in|at|en|à|au|dans|a|em|no|na|im|presso)\s+)"
    r"(?:(?:the|el|la|los|las|le|les|il|lo|o|der|dem)\s+|l['’])?"
    r"(?P<place>[A-ZÀ-Ý][^.;:()\n]{1,80}?)(?=\s*[(.;:\n]|\s*$)"
    r"|在(?P<place_zh>[^，。；\s在]{2,20}?)(?:举行|举办|进行|召开)"
)


# the end of a sentence after an address: not the point of "ul.", "St.", "Av." (a short word before it)
_SENTENCE_END = re.compile(r"(?:(?<=[^\W\d_]{4})|(?<=\d)|(?<=\)))[.!](?:\s+|$)|[。！]")


@dataclass(frozen=True, slots=True)
class PlanNews:
    """What an e-mail did to a plan: `moved_to` the new time, or None when it called it off;
    `update`, the mail's sentence of a change that keeps the day and time (a new place)."""

    mail_id: str
    sender: str
    moved_to: datetime | None
    update: str = ""
    proposed: datetime | None = None  # a time the mail asks about instead ("Thursday at 10:30?")
    place: str = ""  # the mail's sentence naming a new place, beside a new time, as written
    # the sentence of a mail in another language the model alone reads as news of the plan (a move or
    # a proposal whose new time is not read), as written: the plan may be off, and is kept
    # (`maybe_off`)
    doubt: str = ""


def changes_when(n: PlanNews | None) -> bool:
    """The news calls the plan off or moves it to another time (not only a new place; not a
    cancellation only the model reads, which keeps the plan)."""
    return n is not None and not n.update and not n.doubt


def maybe_off(n: PlanNews | None) -> bool:
    """The news may call the plan off: only the model reads it as news, and no new time (`PlanNews.doubt`)."""
    return n is not None and bool(n.doubt)


def _folded(text: str) -> str:
    """`text` without its accents ("Maârif" → "Maarif"); other scripts as they are."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _sender_names(name: str, address: str) -> set[str]:
    """The words a plan may name its sender by: the sender's name, the address's own part, and
    the organisation its domain names ("zapys@kinetyka.com.ua" is Kinetyka's, whatever script the
    name is written in; not a mail provider's: "gmail")."""
    local = address.partition("@")[0]
    words = re.findall(r"[a-z]{3,}", f"{name} {local} {_organisation(address)}".lower())
    cjk = {name} if re.search(r"[\u4e00-\u9fff]", name) else set()
    return set(words) | cjk


def _organisation(address: str) -> str:
    """The organisation an address's domain names, lower-case ("kinetyka" of
    "zapys@kinetyka.com.ua"); "" for a mail provider's ("gmail") or no domain."""
    org = address.partition("@")[2].split(".")[0].lower()
    return "" if org in _MAIL_PROVIDERS else org


_MAIL_PROVIDERS = frozenset(
    """gmail googlemail outlook hotmail live msn yahoo ymail aol icloud me mac proton protonmail pm gmx web
    mail yandex ya qq 163 126 sina sohu foxmail naver daum hanmail seznam wp onet o2 interia libero virgilio
    orange free laposte wanadoo sfr t-online freenet posteo fastmail zoho mailbox tutanota rambler ukr""".split()
)


def tied(plan_text: str, mail: str, sender: str, address: str) -> bool:
    """Whether a mail is about the plan told as `plan_text`: its sender is named in the plan
    ("w hannah"), or it names a word of what the plan is about ("小院子", "yoga")."""
    # (accents folded on both sides: "Garage Atlas Maârif" is the garage "Maarif" of the chat)
    low = _folded(plan_text.lower())
    names = _sender_names(_folded(sender), address)
    if any(re.search(rf"(?<![a-z]){re.escape(n)}(?![a-z])", low) for n in names):
        return True
    # read as Simplified: the word cutter knows "单位" and "楼", not "單位" (a Cantonese plan and
    # its agent's mail shared no word read as written)
    # (a word of one or two Latin letters ties nothing: "ya" is Swahili "of" in the mail and an
    # aside in the chat, "ya zol")
    shared = activity_terms(simplified(plan_text)) & activity_terms(simplified(mail))
    return any((len(w) > 2 or not w.isascii()) and not _name_part_in_one(w, plan_text, mail) for w in shared)


def _name_part_in_one(word: str, a: str, b: str) -> bool:
    """The word is part of a name in one text and a common word in the other: "Abel Point Marina"
    of the chat and "your points on the seagrass beds" of a council's mail share no thing. A name's
    part is capitalised inside its sentence; the common word is written in lower case."""
    forms = [_forms(word, t) for t in (a, b)]
    return any(x == {"name"} and y == {"lower"} for x, y in (forms, forms[::-1]))


def _forms(word: str, text: str) -> set[str]:
    """How `word` (a stem: "point" of "points") is written in `text`: "name" where capitalised after
    a sentence's first word or inside an address, "lower" where in lower case; sentence-initial
    uses say neither."""
    out = set()
    for m in re.finditer(rf"(?<!\w){re.escape(word)}\w*", text, re.IGNORECASE):
        gap = text[: m.start()]
        before = gap.rstrip(" \t")
        opens = not before.strip() or before[-1] in ".!?:;—–-\n'\"‘“(「"
        token = re.search(r"\S*$", gap)
        if "@" in (token.group(0) if token else "") or re.match(r"[\w-]*\.[a-z]{2,}", text[m.end() :]):
            out.add("name")  # a part of an address or a domain names its owner ("alwaha-clinics.example")
        elif m.group(0).islower():
            out.add("lower")
        elif m.group(0)[:1].isupper() and not opens:
            out.add("name")
    return out


def names_slot(mail: str, sent: datetime, due: datetime, tz: ZoneInfo) -> bool:
    """Whether a mail names the plan's own day and hour ("testi juaj i nivelit nuk do të zhvillohet
    të enjten në orën 18:00" of "the placement test, thursday at 6 in the evening"): a mail that
    changes that very slot is about the plan, in whatever words it names the thing."""
    local = due.astimezone(tz)
    return any(
        m.has_clock
        and (m.value.astimezone(tz).hour, m.value.astimezone(tz).minute) == (local.hour, local.minute)
        and _on_day(m, local.date(), tz)
        for m in resolve_dates(simplified(as_english(mail[:MAX_MAIL_CHARS])), sent, tz)
    )


# what makes an hour exact: am/pm, a part of the day, a 24-hour clock ("08:15", "19:00")
_HALF_SAID = re.compile(
    r"[ap]\.?m\b|morning|afternoon|evening|night|noon|midnight|\b0\d|\b(?:1[3-9]|2[0-3])[:.h]"
    r"|凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|朝早|下昼|晚黑",
    re.IGNORECASE,
)


def _nearer_half(m: DateMention, when: datetime, due: datetime) -> datetime:
    """A new hour said on a 12-hour clock without am or pm ("see you at 8:15 instead"): the half
    of the day nearer the plan's own hour, as a reader would take it of an evening plan."""
    if not m.has_clock or when.hour >= 12 or _HALF_SAID.search(m.text):
        return when
    later = when + timedelta(hours=12)
    return (
        later
        if abs(later.hour * 60 + later.minute - (due.hour * 60 + due.minute))
        < abs(when.hour * 60 + when.minute - (due.hour * 60 + due.minute))
        else when
    )


def _on_day(m: DateMention, day: date, tz: ZoneInfo) -> bool:
    """Whether the mention names `day`: as it reads, or as a weekday or a date beside the past
    tense of the change ("they asked us to move Wednesday's showing", "Leo's cleaning on Tuesday
    has been cancelled"), which the date reader takes for last week's or last year's; news of a
    plan still ahead is of the coming one."""
    when = m.value.astimezone(tz)
    if when.date() == day:
        return True
    if m.direction != "past" or m.granularity not in ("day", "time") or _LAST.search(m.text):
        return False
    if _WEEKDAY.search(m.text) and (when + timedelta(days=7)).date() == day:
        return True
    # … and a date without its year ("your flight on 14 December has been retimed"), read as
    # last year's
    return not _YEAR.search(m.text) and (when.year + 1, when.month, when.day) == (
        day.year,
        day.month,
        day.day,
    )


def read_mail(
    text: str,
    sent: datetime,
    plan_text: str,
    due: datetime,
    tz: ZoneInfo,
    mail_id: str,
    sender: str,
    address: str = "",
    change: Callable[[str], str] | None = None,
) -> PlanNews | None:
    """What the mail `mail_id` (sent at `sent` by `sender`, from `address`, whose words are
    `text`) does to the plan told as `plan_text`, due at `due`: None when it is no news of it.
    `change` (`mail_change_model.reader_for`) reads what a sentence of a mail in neither English
    nor Chinese does to a plan where the word lists say nothing."""
    # read as Simplified, one character for one: the cues are written in it ("取消", "改到"); a
    # mail in another language with its dates and words of change in English (`mail_words`)
    raw = text[:MAX_MAIL_CHARS]
    # (the language is the body's: the header line the e-mail handler writes is English, and
    # outweighs a short mail's own words)
    in_another = foreign(raw.split("\n\n", 1)[-1])
    written = as_english_always(raw) if in_another else raw
    text = simplified(written)
    model = change if in_another else None

    def reads(sentence: str) -> str:
        return model(sentence) if model is not None else "other"

    def moves(sentence: str) -> bool:
        return _moves(sentence) or (reads(sentence) == "move" and not _offered(sentence))

    def proposes(sentence: str) -> bool:
        return _proposes(sentence) or reads(sentence) == "propose"

    # _CANCEL reads both languages: a mail that mixes them ("明天吃饭 cannot make it liao") is
    # read for the English words too
    by_words = _tells_change(text, plan_text)
    if not (
        by_words
        # (another time asked about tells a change only with its time: "if you need another date,
        # tell us" asks nothing of this plan)
        or any(
            reads(s) == "cancel"
            or (reads(s) == "move" and not _offered(s))
            or (reads(s) == "propose" and _another_time(s, sent, tz, due))
            for s in sentence_spans(text)
        )
    ):
        return None
    mentions = resolve_dates(text, sent, tz)
    day = due.astimezone(tz).date()
    # a weekday beside the past tense of the change ("they asked us to move Wednesday's showing",
    # "my Wednesday afternoon has filled up") is read as last week's; news of a plan still ahead
    # is of the coming one
    if not any(_on_day(m, day, tz) for m in mentions):
        # … unless it moves "your appointment" to one new time without naming the old one, and
        # names what the plan is about ("Uw afspraak is verplaatst naar donderdag 8 oktober om
        # 9:30" from the Overvecht office the person was going to)
        to = _moved_to_alone(text, mentions, due.astimezone(tz), sent, plan_text, address or sender, moves)
        return (
            PlanNews(mail_id, sender, to, place=_new_place(text, raw, plan_text)) if to is not None else None
        )
    stands, changed = _stands(text, plan_text, due.astimezone(tz), sent, tz)
    if stands:
        # the plan's day and time hold: news only of what else changed about it
        if not changed:
            return None
        at = text.find(changed)  # `simplified` maps one character to one: the same place as written
        return PlanNews(
            mail_id, sender, due.astimezone(tz), update=" ".join(written[at : at + len(changed)].split())
        )
    moved = None
    called_off = _called_off(text, plan_text) or any(reads(s) == "cancel" for s in sentence_spans(text))
    local_due = due.astimezone(tz)
    restated = False  # the mail says the plan's own day and time again ("same time, 7pm")
    proposed: datetime | None = None
    named = False  # the mail names the plan's day without another hour
    other_hour = False  # … or names only another hour of it ("Mia's visit on Thursday at 4:15")
    for m in mentions:
        when = m.value.astimezone(tz)
        if m.granularity in ("day", "time") and _on_day(m, day, tz):
            if m.has_clock and (when.hour, when.minute) != (local_due.hour, local_due.minute):
                other_hour = True
            else:
                named = True
        if m.direction == "past" or m.granularity not in ("day", "time"):
            continue
        restated |= (
            when.date() == day
            and m.has_clock
            and (when.hour, when.minute) == (local_due.hour, local_due.minute)
        )
        if when.date() == day and not (
            m.has_clock and (when.hour, when.minute) != (local_due.hour, local_due.minute)
        ):
            # the plan's own day (and time, or only a part of the day: "pottery tonight",
            # 5月27日上午 name the plan, they do not move a 6:30 class to 20:00): the old plan
            continue
        said_in = sentence_around(text, m.start)
        if _QUESTION_TAIL.match(text[m.end :]) or proposes(said_in):
            # "next Tuesday instead?", "would you be able to come on Wednesday 26/11": a proposal,
            # not the new plan (unless the person accepts it)
            if proposed is None:
                proposed = when if m.has_time else when.replace(hour=local_due.hour, minute=local_due.minute)
            continue
        if _offered(said_in) and not moves(said_in):
            # the time an offered change can be asked for until ("you can reschedule until
            # Tuesday 12:00") is no new time of the plan
            continue
        if (called_off or when.date() == day) and not moves(said_in):
            # another day beside a plan called off ("明天再说", "we'll carry on next Wednesday as
            # usual"), or another hour of the plan's day not said to be its new one (Mia's 4:15
            # visit is cancelled, not Lucas's 3:45 moved): no new time for this plan
            continue
        # the new day said first alone, then with its hour ("il proprietario rientra solo giovedì,
        # quindi ci vediamo giovedì 30 marzo alle 17:30"): the hour is the new one
        if not m.has_time:
            m = next(
                (
                    x
                    for x in mentions
                    if x.has_time
                    and x.direction != "past"
                    and x.value.astimezone(tz).date() == when.date()
                    and (x.value.astimezone(tz).hour, x.value.astimezone(tz).minute)
                    != (local_due.hour, local_due.minute)
                ),
                m,
            )
            when = m.value.astimezone(tz)
        moved = (
            # (a mail in another language writes the 24-hour clock: "në orën 10:30" is 10:30)
            (when if written != raw else _nearer_half(m, when, local_due))
            if m.has_time
            else when.replace(hour=local_due.hour, minute=local_due.minute)
        )
        break
    if moved is None and proposed is None and not called_off:
        moved = _lone_clock_move(text, mentions, day, local_due, moves, proposes)
    if moved is None and other_hour and not named:
        # what the mail calls off or changes is another appointment of that day (the flu jab at
        # 10:00, not the 14:30 doctor's visit): no news of this plan
        return None
    if moved is None and proposed is None and restated and not called_off:
        # (a proposal that names the old slot first, "about Friday 14 May at 10:00: could we do
        # Tuesday at 15:30 instead?", is a proposal)
        # the same day and time, something else changed (the place): the plan stands, with news
        body, as_written = (t.split("\n\n", 1)[-1] for t in (text, written))  # after the header line
        said = next(
            (w for x, w in zip(sentences(body), sentences(as_written), strict=True) if plan_change_cue(x)), ""
        )
        return PlanNews(mail_id, sender, local_due, update=said or as_written.strip())
    place = _new_place(text, raw, plan_text) if moved is not None else ""
    start = len(text) - len(text.split("\n\n", 1)[-1])  # the body, after the header line
    if (
        moved is None
        and proposed is None
        and not by_words
        # (the subject line counts: "Safari ya Bagamoyo imefutwa" says it in its header)
        and not any(reads(x) == "cancel" for x in sentence_spans(text))
    ):
        # news of the plan only by the model's reading of a move or a proposal whose new time is not
        # read: that is no calling off but a doubt — the plan keeps its reminder, which quotes the
        # mail's sentence. (On the strangers' foreign check set, on the half of its languages used
        # to choose: of the plans read as called off this way 2 were and 1 was not, where every one
        # the model read as "cancel" was; on the other half 0 and 3, and 5 and 0.)
        said = next((x for x in sentence_spans(text[start:]) if reads(x) != "other"), "")
        at = text.find(said, start)  # `simplified` maps one character to one: the same place as written
        return PlanNews(mail_id, sender, None, doubt=" ".join(written[at : at + len(said)].split()) or sender)
    return PlanNews(mail_id, sender, moved, proposed=proposed if moved is None else None, place=place)


# the person's reply turns a proposal down, or asks about it again
_REFUSES = re.compile(
    r"\b(?:can['’]?t|cannot|won['’]?t|doesn['’]?t work|does not work|not work|unfortunately|no good|busy)\b"
    r"|不行|不可以|没空|沒空|来不了|去不了|不方便|不太行",
    re.IGNORECASE,
)
_ACCEPTS = re.compile(
    r"\b(?:works|sounds good|fine|ok(?:ay)?|sure|perfect|great|see you|confirmed|yes|yep|no problem|deal"
    # a calendar's answer and its plain-word peers: "Accepted: …", "looking forward to it"
    r"|accept(?:ed|s)?|looking forward|count me in|i['’]ll be there|will be there"
    # ... or takes note of a confirmation without a question ("Hello, noted, thank you")
    r"|noted|thanks for confirming|thank you for confirming)\b"
    r"|好的|好啊|可以|没问题|沒問題|就这么定|就這麼定|到时见|到時見|接受|准时参加|準時參加|会准时到|會準時到",
    re.IGNORECASE,
)


def refuses(text: str) -> bool:
    """A reply that turns a time down in English or Chinese words ("can't make it", "去不了")."""
    return bool(_REFUSES.search(text))


def accepts(reply: str, proposed: datetime, sent: datetime, tz: ZoneInfo) -> bool:
    """The person's reply `reply` (its new part, sent at `sent`) accepts a proposed time: it
    turns nothing down, asks nothing, and says yes or names the proposed day."""
    text = simplified(reply[:MAX_MAIL_CHARS])
    # (a reply in another language says yes or no in its own words, however short)
    if "?" in text or "？" in text or _REFUSES.search(text) or NO_REPLY.search(text):
        return False
    day = proposed.astimezone(tz).date()
    named = any(m.value.astimezone(tz).date() == day for m in resolve_dates(as_english(text), sent, tz))
    return named or bool(_ACCEPTS.search(text) or YES_REPLY.search(text))


def news(
    memory: Memory, scope: str, plan_text: str, said: datetime, due: datetime, now: datetime, tz: ZoneInfo
) -> PlanNews | None:
    """The newest e-mail from someone else, received after the plan was told (`said`) and by
    `now`, that calls the plan off or moves it; None when there is none."""
    found: list[tuple[datetime, PlanNews]] = []
    change = reader_for(memory.embedder)
    for thread in memory.email_threads(scope):
        if thread.last_message_at <= said:
            continue
        messages = memory.email_messages(scope, thread.thread)
        for msg in messages:
            if msg.outbound or not (said < msg.sent_at <= now):
                continue
            stored = memory.resources(scope, [msg.id])
            if not stored:
                continue
            res = stored[0]
            got = read_mail(
                res.text,
                msg.sent_at,
                plan_text,
                due,
                tz,
                msg.id,
                msg.sender_name or msg.sender,
                msg.sender,
                change,
            )
            if got is None or not (
                tied(plan_text, res.text, msg.sender_name, msg.sender)
                or names_slot(res.text, msg.sent_at, due, tz)
            ):
                continue
            found.append((msg.sent_at, got))
            if got.moved_to is None and got.proposed is not None:
                # the person's own reply in the thread, after the proposal, that accepts it
                for reply in messages:
                    if not reply.outbound or not (msg.sent_at < reply.sent_at <= now):
                        continue
                    own = memory.resources(scope, [reply.id])
                    if own and accepts(fresh_text(own[0].text), got.proposed, reply.sent_at, tz):
                        found.append((reply.sent_at, PlanNews(reply.id, got.sender, got.proposed)))
                        break
    return max(found, key=lambda f: f[0])[1] if found else None


# how long before the plan was told a mail about it may have come with its link
LINK_BEFORE = timedelta(days=14)
# a meeting link in a mail: "meet.google.com/xkq-ptdr-wnb", "https://teams.example.net/l/…"
_LINK = re.compile(
    r"https?://[^\s<>\"'）)]+|\b(?:meet\.google\.com|zoom\.us/j|teams\.microsoft\.com)/[^\s<>\"'）)]+"
)


def link(
    memory: Memory, scope: str, plan_text: str, said: datetime, due: datetime, now: datetime, tz: ZoneInfo
) -> tuple[str, str] | None:
    """The meeting link of the plan and the mail it came in: the newest mail of someone else
    received since the plan was told (or up to `LINK_BEFORE` before) that is about it (`tied`)
    and names its day ("Confirming Tuesday, March 17 at 10:00 AM ET on Google Meet:
    meet.google.com/xkq-ptdr-wnb"): the person needs it at the reminder, not in their inbox. None
    when no such mail has one."""
    day = due.astimezone(tz).date()
    found: list[tuple[datetime, str, str]] = []
    # (the invitation may have come first, and the person told of the meeting after reading it)
    since = said - LINK_BEFORE
    for thread in memory.email_threads(scope):
        if thread.last_message_at <= since:
            continue
        for msg in memory.email_messages(scope, thread.thread):
            if msg.outbound or not (since < msg.sent_at <= now):
                continue
            stored = memory.resources(scope, [msg.id])
            text = as_english(fresh_text(stored[0].text)[:MAX_MAIL_CHARS]) if stored else ""
            url = _LINK.search(text)
            if url is None or not tied(plan_text, text, msg.sender_name, msg.sender):
                continue
            if any(_on_day(m, day, tz) for m in resolve_dates(text, msg.sent_at, tz)):
                found.append((msg.sent_at, url.group(0).rstrip(".,;:"), msg.id))
    if not found:
        return None
    _, newest, mail = max(found)
    return newest, mail
