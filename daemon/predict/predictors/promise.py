"""promise: something the person said they would do by a time ("I'll send it tomorrow") → one
check-in the morning after that day ("Friday's deposit transfer — did it happen?"), then
silence; withdrawn when they say it is done, when a mail they sent since keeps it (`sent_since`), or
when the promise is superseded.

No nudge on the day itself: the person set the day, and is still within it. On four sets of
scenarios written apart from the code (bench/check/proactive/blind1-4), every such day-of
nudge (8 of 8) was read as noise, and the issue asks for the check-in only once the day passed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from daemon.memory.dates import resolve_dates
from daemon.memory.dates.cues import EMOJI, tense
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import shared_words
from daemon.memory.read.bm25 import tokenize
from daemon.memory.types import ItemView
from daemon.predict import said_when
from daemon.predict.base import (
    Ctx,
    NewItems,
    Recheck,
    Trigger,
    active,
    is_cjk,
    said_by_person,
    short,
    what,
)
from daemon.predict.plan_text import PEOPLE_ZH as _PEOPLE_ZH
from daemon.predict.plan_text import for_them, headline, said_of, sentences
from daemon.predict.plans import declines
from daemon.predict.timing import at_local, is_timed, next_day_start
from daemon.state.suggestions import Suggestion
from daemon.state.types import EmailMessage

NAME = "promise"

_EN = re.compile(
    r"\b(i'll|i will|i’ll|i am going to|i'm going to|i’m going to|i promise(?: to)?|i need to|i have to|"
    r"i must|i should|let me|"
    # a promise told as told: "told Marco I'd send…", "promised Jen I'd drop…", "said I would call",
    # with where the person is said too ("told raewyn at the pines lodge i'd email her…")
    r"(?:promised|told|said|agreed)(?:\s+[\w()'’-]+){0,6}?\s+(?:i'?d|i’d|i would)|"
    # promised or agreed to do it; not "told her to print the confirmation twice": told someone to do
    # a thing is theirs to do
    r"(?:promised|agreed)(?:\s+[\w()'’-]+){0,6}?\s+to)\s+(?:\w+\s+){0,2}?(send|give|finish|write|call|email|e-mail|reply|review|"
    r"share|deliver|submit|get back|return|pay|book|prepare|fix|update|check|follow up|ping|mail|transfer|"
    r"wire|sign|renew|file|post|ship|order|buy|cancel|print|upload|apply|register|confirm|hand in|drop off|"
    r"sort out|draft|test|deploy|merge|publish|clean|repair|text|message|invoice|refund|"
    r"top up|settle|drop|bring|take back|give back|lend|pick up|fetch|courier|forward|hand over|hand back)\b",
    re.IGNORECASE,
)
_ZH = re.compile(
    # not "约我": someone asking me to meet is an appointment ("客户经理约我周四打电话"), not a promise,
    # nor 我 as anyone's object ("préfecture 把我周三的 rdv 取消了 说会再发新的 convocation");
    # not "我妈", "我哥": 我 before a relation is that person, not the speaker ("我妈周三要回诊")
    rf"(?:(?<![约把将被给让叫帮])我(?!(?:的|们的)?\s*(?:{_PEOPLE_ZH}))(?:会|要|得|来|一定|负责|答应|应承)?|答应|应承|(?:说|讲)(?:好|定)了?|保证|承诺)"
    # 回 as "reply", not 回诊 (a follow-up visit), 回家, 回来, 回去, 回国
    # (还 as "give back", not "still": "我平时这个点还在做梦")
    # (发 as "send", not 出发 "set off" or 开发: "我 5 點就要從瓜地馬拉市出發" promises nothing)
    r".{0,16}?((?<![出开])发|给|交|回复|(?<![调返找拿带])回(?!诊|家|来|去|国|到|老家)|写完|完成|提交|打电话|准备|寄|还(?![在是没有要得会不挺很好行可能])|转账|"
    r"打钱|付|缴|签|续|退)"
    # reaching someone or sending it, said with what the speaker will do ("聽日我一定 WhatsApp 個業主",
    # "我会联系房东", "聽日我一定 send"; not "我的联系电话", "我的 iPhone call 唔通")
    rf"|我(?!(?:的|们的)?\s*(?:{_PEOPLE_ZH}))(?:[^，。,.!！?？\s]{{0,4}}?)(?:会|要|得|一定(?:会|要)?|来)\s*(?:去\s*)?"
    r"(?:联系|通知|催|打给|打畀|(?i:whatsapp|wechat|message|text|ping"
    r"|e-?mail|call|send|submit|transfer|pay|reply|sign)\b)"
    # what the speaker said they would send, in Cantonese (我話 is "I said", 俾 its 给):
    # "我話聽日放工前send俾佢"
    r"|我话[^。；;！!？?\n]{0,16}?(?:send|发|寄|交)[^。；;！!？?\n]{0,3}?(?:俾|给)"
    # promised someone to do it, whatever the verb: "答应班组长周三前把尺码报上去", "还答应了产品小林，
    # 周三下班前把文档更新一下" (not "我就答应了": agreeing to what was asked is no act of one's own);
    # 应承 is the Cantonese word for it ("我应承咗星期五之前睇完"), and 将 its 把 ("应承咗 Don Ramiro
    # 听日将…发俾佢")
    r"|(?:答应|应承|说好|讲好|说定|讲定|保证|承诺)[了咗]?[^。；;！!？?\n]{0,20}?(?:把|将|帮|之前|前|以前)"
    # ... or to do it on a day: "还答应俺娘周四晚上视频" (a promise to someone, not one's own appointment)
    r"|(?:答应|应承)[了咗]?[^。；;！!？?\n]{1,12}?(?:周[一二三四五六日天]|礼拜[一二三四五六日天]|星期[一二三四五六日天]|明天|今晚|后天)"
    # an obligation said without its subject, as Chinese leaves it: "明天一定要把价格表发给 Tony";
    # Cantonese says 将 for 把 and 俾 for 给 ("今晚一定要将啲收据 send 俾 Winnie")
    # ("周二下班前一定把修改后的 BOQ 发给他": 一定 alone says it as surely)
    r"|(?<![他她你您佢])(?:一定要|一定|必须|得|记得)(?:把|将)[^。；;！!？?\n]{0,40}?"
    r"(?:发|给|俾|交|回复|写完|完成|提交|寄|还|转|付|缴|签|续|退|send|email|submit)"
)
_DONE_EN = re.compile(
    # (not "mostly done", "almost finished", "not sent": nearly is not yet)
    r"(?<!mostly )(?<!almost )(?<!nearly )(?<!half )(?<!partly )(?<!not )(?<!n't )(?<!n’t )(?<!never )"
    r"\b(sent|done|finished|submitted|delivered|shipped|replied|called|paid|booked|emailed|e-mailed|"
    r"handed in|took care)\b",
    re.IGNORECASE,
)
# "V好了" is done ("收好了", "订好了", "弄好了"); "太好了", "就好了" are not
_DONE_ZH = re.compile(
    r"(已经|已|刚|搞定|完成了|发了|发过去了|交了|回复了|寄了|办好|(?![太就真挺很还也说讲])[\u4e00-\u9fff]好了"
    # "V完了", Cantonese "V完喇", "send咗" (咗 is Cantonese 了)
    r"|[\u4e00-\u9fff]完(?:了|喇|啦|咗)|[a-z]咗)",
    re.IGNORECASE,
)

# what turns to something new ("对了", "by the way"): the sentence before it is about something else
_TURNS_TO = re.compile(
    r"\s*(?:对了|對了|另外|还有|還有|话说|話說|btw\b|by the way\b|anyway\b|oh and\b)", re.IGNORECASE
)


# "promised Dana I'd get her the numbers": whatever the verb, the frame makes it a promise; so
# does promising someone a thing ("promised ramesh the load-test numbers by monday")
# ("told joanna at the housing office id get her…": chat's "id" is I'd, not "my id card"; a wish is
# no promise: "told him i'd love to")
_TOLD_I_WOULD = re.compile(
    r"\b(?:promised|told|agreed with)(?:\s+[\w()'’-]+){1,8}?\s+"
    r"(?:i'd|i’d|i would|(?<!\bmy\s)(?<!\bthe\s)(?<!\ban\s)(?<!\byour\s)(?<!\bher\s)(?<!\bhis\s)id(?!\s+(?:card|number|badge|photo|check)))"
    r"\s+(?!never\b|not\b|have\b|be\b|love\b|like\b|rather\b|prefer\b|probably\b|maybe\b|think\b|guess\b)\w+"
    r"|\bpromised(?:\s+[\w()-]+){1,3}?\s+(?:the|a|an|my|our|some|those|these|his|her|their)\s+\w+",
    re.IGNORECASE,
)


# "I'll have the deck ready by Friday", "promised calum i'd have the risk register updated": the
# thing done by a time, told with "have … done"
# a commitment to someone said in the progressive: reaching them, paying or sending them
# something ("tomorrow i'm calling her back", "I'm paying the deposit friday"); not an errand told so
# ("wednesday I'm dropping the old monitor at the recycling centre" is a plan for the day)
_DOING_EN = re.compile(
    r"\b(?:i'?m|i’m|i am)\s+(?:(?:definitely|finally|totally|def|actually)\s+)?(?:calling(?!\s+in\b)|ringing|"
    r"emailing|texting|messaging|replying|paying|sending|transferring|submitting|signing)\b",
    re.IGNORECASE,
)
# ... and its act as the check-in asks it ("You said you would call her back")
_BASE = {
    "calling": "call", "ringing": "ring", "emailing": "email", "texting": "text", "messaging": "message",
    "replying": "reply", "paying": "pay", "sending": "send", "transferring": "transfer",
    "submitting": "submit", "signing": "sign",
}  # fmt: skip
_HAVE_IT_DONE = re.compile(
    r"\b(?:i'?ll|i’ll|i will|i'?d|i’d|i would)\s+have\s+(?:[\w'’-]+\s+){1,5}?"
    # a participle: "-ed" (not "speed", "need"), the common "-en" ones ("garden" is none), or irregular
    r"(?:(?!(?:speed|breed|greed|need|seed|weed|feed)\b)\w{3,}ed|(?:writ|tak|giv|driv|eat|chos|forgott|"
    r"prov|brok|froz|hidd|spok|stol|wok|beat|gott|rewritt)en|done|ready|cut|set|put|sent|made|paid|built|"
    r"bought|kept|read|sorted)\b",
    re.IGNORECASE,
)


# an emoji between two statements ends the first, as a full stop would: "ok finally finished the
# brand pack 🙌🏾 tomorrow i'll send the invoice to Wanjiru"
_EMOJI_STOP = re.compile(rf"(?<=\S)\s*[{EMOJI}][{EMOJI}\uFE0F\u200D]*\s+")


def said_apart(text: str) -> list[str]:
    """The sentences of a turn, an emoji between two statements ending one, and so does "and
    also" before another ("…聽日將份報價單send俾佢，仲有應承咗阿媽今晚打電話俾舅父": two promises,
    each kept by its own report)."""
    return [
        q.strip() for s in sentences(text) for p in _EMOJI_STOP.split(s) for q in _ALSO.split(p) if q.strip()
    ]


_ALSO = re.compile(r"[，,;；]\s*(?=仲有|还有|還有|另外|顺便|順便|(?:and also|also|plus)\b)", re.IGNORECASE)


def is_promise(text: str) -> bool:
    """Something the person says they will do — not a report that it is done. Read sentence by
    sentence: "told him i'll send the revised quote tomorrow. … sent those (the pdfs) during the
    call already" promises the quote; the report of done is another thing's ("finished the brand
    pack 🙌🏾 tomorrow i'll send the invoice": the emoji ends the report)."""
    parts = said_apart(text)
    return any(_promises(s) for s in parts) or (
        _promises(text) and not any(_CONDITION.search(simplified(s)) for s in parts)
    )


# a condition before what the speaker would do then: no promise to check in on ("要是项目拖到明年，
# 我就申请调回成都", "if they extend the contract i'll move to lisbon", "plumber says he'll come
# wednesday — if he doesn't turn up by wednesday evening I'll just call the maintenance guy")
_CONDITION = re.compile(
    r"(?:^|[,;:—–-]\s*|\s)(?:(?:and|but|so|also|or)\s+)?(?:if|unless|in case)\b[^.!?;]*?"
    r"\b(?:i['’]ll|i will|i['’]d|i would|we['’]ll|we will|i['’]m going to|i['’]m gonna)\b"
    r"|(?:要是|如果|假如|假设|万一)[^。！？!?；;]*?就",
    re.IGNORECASE,
)


def promised_sentence(text: str) -> str:
    """The sentence of a turn that promises (the first), or the turn: "…tomorrow i'm calling her
    back. … also tmrw i'll drop kurt's snowblower back" is checked in on for the call, and kept
    only by a word of it, not by the snowblower returned."""
    return next((s for s in said_apart(text) if _promises(s)), text)


def _promises(text: str) -> bool:
    if is_cjk(text):
        cues = [_ZH.search(simplified(text))]  # the rules read Traditional as Simplified (答應 as 答应)
    else:
        cues = [r.search(text) for r in (_EN, _TOLD_I_WOULD, _HAVE_IT_DONE, _DOING_EN)]
    starts = [c.start() for c in cues if c is not None]
    if not starts:
        return False
    # (not a no: "同事约周日去骑车，我不去了" promises nothing; nor a condition's consequence)
    return (
        not _told_done(_own_clauses(text, min(starts)))
        and not declines(text)
        and not _CONDITION.search(simplified(text))
    )


# what commits, in Chinese, to what follows in its clause on a day ahead: "答应老婆明天把水电费交了"
# promises the bills paid (了 is the act's result, as in "把饭吃了"); only "已经", "刚" say it
# happened. Not without a day ahead: "上周答应给表妹寄的书今天寄出去了" is the book promised, sent.
_COMMIT_ZH = re.compile(r"答应|应承|[说讲](?:好|定)|保证|承诺|一定|必须|记得")
_AHEAD_ZH = re.compile(
    r"明天|明早|明晚|后天|下(?:个)?(?:周|礼拜|星期|月)|今晚|(?<!上)(?:周|星期|礼拜)[一二三四五六日天]|月底|之前|以前"
)
_ALREADY_ZH = re.compile(r"已经|已|刚")


def _told_done(own: str) -> bool:
    """The promise's own clauses say it is done (`is_done`), its first clause read as committed to
    when it holds a Chinese word of commitment and a day ahead."""
    first, *rest = _CLAUSE_MARK.split(own, maxsplit=1)
    t = simplified(first)
    committed = is_cjk(first) and _COMMIT_ZH.search(t) is not None and _AHEAD_ZH.search(t) is not None
    return (bool(_ALREADY_ZH.search(t)) if committed else is_done(first)) or any(is_done(r) for r in rest)


_CLAUSE_MARK = re.compile(r"[,，;；]")


def _own_clauses(text: str, cue: int) -> str:
    """The clauses of a sentence that tell the promise: from the clause its cue opens in to the
    end, up to a clause with a subject of its own. A done act before it, or someone else's, is
    another act: "刚跟 Marcelo 通完电话，答应他明天把…对账单…发过去，他已经催了两次了" promises the
    statements (the call is done, the chasing is Marcelo's); "…发过去，已经发了" does not."""
    marks = [m.end() for m in _CLAUSE_MARK.finditer(text, 0, cue)]
    own = text[marks[-1] if marks else 0 :]
    return _THEIR_CLAUSE.split(own, maxsplit=1)[0]


# the promised act with 了 after it, in its clause: "书今天寄出去了", "模板发给小林了"
# (not 还, 给 or 回 alone: "还答应了…" is "also promised", "给他…" is "for him")
# (up to a name between: "签证材料交给翻译 Amina 了")
_DONE_ACT_ZH = re.compile(
    r"(?:发(?!烧|现|生|呆|火)|交|回复|寄|转|付|缴|签|续|退)[^，。,.!！?？;；]{0,12}(?<![为除])了(?!解|不起|结)"
)


def is_done(text: str) -> bool:
    if is_cjk(text):
        t = simplified(text)
        return bool(_DONE_ZH.search(t) or _DONE_ACT_ZH.search(t))
    # "I'll have the numbers finished by Friday": the participle is the state promised, no report
    return bool(_DONE_EN.search(_HAVE_IT_DONE.sub(" ", text)))


# words that commit to something: a statement with one is a promise, not a report of one kept
# ("told Rui I'd send the sponsor list" is another promise, not the report of one kept)
_COMMITS = re.compile(
    r"答应|[说讲](?:好|定)|保证|承诺|\b(?:promised?|i'll|i’ll|i will|i'd|i’d|i would|going to|gonna)\b",
    re.IGNORECASE,
)


# what says the act has not happened: "still haven't sent", "didn't get round to", "forgot to
# call", "还没发", "忘了交"
_NOT_YET = re.compile(
    r"\b(?:not|never|yet|forgot|forgotten|no\s+time|(?:have|has|did|was|were|could|wo|ca|do)nt)\b|n['’]t\b|还没|没有|没能|没来得及|没空|忘了|忘记|尚未|还未",
    re.IGNORECASE,
)


def tells_done(text: str) -> bool:
    """A later statement of the person that reports the thing as happened: the words of a done act,
    or a past tense ("dropped the drill back at Jen's", "模板发给小林了"), with no clause that says
    it did not happen ("still haven't sent the form" is the promise still open), in a statement
    that commits to nothing itself ("还答应了老王周六帮他搬家" is another promise)."""
    if _COMMITS.search(simplified(text)):  # 答應 as 答应
        return False
    # (the statement's tense is read whole: a past clause of another matter is no report, "还有明天
    # 一定得把房租转给房东，上个月晚了两天…"; nor is a past clause beside one that says it did not
    # happen, "didn't manage to ring the plumber today, work was mental")
    if not (is_done(text) or tense(text.lower()) == "past"):
        return False
    return not any(
        (is_done(c) or tense(c.lower()) == "past") and _NOT_YET.search(simplified(c)) for c in _clauses(text)
    )


def reports_done(text: str) -> bool:
    """A clause of `text` in the words of a done act that says nothing of it not happening."""
    return any(is_done(c) and not _NOT_YET.search(simplified(c)) for c in _clauses(text))


def _clauses(text: str) -> list[str]:
    return _CLAUSE.findall(text) or [text]


_CLAUSE = re.compile(r"[^,;.!?，；。！？]+")


def did(text: str, verb: str) -> bool:
    """A clause of `text` tells the promised act done, its own verb in the past ("couriered amma's
    shawl from thamel" for "courier her the pashmina shawl"), whatever else the statement goes on
    to say ("…, she'll get it thursday": a sentence whose tense reads as the future)."""
    if len(verb) < 4 or not verb.isalpha() or not verb.isascii():
        return False
    for c in _CLAUSE.findall(text):
        act = re.search(rf"\b{verb}e?d\b", c, re.IGNORECASE)
        # (not "still haven't posted gran's card")
        if (
            act
            and tense(c.lower()) == "past"
            and not _COMMITS.search(c)
            and not _NOT.search(c[: act.start()])
        ):
            return True
    return False


_NOT = re.compile(r"\b(?:not|never|no|yet)\b|n['’]t\b", re.IGNORECASE)


# "Told Marco (the assessor) I'd send him the photos" → "send Marco the photos": the promised act,
# with the person it is for named in it. (Chinese tells it in that order already: "答应小唐把她婚礼
# 的视频发给她" reads right as it is.)
_TOLD_EN = re.compile(
    r"^(?:also\s+|and\s+)?(?:promised|told|said to|agreed with)\s+(?P<who>[^,;]+?)\s+"
    r"(?:i'?d|i’d|i would|i'?ll|i’ll|i will|to)\s+"
    r"(?P<act>.+)$",
    re.IGNORECASE,
)
# the person as an object ("send him the photos", "drop her the keys"), not "her" as "hers" ("drop
# her drill back")
_OBJECT = re.compile(
    r"\b(?:him|them|her(?=\s+(?:the|a|an|my|our|some|these|those|this|that)\b))\b", re.IGNORECASE
)


# doing the promised thing as it is told: "doing that now before i forget", "on it now", "这就去弄"
_NOW_DOING = re.compile(
    r"\b(?:doing|sending|on)\s+(?:it|that|this|them|those)?\s*(?:right\s+)?now\b|这就(?:去)?(?:弄|发|做|办)|马上(?:就)?(?:去)?(?:弄|发)",
    re.IGNORECASE,
)


def _doing_it_now(text: str) -> bool:
    """A sentence after the promise's, in the same message, that says the person is doing it
    now: the promise is being kept, and a check-in tomorrow asks about what they did."""
    said = said_apart(text)
    promised = promised_sentence(text)
    after = said[said.index(promised) + 1 :] if promised in said else []
    # (or a clause after the promise's in its sentence: "…tomorrow, on it now 🎶", "…发给她，这就去弄")
    after += re.split(r"[,，;；]", promised)[1:]
    return any(_NOW_DOING.search(simplified(s)) for s in after)


def promised_act(thing: str) -> str:
    """The act an English promise names, without the words that told it was promised."""
    m = _TOLD_EN.match(thing)
    if m is None:
        return thing
    who, act = re.sub(r"\s*\([^)]*\)", "", m.group("who")).strip(), m.group("act")
    if who.lower() in ("i", "me", "myself", "him", "her", "them"):
        return act
    if " " not in who:  # a name as chat leaves it ("marco"); "my sister nkechi" stays as said
        who = who[:1].upper() + who[1:]
    named = _OBJECT.sub(who, act, count=1)
    return named if named != act else f"{act} ({who})"


# a clause with a subject of its own after a comma: "…报价单发给 Payet 先生，他明早要跟工地那边定货",
# "I'll send the deck tonight, she needs it before friday" — what someone else does or needs
_THEIR_CLAUSE = re.compile(
    r"[,，;；]\s*(?=(?:他|她|它|佢)|(?:he|she|they|it)(?:['’](?:s|ll|re|d))?\b)", re.IGNORECASE
)


def promised_part(text: str) -> str:
    """What the person promised, told in its own words: the promising sentence without a clause
    after it about what someone else does ("…发给 Payet 先生，他明早要跟工地那边定货" is the quote
    for tonight, not Payet's order tomorrow morning); the whole sentence when no part of it
    promises alone."""
    sentence = promised_sentence(text)
    parts = [p for p in _THEIR_CLAUSE.split(sentence) if p.strip()]
    return next((p for p in parts if _promises(p)), sentence) if len(parts) > 1 else sentence


def _own_day(text: str, said: datetime, tz: ZoneInfo) -> datetime | None:
    """The day the promise's own words name, when the message tells other days too: "IND 终于约上
    了！下周三…下午3点…。…周一一定把第二章初稿发给导师，我答应她了" promises the draft for Monday,
    whatever the appointment's Wednesday (the item's due); "Tonight I'm sending Ms. Kabua the
    budget. She needs it before her Wednesday meeting" promises it for tonight (the evening
    still under way); None when those words name no day."""
    sentence = promised_part(text)
    if sentence == text:
        return None
    # (the day it is for, still ahead: not "today" of what was done this morning, "今天跟 Mr Tan
    # 开完会了，…明天中午之前我 send 给他")
    ahead = [
        m
        for m in resolve_dates(sentence, said, tz)
        if m.direction == "future" and m.granularity in ("day", "time")
    ]
    return ahead[0].value if ahead else _later_today(sentence, said, tz)


def _later_today(text: str, said: datetime, tz: ZoneInfo) -> datetime | None:
    """A part of the day still under way when the promise was said ("I'll email him the photos
    tonight" at 19:40): the date reader calls it present, the memory no date ahead; the promise
    is for today all the same. So it is when the part of the day's hour has passed (tonight's is
    20:00; "我今晚把行程单整理好发给她" said at 20:40): the evening is not over."""
    today = said.astimezone(tz).date()
    return next(
        (
            max(m.value, said)
            for m in resolve_dates(text, said, tz)
            if m.direction == "present"
            and m.granularity == "time"
            and (m.value > said or (not m.has_clock and m.value.astimezone(tz).date() == today))
        ),
        None,
    )


_MUST_ZH = re.compile(r"^(?:一定|必须|务必|得|要|会)+(?=[把将给])")


def _check_in(item: ItemView, due: datetime, text: str, zh: bool, scope: str, ctx: Ctx) -> Suggestion | None:
    """The one check-in the morning after a promise's day, withdrawn if it was done by then."""
    tz = ctx.settings.tz
    due = due.astimezone(tz)
    nxt = next_day_start(due, tz)
    at = at_local(nxt, ctx.settings.morning_at, tz)
    if at <= ctx.now:
        return None
    # the thing of the sentence that promises, not of another dated one beside it ("…同意书我周一去
    # 医院打印了签。对了老公周一下午去 Fremantle 面试" promises the consent form)
    promised = promised_sentence(text)
    thing = for_them(promised_act(headline(promised_part(text), item.observed_at or ctx.now, tz)))
    # the sentences of the promise, not the rest of the turn (what else was done, said or
    # promised then): the promise and the sentence that leads to it
    said = said_apart(text)
    at_ = said.index(promised) if promised in said else -1
    # (not the sentence before one that turns to it with "by the way": "LDP jam 到 sien 😩 对了，
    # 明天一定要把 Q2 的 sales report 发给 Mr Lim" — the traffic does not lead to the report)
    lead = 0 if _TURNS_TO.match(promised) else 1
    quote = short(
        " ".join(said[max(0, at_ - lead) : at_ + 1])
        if at_ >= 0
        else said_of(text, item.observed_at or ctx.now, tz),
        300,
    )
    if zh:
        day = f"周{'一二三四五六日'[due.weekday()]}"
        # (the act, not how surely it was said: "一定得把报价单发给 Payet 先生" → "把报价单发给…")
        title = f"{day}说好的：{short(_MUST_ZH.sub('', thing) or thing, 50)}——办好了吗？"
        body = f"你说过：“{quote}”"
    else:
        first, _, rest = thing.partition(" ")
        base = _BASE.get(first.lower())
        verb = f"{base} {rest}".strip() if base else thing[:1].lower() + thing[1:]
        title = f"You said you would {short(verb, 60)} on {due.strftime('%A')} — did it happen?"
        body = f"You told me: “{quote}”. If it is done, tell me and I will stop asking."
    return Suggestion(
        scope=scope,
        kind="follow_up",
        predictor=NAME,
        dedup_key=f"promise-check:{item.id}",
        about=f"item:{item.id}",
        title=title,
        body=body,
        created_at=ctx.now,
        deliver_at=at,
        expires_at=next_day_start(nxt, tz),
        evidence=(item.id,),
        source_ids=tuple(item.source_ids or ()),
        confidence=0.6,
        data={"item_id": item.id, "said_at": (item.observed_at or ctx.now).isoformat()},
    )


class Promise:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if not isinstance(trigger, NewItems):
            return []
        out = []
        for item in trigger.items:
            text = what(item)
            if not said_by_person(item) or not is_promise(text):
                continue
            said = item.observed_at or ctx.now
            due = (
                _own_day(text, said, ctx.settings.tz)
                or item.due_at
                or _later_today(text, said, ctx.settings.tz)
            )
            if due is None:
                continue
            if said_when.github_follows(text, ctx.settings.github_login):
                continue  # "I'll check #1187 tonight": the pull request's follow-up (github.py)
            if active(item) is not None:
                continue
            if _doing_it_now(text):
                continue  # "…i'd send him the pics tonight. doing that now": kept as it is said
            check = _check_in(item, due, text, is_cjk(text), trigger.scope, ctx)
            if check is not None:
                out.append(check)
        return out

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        item = ctx.memory.item_view(s.scope, s.data["item_id"])
        gone = active(item)
        if gone is not None or item is None:
            return Recheck(None, f"the promise changed: {gone}")
        why = kept(ctx, s.scope, item, datetime.fromisoformat(s.data["said_at"]))
        if why is not None:
            return Recheck(None, why)
        return Recheck(replace(s))


# words two statements may share without being about one thing ("sunday is the full day at the sokhna
# plant … back maybe 8pm" and "sinai day, everything's shut … maybe")
_NO_THING = frozenset("day days maybe time times thing things stuff kind way lot bit".split())


def spoken_of_since(
    ctx: Ctx,
    scope: str,
    item: ItemView,
    since: datetime,
    says: Callable[[str], bool] = lambda _: True,
    words: int = 2,
    same_day: bool = False,
    about: str | None = None,
    on: datetime | None = None,
    said_on_its_day: bool = False,
) -> ItemView | None:
    """A statement of the person after `since` about the same thing as `item` (and for which
    `says` holds), or None. About the same thing: `words` of its words shared, or one when near
    in recall; with `same_day` (of a dated item), one when the statement names the item's day
    too, and none when it names only another day ("Thursday's yoga at the studio is cancelled"
    is not Friday's physio there). `about`: the part of the item's text the statement must be
    about (a promise's own sentence, not another told beside it), by default all of it. `on`: the
    day the plan is on now, when that is not the item's own (a move by e-mail: "tonight's yoga is
    cancelled" said on Tuesday is not the key handover moved from Tuesday to Thursday). With
    `said_on_its_day`, only a statement said on the item's day before it is due counts, and one
    word is enough ("居留材料交掉了" on the Wednesday the residency papers are due by noon)."""
    told = about or what(item)
    for h in ctx.memory.recall(told, scope, k=6, ts=ctx.now, reinforce=False):
        if h.item_id == item.id or h.occurred_at is None or h.occurred_at <= since:
            continue
        row = ctx.memory.item_view(scope, h.item_id)
        if row is None or not said_by_person(row) or not says(what(row)):
            continue
        # about the same thing: sharing the item's words ("空调", "房东"), two of them, or
        # one when near in recall (a recall score alone moves with the scope's size and age:
        # in a small memory "表弟让我…把旧显示器寄给他" was near the wedding video promised)
        day = on or item.due_at
        on_its_day = same_day and _same_day(row.due_at, day, ctx.settings.tz)
        if same_day and row.due_at is not None and day is not None and not on_its_day:
            continue
        common = shared_words(told, what(row)) - _NO_THING
        shared = len(common)
        told_that_day = (
            said_on_its_day
            and day is not None
            and _same_day(row.observed_at, day, ctx.settings.tz)
            and row.observed_at is not None
            # (before it is due: a thing due on a day, with no time, is due all that day: "paid
            # meralco na via gcash" at 10:15 on the day the bill was promised for)
            and (row.observed_at <= day or not is_timed(day, ctx.settings.tz))
        )
        if said_on_its_day:
            # (the one word a thing, not the giving: "发给" is in "…报关单…发给阿强" and in
            # "货款电汇好了…拍照发给广州了", two things sent)
            if told_that_day and any(not w.endswith("给") for w in common):
                return row
            continue
        if shared >= words or (shared and (h.score >= 0.3 or on_its_day)):
            return row
    return None


def _same_day(a: datetime | None, b: datetime | None, tz: ZoneInfo) -> bool:
    return a is not None and b is not None and a.astimezone(tz).date() == b.astimezone(tz).date()


def kept(ctx: Ctx, scope: str, item: ItemView, said: datetime) -> str | None:
    """Why the promise `item` (said at `said`) is kept by now, or None: a later statement of the
    person about the same thing that says it is done, or a mail they sent that keeps it."""
    promised = promised_sentence(what(item))
    verb = promised_act(promised).split(" ", 1)[0].lower()
    row = spoken_of_since(ctx, scope, item, said, lambda t: tells_done(t) or did(t, verb), about=promised)
    if row is None:
        # ... or with one word of it, on its own day, in the words of a done act (not only any past
        # tense: "医院今天忙疯了" said on the day of the consent form printed at the hospital)
        row = spoken_of_since(
            ctx,
            scope,
            item,
            said,
            lambda t: reports_done(t) or did(t, verb),
            about=promised,
            said_on_its_day=True,
        )
    if row is not None:
        return f"kept: {short(what(row), 60)}"
    mail = sent_since(ctx, scope, promised, said)
    if mail is not None:
        return f"kept by e-mail: {short(mail.subject, 60)} to {', '.join(mail.recipients)}"
    return None


def sent_since(ctx: Ctx, scope: str, promise: str, said: datetime) -> EmailMessage | None:
    """A mail the person sent since the promise, up to now, that keeps it: to someone the
    promise names (a word of a recipient's address: "yasmin@…" for "told yasmin i'd send her
    the deck"), under a subject that shares a word with it ("Deck v3"). One plan, several
    sources: the person need not say in chat what their mailbox already shows."""
    words = set(tokenize(promise))
    for thread in ctx.memory.email_threads(scope):
        if thread.last_outbound_at is None or thread.last_outbound_at <= said:
            continue
        for m in ctx.memory.email_messages(scope, thread.thread):
            if not m.outbound or not said < m.sent_at <= ctx.now:
                continue
            names = {t for r in m.recipients for t in tokenize(r.split("@", 1)[0]) if len(t) >= 3}
            if names & words and shared_words(promise, m.subject or thread.subject):
                return m
    return None
