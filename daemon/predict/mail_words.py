"""mail_words: an e-mail in another language, its dates and its news read as English.

The person chats in English or Chinese, but the clinic, the préfecture, the salon or the supplier
writes in its own language: "votre rendez-vous du vendredi 26 mars 2027 à 14h30 est reporté au :
mardi 30 mars 2027 à 9h15", "Tyvärr måste vi avboka din tid lördag 29 mars kl. 14:00", "rapat online
via Zoom pada hari Kamis, 10 September 2026, pukul 14.30". What the mail does to a plan (`plan_news`)
is read from its dates and its words of change; this module puts those into English words, one
closed vocabulary per kind (weekday and month names, the clock's forms, "moved", "cancelled") in the
languages such mail comes in most (French, German, Spanish, Italian, Portuguese, Dutch, Swedish,
Danish and Norwegian, Indonesian, Afrikaans), and leaves every other word as written. Only a mail
that reads as none of English and Chinese is changed: "mars" in an English mail is a planet.
"""

from __future__ import annotations

import re
import unicodedata

_WEEKDAYS = {
    "monday": "lundi montag lunes lunedi segunda-feira maandag mandag senin",
    "tuesday": "mardi dienstag martes martedi terca-feira dinsdag tisdag tirsdag selasa",
    "wednesday": "mercredi mittwoch miercoles mercoledi quarta-feira woensdag onsdag rabu",
    "thursday": "jeudi donnerstag jueves giovedi quinta-feira donderdag torsdag kamis",
    "friday": "vendredi freitag viernes venerdi sexta-feira vrijdag vrydag fredag jumat",
    "saturday": "samedi samstag sonnabend sabado sabato zaterdag saterdag lordag sabtu",
    "sunday": "dimanche sonntag domingo domenica zondag sondag",
}
_MONTHS = {
    "january": "janvier januar enero gennaio janeiro januari",
    "february": "fevrier februar febrero febbraio fevereiro februari",
    "march": "mars marz maerz marzo maart maret",
    "april": "avril abril aprile",
    "may": "mai mayo maggio maio mei maj",
    "june": "juin juni junio giugno junho",
    "july": "juillet juli julio luglio julho",
    "august": "aout agosto augustus augusti agustus",
    "september": "septembre septiembre settembre setembro",
    "october": "octobre oktober octubre ottobre outubro",
    "november": "novembre noviembre novembro",
    "december": "decembre dezember diciembre dicembre dezembro desember",
}
# the words of a change: called off, moved (with the "to" after it, as English says it)
_CANCELLED = (
    r"annul[eé]e?s?|annulation|abgesagt|storniert|entf[aä]llt|f[aä]llt\s+aus|cancelad[oa]s?|anulad[oa]s?"
    r"|annullat[oa]|cancellat[oa]|geannuleerd|afgezegd|inst[aä]lld|avbokad|avboka[rt]?|aflyst|avlyst"
    r"|dibatalkan|gekanselleer"
)
_MOVED = (
    r"report[eé]e?|d[eé]plac[eé]e?|d[eé]cal[eé]e?|verschoben|verlegt|aplazad[oa]|reprogramad[oa]|trasladad[oa]"
    r"|rinviat[oa]|spostat[oa]|adiad[oa]|remarcad[oa]|verplaatst|verzet|flyttad|flyttas|flyttat|ombokad"
    r"|ditunda|dipindahkan|dijadwalkan\s+ulang|geskuif"
)
# "to" after a move: au, à, auf, a, al, para, naar, till, ke, na
_TO = r"(?:\s+(?:au|aux|à|a|auf|al|alla|para|naar|till|ke|na))?"
# a clock said with its word for "at": "à 14h30", "kl. 14:00", "um 14:30 Uhr", "pukul 14.30",
# "a las 10:00", "às 10h", "om 10.00 uur", "alle 10"
_CLOCK = re.compile(
    r"\b(?:à|a\s+las|a\s+la|alle|ore|às|as|um|om|kl\.?|klockan|pukul|jam|teen)\s+"
    r"(?P<h>[01]?\d|2[0-3])(?:\s*(?:h|:|\.)\s*(?P<m>[0-5]\d))?(?:\s*(?:h|uhr|uur)\b)?",
    re.IGNORECASE,
)
# ... or alone in the French way: "9h15", "14h30"
_H_CLOCK = re.compile(r"\b(?P<h>[01]?\d|2[0-3])h(?P<m>[0-5]\d)\b", re.IGNORECASE)
# English and Chinese mail is read as it is
_ENGLISH = re.compile(r"\b(?:the|and|you|your|we|is|are|to|of|for|will|please|thanks|hi)\b", re.IGNORECASE)
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _fold(word: str) -> str:
    """A word without its accents, lower-cased: "Février" → "fevrier", "lördag" → "lordag"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


# (capitalised, as English writes them: "May" and "March" are months only so)
_NAMES = {_fold(w): en.title() for en, words in (*_WEEKDAYS.items(), *_MONTHS.items()) for w in words.split()}
_DAY_OF = re.compile(
    rf"\b(?P<d>[0-3]?\d)(?:\.\s*|\s+de\s+|\s+di\s+)(?=(?:{'|'.join(m.title() for m in _MONTHS)})\b)"
)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")
_CHANGE = re.compile(rf"\b(?:(?P<off>{_CANCELLED})|(?P<moved>{_MOVED}){_TO})\b", re.IGNORECASE)


def foreign(text: str) -> bool:
    """A mail in neither English nor Chinese: Chinese characters absent, and English's most common
    words fewer than one in twenty of its words."""
    if _HAN.search(text):
        return False
    words = _WORD.findall(text)
    return len(words) >= 8 and len(_ENGLISH.findall(text)) * 20 < len(words)


def as_english(text: str) -> str:
    """`text` with its weekday and month names, its clocks and its words of change in English
    ("mardi 30 mars 2027 à 9h15" → "Tuesday 30 March 2027 at 09:15"); `text` itself when it is
    not `foreign`."""
    if not foreign(text):
        return text
    text = _CHANGE.sub(lambda m: " cancelled " if m["off"] else " moved to ", text)
    # (two digits for the hour: such mail writes the 24-hour clock, "à 9h15" is the morning)
    text = _CLOCK.sub(lambda m: f"at {int(m['h']):02d}:{m['m'] or '00'}", text)
    text = _H_CLOCK.sub(lambda m: f"{int(m['h']):02d}:{m['m']}", text)
    # (março folds to "marco", a name: the Portuguese month is read with its cedilla)
    text = re.sub(r"\bmarço\b", "March", text, flags=re.IGNORECASE)
    text = _WORD.sub(lambda m: _NAMES.get(_fold(m.group(0)), m.group(0)), text)
    # the day before its month as English writes it: "14. April", "16 de April" → "14 April"
    return _DAY_OF.sub(lambda m: f"{m['d']} ", text)
