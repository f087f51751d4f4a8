"""Whose plan a sentence is, time off, mail in other languages, a plan's headline and its quote:
the rules of the seventeenth round.

Sentences written after the code, as a stranger would type them in chat (or as a clinic, a salon
or an office would write its mail); each case fails on the code before unless a comment says it
is a guard (a behaviour that must not change)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates
from daemon.memory.types import ItemView
from daemon.predict.plan_text import headline, said_of
from daemon.predict.plans import reasons
from daemon.predict.time_off import is_time_off

BERLIN = ZoneInfo("Europe/Berlin")
HK = ZoneInfo("Asia/Hong_Kong")
PARIS = ZoneInfo("Europe/Paris")
AMSTERDAM = ZoneInfo("Europe/Amsterdam")

MON_BERLIN = datetime(2026, 3, 2, 10, 0, tzinfo=BERLIN)  # Monday 2 March 2026
SUN_HK = datetime(2026, 3, 1, 10, 0, tzinfo=HK)  # Sunday 1 March 2026
THU_HK = datetime(2026, 3, 5, 10, 0, tzinfo=HK)  # Thursday 5 March 2026
MAIL_SENT = datetime(2027, 3, 1, 10, 0, tzinfo=PARIS)  # a Monday


# --- 8. an interjection opening the sentence is nobody's name ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "ugh got the call back from the ortho, braces check thursday 4pm",
        "Omg got the last slot at the passport office, tue 10:40",
        "Welp got jury duty summons for monday",
        "Yay got the 3pm slot for my haircut friday",
    ],
)
def test_an_interjection_opening_the_sentence_is_no_name(text: str) -> None:
    assert "other" not in reasons(text)


def test_a_name_after_an_interjection_is_still_someone_elses() -> None:
    # the interjection skipped, the name behind it is read (the code before read neither)
    assert "other" in reasons("Omg Priya is getting married saturday!!")


# --- 9. something else done, then the plan booked -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "finally handed in the tax forms — booked the car service for thu 8:30",
        "already sent the invoice to accounting — booked the gp for tue 9:15",
        "the school finally emailed the forms, booked the eye test for mon 4pm",
        "already renewed my passport, booked flights for sun morning",
        "finally finished the quarterly report — I'm taking the kids to the dentist thursday at 3",
    ],
)
def test_a_done_first_clause_about_something_else_leaves_the_booked_plan(text: str) -> None:
    assert "done" not in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards (pass on the code before too): the later clause books nothing, or is done too
        "just got back from the optician, new glasses friday",
        "finished the essay — submitted it friday",
    ],
)
def test_a_later_clause_that_books_nothing_stays_done(text: str) -> None:
    assert "done" in reasons(text)


# --- 10. the speaker stays out --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the office quiz is thursday at 7, not going.",
        "work drinks friday after 6, not going",
        "they're all heading to the lake sunday, I'm staying behind to finish my thesis",
        "my sister's got her recital friday, I'm staying behind with the dog",
        "同事周六聚餐，叫我一起，我懒得去",
        "室友周六去爬山，问我去不去，我懒得去",
        "阿妈禮拜日去飲茶，我照旧喺屋企",
        "老公周六要去喝喜酒，我话你自己去啦",
        "老婆礼拜六要回娘家，我说妳自己去吧",
    ],
)
def test_a_speaker_who_stays_out_leaves_it_someone_elses(text: str) -> None:
    assert "other" in reasons(text)


def test_not_going_to_miss_it_is_no_refusal() -> None:
    # guard (passes on the code before too): "not going to …" goes on, it does not decline
    assert "other" not in reasons("I'm not going to miss the parade on sunday")


# --- 11. the dated clause is someone else's --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "so proud of my brother, he's defending his phd on friday",
        "big week for the fam, they're closing on the new house thu",
        "huge news, Marco's sitting his driving test on monday 9am",
        "wild week, Priya has her citizenship ceremony thursday",
    ],
)
def test_a_dated_clause_led_by_someone_else_after_an_opener_is_theirs(text: str) -> None:
    assert "other" in reasons(text)


def test_a_dated_clause_with_my_in_it_is_not_someone_elses() -> None:
    # guard (passes on the code before too): she does the speaker's colour, it is their appointment
    assert "other" not in reasons("found a great stylist, she can do my colour tue 11am")


# --- 12. 无语, the traffic, the daylight -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["下礼拜三又排我值夜班，真係無語", "周五的团建居然要自费，无语"])
def test_wuyu_is_venting(text: str) -> None:
    assert "vent" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        "traffic on the m25 friday evening will be insane",
        "the 405 tomorrow at 8am is gonna be a parking lot",
        "rush hour on the bay bridge monday = gridlock",
        "it's gonna be light at 6 on sunday, feels fake",
        "sunrise tomorrow is 6:42",
        "sunset friday is like 7:50 now",
        "明天早上二环肯定堵死",
        "周五晚高峰过海隧道必定塞車",
        "下班時間紅隧一定塞車",
    ],
)
def test_the_traffic_and_the_daylight_are_the_worlds(text: str) -> None:
    assert "world" in reasons(text)


@pytest.mark.parametrize("text", ["I'll be stuck in traffic friday evening", "明天下班我肯定堵车"])
def test_the_speaker_in_the_traffic_is_not_the_world(text: str) -> None:
    # guards (pass on the code before too): the speaker is in the sentence
    assert "world" not in reasons(text)


# --- 13. "if" of an embedded question -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "orientation is monday 9am, don't know if they give you lunch",
        "orientation is monday 9am, i dont even know if they do lunch",
        "induction day tuesday 8am, will check if they feed us",
        "induction day tuesday 8am, let's see if the canteen is open",
        "induction day tuesday 8am, wonder if there's parking",
    ],
)
def test_if_of_a_question_about_others_is_no_hypothetical(text: str) -> None:
    assert "hypothetical" not in reasons(text)


@pytest.mark.parametrize(
    "text", ["not sure if i'll go to the reunion saturday", "will see if we can make it friday"]
)
def test_the_speakers_own_doubt_is_still_hypothetical(text: str) -> None:
    # guards (pass on the code before too)
    assert "hypothetical" in reasons(text)


# --- 14. half day leave -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "put in a half day leave for friday afternoon",
        "half-day leave on thurs, kid's sports day",
        "got my Half Day Leave approved for monday 🙌",
        "周五下午 half day leave 去接娃",
    ],
)
def test_half_day_leave_is_time_off(text: str) -> None:
    assert is_time_off(text)


def test_a_half_day_at_the_office_is_no_leave() -> None:
    # guard (passes on the code before too)
    assert not is_time_off("half day at the office friday")


# --- 15. mail in other languages, in English words ------------------------------------------------------
# (mail_words is new: imported inside the tests, so each fails on the code before on its own)


@pytest.mark.parametrize(
    ("mail", "words"),
    [
        (
            "Bonjour M. Girard, votre contrôle chez l'ophtalmologue du jeudi 15 avril 2027 à 16h30 est "
            "reporté au mardi 20 avril 2027 à 8h45. Merci de votre compréhension. Le secrétariat",
            ["thursday 15 april 2027 at 16:30", "moved to", "tuesday 20 april 2027 at 08:45"],
        ),
        (
            "Liebe Frau Neumann, Ihr Friseurtermin am Samstag um 10:30 Uhr ist leider abgesagt, da die "
            "Filiale geschlossen bleibt. Mit freundlichen Grüßen",
            ["saturday at 10:30", "cancelled"],
        ),
        (
            "Hej Oskar! Vi behöver tyvärr avboka din tandläkartid torsdag 22 april kl. 9:30. Ring oss "
            "gärna så bokar vi en ny tid. Hälsningar, kliniken",
            ["cancelled", "thursday 22 april at 09:30"],
        ),
        (
            "Hola Diego, tu sesión de fisioterapia del viernes 16 de abril a las 18:00 ha sido anulada "
            "porque la clínica cierra. Un saludo",
            ["friday 16 april at 18:00", "cancelled"],
        ),
        (
            "Selamat siang Bu Rina, jadwal kontrol gigi Anda dipindahkan ke hari Senin, 19 April 2027, "
            "pukul 09.15 di klinik kami. Terima kasih",
            ["moved to", "monday, 19 april 2027, at 09:15"],
        ),
        (
            "Bonjour Léa, l'atelier poterie de samedi est annulé, désolée ! On se rattrape le samedi "
            "suivant à 14h.",
            ["saturday est  cancelled", "saturday suivant at 14:00"],
        ),
    ],
)
def test_a_foreign_mail_says_its_days_clocks_and_changes_in_english(mail: str, words: list[str]) -> None:
    from daemon.state.mail_words import as_english

    # (read without case: English writes its days and months capitalised, "Thursday 15 April")
    english = as_english(mail)
    for w in words:
        assert w in english.lower(), english


@pytest.mark.parametrize(
    "mail",
    [
        "Hi Ana, quick note: the Mars rover talk on Thursday is cancelled, sorry! We will send the new date soon.",
        "hey, are we still on for mars bar cheesecake at yours on sunday? I can bring the cream",
    ],
)
def test_an_english_mail_is_left_as_written(mail: str) -> None:
    from daemon.state.mail_words import as_english

    assert as_english(mail) == mail


@pytest.mark.parametrize(
    ("mail", "when"),
    [
        (
            "Bonjour M. Girard, votre contrôle chez l'ophtalmologue du jeudi 15 avril 2027 à 16h30 est "
            "reporté au mardi 20 avril 2027 à 8h45. Merci de votre compréhension. Le secrétariat",
            ["2027-04-15T16:30", "2027-04-20T08:45"],
        ),
        (
            "Selamat siang Bu Rina, jadwal kontrol gigi Anda dipindahkan ke hari Senin, 19 April 2027, "
            "pukul 09.15 di klinik kami. Terima kasih",
            ["2027-04-19T09:15"],
        ),
    ],
)
def test_the_dates_of_a_foreign_mail_are_found_in_its_english(mail: str, when: list[str]) -> None:
    from daemon.state.mail_words import as_english

    found = resolve_dates(as_english(mail), MAIL_SENT, PARIS)
    assert [m.value.astimezone(PARIS).isoformat()[:16] for m in found if m.has_clock] == when
    assert all(m.direction == "future" for m in found)


# --- 16. headlines ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # an emoji ends a Chinese clause: the groan before it is no part of the plan
        ("周末最后一天 🫠 周三早上9点去车管所换驾照", "去车管所换驾照"),
        ("週末最後一天 😌 禮拜二晚上7點要去新屋收樓", "去新屋收樓"),
        ("假期最後一日 😭 禮拜三朝早九點要返公司開會", "返公司開會"),
        # "they said" before the date: the thing is the clause before it
        ("阿妹學校開放日，佢哋話禮拜六朝早十點", "阿妹學校開放日"),
        ("诊所刚打来，他们说周四上午十点", "诊所刚打来"),
    ],
)
def test_a_chinese_headline_starts_at_the_plans_own_clause(text: str, thing: str) -> None:
    assert headline(text, SUN_HK, HK) == thing


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        (
            "crammed the reading list like the tutor said and my seminar has to present fri, 10:15am "
            "at the humanities building",
            "My seminar has to present at the humanities building",
        ),
        (
            "went thru the onboarding deck after 5:30 like hr said and my team has to badge in tuesday, "
            "8am at gate 4",
            "My team has to badge in at gate 4",
        ),
        (
            "read the whole welcome pack like the coach said and our squad needs to check in sat, 7:30am "
            "at the north gate",
            "Our squad needs to check in at the north gate",
        ),
    ],
)
def test_an_english_headline_takes_what_of_theirs_has_to(text: str, thing: str) -> None:
    assert headline(text, MON_BERLIN, BERLIN) == thing


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # guards (the same on the code before; a first cut of the rule above cut "and my sister"
        # out of the subject): "me and my X" is who, not the clause after an "and"
        (
            "sunday me and my sister are running the half, start line at 7am by the harbour",
            "Me and my sister are running the half",
        ),
        (
            "thurs me and my flatmate are doing the pub quiz at 8pm at the crown",
            "Me and my flatmate are doing the pub quiz",
        ),
    ],
)
def test_me_and_someone_stays_the_subject(text: str, thing: str) -> None:
    assert headline(text, MON_BERLIN, BERLIN).startswith(thing)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        (
            "ugh finally got the dermatology slot, thurs 9:20 at the western general, 2nd floor",
            "Dermatology slot",
        ),
        (
            "omg booked the passport photo appt!! fri 4:40pm at the post office on leith walk",
            "Passport photo appt",
        ),
    ],
)
def test_a_booking_announced_after_an_interjection_names_the_plan(text: str, thing: str) -> None:
    assert headline(text, MON_BERLIN, BERLIN) == thing


# --- 17. the quote ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        # a question that does not name the plan (the person's own sum of the time difference)
        (
            "倫敦嗰間公司約我 video interview 😬 佢哋話倫敦時間下星期三朝早十點，用 Zoom。"
            "咁我呢度即係…星期三晚上六點？計到我暈",
            "倫敦嗰間公司約我 video interview 😬 佢哋話倫敦時間下星期三朝早十點，用 Zoom。…",
        ),
        ("下周三晚上8点跟客户吃饭，在铜锣湾。是周三吧？", "下周三晚上8点跟客户吃饭，在铜锣湾。…"),
        # another sentence naming the plan's day with a thing of its own
        ("周二晚上7点去新房验房。周二晚上本来还有羽毛球，看来要请假了", "周二晚上7点去新房验房。…"),
        (
            "tuesday 7pm is the flat inspection. tuesday evening was meant to be yoga too, guess i'll skip",
            "tuesday 7pm is the flat inspection. …",
        ),
    ],
)
def test_the_quote_leaves_out_a_question_and_another_plan_of_the_day(text: str, quote: str) -> None:
    assert said_of(text, THU_HK, HK) == quote


@pytest.mark.parametrize(
    "text",
    ["周二晚上7点去新房验房。我得6点出门", "tuesday 7pm is the flat inspection. need to leave by 6:15"],
)
def test_a_clock_only_follow_up_is_still_quoted(text: str) -> None:
    # guards (pass on the code before too)
    assert said_of(text, THU_HK, HK) == text


# --- a whole day that ends late -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hour", "minute", "ends"),
    [
        ("周四一整天都要跑去 Utrecht 培训，估计晚上八点半才到家", 20, 30, True),
        ("all day offsite thursday, prob home by 7pm", 19, 0, True),
        # a clock inside the working day is a time to be somewhere; no whole day, no end
        ("周四一整天都要跑去 Utrecht 培训，估计晚上八点半才到家", 9, 0, False),
        ("dinner thursday 8pm w the team", 20, 0, False),
    ],
)
def test_a_whole_day_with_a_clock_after_work_tells_when_it_ends(
    text: str, hour: int, minute: int, ends: bool
) -> None:
    from daemon.predict.spans import ends_the_whole_day

    item = ItemView("i1", "kim", "events", "", {"what": text})
    due = datetime(2026, 3, 5, hour, minute, tzinfo=AMSTERDAM)
    assert ends_the_whole_day(item, due) is ends
