"""calendar_names: the weekday and month names of every language CLDR knows, read as English.

A clinic in Sofia writes "понеделник, 16 ноември", a landlord in Riga "pirmdien, 16. novembrī", a
letting agent in Bangkok "วันจันทร์ที่ 16 พฤศจิกายน", a school in Helsinki "maanantaina 16.
marraskuuta". The rules that read a mail's dates know English and Chinese; `mail_words` turns a
mail in another language into English words, and these are the names it needs for that, taken
from the Unicode CLDR (its locale data, not a list of ours): the wide names of the weekdays and
months of each language, as they stand alone and as a date writes them (Finnish "maanantaina",
Ukrainian "листопада"). English and the Chinese scripts are left out (those are read as they are),
and so is any name two languages give different meanings (Polish "listopad" is November, Croatian
October). `bench/calendar_names.py` writes the table from `babel`'s copy of CLDR (Unicode licence)
into `calendar_names.json` beside this module; the daemon reads the file.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# read as they are: English, and the languages the Chinese rules read (Japanese through its kanji)
_LEFT_OUT = frozenset(("en", "zh", "yue", "ja"))
# scripts written without spaces between words: a name is found inside a run of letters
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")
# letters that are no letter and an accent to Unicode: "poniedziałek", "søndag", "đorđe"
_PLAIN = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i"})


def fold(word: str) -> str:
    """A word without its accents, lower-cased: "Février" → "fevrier", "poniedziałek" → "poniedzialek"."""
    plain = unicodedata.normalize("NFKD", word.lower().translate(_PLAIN))
    return "".join(c for c in plain if not unicodedata.combining(c))


DATA = Path(__file__).with_name("calendar_names.json")


@dataclass(frozen=True)
class Names:
    """`words`: a folded one-word name → its English name; `phrases`: the names written with a
    space, a figure or in an unspaced script ("יום שני", "11월", "วันจันทร์"), found as written."""

    words: dict[str, str]
    stems: dict[str, str]  # a name without up to three last letters → its English name, when only one
    stem_of: dict[str, int]  # ... and the length of the shortest name it was cut from
    phrases: dict[str, str]
    phrase_rx: re.Pattern[str] | None
    unspaced_rx: re.Pattern[str] | None


def from_cldr() -> dict[str, dict[str, str] | dict[str, list[str]]]:
    """The table as CLDR gives it (`babel`, installed with the `train` extra): what
    `bench/calendar_names.py` writes into `DATA`. About ten seconds: the product reads the file."""
    from babel import Locale, localedata

    seen: dict[str, set[str]] = {}
    for code in localedata.locale_identifiers():
        if "_" in code or code in _LEFT_OUT:
            continue
        try:
            loc = Locale.parse(code)
            for context in ("format", "stand-alone"):
                pairs = [(n, WEEKDAYS[i]) for i, n in loc.days[context]["wide"].items()]
                pairs += [(n, MONTHS[i - 1]) for i, n in loc.months[context]["wide"].items()]
                for name, english in pairs:
                    seen.setdefault(str(name).strip().lower(), set()).add(english)
        except (KeyError, ValueError, TypeError):
            continue  # a locale without Gregorian names
    words: dict[str, str] = {}
    phrases: dict[str, str] = {}
    both: dict[str, list[str]] = {}  # one-word names two languages read otherwise: no stem of them is read
    english_names = {fold(e) for e in (*WEEKDAYS, *MONTHS)}
    for name, meanings in sorted(seen.items()):
        one_word = bool(re.fullmatch(r"[^\W\d_]+", name)) and not _UNSPACED.search(name)
        if len(name) < 3 or name in english_names:
            continue  # too short to tell from a word
        if len(meanings) != 1:
            if one_word:
                both[fold(name)] = sorted(meanings)
            continue
        english = next(iter(meanings))
        if one_word:
            words.setdefault(fold(name), english)
        else:
            phrases[name] = english
    return {
        "words": dict(sorted(words.items())),
        "phrases": dict(sorted(phrases.items())),
        "ambiguous": dict(sorted(both.items())),
    }


@cache
def names() -> Names:
    """The table, read once from `DATA`."""
    table = json.loads(DATA.read_text(encoding="utf-8"))
    words, phrases = dict(table["words"]), dict(table["phrases"])
    # Albanian names its weekdays with the article ("e hënë") and says "on Monday" in the
    # accusative ("të hënën", "të enjten"): both forms read
    for name, english in list(phrases.items()):
        if name.startswith("e ") and english in _WEEKDAYS:
            base = name[2:]
            phrases.setdefault(f"të {base}n", english)
            phrases.setdefault(f"të {base.removesuffix('ë')}ën", english)
    ordered = sorted(phrases, key=len, reverse=True)
    spaced = "|".join(re.escape(p) for p in ordered if not _UNSPACED.search(p))
    unspaced = "|".join(re.escape(p) for p in ordered if _UNSPACED.search(p))
    # (two patterns, without IGNORECASE: one pattern of 1,500 names with case folds takes seconds
    # to compile; the text is lowered instead)
    readings: dict[str, set[str]] = {}
    lengths: dict[str, int] = {}
    every = [(w, [e]) for w, e in words.items()] + list(table.get("ambiguous", {}).items())
    for word, meanings in every:
        for k in range(4):
            if len(word) - k >= _STEM:
                readings.setdefault(word[: len(word) - k], set()).update(meanings)
                lengths[word[: len(word) - k]] = min(lengths.get(word[: len(word) - k], len(word)), len(word))
    stems = {stem: next(iter(e)) for stem, e in readings.items() if len(e) == 1}
    return Names(
        words,
        stems,
        {stem: lengths[stem] for stem in stems},
        phrases,
        re.compile(rf"(?<![^\W\d_])(?:{spaced})(?![^\W\d_])") if spaced else None,
        re.compile(unspaced) if unspaced else None,
    )


_STEM = 5  # letters a stem keeps at least
_WEEKDAYS = frozenset("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())


def word_in_english(word: str) -> str | None:
    """A one-word name in English: as CLDR writes it, or inflected otherwise in its last letters
    ("novembrī", "pirmdien" of the Latvian "novembris", "pirmdiena"); None when it is none, or
    could be two."""
    found = names()
    folded = fold(word)
    if folded in found.words:
        return found.words[folded]
    if "-" in word:
        return None  # a name written with a hyphen is found whole ("segunda-feira"); "Manda-s" is a verb
    for k in range(4):
        stem = folded[: len(folded) - k]
        # (an inflection changes a name's last letters, and keeps it about as long: "novembrī" of
        # "novembris"; a shorter word that only begins like a name is none, Albanian "salla" (hall)
        # is no "sallaws")
        # (a stem of five letters is a common word's beginning as often as a name's: the word must
        # then be as long as the name, Kriolu "Manda-s" (send us) is no shortened "mandag")
        shorter = 1 if len(stem) > _STEM else 0
        if len(stem) >= _STEM and stem in found.stems and len(folded) >= found.stem_of[stem] - shorter:
            return found.stems[stem]
    return None


def in_english(text: str) -> str:
    """`text` with its names written with a space, a figure or in an unspaced script in English
    ("יום שני" → "Monday", "11월" → "November"); the one-word names are `Names.words`."""
    found = names()
    for rx in (found.phrase_rx, found.unspaced_rx):
        if rx is None:
            continue
        low = text.lower()
        if len(low) != len(text):  # a letter whose lower case is longer ("İ"): read it lowered
            text = low
        out, at = [], 0
        for m in rx.finditer(low):
            out += [text[at : m.start()], f" {found.phrases[m.group(0)]} "]
            at = m.end()
        text = "".join([*out, text[at:]])
    return text
