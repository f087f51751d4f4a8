"""mail_words: an e-mail in another language, its dates and its news read as English.

The person chats in English or Chinese, but the clinic, the préfecture, the salon or the supplier
writes in its own language: "votre rendez-vous du vendredi 26 mars 2027 à 14h30 est reporté au :
mardi 30 mars 2027 à 9h15", "Tyvärr måste vi avboka din tid lördag 29 mars kl. 14:00", "rapat online
via Zoom pada hari Kamis, 10 September 2026, pukul 14.30". What the mail does to a plan (`plan_news`)
is read from its dates and its words of change; this module puts those into English words, one
closed vocabulary per kind (weekday and month names, the clock's forms, "moved", "cancelled") in the
languages such mail comes in most (French, German, Spanish, Italian, Portuguese, Dutch, Swedish,
Danish and Norwegian, Indonesian, Afrikaans; the weekdays and words of change of Greek, Serbian and
Croatian, Romanian, Polish, Czech and Turkish; Vietnamese weekdays and moves; Korean and Thai
clocks), with the words that make a sentence an ask ("j'ai besoin de … au plus tard", "bitte",
"χρειάζομαι … το αργότερο", the word for "please" and "by" in some 30 languages), a
meeting ("Termin", "videochamada") or a new place ("Nieuwe locatie", "Địa điểm mới"), and leaves
every other word as written. Only a mail that reads as none of English and Chinese is changed:
"mars" in an English mail is a planet.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from daemon.state.calendar_names import MONTHS, fold, in_english, word_in_english

MONTHS_EN = frozenset(MONTHS)

_WEEKDAYS = {
    "monday": "lundi montag lunes lunedi segunda-feira maandag mandag senin δευτερα ponedeljak ponedjeljak luni"
    " poniedzialek pondeli pazartesi ponedeljka ponedjeljka poniedzialku",
    "tuesday": "mardi dienstag martes martedi terca-feira dinsdag tisdag tirsdag selasa τριτη utorak marti wtorek"
    " utery sali utorka wtorku",
    "wednesday": "mercredi mittwoch miercoles mercoledi quarta-feira woensdag onsdag rabu τεταρτη sreda srijeda"
    " miercuri sroda streda carsamba srede sredu srijede srijedu srode srody stredu",
    "thursday": "jeudi donnerstag jueves giovedi quinta-feira donderdag torsdag kamis πεμπτη cetvrtak joi"
    " czwartek ctvrtek persembe cetvrtka czwartku",
    "friday": "vendredi freitag viernes venerdi sexta-feira vrijdag vrydag fredag jumat παρασκευη petak vineri"
    " piatek patek cuma petka piatku",
    "saturday": "samedi samstag sonnabend sabado sabato zaterdag saterdag lordag sabtu σαββατο subota sambata"
    " sobota cumartesi subote subotu soboty sobote sobotu",
    "sunday": "dimanche sonntag domingo domenica zondag sondag κυριακη nedelja nedjelja duminica niedziela"
    " nedele pazar nedelje nedelju nedjelje nedjelju niedzieli niedziele nedeli",
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
    r"|annullat[oa]|cancellat[oa]|geannuleerd|afgezegd|inst[aä]lld|avbokad|avboka[rt]?|aflys(?:t|e|er|es|ning)|avlys(?:t|e|er|es|ning)|inställ(?:s|t|d|as)"
    r"|dibatalkan|gekanselleer|h[uủ]y|hu[ỷy]"
    # Dutch "does not go ahead": "kan … niet doorgaan", "gaat … niet door" (the verb split around it)
    r"|niet\s+door(?:gaan)?(?=\W|$)"
    # Greek, Serbian / Croatian, Romanian, Polish, Czech, Turkish
    r"|ακυρ[ωώ]θηκε|ακυρ[ωώ]νεται|otkazan[aoi]?|otkazuje\s+se|anulat[aă]?|odwo[lł]an[aey]?|zru[sš]en[aoy]?"
    # ... and the verb, as the sender says it does it ("primorani smo da otkažemo Vaš termin",
    # "musimy odwołać", "musíme zrušit")
    r"|otka[zž](?:emo|ujemo|ati|ali|ala)|odwo[lł](?:a[cć]|ujemy|ali[sś]my)|zru[sš](?:it|íme|ime|ili)"
    r"|iptal\s+edildi"
    # Haitian Creole "anile" (to cancel: "mwen oblije anile randevou a")
    r"|anile|anilasyon"
    # Albanian: "anuluar", "nuk do të zhvillohet" (will not take place)
    r"|anulua[rn]?\w*|nuk\s+do\s+t[eë]\s+zhvillohet"
    # Cyrillic: Russian, Ukrainian, Bulgarian, Serbian ("отменен", "скасовано", "отказан")
    r"|отмен[её]н[аоы]?|отменяется|отменили|скасован[аоі]?|скасовується|отказан[аоы]?|отказува\w*"
)
_MOVED = (
    r"report[eé]e?|d[eé]plac[eé]e?|d[eé]cal[eé]e?|verschoben|verlegt|aplazad[oa]|reprogramad[oa]|trasladad[oa]"
    r"|rinviat[oa]|spostat[oa]|adiad[oa]|remarcad[oa]|verplaatst|verzet|flyttad|flyttas|flyttat|ombokad"
    r"|ditunda|dipindahkan|dijadwalkan\s+ulang|geskuif"
    r"|μεταφ[εέ]ρθηκε|μετατ[ιί]θεται|μετακιν[ηή]θηκε|pomeren[aoi]?|pomjeren[aoi]?|preme[sš]ten[aoi]?"
    r"|premje[sš]ten[aoi]?|mutat[aă]?|reprogramat[aă]?|przeniesion[aey]?|prze[lł]o[zż]on[aey]?"
    r"|p[rř]esunut[aoy]?|ertelendi"
    # Albanian ("E kemi zhvendosur për të hënën")
    r"|zhvendos\w*|shty(?:rë|re|het|jmë)"
    r"|перенес[её]н[аоы]?|перенесено|перенесли|перенесена|перенесений|перенесено|преместен[аоы]?|отложен[аоы]?"
    r"|пренасрочен[аоы]?|померен[аоы]?"
    # more participles: "è stata anticipata", "a reunião foi alterada para", "Ihr Termin wurde
    # geändert", "de afspraak is gewijzigd", "tapaaminen on siirretty"
    r"|cambiad[oa]|movid[oa]|pospuest[oa]|anticipat[oa]|posticipat[oa]|rimandat[oa]|mudad[oa]|alterad[oa]"
    r"|transferid[oa]|modifi[eé]e?|ge[aä]ndert|gewijzigd|[aä]ndrad|[aä]ndrats|[aæ]ndret|endret|diubah"
    r"|siirretty|muutettu|[aá]thelyezve|m[oó]dos[ií]tva|przesuni[eę]t[aey]?|zmienion[aey]?|perenesen[aoi]?"
)
# ... and the verb or noun of one, read as "reschedule" ("moved to" before the old date would make
# it a past one): "se cambia al viernes", "cambiamos la cita", "le scrivo per spostare la consegna",
# "Spostamento consegna chiavi", "Cambio de fecha", "a reunião muda para", "siirtyy", "módosul"
_MOVE = (
    r"(?:se\s+)?cambi(?:a|amos|ar|o)|sposta(?:re|mo|mento)?|spostiamo|muda\s+para|siirtyy|m[oó]dosul"
    r"|verschieben|verplaatsen|reprogramar|reprogramamos"
    # Polish, Czech: "musimy przełożyć spotkanie", "Zmiana terminu", "musíme přesunout"
    r"|prze[lł]o[zż]y[cć]|prze[lł]o[zż]ymy|przesun[aą][cć]|zmiana\s+terminu|p[rř]esunout|zm[eě]na\s+term[ií]nu"
)
# "to" after a move: au, à, auf, a, al, para, naar, till, ke, na
_TO = r"(?:\s+(?:au|aux|à|a|auf|al|alla|para|naar|till|ke|na))?"
# a clock said with its word for "at": "à 14h30", "kl. 14:00", "um 14:30 Uhr", "pukul 14.30",
# "a las 10:00", "às 10h", "om 10.00 uur", "alle 10"
_CLOCK = re.compile(
    r"\b(?:à|a\s+las|a\s+la|alle|ore|às|as|um|om|kl\.?|klockan|klo|kell|pukul|jam|teen|στις|u|la\s+ora|ora|в"
    r"|(?:o\s+)?godz(?:inie|\.)?|saat|n[eë]\s+or[eë]n|ժամը)\s+"
    # (Belgian Dutch writes "om 8u15", "om 16u")
    r"(?P<h>[01]?\d|2[0-3])(?:\s*(?:h|u|:|\.)\s*(?P<m>[0-5]\d))?(?:\s*(?:h|u|uhr|uur)\b)?(?!\d)",
    re.IGNORECASE,
)
# ... or with a short word for "at" that is also a common word elsewhere (Ukrainian "о 8:30", "об
# 11:00", Serbian "у 9.15", Czech "v 10:30", Slovak "o 14:00", Slovenian "ob 8.30", Estonian "kell
# 9.00", Latvian "plkst. 10:00", Finnish "kello 14.30"): only before hours and minutes, so that
# Portuguese "o 2º" or an "o" of a list stays what it is
_CLOCK_HM = re.compile(
    r"(?<!\w)(?:о|об|у|o|ob|v|ve|kell|kello|plkst\.?)\s+(?P<h>[01]?\d|2[0-3])[:.](?P<m>[0-5]\d)(?![\d.:]\d)",
    re.IGNORECASE,
)
# ... or the German way: "Mittwoch 15 Uhr", "um 9.30 Uhr" (the "um" form is `_CLOCK`'s)
_UHR = re.compile(r"(?<![\d.:])\b(?P<h>[01]?\d|2[0-3])(?:[.:](?P<m>[0-5]\d))?\s*Uhr\b", re.IGNORECASE)
# ... or in Korean, its half of the day first ("오후 5시", "오전 10시 30분"), or in Thai, "น." after it
# ("16.00 น.")
_KO_CLOCK = re.compile(
    r"(?:(?P<p>오전|오후|낮|저녁|밤|아침)\s*)?(?P<h>[01]?\d|2[0-3])\s*시(?:\s*(?P<m>[0-5]?\d)\s*분|\s*(?P<half>반))?"
)
_TH_CLOCK = re.compile(r"(?<![\d.:])(?P<h>[01]?\d|2[0-3])[.:](?P<m>[0-5]\d)\s*น\.")


def _ko_clock(m: re.Match[str]) -> str:
    h = int(m["h"])
    if m["p"] in ("오후", "저녁", "밤") and h < 12:
        h += 12  # afternoon, evening, night
    minute = 30 if m["half"] else int(m["m"] or 0)
    return f"at {h:02d}:{minute:02d}"


# ... or with the word for "at" or "o'clock" of a language that writes it apart from a Latin "at":
# Hebrew "בשעה 10:00" / "ב-9:00", Arabic "الساعة 8:30", Persian "ساعت ۸:۳۰" (its digits read first),
# Tagalog "alas-8:15", Slavic "на 8:15" / "na 16:30" (to a time, hours and minutes only); after it,
# Hindi "8:30 बजे", Bulgarian "8:30 ч.", Lithuanian "9.00 val.", Hungarian "8:15-kor" / "8:30-ra",
# Turkish "08:30'da", Vietnamese "8 giờ 30" (not Hungarian "-ig", until)
_CLOCK_WORD = re.compile(
    # (Turkic "hour": Uzbek "soat 15:30 ga", Turkish and Azerbaijani "saat", Kazakh "сағат", Kyrgyz "саат")
    r"(?:בשעה|ב-|ל-|(?:في\s+)?الساعة|ساعت|alas-?|(?<!\w)(?:на|na)\s+(?=\d{1,2}[:.]\d\d)"
    r"|(?<!\w)(?:soat|saat|сағат|саат)\s+(?=\d{1,2}[:.]\d\d))\s*"
    r"(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?(?![\d:])"
    r"|(?<![\d.:])(?P<h2>[01]?\d|2[0-3])[:.](?P<m2>[0-5]\d)(?:\s*(?:बजे|ч\.|val\.)|-(?:kor|ra|re)\b|['’](?:da|de|ta|te)\b)"
    r"|(?<![\d.:])(?P<h3>[01]?\d|2[0-3])\s*gi[ờo](?:\s*(?P<m3>[0-5]\d)(?:\s*ph[úu]t)?)?(?!\w)"
    # (the hour alone before the Hindi or Urdu word for o'clock: "शाम 5 बजे", "شام 5 بجے")
    r"|(?<![\d.:])(?P<h4>[01]?\d|2[0-3])\s*(?:बजे|بجے)",
    re.IGNORECASE,
)


# the afternoon or evening said beside a 12-hour clock: Hindi शाम / दोपहर / रात, Tagalog "ng hapon" /
# "ng gabi", Vietnamese chiều / tối, Arabic مساءً / ظهرًا, Persian بعدازظهر / عصر / شب
_PM_NEAR = re.compile(
    r"शाम|شام|दोपहर|रात|hapon|gabi|chi[ềe]u|t[ốo]i|مساء|ظهر|بعدازظهر|بعد\s+از\s+ظهر|عصر|شب", re.IGNORECASE
)


# two 24-hour clocks joined by a dash or a short word, a stretch of the day: "з 13:00 да 17:00",
# "(10:00–14:00)", "od 9:00 do 11:30", "13.00–15.00"
_CLOCK_RANGE = re.compile(
    r"(?<![\d:.])(?P<h1>[01]?\d|2[0-3])[:.](?P<m1>[0-5]\d)\s*(?:[–—-]|\s[^\W\d_]{1,6}\s)\s*"
    r"(?P<h2>[01]?\d|2[0-3])[:.](?P<m2>[0-5]\d)(?![\d:])"
)


_DAY_NAMED = re.compile(r"\b(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|" + "|".join(MONTHS) + r")\b")
RANGE_AFTER_DAY = 40  # how near after its day a stretch of the day is that day's


def _clock_range(m: re.Match[str]) -> str:
    """A stretch of the day right after the day it is on ("Thursday, 22 October 2026 г., з 13:00 да
    17:00"), as English says it; one far from any day is left as written (it may be of another)."""
    if not _DAY_NAMED.search(m.string[max(0, m.start() - RANGE_AFTER_DAY) : m.start()]):
        return m.group(0)
    return f" from {int(m['h1']):02d}:{m['m1']} to {int(m['h2']):02d}:{m['m2']}"


def _clock_word(m: re.Match[str]) -> str:
    h = int(m["h"] or m["h2"] or m["h3"] or m["h4"])
    minute = m["m"] or m["m2"] or m["m3"] or "00"
    near = m.string[max(0, m.start() - 12) : m.end() + 14]
    if h < 12 and _PM_NEAR.search(near):
        h += 12
    return f"at {h:02d}:{minute}"


# Bengali: the hour before its "o'clock" ending (-টা, -টার, -টায়), a part of the day before it
# and "মধ্যে" (within) after it: "দুপুর ১২টার মধ্যে" is "by 12:00", "বিকেল ৪টায়" "at 16:00"
_BN_CLOCK = re.compile(
    r"(?P<part>ভোর|সকাল|দুপুর|বিকেল|বিকাল|সন্ধ্যা|রাত)?\s*(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?\s*"
    r"টা(?:র|য়|য়)?(?P<by>\s*(?:এর\s*)?মধ্যে)?"
)


def _bn_clock(m: re.Match[str]) -> str:
    h = int(m["h"])
    # (noon's hours past 12 and the afternoon's and evening's are pm; a night's 9 is 21, its 2 is 2)
    if h < 12 and (
        m["part"] in ("বিকেল", "বিকাল", "সন্ধ্যা")
        or (m["part"] == "দুপুর" and h < 6)
        or (m["part"] == "রাত" and h >= 6)
    ):
        h += 12
    return f"{' by' if m['by'] else ''} at {h:02d}:{m['m'] or '00'} "


# the word "date" before a day's figure, which parts the weekday from its date: Swahili "Jumatano,
# tarehe 15 Machi", Indonesian and Malay "Kamis, tanggal 10 September"
_DATE_WORD = re.compile(r"(?<!\w)(?:tarehe|tanggal|tgl\.?)\s+(?=\d)", re.IGNORECASE)


# Swahili time counts the hours from dawn: "saa 4:00 asubuhi" is 10:00, "saa 8 mchana" 14:00, "saa 1
# jioni" 19:00, "saa 4 usiku" 22:00 (with its part of the day, as such mail writes it)
_SW_CLOCK = re.compile(
    r"(?<!\w)saa\s+(?P<h>1[0-2]|0?[1-9])(?:[:.](?P<m>[0-5]\d))?\s+(?:za\s+)?(?P<part>asubuhi|mchana|alasiri|jioni|usiku)\b",
    re.IGNORECASE,
)


def _sw_clock(m: re.Match[str]) -> str:
    n, part = int(m["h"]), m["part"].lower()
    if part == "asubuhi":
        h = (n + 6) % 24 if n <= 6 else (n + 6) % 12  # saa 12 asubuhi is 06:00
    elif part == "jioni":
        h = (n + 6) % 12 + 12
    elif part == "usiku":
        h = (n + 18) % 24
    else:  # mchana, alasiri: midday and afternoon
        h = n + 6
    return f"at {h:02d}:{m['m'] or '00'}"


# "tomorrow" in the languages such mail comes in (Vietnamese "mai" after its part of the day: alone
# it is also a month's name elsewhere)
_TOMORROW = re.compile(
    # (not words that are something else in another language: Croatian "dobro jutro" is good
    # morning, French "homme" a man, Dutch "rit" a ride, Tagalog "bukas" also open)
    r"(?<!\w)(?:למחר|מחר|غدًا|غداً|غدا|فردا|завтра|утре|(?<!dobro\s)jutro|z[ií]tra|zajtra|sutra|holnap|rytoj|rīt"
    r"|huomenna|i\s+morgon|i\s+morgen|demain|domani|amanh[ãa]|m[âa]ine|yar[ıi]n|besok|esok|kesho"
    r"|αύριο|αυριο|พรุ่งนี้|내일|(?:ngày|s[áa]ng|chi[ềe]u|t[ốo]i|tr[ưu]a)\s+mai)(?!\w)",
    re.IGNORECASE,
)
# the digits of Arabic, Persian, Devanagari, Bengali and Thai script, as figures
_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹०१२३४५६७८९০১২৩৪৫৬৭৮৯๐๑๒๓๔๕๖๗๘๙", "0123456789" * 5)


# ... or alone in the French way: "9h15", "14h30", "jeudi 10h"
_H_CLOCK = re.compile(r"\b(?P<h>[01]?\d|2[0-3])h(?P<m>[0-5]\d)?\b", re.IGNORECASE)
# what makes a sentence an ask or a meeting in English (`email_rules.asks`, the e-mail handler's
# meeting words), in the same languages: a need of the reader's, "please", a deadline's "by", and
# the appointment or meeting itself ("J'ai besoin de la liste … au plus tard jeudi 10h", "Bitte
# senden Sie …", "Ik heb de cijfers uiterlijk vrijdag nodig", "Mohon kirim … paling lambat Jumat")
_ASK_WORDS = (
    (
        "I need",
        r"j['’]ai\s+besoin\s+d(?:e|u|es|['’])|nous\s+avons\s+besoin\s+d(?:e|u|es|['’])|il\s+me\s+faut"
        r"|ich\s+(?:brauche|ben[oö]tige)|wir\s+(?:brauchen|ben[oö]tigen)|necesit(?:o|amos)"
        r"|precis(?:o|amos)(?:\s+d[aoe]s?)?|(?:ho|abbiamo)\s+bisogno\s+d[ie]l?\w*|(?:mi|ci)\s+serve"
        r"|(?:jag|vi)\s+beh[oö]ver|(?:jeg|vi)\s+(?:har\s+brug\s+for|trenger|tr[aæ]nger)"
        r"|(?:saya|kami)\s+(?:perlu|butuh|membutuhkan|memerlukan)|(?:ek|ons)\s+het"
        r"|χρει[αά]ζομαι|χρειαζ[οό]μαστε|potrebn[aoi]\s+(?:mi|nam)\s+(?:je|su)|trebaj?u?\s+(?:mi|nam)"
        r"|(?:am|avem)\s+nevoie\s+de|potrzebuj[eę]|potrzebujemy",
    ),
    ("needed by you", r"\bnodig\b"),
    (
        # ("kindly": read as an ask wherever the language puts it, "… 회신해 주세요" after its verb)
        "kindly",
        r"merci\s+de(?:\s+bien\s+vouloir)?|veuillez|bitte|por\s+favor|favor\s+de|per\s+favore|per\s+cortesia"
        r"|graag|v[aä]nligen|venligst|vennligst|mohon|tolong|harap|asseblief|παρακαλ[ωώ]|molim|molimo"
        r"|v[aă]\s+rog|prosz[eę]|prosimy"
        # the word for "please" in more of the languages such mail comes in: Russian, Ukrainian,
        # Bulgarian, Hungarian, Slovak, Latvian, Lithuanian, Estonian, Finnish, Turkish, Malay,
        # Vietnamese, Hebrew, Arabic, Hindi
        r"|пожалуйста|будь\s+ласка|прошу|просимо?|моля|k[eé]rj[uü]k|k[eé]rem|pros[ií]m|pros[ií]me|l[uū]dzu"
        r"|pra[sš]ome|pra[sš]au|palun|pyyd[aä]mme|yst[aä]v[aä]llisesti|l[uü]tfen|sila|vui\s+l[oò]ng"
        r"|נא|אנא|בבקשה|يرجى|الرجاء|من\s+فضلك|कृपया|براہِ\s*کرم|براہ\s+کرم|لطفاً|لطفا"
        # Azerbaijani ("…təqdim etməyiniz xahiş olunur", "zəhmət olmasa"), Georgian, Armenian
        r"|xahi[şs]\s+(?:edirik|edir[əe]m|olunur)|z[əe]hm[əe]t\s+olmasa|გთხოვთ|խնդրում\s+ենք"
        # Portuguese and Spanish thank for what they ask: "Agradeço que nos envie …", "le agradecería que"
        r"|agrade[cç](?:o|emos|ia|íamos|eria|ería|eríamos)\s+que",
    ),
    (
        "by",
        r"au\s+plus\s+tard(?:\s+le)?|(?:bis\s+)?sp[aä]testens(?:\s+(?:am|bis))?|a\s+m[aá]s\s+tardar(?:\s+el)?"
        r"|entro(?:\s+e\s+non\s+oltre)?(?:\s+il)?|uiterlijk|senast|senest|paling\s+lambat|ten\s+laaste"
        r"|antes\s+del?|at[eé](?=\s+(?:[àa]s?\s+|o\s+dia\s+|ao\s+)?(?:\d|segunda|ter[cç]a|quarta|quinta|sexta|s[aá]bado|domingo|amanh))|avant\s+le|το\s+αργ[οό]τερο(?:\s+μ[εέ]χρι)?(?:\s+τη[νς]?)?|najkasnije(?:\s+do)?"
        r"|cel\s+t[aâ]rziu(?:\s+p[aâ]n[aă]\s+(?:la|pe))?|najp[oó][zź]niej(?:\s+do)?|nejpozd[eě]ji(?:\s+do)?"
        # ... and more: "не позднее", "не пізніше", "най-късно до", "legkésőbb", "najneskôr (do)",
        # "līdz", "iki", "hiljemalt", "viimeistään", "en geç", "sebelum", "hạn chót", "עד", "قبل", "तक"
        r"|не\s+поздн?ее|не\s+пізніше|най-късно(?:\s+до)?|legk[eé]s[oő]bb|najnesk[oô]r(?:\s+do)?|l[iī]dz|iki"
        r"|hiljemalt|viimeist[aä][aä]n|en\s+ge[cç]|sebelum|h[aạ]n\s+ch[oó]t|עד|قبل|بحلول|तक|تک"
        # Azerbaijani "ən gec" (at the latest)
        r"|[əe]n\s+gec",
    ),
    (
        "new slot",
        r"novi\s+termin|nov[yý]\s+term[ií]n|nowy\s+termin|noua\s+programare|ν[εέ]ο\s+ραντεβο[υύ]"
        r"|nieuwe\s+afspraak|nieuw\s+tijdstip|nouveau\s+rendez-vous|neuer\s+termin|nueva\s+cita|nuovo\s+appuntamento"
        # (Ukrainian, Russian, Bulgarian: "Новий час:", "Новое время", "Нова дата")
        r"|нов(?:ий|ое|ая|а|е|о)\s+(?:час|время|дата|термін|запис)",
    ),
    (
        "new location",
        r"[đd][iị]a\s+[đd]i[ểe]m\s+m[ớo]i|nouveau\s+lieu|nouvelle\s+adresse|neue[rn]?\s+(?:ort|adresse)"
        r"|nuev[oa]\s+(?:lugar|direcci[oó]n)|nov[oa]\s+(?:local|morada|endere[cç]o)|nuov[oa]\s+(?:sede|indirizzo)"
        r"|nieuwe\s+(?:locatie|adres)|ny\s+adress|nytt\s+st[aä]lle|ny\s+adresse|lokasi\s+baru|tempat\s+baru"
        r"|нов(?:ий|ая|а|ый)\s+(?:адреса|адрес)"
        # ... or the place as a field of a mail that moves the plan: "Miejsce: ul. Marszałkowska 87"
        r"|(?:miejsce|lugar|luogo|ort|plats|sted|locatie|lokalizacja|m[ií]sto|helysz[ií]n|paikka|endere[cç]o)(?=\s*:)",
    ),
    (
        "meeting",
        r"rendez-vous|r[eé]union|termin|besprechung|cita|reuni[oó]n|reuni[aã]o|riunione|appuntamento|afspraak"
        r"|vergadering|m[oö]te|m[oø]de|aftale|rapat|pertemuan|janji\s+temu|videochamada|videoconfer[eê]ncia"
        r"|chamada|συν[αά]ντηση|ραντεβο[υύ]|sastanak|[iî]nt[aâ]lnire|programare|spotkanie|wizyta|sch[uů]zka"
        r"|toplant[iı]|randevu"
        # the word for a booked appointment: Norwegian/Danish "time hos", Swedish "tid hos",
        # Finnish, Hungarian, Ukrainian, Russian, Czech, Slovak, Polish ("wizyta" above)
        r"|time(?:n)?\s+hos|din\s+time|tid(?:en)?\s+hos|din\s+tid|ajanvaraus|vastaanot\w*|id[oő]pont\w*"
        r"|запис\w*|прийом\w*|при[её]м\w*|консультаці\w*|консультаци\w*|rezervac\w*|objedn[aá]v\w*"
        # (Latvian, Lithuanian, Estonian)
        r"|pierakst\w*|vizit\w*|registracij\w*|vastuv[oõ]t\w*"
        # (a medical examination, in Croatian, Serbian, Bosnian and Slovene)
        r"|pregled(?:a|u|om)?",
    ),
)
_NEED, _PLEASE, _BY = 0, 2, 3  # which of _ASK_WORDS
# a reply that says yes to a proposed or confirmed time, in the languages above ("Спасибо,
# подтверждаю", "Perfecto, ahí estaré", "Passt, bis dann") and one that says it cannot come; read
# only in the person's own replies (`plan_news.accepts`)
YES_REPLY = re.compile(
    r"\b(?:подтверждаю|подтверждено|підтверджую|согласен|согласна|згоден|згодна|хорошо|добре|договорились"
    r"|confirmo|confirmado|perfecto|perfeito|de\s+acuerdo|vale|combinado|je\s+confirme|parfait|d['’]accord"
    r"|bestätige|einverstanden|passt|confermo|va\s+bene|perfetto|akkoord|bevestig\w*|prima|bekrefter|bekræfter"
    r"|bekräftar|passer\s+(?:fint|bra)|det\s+passer|potwierdzam|pasuje|potvrzuji|potvrdzujem|vyhovuje|rendben"
    r"|meger[őo]s[ií]tem|tamam|onayl[ıi]yorum|εντ[αά]ξει|επιβεβαι[ωώ]νω|sunt\s+de\s+acord|confirm|baik|setuju"
    r"|oke|siap|đồng\s+ý|được|ok(?:ay|ei)?"
    # (Finnish: "sopii hyvin", "käy meille", "vahvistan"; Belarusian "пацвярджаю"; Swahili "sawa",
    # "nitakuwepo", I will be there)
    r"|sopii|käy|vahvistan|пацвярджаю|sawa|nitakuwepo"
    # (I confirm: Uzbek, Kazakh, Azerbaijani, Lithuanian, Latvian, Estonian, Slovenian,
    # Croatian and Serbian, Bulgarian, Macedonian, Albanian, Georgian, Armenian, Arabic, Hebrew)
    r"|tasdiqlayman|roziman|растаймын|келісемін|t[əe]sdiq\s+edir[əe]m|raz[ıi]yam|patvirtinu"
    r"|apstiprinu|kinnitan|potrjujem|potvr[đd]j?ujem|потвърждавам|потврдувам"
    r"|konfirmoj|ვადასტურებ|հաստատում\s+եմ|أؤكد|موافق|מאשרת?)\b"
    # ... or a reply that opens with the word for "yes" ("Da, termin mi ustreza, hvala.", "Ja, passt")
    r"|(?:^|\n)[^\w\n]*(?:da|ja|jā|jah|taip|s[ií]|oui|sim|tak|ano|áno|igen|kyllä|evet|ναι|так|да)\b",
    re.IGNORECASE,
)
NO_REPLY = re.compile(
    r"\b(?:не\s+(?:могу|смогу|получится|можу|зможу|вийде)|no\s+(?:puedo|podré|posso|poderei|potrò)"
    r"|ne\s+(?:peux|pourrai)\s+pas|kann\s+(?:leider\s+)?nicht|kan\s+(?:dessverre\s+|tyvärr\s+|desværre\s+)?ikke"
    r"|kan\s+(?:tyvärr\s+)?inte|kan\s+(?:helaas\s+)?niet|nie\s+mog[eę]|nemohu|nem\s+tudok|gelemiyorum"
    r"|δεν\s+μπορ[ωώ]|nu\s+pot|tidak\s+bisa|không\s+thể|leider|lamentablemente|malheureusement|purtroppo"
    r"|infelizmente|helaas|dessverre|tyvärr|desværre|niestety|bohužel|sajnos|maalesef|на\s+жаль|к\s+сожалению)\b",
    re.IGNORECASE,
)
# a word that negates, in the languages of the mails above and their neighbours: a reply holding one
# says no to something, and is no acceptance read from the absence of an objection
# (`mail_plans.objects`); a closed class, listed whole rather than by the replies seen
NEGATION = re.compile(
    # ("no" only standing alone — "No, …", "no." — for it is Portuguese "in the"; "nu", "nei", "ne"
    # are "now", "in the", "what" in other languages than the ones they negate in)
    r"(?:^|(?<=[\s,.;!]))no(?=\s*[,.;!]|\s*$)"
    r"|\b(?:not|never|cannot|can['’]?t|won['’]?t|n[aã]o|non|pas|jamais|nicht|kein\w*|nein|nie|niet|geen|nee"
    r"|inte|ej|nej|ikke|ikkje|ei|emme|eivät|nije|nemo|нет|не|ні|nem|nincs|hayır|değil|yok"
    r"|δεν|όχι|μην|nuk|tidak|bukan|belum|hindi|hapana|siwezi|không|chưa|жоқ|емес|yox|deyil|чадахгүй"
    r"|ვერ|არ|չեմ|ոչ|لا|لن|لم|לא|نه|नहीं|না)\b"
    # (and where words run together: Thai "ไม่", Japanese "できない/できません", Korean "못/않", Chinese 不/没)
    r"|ไม่|できません|できない|못|않|不|没",
    re.IGNORECASE,
)
# ... except in "no problem" and "no worries", which say yes: "kein Problem", "kein Thema", "geen
# probleem", "pas de problème", "pas de souci", "sorun yok", "нет проблем", "не проблема", "ei
# ongelmaa", "ei hätää", "nie ma sprawy", "não tem problema", "nincs gond"
NO_PROBLEM = re.compile(
    r"\b(?:kein\w*|geen|pas\s+de|nessun\w*|sem|ingen|ei|nie\s+ma|žádný|nema|nincs|нет|не|нема|жоқ|no\s+hay"
    r"|n[ãa]o\s+(?:h[áa]|tem))"
    r"\s+(?:problem\w*|probl[eè]m\w*|ongelma\w*|gond\w*|проблем\w*|thema|souci\w*|sprawy|hätää)"
    r"|\b(?:problem|sorun|sıkıntı)\s+(?:yok|değil)\b|\bproblem\s+yok\b",
    re.IGNORECASE,
)
# ... and in scripts written without spaces (no word boundary to lean on): Thai "กรุณา" / "โปรด"
# (please), "ภายใน" / "ก่อน" (within, before); Korean "주세요", "바랍니다", "부탁드립니다" (please),
# "까지" (by)
# and Bengali "অনুগ্রহ করে" / "দয়া করে" (please) and "মধ্যে" (within: by), whose vowel signs end a word where `\b` does not
# and Japanese "ください" / "お願いします" (not the closing "よろしくお願いいたします") and "までに" (by)
_UNSPACED = {
    _PLEASE: r"กรุณา|โปรด|주세요|주십시오|바랍니다|부탁드립니다|অনুগ্রহ\s*করে|অনুগ্রহপূর্বক|দয়া\s*করে|দয়া\s*করে"
    # (願 as the Chinese rules read it too, simplified: 愿)
    r"|ください|下さい|(?<!よろしく)(?<!宜しく)お[願愿]い(?:いた|致)?します|(?<!よろしく)(?<!宜しく)お[願愿]い申し上げます",
    _BY: r"ภายใน|ก่อน|까지|মধ্যে|までに",
}
_ASK = re.compile(
    "|".join(
        rf"(?P<w{k}>\b(?:{rx})\b" + (f"|{_UNSPACED[k]}" if k in _UNSPACED else "") + ")"
        for k, (_, rx) in enumerate(_ASK_WORDS)
    ),
    re.IGNORECASE,
)
# English and Chinese mail is read as it is ("is" is Dutch too: "Uw afspraak is verplaatst")
_ENGLISH = re.compile(
    r"\b(?:the|and|you|your|we|are|to|of|for|will|please|thanks|hi|with|this|that|have"
    # ... and the words of a short casual note ("ugh sorry, gotta bail on climbing thursday, knee's
    # acting up again. i'll ping you once it's behaving")
    # (not the short words other languages share: "in", "is", "me", "so", "was", "all", "see", and
    # Danish and Norwegian "i" and "at")
    r"|i'?ll|i'?m|it'?s|my|just|can|can'?t|sorry|gotta|gonna|again|once|when|but|hey"
    r"|not|got|get|if|any|our|they|them|she|he|his|let|know|would|could|should)\b",
    re.IGNORECASE,
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_KANA = re.compile(r"[\u3041-\u3096\u30a1-\u30fa]")  # hiragana and katakana, not the long-vowel mark
_KANA_FROM = 5  # (a Chinese note may borrow one: "我の")


_fold = fold


# (capitalised, as English writes them: "May" and "March" are months only so)
_NAMES = {_fold(w): en.title() for en, words in (*_WEEKDAYS.items(), *_MONTHS.items()) for w in words.split()}
_DAY_OF = re.compile(
    rf"\b(?P<d>[0-3]?\d)(?:\.\s*|\s+de\s+|\s+di\s+)(?=(?:{'|'.join(m.title() for m in _MONTHS)})\b)"
)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")
# a day of the month with its East Asian suffix, read as the figure: "16일", "16日"
_DAY_SUFFIX = re.compile(
    # (not after 月: "11月13日" is read as the Chinese date it also is)
    r"(?<![\d月])(?P<d>[0-3]?\d)\s*(?:일|日)(?![^\W\d_])"
    # ... or its case ending after a hyphen: Armenian "18-ին", Hungarian "29-én", "5-ig"
    r"|(?<![\d-])(?P<e>[0-3]?\d)-[^\W\d_]{1,4}(?![^\W\d_])"
)
_CHANGE = re.compile(
    rf"\b(?:(?P<off>{_CANCELLED})|(?P<moved>{_MOVED}){_TO}|(?P<move>{_MOVE}))\b", re.IGNORECASE
)


def foreign(text: str) -> bool:
    """A mail in neither English nor Chinese: Chinese characters absent (or written among the
    kana of Japanese), and English's most common words fewer than one in twenty of its words."""
    if _HAN.search(text):
        # Japanese writes Chinese characters too, between kana of its own, which Chinese never
        # has ("…までにご提出くださいますようお願いいたします"): a mail in another language
        return len(_KANA.findall(text)) >= _KANA_FROM
    words = _WORD.findall(text)
    return len(words) >= 8 and len(_ENGLISH.findall(text)) * 20 < len(words)


def as_english(text: str) -> str:
    """`text` with its weekday and month names, its clocks, its words of change and of asking in
    English ("mardi 30 mars 2027 à 9h15" → "Tuesday 30 March 2027 at 09:15"); `text` itself when
    it is not `foreign`."""
    return _english(text) if foreign(text) else text


def as_english_always(text: str) -> str:
    """`text` read as a mail in another language, whatever its words: one sentence of a mail
    already known to be foreign (too short for `foreign` to tell on its own)."""
    return _english(text)


def reader(text: str) -> Callable[[str], str]:
    """How to read the sentences of a mail: in English words when the whole mail is `foreign`
    (a sentence alone may be too short to tell), else as written."""
    return _english if foreign(text) else _as_written


def _as_written(text: str) -> str:
    return text


# Vietnamese names its weekdays with two words ("thứ Tư", "Chủ nhật"): read before the words one by one
_VI_WEEKDAYS = {
    "hai": "Monday",
    "ba": "Tuesday",
    "tư": "Wednesday",
    "năm": "Thursday",
    "sáu": "Friday",
    "bảy": "Saturday",
}
_VI_WEEKDAY = re.compile(r"\bth[ứu]\s+(?P<d>hai|ba|tư|năm|sáu|bảy)\b|\bch[ủu]\s+nh[ậa]t\b", re.IGNORECASE)


# ... moves a thing "from" one time "to" another with words of its own ("dời buổi kiểm hàng từ 14h thứ
# Tư sang 8h30 sáng thứ Năm"), and says the half of the day after the clock ("2h chiều")
_VI_FROM_TO = re.compile(r"\bt[ừu]\s+(?P<old>[^.;]{1,60}?)\s+sang\s+", re.IGNORECASE)
_VI_MOVE = re.compile(r"\b(?:d[ờo]i|[dđ][ổo]i|chuy[ểe]n)(?:\s+l[ịi]ch)?\b", re.IGNORECASE)
_VI_HALF = re.compile(
    r"\b(?P<h>[01]\d):(?P<m>[0-5]\d)\s+(?P<p>s[áa]ng|tr[ưu]a|chi[ềe]u|t[ốo]i)\b", re.IGNORECASE
)


def _vi_weekday(m: re.Match[str]) -> str:
    return _VI_WEEKDAYS[m["d"].lower()] if m["d"] else "Sunday"


def _vi_half(m: re.Match[str]) -> str:
    h = int(m["h"])
    if m["p"].lower().startswith(("chi", "t")) and h < 12:
        h += 12  # afternoon, evening
    return f"{h:02d}:{m['m']}"


def _vietnamese(text: str) -> str:
    """A Vietnamese mail's weekdays, its move "from … to …" and its clock's half of the day in English."""
    if not _VI_WEEKDAY.search(text):
        return text
    text = _VI_WEEKDAY.sub(_vi_weekday, text)
    if _VI_FROM_TO.search(text):
        text = _VI_MOVE.sub(" moved ", text)
        text = _VI_FROM_TO.sub(lambda m: f" from {m['old']} to ", text)
    return text


def pleads(text: str) -> bool:
    """Whether the sentence `text` asks in so many words, in one of the word lists' languages: a
    need or a deadline's "by" anywhere ("…au plus tard jeudi"), or a "please" that opens it ("Bitte
    senden Sie …", "Agradeço que nos envie …"; not "…at 9:20, please arrive early", an instruction
    after what it tells)."""
    return any(
        m.group(f"w{_NEED}") is not None
        or m.group(f"w{_BY}") is not None
        or (m.group(f"w{_PLEASE}") is not None and len(text[: m.start()].split()) <= _OPENS)
        for m in _ASK.finditer(text)
    )


_OPENS = 2  # words before a "please" that still opens its sentence ("Caro Eng. Meng, agradeço que…")


def _ask_words(text: str) -> str:
    """`text` with its words of asking in English. A "please" whose verb is not read ("Bitte bringen
    Sie Ihre Verordnung mit": what to bring, no ask) asks only beside a need or a deadline ("merci de
    nous renvoyer le formulaire au plus tard mercredi"): else it is left out."""
    found = {k for m in _ASK.finditer(text) for k, v in enumerate(m.groups()) if v is not None}
    pleads = bool(found & {_NEED, _BY})

    def word(m: re.Match[str]) -> str:
        k = next(i for i, v in enumerate(m.groups()) if v is not None)
        return " " if k == _PLEASE and not pleads else f" {_ASK_WORDS[k][0]} "

    return _ASK.sub(word, text)


# Hebrew glues "to", "on", "from" to the word for day: "ליום ראשון" is "יום ראשון" (Sunday)
_HE_DAY_PREFIX = re.compile(r"(?<![\u0590-\u05ff])[לבמו](?=יום\s)")
# a capitalised word that is not the sentence's first, just before: the word after it is a name's
_AFTER_A_NAME = re.compile(r"(?:^|[^\s.!?:;])[ \t]*[A-ZÀ-ÞА-ЯЁ][a-zß-ÿа-яё]+[ \t]+$")
_NAME_BACK = 60  # characters looked back for it
# a month's name as short as "mai", "mei", "maj" is also a word (Romanian "nu mai pot", "more";
# Vietnamese "mai", "tomorrow"): a month only beside a figure ("5 mai", "mai 2027")
_SHORT_MONTH_NEAR = 6


def _name(m: re.Match[str]) -> str:
    word = m.group(0)
    found = _NAMES.get(_fold(word))
    if found is None:
        found = word_in_english(word)
        # (a capitalised word after a capitalised word is a name's: "Nelson Mandela Avenue" is no
        # "Nelson Monday Avenue", though "manda-" begins the Norwegian "mandag", nor "Hei Anna" a
        # Friday; a weekday inside a sentence is written small in the languages these names come
        # from, and German's capitals are in the lists above)
        if (
            found is not None
            and word[:1].isupper()
            and _AFTER_A_NAME.search(m.string[max(0, m.start() - _NAME_BACK) : m.start()])
        ):
            found = None
    if found is None:
        return word
    near = m.string[max(0, m.start() - _SHORT_MONTH_NEAR) : m.end() + _SHORT_MONTH_NEAR]
    # a short month, or a short word in capitals (an agency's letters: "la Opinión de Cumplimiento
    # del SAT" is no Saturday), is a date's only beside its figures ("SAT 12 OCT")
    short = (len(word) <= 3 and found in MONTHS_EN) or (len(word) <= 4 and word.isupper())
    return word if short and not re.search(r"\d", near) else found


# "listopad" is November in Polish and Czech, October in Croatian, and CLDR's table leaves it out:
# read by the letters only one of them writes
_LISTOPAD = re.compile(r"\blistopad\w*", re.IGNORECASE)
_POLISH_CZECH = re.compile(
    r"[łąęńśźřěů]|\b(?:w\s+dniu|godz|prosimy|uprzejmie|wizyt\w*|pozdrawiam\w*|dne|hod|prosíme)\b",
    re.IGNORECASE,
)
_CROATIAN = re.compile(r"[đ]|\b(?:studeni|prosinca|rujna|kolovoza)\b", re.IGNORECASE)


def _listopad(text: str) -> str:
    if not _LISTOPAD.search(text):
        return text
    if _POLISH_CZECH.search(text) and not _CROATIAN.search(text):
        return _LISTOPAD.sub("November", text)
    if _CROATIAN.search(text) and not _POLISH_CZECH.search(text):
        return _LISTOPAD.sub("October", text)
    return text


# the word a timetable puts before its clock ("départ 13h00", "salida 07:45", "Abfahrt 9.10"),
# read as English's, which makes the clock after it the time of the trip
_DEPARTS = re.compile(
    r"\b(?:départ|salida|abfahrt|partenza|partida|vertrek|avgång|afgang|avgang|odjazd|odlet|kalkış|lähtö)\b",
    re.IGNORECASE,
)


def _english(text: str) -> str:
    text = _TOMORROW.sub(" tomorrow ", _listopad(text.translate(_DIGITS)))
    text = _DATE_WORD.sub("", text)
    text = _vietnamese(text)
    text = _ask_words(text)
    text = _CHANGE.sub(
        lambda m: " cancelled " if m["off"] else " moved to " if m["moved"] else " reschedule ", text
    )
    # (two digits for the hour: such mail writes the 24-hour clock, "à 9h15" is the morning)
    text = _CLOCK.sub(lambda m: f"at {int(m['h']):02d}:{m['m'] or '00'}", text)
    text = _CLOCK_HM.sub(lambda m: f"at {int(m['h']):02d}:{m['m']}", text)
    text = _UHR.sub(lambda m: f"at {int(m['h']):02d}:{m['m'] or '00'}", text)
    text = _H_CLOCK.sub(lambda m: f"{int(m['h']):02d}:{m['m'] or '00'}", text)
    text = _DEPARTS.sub("departs", text)
    text = _KO_CLOCK.sub(_ko_clock, text)
    text = _TH_CLOCK.sub(lambda m: f"at {int(m['h']):02d}:{m['m']}", text)
    text = _VI_HALF.sub(_vi_half, text)
    text = _CLOCK_WORD.sub(_clock_word, text)
    text = _BN_CLOCK.sub(_bn_clock, text)
    text = _SW_CLOCK.sub(_sw_clock, text)
    # (março folds to "marco", a name: the Portuguese month is read with its cedilla)
    text = re.sub(r"\bmarço\b", "March", text, flags=re.IGNORECASE)
    # every other language's names, from CLDR (`calendar_names`): those written with a space, a
    # figure or no spaces first ("יום שני", "11월", "วันจันทร์"), then the words
    text = _DAY_SUFFIX.sub(lambda m: m["d"] or m["e"], in_english(_HE_DAY_PREFIX.sub("", text)))
    text = _WORD.sub(_name, text)
    # the day before its month as English writes it: "14. April", "16 de April" → "14 April"
    text = _DAY_OF.sub(lambda m: f"{m['d']} ", text)
    text = _CLOCK_RANGE.sub(_clock_range, text)
    # Lithuanian writes the year's and the day's word after their figures ("2028 m. kovo 29 d."):
    # left out; and a weekday in brackets after its date ("March 29 (Wednesday) at 14:20") says
    # nothing the date does not
    text = _LT_YEAR_DAY.sub("", text)
    # ... and Croatian, Serbian and Hungarian give the year a dot, the sentence going on: "5. ožujka
    # 2026. u 10:15" → "5 March 2026 at 10:15" (the dot would part the day from its clock)
    text = _YEAR_DOT.sub("", text)
    text = _BRACKETED_DAY.sub(lambda m: m["d"], text)
    # a weekday and its day and month in figures, as most of Europe writes them: "środę 22.04",
    # "Freitag, 24.04.2026" → "Wednesday 22 April" (not "22:04": a clock after a weekday has its word);
    # and with slashes, as Brazil, Spain or France do: "quinta-feira, 12/03/2026" is 12 March, not
    # December 3 as an American would read it
    return _WEEKDAY_DM.sub(_day_month, text)


_LT_YEAR_DAY = re.compile(r"(?<=\d)\s+(?:m|d)\.(?=[\s,(])")
_YEAR_DOT = re.compile(r"(?<=\b(?:19|20)\d\d)\.(?=[ \t]+(?:at\b|[a-zà-žа-яё]))")
_BRACKETED_DAY = re.compile(r"(?P<d>\d)\s*\((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\)")
_WEEKDAY_DM = re.compile(
    r"\b(?P<wd>(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)\s*,?\s+(?P<d>[0-3]?\d)(?:(?P<dot>\.)|/)(?P<m>[01]?\d)"
    # (the dot after the month is the date's, "22.04."; a slash date's is its sentence's end)
    r"(?:(?(dot)\.|/)?(?P<y>20\d\d)\b|(?(dot)\.|(?!)))?(?![\d:])"
)


def _day_month(m: re.Match[str]) -> str:
    day, month = int(m["d"]), int(m["m"])
    if not (1 <= day <= 31 and 1 <= month <= 12):
        return m.group(0)
    return f"{m['wd']} {day} {MONTHS[month - 1]}" + (f" {m['y']}" if m["y"] else "")
