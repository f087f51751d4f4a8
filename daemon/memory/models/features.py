"""Surface features of a turn and of a pair of statements: the rules, as inputs to learned models.

Each function maps text to a short, fixed list of numbers with a name per position. The rules
here are deliberately broad cues (a question mark, a request verb, "these days", 以前) whose
weight the training script learns from labelled data; none of them decides anything alone.
Pure functions, English and Chinese.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
import zlib
from typing import NamedTuple

import numpy as np

from daemon.memory.read.bm25 import STOPWORDS_EN, STOPWORDS_ZH, tokenize
from daemon.memory.write.extract import (
    case_fields,
    entity_fields,
    pattern_fields,
    preference_fields,
    profile_fields,
)
from daemon.memory.write.noise import content_units, is_noise

_SENT = re.compile(r"[^.!?。！？…\n]+[.!?。！？…]*")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_Q_END = re.compile(r"[?？]\s*[\"'”’)）]*\s*$")
_WH_EN = re.compile(
    r"^(?:so |and |but |ok |okay |hey |hi |um |also |btw |quick question[,:]? )*"
    r"(?:what|what's|whats|where|where's|when|who|who's|why|how|which|whose|whom|is|are|am|was|were|do|does"
    r"|did|can|could|would|will|should|shall|may|might|have|has|had|any|anyone|isn't|aren't|don't|doesn't"
    r"|didn't|won't|wouldn't|shouldn't|can't)\b",
    re.IGNORECASE,
)
_WH_ZH = re.compile(
    r"什么|啥|哪|谁|怎么|怎样|为什么|为啥|几|多少|多久|吗[？?。！!]*$|呢[？?。！!]*$|么[？?]*$|是不是|有没有|能不能|可不可以|要不要"
)
_REQUEST_EN = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|\bpls\b|\bplz\b|^(?:help|give|tell|show|remind|write|make|"
    r"draft|suggest|recommend|find|list|explain|translate|summari[sz]e|check|plan|book|send|create|"
    r"rewrite|fix|draw|compare|calculate|convert)\b|\bi (?:need|want|would like|'d like|'d love|would love)"
    r" (?:a|an|some|to know|ideas?|help|you)\b|\bany (?:tips|ideas|advice|suggestions|recommendations)\b"
    r"|\b(?:help|remind) me\b|\blet me know\b|\bwhat about\b|\bhow about\b",
    re.IGNORECASE,
)
_REQUEST_ZH = re.compile(
    r"帮我|帮忙|请你|麻烦你|给我|推荐|能不能|可以帮|告诉我|提醒我|写一|写个|想个|列个|算一下|查一下|翻译|改成|语气"
)
_FIRST_EN = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b", re.IGNORECASE
)
_FIRST_ZH = re.compile(r"我|咱")
_SECOND = re.compile(r"\b(?:you|your|you're|yours|u)\b|你|您", re.IGNORECASE)
_NAME_MID = re.compile(r"(?<=[a-z,;]\s)[A-Z][a-z]+")
_DIGIT = re.compile(r"\d|[一二三四五六七八九十两]")
_EXCLAIM = re.compile(r"[!！]")

# A change of state: the newer statement replaces something ("these days", "switched", 搬, 改).
_CHANGE_EN = re.compile(
    r"\b(?:now|nowadays|these days|this days|anymore|any more|no longer|instead|switched|switching|switch"
    r"|changed|moved|moving|relocated|new|newly|since|finally|sold|quit|left|leaving|retired|replaced"
    r"|replacing|transferred|promoted|took over|taken over|inherited|gave up|given up|stopped|started|starting"
    r"|cancel+ed|called off|postponed|pushed|rescheduled|moved to|brought forward|delayed|off|dropped|broke up"
    r"|split up|divorced|married|engaged|got|became|turned|after|ever since|from now on|going forward"
    r"|lately|recently|just|handed in|back on|back to|these days|currently|at the moment|not anymore)\b",
    re.IGNORECASE,
)
_CHANGE_ZH = re.compile(
    r"现在|如今|目前|最近|这阵子|这段时间|后来|已经|终于|改|换|搬|不再|不用|不去|不跑|以后|从此|开始|离职|辞职|跳槽|入职|报到"
    r"|退休|调到|调去|卖了|分手|离婚|结婚|订婚|延期|推迟|取消|提前|改期|改到|告一段落|停了|戒了|新"
)
# History told as history: it does not replace the present ("when I was a student").
_HISTORY_EN = re.compile(
    r"\b(?:when i was|back when|back in|as a (?:kid|child|teen|teenager|student)|in college|at uni|in high school"
    r"|years ago|growing up|used to|once|in my twenties|in my (?:20s|30s)|my first job|ages ago|long ago)\b",
    re.IGNORECASE,
)
_HISTORY_ZH = re.compile(
    r"以前|小时候|当年|那时候|那会儿|大学时|上学时|读书时|年轻时|曾经|之前在|早年|几年前|去年"
)
# An addition next to what was said: a second one, too, as well.
_ADD_EN = re.compile(
    r"\b(?:also|too|as well|another|second|other|both|plus|in addition|joined|added|adopted|extra|more)\b",
    re.IGNORECASE,
)
_ADD_ZH = re.compile(r"也|还|又|另|第二|再加|多了|加入|新添|同时")
_NEG_EN = re.compile(
    r"\b(?:not|no|never|n't|don't|doesn't|didn't|won't|can't|nothing|nobody)\b|n't\b", re.IGNORECASE
)
_NEG_ZH = re.compile(r"不|没|别|无")
_TRIP_EN = re.compile(
    r"\b(?:trip|visit|visited|visiting|vacation|holiday|weekend in|spent|went to|flew to|tour|stayed)\b",
    re.IGNORECASE,
)
_TRIP_ZH = re.compile(r"旅游|旅行|出差|去了趟|玩了|度假|逛了|参观")
_RELATIONS = re.compile(
    r"\b(?:sister|brother|mom|mum|mother|dad|father|wife|husband|partner|boyfriend|girlfriend|son|daughter|friend"
    r"|boss|manager|colleague|coworker|doctor|dentist|neighbou?r|roommate|flatmate|aunt|uncle|cousin|grandma"
    r"|grandpa|grandmother|grandfather|kid|kids|child|baby|parents?|in-laws?|niece|nephew)\b"
    r"|姐姐|妹妹|哥哥|弟弟|妈妈|妈|爸爸|爸|老婆|老公|女朋友|男朋友|儿子|女儿|闺蜜|朋友|老板|领导|同事|医生|室友|邻居|孩子|爷爷|奶奶|外婆|外公|父母",
    re.IGNORECASE,
)

# Who a statement is about, when not the speaker: kin, friends and pets ("my sister lives in
# Osaka" is not where I live). The words of a relation that is itself a slot (partner) count only
# outside that slot ("my wife works at the bank" is her job; "my wife is a vet" names my partner).
_SUBJECT_WORDS = {
    "sister": "sister",
    "brother": "brother",
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "dad": "father",
    "father": "father",
    "son": "son",
    "daughter": "daughter",
    "friend": "friend",
    "kid": "child",
    "kids": "child",
    "child": "child",
    "baby": "child",
    "parents": "parents",
    "grandma": "grandmother",
    "grandmother": "grandmother",
    "grandpa": "grandfather",
    "grandfather": "grandfather",
    "aunt": "aunt",
    "uncle": "uncle",
    "cousin": "cousin",
    "niece": "niece",
    "nephew": "nephew",
    "roommate": "roommate",
    "flatmate": "roommate",
    "neighbour": "neighbour",
    "neighbor": "neighbour",
    "colleague": "colleague",
    "coworker": "colleague",
    "stepmother": "mother",
    "stepmom": "mother",
    "stepfather": "father",
    "stepdad": "father",
    "stepson": "son",
    "stepdaughter": "daughter",
    "grandson": "grandchild",
    "granddaughter": "grandchild",
    "grandparents": "grandparents",
    "sibling": "sibling",
    "siblings": "sibling",
    "twin": "sibling",
    "classmate": "classmate",
    "housemate": "roommate",
    "teammate": "colleague",
    "bestie": "friend",
    "buddy": "friend",
    "godmother": "godparent",
    "godfather": "godparent",
    "dog": "pet",
    "cat": "pet",
    "rabbit": "pet",
    "hamster": "pet",
    "puppy": "pet",
    "kitten": "pet",
    "姐姐": "sister",
    "妹妹": "sister",
    "哥哥": "brother",
    "弟弟": "brother",
    "妈妈": "mother",
    "我妈": "mother",
    "爸爸": "father",
    "我爸": "father",
    "儿子": "son",
    "女儿": "daughter",
    "孩子": "child",
    "朋友": "friend",
    "闺蜜": "friend",
    "父母": "parents",
    "爷爷": "grandfather",
    "奶奶": "grandmother",
    "外婆": "grandmother",
    "外公": "grandfather",
    "室友": "roommate",
    "邻居": "neighbour",
    "同事": "colleague",
    "表姐": "cousin",
    "表哥": "cousin",
    "表妹": "cousin",
    "表弟": "cousin",
    "堂姐": "cousin",
    "堂哥": "cousin",
    "堂妹": "cousin",
    "堂弟": "cousin",
    "姑姑": "aunt",
    "姑妈": "aunt",
    "阿姨": "aunt",
    "姨妈": "aunt",
    "小姨": "aunt",
    "婶婶": "aunt",
    "舅舅": "uncle",
    "叔叔": "uncle",
    "伯伯": "uncle",
    "侄子": "nephew",
    "外甥": "nephew",
    "侄女": "niece",
    "外甥女": "niece",
    "孙子": "grandchild",
    "孙女": "grandchild",
    "姥姥": "grandmother",
    "姥爷": "grandfather",
    "岳父": "father-in-law",
    "公公": "father-in-law",
    "岳母": "mother-in-law",
    "婆婆": "mother-in-law",
    "同学": "classmate",
    "舍友": "roommate",
    "队友": "colleague",
    "兄弟": "sibling",
    "姐妹": "sibling",
    "宝宝": "child",
    "狗": "pet",
    "猫": "pet",
    "兔": "pet",
    # the short forms people chat in ("我妹刚搬去深圳", "爸妈搬到昆山"), and in-laws
    "我妹": "sister",
    "我姐": "sister",
    "老妹": "sister",
    "我哥": "brother",
    "我弟": "brother",
    "老弟": "brother",
    "老妈": "mother",
    "母亲": "mother",
    "老爸": "father",
    "父亲": "father",
    "爸妈": "parents",
    "公婆": "parents-in-law",
    "岳父母": "parents-in-law",
    "嫂子": "sister-in-law",
    "弟媳": "sister-in-law",
    "姐夫": "brother-in-law",
    "妹夫": "brother-in-law",
    "女婿": "son-in-law",
    "儿媳": "daughter-in-law",
    "亲戚": "relative",
    "stepbrother": "brother",
    "stepsister": "sister",
    "in-laws": "parents-in-law",
    "mother-in-law": "mother-in-law",
    "father-in-law": "father-in-law",
    "sister-in-law": "sister-in-law",
    "brother-in-law": "brother-in-law",
    "relatives": "relative",
    "pal": "friend",
}
_PARTNER_WORDS = {
    "wife": "partner",
    "husband": "partner",
    "partner": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "fiance": "partner",
    "fiancee": "partner",
    "老婆": "partner",
    "老公": "partner",
    "妻子": "partner",
    "丈夫": "partner",
    "男朋友": "partner",
    "女朋友": "partner",
    "先生": "partner",
    "太太": "partner",
    "爱人": "partner",
    "男友": "partner",
    "女友": "partner",
    "媳妇": "partner",
    "老伴": "partner",
    "未婚夫": "partner",
    "未婚妻": "partner",
    "hubby": "partner",
    "bf": "partner",
    "gf": "partner",
}
_SUBJECT_EN = re.compile(
    r"\b("
    + "|".join(
        sorted((w for w in {**_SUBJECT_WORDS, **_PARTNER_WORDS} if w.isascii()), key=len, reverse=True)
    )
    + r")(?:'s|s')?\b",
    re.IGNORECASE,
)
_SUBJECT_ZH = re.compile(
    "|".join(
        sorted((w for w in {**_SUBJECT_WORDS, **_PARTNER_WORDS} if not w.isascii()), key=len, reverse=True)
    )
)


_INTRODUCED_EN = re.compile(
    r"\b(?:"
    + "|".join(
        sorted((w for w in {**_SUBJECT_WORDS, **_PARTNER_WORDS} if w.isascii()), key=len, reverse=True)
    )
    + r"|boss|manager|landlord|doctor|dentist|coach|teacher)(?:'s)?,?\s+((?:[A-Z][a-z]+)(?:\s[A-Z][a-z]+)?)"
)


def introduced(text: str) -> frozenset[str]:
    """The names relation words introduce ("my sister Ana", "our rabbit Clover", "my boss Karen")."""
    return frozenset(w for m in _INTRODUCED_EN.finditer(text) for w in m.group(1).split())


def names(text: str) -> frozenset[str]:
    """Capitalised words that are not function words: names of people, places, products."""
    return frozenset(_names(text))


def subjects(text: str, partner_slot: bool = False) -> frozenset[str]:
    """Whom a statement is about besides its speaker: kin, friends, colleagues, pets (empty: the
    speaker). With `partner_slot`, partner words name the slot's value, not its holder."""
    words = [m.group(1).casefold() for m in _SUBJECT_EN.finditer(text)]
    words += [m.group(0) for m in _SUBJECT_ZH.finditer(text)]
    table = _SUBJECT_WORDS if partner_slot else {**_SUBJECT_WORDS, **_PARTNER_WORDS}
    return frozenset(table[w] for w in words if w in table)


_OWN_EN = re.compile(r"^(?:my|our)\s+", re.IGNORECASE)
_OWN_ZH = re.compile(r"^(?:我们的|我的|我们|我)")


def led_by_someone(text: str) -> bool:
    """The main clause opens with another person as its subject: "My brother gets his hair cut
    at Studio Nine now", "我哥换了理发店" (their news), not "book club is on Sundays now, works
    better for the parents" (the plan's news, whoever goes along)."""
    clause = main_clause(text).strip()
    if _HAN.search(clause):
        # kin words carry their 我 ("我妈换了主治医生"), others come after it ("我的室友…")
        return bool(_SUBJECT_ZH.match(clause) or _SUBJECT_ZH.match(_OWN_ZH.sub("", clause, count=1)))
    return bool(_SUBJECT_EN.match(_OWN_EN.sub("", clause, count=1)))


TURN_FEATURES = (
    "ends_question",
    "question_share",
    "declarative_content",
    "rule_noise",
    "wh_start",
    "request",
    "first_person",
    "second_person",
    "assistant",
    "log_units",
    "digits",
    "names",
    "exclaims",
    "cjk",
)


def sentences(text: str) -> list[str]:
    """The sentences of a turn (split after . ! ? and their CJK forms)."""
    return [s.strip() for s in _SENT.findall(unicodedata.normalize("NFKC", text)) if s.strip()]


def is_question(sentence: str) -> bool:
    if _Q_END.search(sentence):
        return True
    if _HAN.search(sentence):
        return bool(re.search(r"(?:吗|呢|么)[。.!！~]*$", sentence))
    return False


# a clause mark inside a question: the clause before it may state something ("I don't mind
# meeting up, but why Starbucks?", "孩子幼儿园要交手工作业，做什么好？"); in Chinese chat a space
# between two characters is one too ("快递帮她拿了 好重 她是买了砖吗" tells the parcel collected)
_CLAUSE_MARK = re.compile(r"[,;:，；：、]|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")
# a proposal has the form of a question but puts a plan forward ("How about we bike to work?")
_PROPOSAL = re.compile(r"^(?:how about|what about|why (?:don't|not)|shall (?:we|i)|要不|不如)", re.I)


def plain_question(text: str) -> bool:
    """Every sentence of the turn is a question with no clause of its own: it asks and asserts
    nothing ("How often should I change the wiper blades?", "柯基掉毛严重怎么办？"), whatever
    its words suggest about the asker."""
    sents = sentences(text)
    return bool(sents) and all(
        is_question(s) and not _CLAUSE_MARK.search(s) and not _PROPOSAL.match(s) for s in sents
    )


def turn_features(text: str, role: str | None) -> np.ndarray:
    """The surface cues of a turn (see TURN_FEATURES), for the turn-kind model."""
    sents = sentences(text) or [text]
    questions = [s for s in sents if is_question(s)]
    declarative = any(not is_question(s) and not is_noise(s) for s in sents)
    cjk = bool(_HAN.search(text))
    first = _FIRST_ZH.search(text) if cjk else _FIRST_EN.search(text)
    units = content_units(text)
    return np.asarray(
        [
            float(is_question(sents[-1])),
            len(questions) / len(sents),
            float(declarative),
            float(is_noise(text)),
            float(any(_WH_EN.search(s) or _WH_ZH.search(s) for s in sents)),
            float(bool(_REQUEST_EN.search(text) or _REQUEST_ZH.search(text))),
            float(bool(first)),
            float(bool(_SECOND.search(text))),
            float(role == "assistant"),
            math.log1p(units) / 4.0,
            float(bool(_DIGIT.search(text))),
            float(bool(_NAME_MID.search(text))),
            float(bool(_EXCLAIM.search(text))),
            float(cjk),
        ],
        dtype=np.float32,
    )


# What a question asks for (the question model): cues of several answers, of the past, of now.
QUESTION_FEATURES = ("questions", "several", "past", "now", "plural_head")
_SEVERAL_EN = re.compile(
    r"\b(?:how many|each|both|all|every|ever|list|any|and (?:where|what|who|when|which|how))\b", re.I
)
_SEVERAL_ZH = re.compile(r"哪些|都|分别|各|几|多少|还有|以及")
_PAST_EN = re.compile(
    r"\b(?:did|was|were|had|used to|before|last|ago|previous(?:ly)?|old|first|grew up)\b", re.I
)
_PAST_ZH = re.compile(r"以前|之前|上一|上个|去年|小时候|当年|那天|那次|曾经|(?<!过)过(?!敏)")
_NOW_EN = re.compile(r"\b(?:now|these days|currently|at the moment|still|nowadays|at present)\b", re.I)
_NOW_ZH = re.compile(r"现在|目前|最近|这阵子|如今|平时|一般|还")
_AUX = frozenset(
    "is are was were do does did am has have had should can will would could the a an my your our".split()
)
_WH_HEAD = re.compile(r"\b(?:what|which)\s+(\w+)(?:\s+(\w+))?", re.I)


def _plural_head(text: str) -> bool:
    """The thing asked for is plural: "what pets", "which design tools"."""
    for m in _WH_HEAD.finditer(text):
        for word in m.groups():
            if word is None or word.casefold() in _AUX:
                break
            w = word.casefold()
            if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
                return True
    return False


def question_features(text: str) -> np.ndarray:
    """The surface cues of a question (see QUESTION_FEATURES), for the question model."""
    norm = unicodedata.normalize("NFKC", text)
    return np.asarray(
        [
            min(3, len(re.findall(r"[?？]", norm))) / 3.0,
            _cue(_SEVERAL_EN, _SEVERAL_ZH, norm),
            _cue(_PAST_EN, _PAST_ZH, norm),
            _cue(_NOW_EN, _NOW_ZH, norm),
            float(_plural_head(norm)),
        ],
        dtype=np.float32,
    )


@functools.lru_cache(maxsize=1 << 16)
def _bucket(gram: str, dim: int) -> int:
    return zlib.crc32(gram.encode()) % dim


@functools.lru_cache(maxsize=512)
def hashed_ngrams(text: str, dim: int = 1024) -> np.ndarray:
    """Character n-grams of the lower-cased text hashed into `dim` buckets, L2-normalised.

    Latin text gives 3- to 5-grams within word boundaries, Chinese 1- and 2-grams: the surface
    form of questions and pleasantries ("can you", "吗", "谢谢") that embeddings blur.

    It was a quarter of a write's CPU (the turn-kind and the category model each read it for
    every draft), so: text without a Han character skips the per-n-gram search, each n-gram's
    bucket is remembered, the counts are one `np.bincount`, and the last texts' vectors are kept
    for the second model (read-only: both share them). The vectors are the same bit for bit as
    adding 1.0 per n-gram (issue 25; `tests/memory/test_models.py`).
    """
    low = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    padded = f" {low} "
    at: list[int] = []
    if _HAN.search(low) is None:  # no n-gram holds a Han character
        for n in (3, 4, 5):
            at.extend(_bucket(padded[i : i + n], dim) for i in range(len(padded) - n + 1))
    else:
        for n in (3, 4, 5):
            at.extend(
                _bucket(padded[i : i + n], dim)
                for i in range(len(padded) - n + 1)
                if not _HAN.search(padded[i : i + n])
            )
        han = "".join(ch if _HAN.match(ch) else " " for ch in low)
        for n in (1, 2):
            at.extend(
                _bucket(han[i : i + n], dim) for i in range(len(han) - n + 1) if " " not in han[i : i + n]
            )
    out = np.bincount(np.asarray(at, dtype=np.intp), minlength=dim).astype(np.float32)
    norm = float(np.linalg.norm(out))
    vec = out / norm if norm else out
    vec.flags.writeable = False
    return vec


# Text cues of a pair (any embedder), then the cosine cues (only with the embedder trained on).
PAIR_TEXT_FEATURES = (
    "content_overlap",
    "shared_names",
    "change_new",
    "change_old",
    "history_new",
    "history_old",
    "additive_new",
    "negation_new",
    "trip_new",
    "relation_mismatch",
    "same_category",
    "novelty_new",
    "novelty_old",
    "overlap_x_change",
)
PAIR_COSINE_FEATURES = (
    "cosine",
    "cosine_sq",
    "cosine_over_085",
    "cosine_over_090",
    "cosine_x_change",
    "cosine_x_additive",
    "cosine_x_history",
)


def _content_terms(text: str) -> set[str]:
    return {t for t in tokenize(text) if t not in STOPWORDS_EN and t not in STOPWORDS_ZH and len(t) > 1}


# Words that place a plan in time rather than say what it is ("tomorrow", "3pm", 周四, 十点半).
_CALENDAR_EN = re.compile(
    # weekdays by their whole names or their short forms, not every word they begin ("friend",
    # "money", "sunset"); "wed" is left out: the stem of "wedding" is "wed"
    r"\d|^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|tues|thu|thur|thurs|fri|sat|sun)$|^(?:today|tonight|tomorrow|tomorrow'|yesterday|morning"
    r"|afternoon|evening|night|noon|midday|week|weekend|month|year|am|pm|next|last|this|o'clock)$"
)
_CALENDAR_ZH = re.compile(
    r"周|星期|礼拜|上午|下午|中午|晚上|早上|今天|明天|后天|昨天|今晚|明晚|点|号|月|日|[一二三四五六七八九十两]"
    # ... as Traditional writes them ("禮拜三下午兩點", "下週") and Cantonese says them (聽日, 朝早,
    # 下晝): a plan and a tired "禮拜三，累。" share a day, not a word
    r"|週|禮拜|點|號|後天|兩|聽日|听日|今日|琴日|朝早|下晝|下昼|晏晝|晏昼"
)


# ... and Chinese pronoun + modal compounds the segmenter keeps whole (我要, 我们, 得去)
_PERSON_ZH = re.compile(r"^(?:我|你|您|他|她|咱)|^(?:要|得|会|去|想|得去|要去)$")


# Words that say how any plan is made, kept or changed ("booked", "rescheduled", 预约, 安排,
# 已经, 重新), or in which month: two plans that share only these are two plans ("Booked a week
# in Crete" is not moved by "the venue double-booked, so the wedding got pushed").
_ARRANGING = re.compile(
    r"^(?:re)?(?:book|reserv|reservation|schedul|schedule|arrang|arrangement|organis|organiz|plan|confirm"
    r"|confirmation|cancel|postpon)|^(?:january|february|march|april|june|july|august|september|october"
    r"|november|december|jan|feb|apr|jun|jul|aug|sep|sept|oct|nov|dec)$"
    r"|^(?:预约|预订|预定|订好|约好|安排|计划|取消|已经|重新|改期|推迟)$"
)


def activity_terms(text: str) -> set[str]:
    """A statement's content words without the ones that only say when (or who) or how a plan
    is arranged: what a plan is about."""
    return {
        t
        for t in _content_terms(text)
        if not (
            _CALENDAR_EN.search(t) or _CALENDAR_ZH.search(t) or _PERSON_ZH.search(t) or _ARRANGING.search(t)
        )
    }


# a word made only of the characters of a date or time (周五, 明天, 十点半, 8号), not one that holds
# one among others (老周 is a person, 两节课 two classes)
_WHEN_ONLY_ZH = re.compile(rf"(?:{_CALENDAR_ZH.pattern}|\d)+")


# characters that name nothing on their own: pronouns, particles, "this/that", "not", "and"
_FUNCTION_CHARS_ZH = (
    "我你您他她它们的了是在把被也都就还又很太这那个些不没有和跟与或吗呢吧啊呀哦嘛着过得地给让去来说要会想能"
)
# a Chinese statement cut where only a date, a time or a function word stands between its words
_NOT_A_NAME_ZH = re.compile(rf"(?:{_CALENDAR_ZH.pattern}|[{_FUNCTION_CHARS_ZH}]|[^\u3400-\u9fff])+")


def shared_words(a: str, b: str) -> set[str]:
    """What two statements name in common: their shared topic terms, and for Chinese, whose
    segmenter splits one name two ways ("大众朗逸" / "朗逸卖了", "年卡" / "年"+"卡"), the shared
    pairs of adjacent characters within what is left once dates and function words are cut out."""
    common = topic_terms(a) & topic_terms(b)
    if _HAN.search(a) and _HAN.search(b):
        common |= _han_pairs(a) & _han_pairs(b)
    return common


def _han_pairs(text: str) -> set[str]:
    return {run[i : i + 2] for run in _NOT_A_NAME_ZH.split(text) for i in range(len(run) - 1)}


def topic_terms(text: str) -> set[str]:
    """A statement's content words without those that are only a date or a time: like
    `activity_terms`, but a Chinese word that holds a calendar character among others stays
    ("老周那两节课代完了" names 老周 and 两节课)."""
    return {
        t
        for t in _content_terms(text)
        if not (
            _WHEN_ONLY_ZH.fullmatch(t) or (t.isascii() and _CALENDAR_EN.search(t)) or _PERSON_ZH.search(t)
        )
    }


# A plan that changed says so: moved, cancelled, instead, 改到, 取消 (narrower than _CHANGE_*:
# "I've got a haircut" and "just booked" change no other plan).
# "can't make it" calls a plan off; "won't make it worse", "can't make sense of", "won't make a
# difference" call nothing off (a hamstring question retired the physio appointment it named)
_CANT_MAKE = (
    r"(?:can'?t|cannot|won'?t) make(?! (?:(?:it|things|that|this|them|matters) )?(?:worse|better|easier"
    r"|harder|sense|(?:a|any) difference|up)\b)"
)
# moved with its object between, to a day or a time: "pushed my haircut to thursday", "moved the
# call with Acme to 3", "bumped our dinner back an hour"
MOVED_TO_TIME = (
    r"(?:mov|push|shift|bump|reschedul|chang)\w* (?:[\w']+ ){1,4}?(?:(?:to|till|until) (?:(?:next |this )?"
    r"(?:mon|tue|wed|thu|fri|sat|sun)\w*|tomorrow|tonight|noon|midday|the \d{1,2}(?:st|nd|rd|th)"
    r"|\d{1,2}(?:[:.]\d{2})?(?:\s*[ap]m)?(?!\w|[:.]\d))|back (?:by )?(?:a|an|one|two|half|\d+) (?:hour|day|week)s?)"
)
_PLAN_CHANGE_EN = re.compile(
    r"\b(?:mov(?:e|ed|es|ing)|re-?schedul\w*|postpon\w*|push(?:ed|es|ing)?|delay\w*|bump\w*|shift\w*"
    r"|brought forward|put off|cancel+\w*|call(?:ed|ing)? off|off|instead|no longer|not anymore|anymore"
    r"|chang(?:e|ed|es|ing)|switch\w*|now|" + _CANT_MAKE + r"|rain check)\b",
    re.IGNORECASE,
)
_PLAN_CHANGE_ZH = re.compile(
    # 提前 moves a plan when it says to when or by how much, or ends the clause ("提前到周四",
    # "提前了一小时", "会议提前了"); before another verb it is "ahead of time" ("提前还20万" is
    # paying early, "提前订票" booking early), which moves nothing
    # (延期 after a permit or a contract is its extension: "签证延期终于约上了" moves no plan)
    r"改|推迟|推到|(?<![证證照同留])延期|延后|取消|提前(?=到|至|了|一|两|半|几|\d|个|$|[，。！？,.!?；;\s])|挪到|换到|换成|不去了|去不了"
    r"|来不了|黄了|泡汤"
)


# A plan called off or moved, in so many words (no bare "move" or "change": "I moved to Lisbon"
# moves no plan to visit Lisbon).
_PLAN_OFF_EN = re.compile(
    r"\b(?:cancel+\w*|call(?:ed|ing|s)? (?:it )?off|postpon\w*|re-?schedul\w*|push(?:ed|ing)? (?:back|to)"
    r"|delay(?:ed|ing)?|put off|" + _CANT_MAKE + r"|rain check|instead(?! of)|(?:is|'s|are|was) off"
    r"|moved (?:to|from)|brought forward|scrapped|fell through|" + MOVED_TO_TIME + r")\b",
    re.IGNORECASE,
)
_PLAN_OFF_ZH = re.compile(r"取消|推迟|延期|延后|改期|改到|改成|改在|挪到|不去了|去不了|来不了|黄了|泡汤")


def plan_moved(old: str, new: str) -> bool:
    """The newer statement calls off or moves the plan the older one tells, naming what it is
    about ("we've postponed the kayaking weekend" after "kayaking on the Wye with Sam in May"):
    evidence of a replaced plan that needs no model."""
    if not _cue(_PLAN_OFF_EN, _PLAN_OFF_ZH, new):
        return False
    return bool(activity_terms(old) & activity_terms(new))


# A plan called off, not moved: no other time is given for it ("Thursday's yoga is cancelled",
# 周四的瑜伽取消了), against a move to one ("pushed to Friday", "cancelled, going Friday instead", 改到周五)
_CALL_OFF_EN = re.compile(
    r"\b(?:cancel+\w*|call(?:ed|ing|s)? (?:it )?off|" + _CANT_MAKE + r"|(?:is|'s|are|was) off|scrapped"
    r"|fell through)\b",
    re.IGNORECASE,
)
_CALL_OFF_ZH = re.compile(r"取消|不去了|去不了|来不了|黄了|泡汤")
_MOVE_EN = re.compile(
    r"\b(?:mov(?:e|ed|es|ing)|re-?schedul\w*|postpon\w*|push\w*|delay\w*|bump\w*|shift\w*|brought forward"
    r"|put off|instead|rain check|chang(?:e|ed|es|ing)|switch\w*|re-?book\w*|re-?arrang\w*)\b",
    re.IGNORECASE,
)
_MOVE_ZH = re.compile(r"改|推迟|推到|延期|延后|顺延|提前|挪到|换到|换成|重新安排|安排到|重新约")


def calls_off_only(text: str) -> bool:
    """Whether a statement calls a plan off and gives it no other time (no move, no "instead")."""
    return bool(_cue(_CALL_OFF_EN, _CALL_OFF_ZH, text)) and not _cue(_MOVE_EN, _MOVE_ZH, text)


def plan_change_cue(text: str) -> bool:
    """Whether a statement says a plan changed (moved, cancelled, instead, 改到, 取消, ...)."""
    return _cue(_PLAN_CHANGE_EN, _PLAN_CHANGE_ZH, text) > 0


# ---- what a retirement needs: the newer statement replaces, it does not add or qualify --------
# Closed-class words, not content: each names a way a statement leaves the older one true.
# Narrower than the update model's soft cues above (_ADD_*, _HISTORY_*: "more", "years ago",
# 去年 weigh for or against an update there), because these veto; those stay as they are, the
# trained weights read them.

# Framing before a colon ("Note to self: …", "FYI: …", "备忘：…"): the statement is what follows.
_LEAD_IN = re.compile(r"^\s*(?:[^\s:：]+\s+){0,4}[^\s:：\d][^\s:：]*(?::\s+|：\s*)(?=\S)")
# A second one next to the first: "I also…", "another", "a second", 也, 又, 另外.
_ALSO_EN = re.compile(
    r"\b(?:also|too|as well|another|a second|in addition|besides|on top of|alongside|both)\b", re.IGNORECASE
)
_ALSO_ZH = re.compile(r"也|又|另外|另一|第二个|还有|还养|还用|还在学|同时")
# For a while only: the usual arrangement comes back ("this week I'm working from Lyon").
_FOR_NOW_EN = re.compile(
    r"\b(?:this week|this weekend|this month|for now|for the time being|temporarily|for a (?:few|couple of)"
    r" (?:days|weeks|months)|for (?:a|one|two|three|the next \w+) (?:days?|weeks?|months?)|until|till|while"
    r"|in the meantime|meanwhile|for the moment|just for|fortnight|through the end of|until the end of"
    r"|through the (?:holidays|summer|winter|spring|autumn|fall|season))\b",
    re.IGNORECASE,
)
# a stretch of time counted from now: 这周, 这两周, 这一个月, 接下来几天, 未来一个月 (not 这阵子, "these
# days", which tells what is so now)
_FOR_NOW_ZH = re.compile(
    r"(?:这|接下来的?|未来)(?:一|两|几|半|[三四五六七八九十])?个?(?:周|星期|礼拜|月|天)|本周|暂时|临时|暂住|借住"
    r"|这段期间|期间"
)
# Not (yet) so: a wish, a hypothesis, a thought ("if I ever move to Rome", "I'd love a Tesla").
_IF_EN = re.compile(
    r"\b(?:if (?:i|we) (?:ever|ever do|were|had|could)|someday|some day|one day|i'd love|i would love|i wish"
    r"|wish i|dream of|dreaming of|thinking (?:of|about)|considering|would like to|hope to|hoping to)\b",
    re.IGNORECASE,
)
_IF_ZH = re.compile(r"如果|要是|假如|万一|有一天|想要|希望|梦想|考虑要不要|打算考虑")
# A change weighed, not made, when the statement opens with it: "would switching to giffgaff save
# me anything?", "should I move to Leeds?", "is it worth getting a Pixel?", 要不要换成移动的卡.
# Only in the first sentence: "I moved to Porto. Should I get a local SIM?" tells the move.
_WEIGHED_EN = re.compile(
    r"\b(?:would \w+ing|should (?:i|we)|i should|we should|(?:is it|would it be) worth|worth \w+ing)\b",
    re.IGNORECASE,
)
_WEIGHED_ZH = re.compile(r"要不要|该不该|值不值得|是不是该|是不是应该")
# History told as history: a past state that says nothing of the present ("back in college I…").
_PAST_STATE_EN = re.compile(
    r"\b(?:used to|when i was|when we were|back when|back in|as a (?:kid|child|teen|teenager|student)"
    r"|growing up|in college|in high school|at uni|my first job|in my (?:teens|twenties|thirties|20s|30s))\b",
    re.IGNORECASE,
)
_PAST_STATE_ZH = re.compile(r"以前|小时候|当年|那时候|那会儿|大学时|上学时|读书时|年轻时|曾经|之前在|早年")
# ... unless it says the present changed ("I used to live in Leeds; now it's York").
_NOW_CHANGED_EN = re.compile(
    r"\b(?:now|these days|nowadays|no longer|anymore|any more|instead)\b", re.IGNORECASE
)
_NOW_CHANGED_ZH = re.compile(r"现在|如今|目前|不再|已经不|改|换|搬")
# A record changed on the record's own terms, said as a change of state ("the hearing was moved
# to May", "ticket 12 is now with Priya", "改到周五"): phrases, since the bare words ("updated on
# 1 June", "drop-off", "the night shift") turn up in facts that change nothing.
_RECORD_CHANGE_EN = re.compile(
    r"\b(?:(?:has|have|had|was|were|got|is|are|been|being) (?:now |just |since )?(?:been )?(?:moved|rescheduled"
    r"|postponed|cancel+ed|called off|reassigned|replaced|renamed|changed|switched|pushed back|brought forward"
    r"|delayed|scrapped|dropped|withdrawn|taken over)"
    r"|(?:moved|rescheduled|postponed|pushed|changed|switched|reassigned|brought forward|delayed|handed over)"
    r" (?:to|back|forward|over)\b|no longer|not any ?more|(?:is|are|was) now|now (?:is|are|lives|works|meets"
    r"|runs|starts|costs|goes|belongs|reports)|(?:is|was|are|were) off|called off|fell through|instead(?! of)"
    r"|" + _CANT_MAKE + r"|rain check|changed my mind|switched (?:to|from|over)|from now on"
    r"|going forward|now (?:prefer|use|like|live|work|drive|take|eat|have|see|go)|" + MOVED_TO_TIME + r")\b",
    re.IGNORECASE,
)
_RECORD_CHANGE_ZH = re.compile(
    r"改到|改成|改为|改在|改用|换成|换到|换了|推迟|延期|延后|取消了|取消|提前到|不再|已经改|现在是|现在由|调整为|更改为|变成|搬到"
    r"|转给|移交|以后都"
)


def main_clause(text: str) -> str:
    """The statement without a framing lead-in ending in a colon ("For the record: …")."""
    # twice: an item without a named speaker reads "user: Note to self: …"
    return _LEAD_IN.sub("", _LEAD_IN.sub("", text, count=1), count=1)


def keeps_the_older(text: str) -> str | None:
    """Why a newer statement leaves an older one true, whatever it is about: it adds a second
    one ("also"), holds for a while only ("this week"), is not so ("if I ever"), or tells a
    past state as history ("back in college") without saying the present changed. None when
    nothing in its words says so."""
    why = reasons_to_keep(text)
    return why[0] if why else None


def reasons_to_keep(text: str) -> list[str]:
    """Every reason of `keeps_the_older` that the words give, in its order."""
    zh = bool(_HAN.search(text))

    def has(en: re.Pattern[str], cn: re.Pattern[str]) -> bool:
        return bool((cn if zh else en).search(text))

    why = []
    # "also" beside words of a change is no addition ("cancelled the gym and joined the climbing
    # centre, they have weights too"; "羽毛球馆拆了，周三改成游泳了，也挺好")
    if (
        has(_ALSO_EN, _ALSO_ZH)
        and not has(_RECORD_CHANGE_EN, _RECORD_CHANGE_ZH)
        and not plan_change_cue(text)
    ):
        why.append("adds a second one")
    # "book club is off this week" calls this week's meeting off: a change of a plan, not a
    # temporary arrangement beside the usual one
    if has(_FOR_NOW_EN, _FOR_NOW_ZH) and not plan_change_cue(text):
        why.append("holds for a while only")
    if has(_IF_EN, _IF_ZH):
        why.append("a wish or a hypothesis")
    first = sentences(text)[:1]
    if first and (_WEIGHED_ZH if zh else _WEIGHED_EN).search(first[0]):
        why.append("a change weighed, not made")
    if has(_PAST_STATE_EN, _PAST_STATE_ZH) and not has(_NOW_CHANGED_EN, _NOW_CHANGED_ZH):
        why.append("history told as history")
    return why


# A clause with its subject dropped, as people write about themselves or tell what they want:
# "Started at Globex on Monday", "Finally got the keys", "Use tabs" (a verb or adverb first).
_DROPPED_SUBJECT_EN = re.compile(
    # a past or -ing form, and not a name ("Aethelred Innovations has…", "Ted moved…")
    r"^(?:(?:\w+ed|\w+ing)\b(?!'s|\s+(?-i:[A-Z]))"
    r"|(?:got|went|left|took|began|made|found|quit|bought|sold|gave|came|met|had|saw|just"
    r"|finally|recently|still|now|also|officially|lately|loving|off|back"
    # an instruction is the speaker's own wish: "Use PostgreSQL, not MySQL", "Keep replies short"
    r"|use|keep|stop|please|don't|do not|never|always|avoid|prefer|let's|switch|call|remember|make|send"
    r"|book|try|skip|drop)\b)",
    re.IGNORECASE,
)
# The speaker's own words, not "US" (the country: "a US client", "us-east-4").
_SPEAKER_EN = re.compile(
    r"\b(?:[Ii](?:'m|'ve|'d|'ll)?|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e(?:'re|'ve|'d|'ll)?|[Oo]urs?|[Oo]urselves"
    r"|[Uu]s(?![-\w]))\b"
)
# Chinese drops the subject when it is the speaker; a third person or a "this/that" says otherwise.
_OTHER_SUBJECT_ZH = re.compile(r"^(?:该|此|这个|那个|这家|那家|这条|那条)|他|她|它")


def about_speaker(text: str) -> bool:
    """The statement speaks of its speaker in its main clause: I, my, we, 我, 咱, or a subject
    left out as people leave their own out ("Started at Globex", "搬到杭州了")."""
    clause = main_clause(text).strip()
    if _HAN.search(clause):
        return bool(_FIRST_ZH.search(clause)) or not _OTHER_SUBJECT_ZH.search(clause)
    return bool(_SPEAKER_EN.search(clause) or _DROPPED_SUBJECT_EN.match(clause))


def record_change(old: str, new: str) -> bool:
    """The newer statement says that what the older one names changed: a change of state in so
    many words ("was moved to", "is now", "I changed my mind", 改用), and a word of the older
    one's. For a record about a thing it is what a retirement needs; for the speaker's own
    statements it is evidence enough when the pair model finds the pair plausible."""
    clause = main_clause(new)
    if not _cue(_RECORD_CHANGE_EN, _RECORD_CHANGE_ZH, clause):
        return False
    # a shared day or hour is no shared subject ("physio every Wednesday", then "book club moved
    # to Wednesdays")
    return bool(activity_terms(main_clause(old)) & activity_terms(clause))


def _names(text: str) -> set[str]:
    """Capitalised words that are not function words: names of people, places, products."""
    return {w for w in re.findall(r"\b[A-Z][a-zA-Z]+\b", text) if w.casefold() not in STOPWORDS_EN}


def _cue(en: re.Pattern[str], zh: re.Pattern[str], text: str) -> float:
    return float(bool(zh.search(text) if _HAN.search(text) else en.search(text)))


def _relations(text: str) -> set[str]:
    return {m.group(0).casefold() for m in _RELATIONS.finditer(text)}


class _Cues(NamedTuple):
    """What pair_features reads of one statement on its own."""

    terms: frozenset[str]
    names: frozenset[str]
    relations: frozenset[str]
    change: float
    history: float
    additive: float
    negation: float
    trip: float


# The English cue patterns without IGNORECASE, searched in ASCII text lower-cased once: the same
# matches (every letter these patterns name is lower case; tests/memory/test_ascii_paths.py holds
# the two ways equal), at a quarter to a half of the time. A statement's cues were ~1 ms of a
# recall's read-time net at 100k items (the hits its cache had not seen).
_LOWER = {
    p: re.compile(p.pattern, p.flags & ~re.IGNORECASE)
    for p in (_CHANGE_EN, _HISTORY_EN, _ADD_EN, _NEG_EN, _TRIP_EN, _RELATIONS)
}


@functools.lru_cache(maxsize=4096)
def _statement_cues(text: str) -> _Cues:
    # cached: a statement is weighed against several others, and at write and read time
    if text.isascii():  # no Chinese: the English patterns, on the lower-cased text
        low = text.lower()
        return _Cues(
            frozenset(_content_terms(text)),
            frozenset(_names(text)),
            frozenset(m.group(0) for m in _LOWER[_RELATIONS].finditer(low)),
            *(
                float(bool(_LOWER[p].search(low)))
                for p in (_CHANGE_EN, _HISTORY_EN, _ADD_EN, _NEG_EN, _TRIP_EN)
            ),
        )
    return _Cues(
        frozenset(_content_terms(text)),
        frozenset(_names(text)),
        frozenset(_relations(text)),
        _cue(_CHANGE_EN, _CHANGE_ZH, text),
        _cue(_HISTORY_EN, _HISTORY_ZH, text),
        _cue(_ADD_EN, _ADD_ZH, text),
        _cue(_NEG_EN, _NEG_ZH, text),
        _cue(_TRIP_EN, _TRIP_ZH, text),
    )


def pair_features(
    old: str, new: str, old_category: str, new_category: str, cosine: float | None
) -> np.ndarray:
    """Cues that a newer statement `new` retires an older one `old` of the same person: how
    alike they are, what the newer one adds, and whether it announces a change, tells history,
    adds a second thing or is about someone else. PAIR_TEXT_FEATURES, then PAIR_COSINE_FEATURES
    when `cosine` is given."""
    a, b = _statement_cues(old), _statement_cues(new)
    ta, tb = a.terms, b.terms
    overlap = len(ta & tb) / max(1, min(len(ta), len(tb)))
    ra, rb = a.relations, b.relations
    change, history, additive = b.change, b.history, b.additive
    text = [
        overlap,
        float(bool(a.names & b.names)),
        change,
        a.change,
        history,
        a.history,
        additive,
        b.negation,
        b.trip,
        float(bool(ra) and bool(rb) and not (ra & rb)),
        float(old_category == new_category),
        len(tb - ta) / max(1, len(tb)),
        len(ta - tb) / max(1, len(ta)),
        overlap * change,
    ]
    if cosine is not None:
        text += [
            cosine,
            cosine * cosine,
            float(cosine > 0.85),
            float(cosine > 0.9),
            cosine * change,
            cosine * additive,
            cosine * history,
        ]
    return np.asarray(text, dtype=np.float32)


def pair_feature_ranges(
    new: str, new_category: str, old_categories: list[str], cosines: list[float] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per older statement, the least and the most each of `pair_features` can be when only the
    newer statement, the categories and the cosines are known: (lo, hi), one row per older
    statement, float64. The features of the newer statement alone, the category match and the
    cosine cues are exact (lo = hi); those that read the older statement's words span what they
    can take (an overlap in [0, 1], a cue 0 or 1), or 0 when the newer one leaves them no room
    (no terms, no names, no relations). Used to skip reading an older statement's words when no
    value of them can lift the update model's P to a bar (write/pairbound.py)."""
    b = _statement_cues(new)
    terms, named, related = float(bool(b.terms)), float(bool(b.names)), float(bool(b.relations))
    # name → (least, most) over every older statement (`pair_features` computes each)
    text = {
        "content_overlap": (0.0, terms),
        "shared_names": (0.0, named),
        "change_new": (b.change, b.change),
        "change_old": (0.0, 1.0),
        "history_new": (b.history, b.history),
        "history_old": (0.0, 1.0),
        "additive_new": (b.additive, b.additive),
        "negation_new": (b.negation, b.negation),
        "trip_new": (b.trip, b.trip),
        "relation_mismatch": (0.0, related),
        "same_category": (0.0, 0.0),  # exact, per older statement: set below
        "novelty_new": (0.0, terms),
        "novelty_old": (0.0, 1.0),
        "overlap_x_change": (0.0, terms * b.change),
    }
    width = len(PAIR_TEXT_FEATURES) + (len(PAIR_COSINE_FEATURES) if cosines is not None else 0)
    lo = np.zeros((len(old_categories), width))
    hi = lo.copy()
    lo[:, : len(PAIR_TEXT_FEATURES)] = [text[name][0] for name in PAIR_TEXT_FEATURES]
    hi[:, : len(PAIR_TEXT_FEATURES)] = [text[name][1] for name in PAIR_TEXT_FEATURES]
    at = PAIR_TEXT_FEATURES.index("same_category")
    lo[:, at] = hi[:, at] = [float(c == new_category) for c in old_categories]
    if cosines is not None:
        c = np.asarray(cosines, dtype=np.float64)
        cues = {
            "cosine": c,
            "cosine_sq": c * c,
            "cosine_over_085": c > 0.85,
            "cosine_over_090": c > 0.9,
            "cosine_x_change": c * b.change,
            "cosine_x_additive": c * b.additive,
            "cosine_x_history": c * b.history,
        }
        exact = np.stack([cues[name] for name in PAIR_COSINE_FEATURES], axis=1).astype(np.float64)
        lo[:, len(PAIR_TEXT_FEATURES) :] = hi[:, len(PAIR_TEXT_FEATURES) :] = exact
    return lo, hi


_FREQ_EN = re.compile(
    r"\b(?:every|each|usually|normally|always|often|daily|weekly|nightly|most (?:days|mornings|nights|weekends)"
    r"|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekdays|weekends)"
    r"|(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays) are|times a (?:week|day|month)"
    r"|twice a|once a|routine|ritual|habit|religiously|before work|after work|before bed)\b",
    re.IGNORECASE,
)
_FREQ_ZH = re.compile(
    r"每天|每周|每个?月|每晚|每早|每次|一般|通常|平时|总是|经常|习惯|一周[一二三四五六七两几]次|周末都|天天|雷打不动"
)
_LIKE_EN = re.compile(
    r"\b(?:like|likes|love|loves|prefer|prefers|hate|hates|enjoy|favou?rite|fave|can't stand|cannot stand"
    r"|into|fan of|swear by|obsessed|use|using|rather|allergic|vegan|vegetarian|don't eat|never eat)\b",
    re.IGNORECASE,
)
_LIKE_ZH = re.compile(r"喜欢|爱|讨厌|偏好|最爱|受不了|不吃|不喝|忌口|过敏|用|习惯用|推荐")
_PAST_EN = re.compile(
    r"\b(?:yesterday|last (?:week|month|year|night|weekend|time)|ago|went|was|were|did|had|got|just)\b"
    r"|\b\w{3,}ed\b",
    re.IGNORECASE,
)
_PAST_ZH = re.compile(r"了|过|昨天|上周|上个月|去年|刚刚|刚才")
_FUTURE_EN = re.compile(
    r"\b(?:tomorrow|next|will|'ll|going to|gonna|plan(?:ning)? to|on (?:monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday)|this (?:weekend|friday|saturday|sunday)|tonight|soon|upcoming)\b",
    re.IGNORECASE,
)
_FUTURE_ZH = re.compile(r"明天|后天|下周|下个月|明年|打算|准备|要去|将|周[一二三四五六日天]|星期|今晚|过几天")
_PROBLEM_EN = re.compile(
    r"\b(?:fixed|solved|resolved|turned out|figured out|workaround|the trick|the fix|the solution|learned"
    r"|lesson|worked|stopped|kept (?:crashing|dropping|failing)|broke|broken|issue|problem|bug|error)\b",
    re.IGNORECASE,
)
_PROBLEM_ZH = re.compile(r"解决|修好|原来是|办法|问题|坏了|报错|搞定|终于好了|教训")

CATEGORY_FEATURES = (
    "rule_preference",
    "rule_profile",
    "rule_entity",
    "rule_case",
    "rule_pattern",
    "frequency",
    "liking",
    "past",
    "future",
    "problem",
    "relation",
    "first_person",
    "cjk",
)


def category_features(text: str) -> np.ndarray:
    """Cues of the six categories (see CATEGORY_FEATURES): the extraction rules' verdicts plus
    broad lexical cues of habit, taste, tense, problems and other people."""
    cjk = bool(_HAN.search(text))
    first = _FIRST_ZH.search(text) if cjk else _FIRST_EN.search(text)
    return np.asarray(
        [
            float(preference_fields(text) is not None),
            float(profile_fields(text) is not None),
            float(entity_fields(text) is not None),
            float(case_fields(text) is not None),
            float(pattern_fields(text) is not None),
            _cue(_FREQ_EN, _FREQ_ZH, text),
            _cue(_LIKE_EN, _LIKE_ZH, text),
            _cue(_PAST_EN, _PAST_ZH, text),
            _cue(_FUTURE_EN, _FUTURE_ZH, text),
            _cue(_PROBLEM_EN, _PROBLEM_ZH, text),
            float(bool(_RELATIONS.search(text))),
            float(bool(first)),
            float(cjk),
        ],
        dtype=np.float32,
    )
