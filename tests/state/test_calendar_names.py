"""Every language's weekday and month names, from CLDR: the table is babel's, and a mail in a
language nobody here wrote a word list for reads its dates (sentences written after the code)."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.predict.plan_news import read_mail
from daemon.state.calendar_names import DATA, from_cldr, in_english, word_in_english
from daemon.state.mail_words import as_english


def test_the_table_is_what_cldr_gives() -> None:
    """`python bench/calendar_names.py` wrote it from the pinned babel; this reads CLDR again."""
    assert json.loads(DATA.read_text(encoding="utf-8")) == from_cldr()


@pytest.mark.parametrize(
    ("word", "english"),
    [
        ("понеделник", "Monday"),  # Bulgarian
        ("keskiviikkona", "Wednesday"),  # Finnish, as a date writes it
        ("csütörtök", "Thursday"),  # Hungarian
        ("listopadu", "November"),  # Czech
        ("pirmdien", "Monday"),  # Latvian "on Monday": CLDR's "pirmdiena" less its last letter
        ("novembrī", "November"),  # Latvian "in November"
        ("lauantai", "Saturday"),
    ],
)
def test_a_name_in_any_language_reads_as_english(word: str, english: str) -> None:
    assert word_in_english(word) == english


def test_a_name_two_languages_read_otherwise_is_left_alone() -> None:
    # Polish "listopad" is November, Croatian October
    assert word_in_english("listopada") is None
    # an ordinary word is no name
    assert word_in_english("domani") is None


def test_names_written_with_a_space_or_no_spaces() -> None:
    assert "Monday" in in_english("יום שני, 16 בנובמבר")
    assert "November" in in_english("วันที่ 16 พฤศจิกายน")


def test_a_bulgarian_clinic_calls_the_appointment_off() -> None:
    tz = ZoneInfo("Europe/Sofia")
    mail = (
        "Здравейте,\n\nЗа съжаление Вашият час при зъболекаря в четвъртък, 19 ноември, 11:00 ч. е отменен "
        "поради болест на д-р Петрова. Ще Ви се обадим за нов час.\n\nПоздрави"
    )
    assert "Thursday, 19 November" in as_english(mail)
    plan = "зъболекар thursday at 11, finally the filling"
    news = read_mail(
        mail,
        datetime(2026, 11, 16, 9, 0, tzinfo=tz),
        plan,
        datetime(2026, 11, 19, 11, 0, tzinfo=tz),
        tz,
        "m1",
        "x",
    )
    assert news is not None and news.moved_to is None  # called off


def test_a_finnish_school_moves_the_parents_evening() -> None:
    tz = ZoneInfo("Europe/Helsinki")
    mail = (
        "Hyvät vanhemmat,\n\nTiistaina 17. marraskuuta klo 18:00 pidettävä vanhempainilta on siirretty "
        "torstaille 19. marraskuuta klo 17:30.\n\nTerveisin, rehtori"
    )
    plan = "vanhempainilta tuesday 6pm at the school"
    news = read_mail(
        mail,
        datetime(2026, 11, 12, 9, 0, tzinfo=tz),
        plan,
        datetime(2026, 11, 17, 18, 0, tzinfo=tz),
        tz,
        "m1",
        "x",
    )
    assert news is not None and news.moved_to == datetime(2026, 11, 19, 17, 30, tzinfo=tz)
