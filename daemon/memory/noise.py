"""The noise filter: which resources hold no fact worth an item (pure functions).

Greetings, thanks, acknowledgements, refusals, questions about the assistant itself and
fragments too short to hold a fact are stored as resources but produce no items. Length is
measured CJK-aware: one Han character says about as much as 0.7 of a Latin word.
"""

from __future__ import annotations

import re
import unicodedata

from daemon.memory.index import STOPWORDS_EN

# Words that carry social function but no fact: a turn made only of these is noise.
_SOCIAL = frozenset(
    """hello hi hey hiya yo thanks thank thx ty ok okay k kk sure yes yeah yep yup no nope nah cool
    great nice awesome wow lol haha hahaha bye goodbye see later cheers welcome alright right
    good morning night evening afternoon congrats congratulations sounds glad fine totally
    absolutely definitely agreed agree true indeed appreciate much lot""".split()
)
_SOCIAL_ZH = re.compile(
    r"^(你好|您好|嗨|哈喽|谢谢|多谢|感谢|好的|好|行|嗯|嗯嗯|哦|噢|收到|明白|知道了|没问题|可以|对|是的|再见|拜拜|晚安|早安|早上好|哈哈+)+$"
)
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def content_units(text: str) -> float:
    """How much a text can say, CJK-aware: a Han character counts as much as a Latin word."""
    text = unicodedata.normalize("NFKC", text)
    return len(_CJK_CHAR.findall(text)) * 0.7 + len(_LATIN_WORD.findall(text))


def is_noise(text: str) -> bool:
    """Greetings, thanks, acknowledgements and fragments too short to hold a fact."""
    stripped = unicodedata.normalize("NFKC", text).strip()
    if not stripped:
        return True
    compact = re.sub(r"[\s\W_]+", "", stripped)
    if _SOCIAL_ZH.match(compact):
        return True
    if content_units(stripped) < 2:
        return True
    words = [w.casefold() for w in _LATIN_WORD.findall(stripped)]
    if words and not _CJK_CHAR.search(stripped):
        meaningful = [w for w in words if w not in _SOCIAL and w not in STOPWORDS_EN]
        return len(meaningful) == 0
    return False
