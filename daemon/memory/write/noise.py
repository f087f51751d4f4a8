"""The noise filter: which resources hold no fact worth an item (pure functions).

Greetings, thanks, acknowledgements, refusals, questions about the assistant itself and
fragments too short to hold a fact are stored as resources but produce no items. Length is
measured CJK-aware: one Han character says about as much as 0.7 of a Latin word.

A turn is noise only when *every* sentence in it is filler: "Hi! I just got back from Japan."
keeps its second sentence, so the turn is kept. Dropping a fact loses it for ever while keeping a
pleasantry costs one item, so every rule errs towards keeping: an English sentence is filler only
when each of its words is a function word, a social word or a vocative name, or when the whole
sentence is a known refusal or question about the assistant; a Chinese sentence only when it is
entirely made of such set phrases. bench/noise.py measures precision and recall on a labelled set.
"""

from __future__ import annotations

import re
import unicodedata

from daemon.memory.dates.hant import simplified
from daemon.memory.read.bm25 import STOPWORDS_EN

# A turn below this many content units cannot hold a fact: one word ("Vegan."), two Han characters.
_MIN_UNITS = 2.0
_HAN_UNIT = 0.7

# Words that carry social function but no fact: a sentence made only of these (and stopwords) is
# filler. Verbs and adjectives that also occur in facts ("love", "fun", "safe") are safe here
# because a fact always brings a word outside the list ("I love hiking", "Had fun in Rome").
_SOCIAL = frozenset(
    """hello hi hey hiya heya howdy yo greetings
    bye byee goodbye later ttyl cya soon see catch talk chat speak care take safe stay
    thanks thank thx ty tysm cheers appreciate appreciated grateful thankful welcome pleasure anytime
    kind words compliment support encouragement help helped helps assistance advice recommendation
    suggestion reminder sharing means mean lot much invaluable motivating encouraging sorry
    ok okay okie k kk sure alright aight yes yeah yea yep yup ya no nope nah agreed agree same
    exactly totally absolutely definitely certainly indeed course problem worries np fair enough
    sense makes perfect noted understood gotcha true right bet thing plan wait hear
    cool great good nice awesome amazing wonderful fantastic lovely beautiful cute adorable sweet
    gorgeous stunning incredible brilliant excellent fun interesting inspiring impressive fine
    wow whoa woah omg oh ah aw yay hooray oops ooh hmm hm mm um uh lol lmao
    sounds looks seems glad happy hope hoping wish enjoy love congrats congratulations luck best
    proud spirit rock rocks keep going new anything everything miss missed buddy bud dude mate pal
    guys catching talking chatting speaking touch looking forward think want wanted wanna say
    pushing well always look works everyone everybody folks heaps tons loads dokie roger
    hilarious funny helpful useful""".split()
)
# Laughter and drawn-out interjections ("hahaha", "awww", "hmmm", "sooo") are spelt freely.
_INTERJECTION = re.compile(
    r"(?:ha|he|hi|lo)+[hl]?|a+w+|o+h+|h+m+|m+|u+[hm]+|w+o+w+|y+a+y+|s+o+|ok+|k+|m+h+m+|h+u+h+"
)
# Multi-word pleasantries whose words are not filler on their own ("gotta run" vs "I run daily";
# "good morning" vs "this morning", which answers "when?").
_SOCIAL_PHRASES = re.compile(
    r"\b(?:(?:gotta|got to|have to|need to|must|gonna) (?:go|run|bounce|dash|head out)"
    r"|let (?:me|you|us) know|keep (?:you|me) (?:posted|updated|in the loop)"
    r"|hang in there|keep up the good work|night night"
    r"|(?:good|great|nice|lovely|wonderful|happy) (?:morning|afternoon|evening|night|day|week|weekend|one|time)"
    r"|how (?:it|things) (?:goes|go|went)|(?:good|fair|great|valid) point"
    # a closing that names when the next chat is ("talk tomorrow", "chat monday"); not "see you
    # tomorrow", which may be a meeting (LoCoMo labels one a fact)
    r"|(?:talk|speak|chat|ttyl)(?: (?:to|with))?(?: (?:you|u|ya|yall|y'all))?"
    r" (?:tomorrow|tmrw|tmr|2moro|tonight|later|soon|then|next (?:week|time)|in the morning"
    r"|(?:on )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    r"|ta[ -]ra|ta ta)\b"
)
# Set off after a greeting or by commas and closed by punctuation, a capitalised word is the name
# of the person addressed ("Thanks, Evan!", "Hey Mel!"): it names no fact of its own.
_GREETERS = frozenset("hi hey hello hiya yo dear thanks thank congrats congratulations wow bye you".split())
# ...but "Yes, Tuesday." answers with a date: day and month names are never taken for vocatives.
_TIME_NAMES = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may june
    july august september october november december""".split()
)

# Refusals and questions about the assistant are matched as whole sentences, after the leading
# interjections and vocatives are removed and apostrophes are dropped ("I'd" → "id").
_LEAD = re.compile(
    r"^(?:(?:hi|hey|hello|so|um+|uh+|well|ok|okay|oh|also|btw|honestly|seriously|wait|sorry|and|but"
    r"|no|nah|nope|thanks|thank you|quick question|just curious|out of curiosity|by the way|excuse me)\s+)+"
)
_BEING = (
    r"(?:a |an )?(?:real |actual |ai |human |live )?(?:bot|robot|chatbot|chat bot|ai|human|person"
    r"|people|machine|computer|program|assistant|language model|llm|model|gpt|chatgpt|real|alive"
    r"|sentient|conscious|self aware)"
)
_DECLINE_ACT = r"(?:say|tell(?: you)?|answer|share|talk|discuss|get into|go into|explain)(?: (?:it|that|this|about it|about that))?"
_ABOUT_ASSISTANT_EN = re.compile(
    "|".join(
        [
            r"(?:who|what) (?:are|r) (?:you|u)(?: exactly| really| actually)?",
            rf"(?:are|r) (?:you|u) (?:really |actually |even )?{_BEING}(?: or (?:a |an )?{_BEING})?",
            rf"(?:is this|am i (?:talking|chatting|speaking) (?:to|with)) (?:really )?{_BEING}",
            r"what (?:else )?(?:can|could|do) (?:you|u) (?:actually |really |even )?do(?: for me)?",
            r"what (?:are|r) (?:you|u) (?:capable of|able to do|good at|for)",
            r"(?:what is|whats) your (?:name|purpose|job)|what should i call you",
            r"what are your (?:capabilities|abilities|limits|limitations|features|skills)",
            r"(?:do|can) (?:you|u) (?:have (?:a name|feelings|emotions|a memory|memory)"
            r"|remember(?: me| things| stuff| anything)?|learn|think|feel(?: anything)?|dream|sleep)",
            r"(?:who|which company|what company) (?:made|built|created|trained|programmed|developed"
            r"|designed|owns) (?:you|u)",
            r"how (?:do|does) (?:you|u|this) work",
            r"(?:which|what) (?:model|llm|ai|version|language model) (?:are|r) (?:you|u)"
            r"(?: running| using| based on)?",
            r"(?:are|r) (?:you|u) (?:still )?(?:there|listening|awake|online|around)",
            # asking past the assistant for a person, or whether a reply was machine-made
            r"(?:can|could|may) i (?:talk|speak|chat) (?:to|with) (?:a |an )?(?:real )?"
            r"(?:human|person|agent|someone|somebody|representative)",
            r"(?:is|was) (?:this|that) (?:an |a )?(?:automated|automatic|auto generated|ai generated|generated"
            r"|canned|bot) (?:reply|response|message|answer)",
        ]
    )
)
_REFUSAL_EN = re.compile(
    "|".join(
        [
            r"no(?: thanks?| thank you| thx| need| way)?|nope|nah",
            r"not (?:now|today|right now|interested|necessary|needed|for me|this time)",
            r"(?:maybe|perhaps) (?:later|another time|next time|some other time)",
            r"never ?mind|nvm|forget (?:it|about it)|(?:lets )?skip(?: it| this| that)?(?: one)?|(?:ill |i will )?pass",
            r"dont bother|lets not|leave it|drop it|stop(?: it)?|cancel(?: it| that)?|no comment|not telling",
            r"im (?:good|fine|ok|okay|all set)(?: thanks?| thank you| for now)?|thats all",
            rf"(?:id |i would |i )?(?:rather|prefer) not(?: to)?(?: {_DECLINE_ACT})?",
            r"(?:id |i would |i )?(?:rather|prefer to) keep (?:it|that|this) (?:to myself|private)",
            rf"(?:i )?(?:dont|do not) (?:want|wanna|feel like)(?: to)? {_DECLINE_ACT}",
            rf"i (?:cant|cannot|wont|will not) {_DECLINE_ACT}",
            r"(?:thats|its) (?:private|personal|none of your business)|none of your business",
        ]
    )
)
# "Not now, maybe later", "not today, thanks": refusals come in runs, often with thanks.
# Each refusal is atomic (ending on a word boundary) so that a long run fails in linear time.
_REFUSALS_EN = re.compile(
    rf"(?>(?:{_REFUSAL_EN.pattern})(?!\w))(?: (?>(?:{_REFUSAL_EN.pattern}|thanks?|thank you|thx)(?!\w)))*+"
)
# Laughter and pleas trail a question without changing it ("are u a robot lol").
_MAX_FILLER_UNITS = 60
_TRAIL = re.compile(r"(?:\s+(?:lol|lmao|haha\w*|hehe\w*|xd|pls|please|plz))+$")

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")  # a Latin word or a number, contractions kept whole
# Text emoticons are punctuation that would otherwise count as words ("<3" holds a digit, ":D" a
# letter); they say how the speaker feels, not a fact.
_EMOTICON = re.compile(r"(?<!\w)(?:<3+|[:;=8xX][-'^]?[()\[\]DPpOo/\\|*3]+)(?!\w)")
_SENTENCE_END = re.compile(r"[.!?。！？…;；\n]+")
_NON_WORD = re.compile(r"[\W_]+")
_PUNCT = re.compile(r"[^\w\s]|_")

# Chinese has no word spaces, so a filler sentence is one made entirely of set phrases, each
# optionally followed by modal particles ("好的呀", "谢谢你啦"). Facts never match: "好的，我明天
# 去北京" leaves "我明天去北京" outside every phrase.
_ZH_SOCIAL = (
    # Cantonese (read in Simplified), first: "唔" alone is a hum below, and each phrase is taken
    # whole without a second try (thanks, no problem, no need, good morning, see you)
    r"(?:先)?唔使(?:喇|啦|了)?|唔该|冇问题|冇事|早晨|得闲饮茶|好正|"
    r"你好|您好|大家好|哈喽|嗨|嘿|早上好|上午好|中午好|下午好|晚上好|早安|午安|晚安|早|在吗|在不在"
    r"|再见|拜拜|拜|回头见|下次见|再会|回聊|先这样|"
    r"(?:谢谢|感谢|多谢|谢啦|谢了)(?:你|您|大家)?(?:的|嘅)?(?:帮助|帮忙|支持|建议|提醒|关心|鼓励|分享)?|辛苦了?|麻烦(?:你|您)了"
    r"|不客气|客气了|不谢|没事|没关系"
    r"|好的|好滴|好嘞|好哒|好吧|好啊|好棒|好|行吧|行|可以的?|okay|ok|k+|嗯+|恩+|哦+|噢+|喔+|额|呃|唔"
    r"|收到|了解|懂了|明白了?|知道了?|晓得了|没问题|对的?|是的|是啊|对啊|没错|确实|有道理|同意"
    r"|太好了|真棒|厉害|牛|赞|加油|哇塞|哇|哈+|呵+|嘻嘻|hello|hey|hi|(?:ha)+|h+|lol|thanks|thx|bye"
)
_ZH_REFUSAL = (
    r"不用了?|不要了?|不需要了?|不必了?|算了|不了|免了|先不(?:用|要)了?|以后再说|下次(?:再说)?|改天(?:再说)?"
    r"|不想(?:说|讲|聊|谈|回答|告诉你)|不方便(?:说|透露)?|这是(?:我的)?隐私|不感兴趣|没兴趣|别问了|不说了|不告诉你"
)
_ZH_ABOUT_ASSISTANT = (
    r"你是(?:谁|哪家公司)(?:开发|创造|制造|训练|做)的|(?:谁|哪家公司)(?:开发|创造|制造|训练|做)(?:了|的)?你"
    r"|你(?:到底|究竟)?(?:是|叫)(?:什么名字|什么东西|什么|谁|啥|哪位|(?:一个)?(?:真的)?"
    r"(?:机器人|ai|人工智能|真人|人类|人|助手|程序|模型|chatgpt|gpt|bot))"
    r"|你(?:能|会|可以)(?:帮我)?(?:做|干)?(?:什么|啥|些什么)|你有(?:什么|哪些)(?:功能|能力|本事|用)"
    r"|你还在吗|你在吗|你听得到吗|你怎么工作|你记得我吗"
)
_ZH_PARTICLES = r"[啊呀啦吧呢哦嘛了的哟喔噢呐哇~你您么吗喇嘅咯啰晒]*+"
# Each phrase is an atomic group taken possessively: the first phrase that fits is kept, never
# re-split, so a long run of "哈哈哈…" fails in linear time instead of trying every split of it
# (the alternatives are ordered longest first where one is a prefix of another).
_ZH_FILLER = re.compile(rf"(?:(?>{_ZH_SOCIAL}|{_ZH_REFUSAL}|{_ZH_ABOUT_ASSISTANT}){_ZH_PARTICLES})++")


def content_units(text: str) -> float:
    """How much a text can say, CJK-aware: a Latin word or number is one unit, a Han character 0.7."""
    text = unicodedata.normalize("NFKC", text)
    return len(_CJK_CHAR.findall(text)) * _HAN_UNIT + len(_WORD.findall(_CJK_CHAR.sub(" ", text)))


def _is_filler_word(word: str) -> bool:
    if word in _SOCIAL or word in STOPWORDS_EN or _INTERJECTION.fullmatch(word):
        return True
    # "that'll", "must've", "Mel's": the contraction adds nothing the stem does not.
    stem, _, suffix = word.partition("'")
    return bool(suffix) and suffix in {"s", "m", "re", "ve", "ll", "d", "t"} and _is_filler_word(stem)


def _without_vocatives(sentence: str) -> str:
    """The sentence with the names of the person addressed blanked out."""
    spans = list(_WORD.finditer(sentence))
    out = sentence
    for i, m in reversed(list(enumerate(spans))):
        word = m.group()
        if word == "I" or not word[0].isupper() or not (len(word) == 1 or word[1:].islower()):
            continue
        if word.casefold() in _TIME_NAMES:
            continue
        before = sentence[spans[i - 1].end() : m.start()] if i else sentence[: m.start()]
        after = sentence[m.end() : spans[i + 1].start()] if i + 1 < len(spans) else ""
        after_greeting = i > 0 and spans[i - 1].group().casefold() in _GREETERS and not before.strip()
        closed = i + 1 == len(spans) or any(c in after for c in ",!?.:")
        if (after_greeting or "," in before) and closed:
            out = out[: m.start()] + " , " + out[m.end() :]
    return out


def _is_filler_en(sentence: str) -> bool:
    low = _without_vocatives(sentence).casefold()
    key = " ".join(_PUNCT.sub(" ", low.replace("'", "")).split())
    key = _TRAIL.sub("", _LEAD.sub("", key + " ").strip())
    if not key or _ABOUT_ASSISTANT_EN.fullmatch(key) or _REFUSALS_EN.fullmatch(key):
        return True
    words = _WORD.findall(_SOCIAL_PHRASES.sub(" ", low))
    return all(_is_filler_word(w) for w in words)


def _is_filler_sentence(sentence: str) -> bool:
    if _CJK_CHAR.search(sentence):
        # Traditional is read as Simplified: "謝謝你" is "谢谢你"
        compact = _NON_WORD.sub("", simplified(sentence)).casefold()
        return not compact or _ZH_FILLER.fullmatch(compact) is not None
    return _is_filler_en(sentence)


def is_noise(text: str) -> bool:
    """Whether a turn holds no fact: only greetings, thanks, acknowledgements, refusals, questions
    about the assistant, or too little text to say anything (emoji, punctuation, one word)."""
    norm = unicodedata.normalize("NFKC", text).replace("’", "'").replace("`", "'").replace("´", "'")
    norm = _EMOTICON.sub(" ", norm)
    units = content_units(norm)
    if units < _MIN_UNITS:
        return True
    if units > _MAX_FILLER_UNITS:
        return False  # nobody says 60 words of thanks; and the sentence rules stay linear-time
    return all(_is_filler_sentence(s) for s in _SENTENCE_END.split(norm) if s.strip())
