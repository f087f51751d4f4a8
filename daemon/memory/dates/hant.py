"""Traditional Chinese read as Simplified, one character for one.

The date rules and the plan rules are written in Simplified characters ("下周三下午两点半"); a
person in Taipei or Hong Kong writes "下週三下午兩點半". Mapping each Traditional character to
its Simplified one (OpenCC's character table, from the `opencc-purepy` wheel) lets the same rules
read both, and keeps every position: a span found in the mapped text is the same span of the
text as written. A Japanese text (one with kana: a letting agent's "日時・場所変更") has its
own short forms of some characters (変, 駅, 円): those go through their full form (OpenCC's
shinjitai table) to the Simplified one, so "変更" reads as the "变更" the rules know. Only a
text with kana: in Chinese some of those characters are words of their own (芸 is a plant).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_HAN = re.compile(r"[\u3400-\u9fff]")


@cache
def _table() -> dict[int, str]:
    """Traditional → Simplified for every character with a one-character first reading."""
    text = resources.files("opencc_purepy").joinpath("dicts/TSCharacters.txt").read_text(encoding="utf-8")
    out: dict[int, str] = {}
    for line in text.splitlines():
        src, _, dst = line.partition("\t")
        first = dst.split(" ")[0] if dst else ""
        if len(src) == 1 and len(first) == 1 and src != first:
            out[ord(src)] = first
    return out


@cache
def _japanese_table() -> dict[int, str]:
    """Japanese short form → Simplified, through the full (Traditional) form."""
    text = (
        resources.files("opencc_purepy")
        .joinpath("dicts/JPShinjitaiCharacters.txt")
        .read_text(encoding="utf-8")
    )
    table = _table()
    out = dict(table)
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        src, _, dst = line.partition("\t")
        full = dst.split(" ")[0] if dst else ""
        if len(src) == 1 and len(full) == 1 and ord(src) not in table:
            to = table.get(ord(full), full)
            if to != src:
                out[ord(src)] = to
    return out


_KANA = re.compile(r"[\u3040-\u30ff]")


def simplified(text: str) -> str:
    """`text` with its Traditional characters (and, in Japanese, its short forms) in Simplified
    form, as long as it was."""
    if not _HAN.search(text):
        return text
    return text.translate(_japanese_table() if _KANA.search(text) else _table())
