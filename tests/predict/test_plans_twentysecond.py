"""Issue 21, twenty-second session: what blind25 showed, checked on sentences written after the code.

A no said in a clause of its own after the plan, though the sentence goes on to name another day
or "this year"; "told her no" and "我说这次算了" decline; one end of a stretch that is over
("六点五十堵到七点四十") and a clock just passed after a wait told as done are no plans; more words
for a relative, "不关我的事", "she's drivin herself"; a headline from "X got me in for Y", from the
arrangement told before a clause that only says it leaves from somewhere or that someone comes to
do it, or whose thing is "it" ("booked it for monday at 9"); a promise kept in its own verb's past
("posted the card"); a Finnish yes; a house numbered twice ("Plzeňská 214/9") as the new place;
read_mail with the mail-change model's reader; clocks, "tomorrow" and digits in more languages, and
a short month's name ("mai") only beside a figure.

Each case was checked to fail on the code before the change (515f809) unless its comment says it
is a guard that holds on both.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates
from daemon.predict.plan_news import _new_place, accepts, read_mail
from daemon.predict.plan_text import headline
from daemon.predict.plans import _just_passed, _left_out_after, declines, reasons
from daemon.predict.predictors.promise import did, is_promise
from daemon.state.mail_words import as_english, as_english_always

OSLO = ZoneInfo("Europe/Oslo")
SHANGHAI = ZoneInfo("Asia/Shanghai")
HK = ZoneInfo("Asia/Hong_Kong")


# --- a no of its own after the plan ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # the no's sentence names a year, not another day
        "the rotary club's charity auction is saturday night at the town hall. i'll pass this year, "
        "told bev not to save me a seat",
        # the no's clause has no day; the clause after it names another plan's
        "the hendersons are doing a barbecue sunday afternoon. said no, we're driving up to my sister's on monday",
    ],
)
def test_a_no_after_the_plan_leaves_the_person_out(text: str) -> None:
    assert _left_out_after(text, datetime(2027, 5, 4, 18, 0, tzinfo=OSLO), OSLO)


def test_a_later_sentence_about_another_day_is_no_no() -> None:
    # a guard that holds on both: "not going friday" is of friday, not of the plan on thursday
    text = "quiz night at the anchor thursday at 8. not going friday though, the gig's too far"
    assert not _left_out_after(text, datetime(2027, 5, 4, 18, 0, tzinfo=OSLO), OSLO)


@pytest.mark.parametrize(
    "text",
    [
        "the choir's christmas social is friday at 7 in the church hall. told them no, i need a quiet one",
        "曹姐约周日上午去爬山，我说这次算了，膝盖还没好",
        "阿May約我哋禮拜六去睇戲，我話今次唔去喇，好攰",
    ],
)
def test_saying_no_this_time_declines(text: str) -> None:
    assert declines(text)


# --- a clock that has passed ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("高架上又堵，六点半堵到七点四十，打卡又迟了", "2027-05-06T07:55:00+08:00"),
        ("内环又堵死，从六点四十五分堵到七点半，打卡又迟到了", "2027-05-06T07:55:00+08:00"),
        ("排咗成個鐘，九點半先入到去，啲人多到爆", "2027-05-06T09:40:00+08:00"),
    ],
)
def test_a_clock_just_passed_after_what_lasted_is_no_plan(text: str, said: str) -> None:
    assert _just_passed(text, datetime.fromisoformat(said), SHANGHAI)


def test_a_meeting_told_from_to_is_still_a_plan() -> None:
    # a guard that holds on both: nothing lasted between the clocks; it says when the meeting is
    assert not _just_passed("七点半到九点开家长会", datetime(2027, 5, 6, 8, 45, tzinfo=SHANGHAI), SHANGHAI)


# --- whose plan -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "my nonna's got her cataract op thursday at 11, my uncle's driving her",
        "Kevin 下周二搬家，请了搬家公司，不关我的事",
        "the passport office is monday at 9 for grandad, he's drivin himself",
    ],
)
def test_someone_elses_appointment(text: str) -> None:
    assert "other" in reasons(text) or declines(text)


# --- headlines --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said", "tz", "word"),
    [
        (
            "the physio finally got me in for a sports massage. thursday at 4:15 at the studio on king st",
            "2027-05-04T10:00:00+02:00",
            OSLO,
            "massage",
        ),
        (
            "去青岛的船票早买好了！周日早上九点二十从大港码头开船，要早点到",
            "2027-05-04T10:00:00+08:00",
            SHANGHAI,
            "青岛",
        ),
        ("空调维修终于约好了，周五上午师傅上门", "2027-05-04T10:00:00+08:00", SHANGHAI, "空调"),
        (
            "the council want the boiler certificate sorted before winter. booked it for monday at 9 at the depot on mill road",
            "2027-05-04T10:00:00+02:00",
            OSLO,
            "boiler",
        ),
    ],
)
def test_the_headline_is_the_thing_told_before(text: str, said: str, tz: ZoneInfo, word: str) -> None:
    assert word in headline(text, datetime.fromisoformat(said), tz).lower()


# --- promises and replies ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "verb", "done"),
    [
        ("posted the birthday card to gran, she should get it tuesday", "post", True),
        ("couriered the spare keys to dad this morning, he'll have them by friday", "courier", True),
        # guards that hold on both: the act not done, or only promised
        ("still haven't posted gran's card, will do it tomorrow", "post", False),
        ("i'll have posted it by then", "post", False),
    ],
)
def test_a_promise_kept_in_its_own_verbs_past(text: str, verb: str, done: bool) -> None:
    assert did(text, verb) is done


@pytest.mark.parametrize("reply", ["Hei, sopii hyvin. Kiitos!", "Moi, käy meille, kiitos"])
def test_a_finnish_yes_accepts(reply: str) -> None:
    proposed = datetime(2027, 5, 12, 12, 0, tzinfo=OSLO)
    assert accepts(reply, proposed, datetime(2027, 5, 10, 9, 0, tzinfo=OSLO), OSLO)


def test_a_house_numbered_twice_is_the_new_place() -> None:
    mail = (
        "E-mail from Klinika Ružinov to me: 'Zmena termínu'\n\nVáš termín sa presúva na utorok 14. 9. o 10:00, "
        "nová pobočka: Obchodná 58/12, 1. poschodie."
    )
    assert _new_place(as_english(mail), mail, "physio at klinika ružinov on friday at 10") == "Obchodná 58/12"


# --- a mail in another language, read by the mail-change model ----------------------------------

VILNIUS = ZoneInfo("Europe/Vilnius")
_SAID = datetime(2027, 5, 10, 9, 0, tzinfo=VILNIUS)
_SENT = datetime(2027, 5, 11, 9, 0, tzinfo=VILNIUS)
_DUE = datetime(2027, 5, 14, 10, 0, tzinfo=VILNIUS)
_PLAN = "physio at Kallio friday 10am"


def _says(label: str) -> Callable[[str], str]:
    """A reader that says `label` of every sentence (how `read_mail` uses a reader, not the model)."""
    return lambda _sentence: label


def test_the_mail_change_reader_reads_only_mail_in_another_language() -> None:
    english = (
        "E-mail from Studio Kallio <info@kallio.example> to me: 'Friday'\n\nHi, about your session on "
        "Friday 14 May at 10:00: the studio has a new coffee machine."
    )
    assert read_mail(english, _SENT, _PLAN, _DUE, VILNIUS, "m1", "Studio Kallio", "", _says("cancel")) is None
    finnish = (
        "E-mail from Fysioterapia Kallio <info@kallio.example> to me: 'Perjantai'\n\nHei, koskien "
        "ajanvaraustasi 2027-05-14 klo 10:00 Kallion toimipisteessä. Ystävällisin terveisin, Kallion vastaanotto"
    )
    # the word lists read no change in it; the reader's "cancel" calls the plan off
    assert read_mail(finnish, _SENT, _PLAN, _DUE, VILNIUS, "m1", "Fysioterapia Kallio") is None
    got = read_mail(finnish, _SENT, _PLAN, _DUE, VILNIUS, "m1", "Fysioterapia Kallio", "", _says("cancel"))
    assert got is not None and got.moved_to is None and got.proposed is None and not got.update


def test_a_sentence_the_reader_says_moves_gives_the_new_time() -> None:
    finnish = (
        "E-mail from Fysioterapia Kallio <info@kallio.example> to me: 'Perjantai'\n\nHei, "
        "ajanvarauksesi 2027-05-14 klo 10:00 on nyt 2027-05-18 klo 15:30 samassa paikassa. Ystävällisin terveisin, Kallion vastaanotto"
    )
    got = read_mail(finnish, _SENT, _PLAN, _DUE, VILNIUS, "m1", "Fysioterapia Kallio", "", _says("move"))
    assert got is not None and got.moved_to == datetime(2027, 5, 18, 15, 30, tzinfo=VILNIUS)
    asked = read_mail(finnish, _SENT, _PLAN, _DUE, VILNIUS, "m1", "Fysioterapia Kallio", "", _says("propose"))
    assert (
        asked is not None
        and asked.moved_to is None
        and asked.proposed == datetime(2027, 5, 18, 15, 30, tzinfo=VILNIUS)
    )


def test_a_proposal_that_names_the_old_slot_first_is_a_proposal() -> None:
    london = ZoneInfo("Europe/London")
    mail = (
        "E-mail from Vine & Barrel <events@vinebarrel.example> to me: 'Your tasting'\n\nHello Priya, regarding "
        "the tasting on Saturday 22 May at 18:00 — would Sunday 23 May at 17:00 suit you instead? Warm "
        "regards, Vine & Barrel"
    )
    got = read_mail(
        mail,
        datetime(2027, 5, 17, 9, 0, tzinfo=london),
        "wine tasting at vine & barrel saturday 6pm",
        datetime(2027, 5, 22, 18, 0, tzinfo=london),
        london,
        "m1",
        "Vine & Barrel",
    )
    assert got is not None and got.moved_to is None and not got.update
    assert got.proposed == datetime(2027, 5, 23, 17, 0, tzinfo=london)


# --- dates in more languages --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("التذكير: موعدكم يوم الخميس الساعة ٤:٢٠ مساءً في العيادة.", "at 16:20"),
        ("نوبت دندانپزشکی شما به ساعت ۹:۴۵ صبح منتقل شد.", "at 09:45"),
        ("התור לרופאת השיניים נקבע מחדש ליום רביעי בשעה 11:10.", "Wednesday"),
        ("התור לרופאת השיניים נקבע מחדש ליום רביעי בשעה 11:10.", "at 11:10"),
        ("आपकी जाँच अब गुरुवार दोपहर 2:40 बजे होगी।", "at 14:40"),
        ("Ang check-up ninyo ay inilipat sa alas-4:30 ng hapon.", "at 16:30"),
        ("Buổi khám được dời sang 3 giờ 15 chiều.", "at 15:15"),
        ("Időpontja 10:20-kor lesz a rendelőben, kérjük pontosan érkezzen.", "at 10:20"),
        ("Kurye yarın 13:45'te kapınızda olacak.", "tomorrow"),
        ("Kurye yarın 13:45'te kapınızda olacak.", "at 13:45"),
        ("Vizitas perkeltas į 14.50 val., tas pats kabinetas.", "at 14:50"),
        ("Напомняме, че часът ви е утре, 9:40 ч.", "tomorrow"),
        ("Lịch giao hàng là sáng mai, quý khách vui lòng có mặt.", "tomorrow"),
    ],
)
def test_a_clock_and_tomorrow_in_more_languages(text: str, read: str) -> None:
    assert read in as_english_always(text)


@pytest.mark.parametrize(
    "text",
    [
        "Îmi pare rău, nu mai pot ajunge la ședința de joi.",  # "nu mai": no longer
        "Vă rugăm să ne anunțați cu o zi mai devreme.",  # "mai devreme": earlier
    ],
)
def test_a_short_months_name_without_a_figure_is_a_word(text: str) -> None:
    assert "May" not in as_english_always(text)


def test_a_short_months_name_beside_a_figure_is_the_month() -> None:
    # a guard that holds on both
    assert "May" in as_english_always("Programarea dumneavoastră este pe 14 mai, la ora 9.")


# --- second batch: what blind26 showed (read after its end-of-session figure was taken) -----------


def test_a_part_of_the_day_after_the_clock_is_that_clocks() -> None:
    said = datetime(2028, 6, 9, 11, 0, tzinfo=SHANGHAI)
    [m] = resolve_dates("下禮拜五 6:20 朝早出發去機場", said, SHANGHAI)
    assert m.value.hour == 6 and m.value.minute == 20


def test_finally_before_what_is_on_its_way_is_no_done() -> None:
    assert "done" not in reasons(
        "we're finally closing on the flat on friday at 11, at the solicitor's on bank st"
    )


@pytest.mark.parametrize(
    ("text", "month"),
    [
        ("Uprzejmie przypominamy o wizycie w dniu 3 listopada 2027 r. o godz. 10:15.", "November"),
        ("Sastanak je 3. listopada u 10 sati. Lijep pozdrav, Đurđica", "October"),
    ],
)
def test_listopad_is_read_by_the_letters_of_its_language(text: str, month: str) -> None:
    assert month in as_english_always(text)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Вокны ўсталююць у пятніцу, 13 лістапада, з 9:00 да 12:30.", "from 09:00 to 12:30"),
        ("Urdu: جمعرات 11 اکتوبر، شام 5 بجے تک جواب دیں۔", "at 17:00"),
    ],
)
def test_a_stretch_after_its_day_and_the_hour_with_its_word(text: str, read: str) -> None:
    assert read in as_english_always(text)


def test_a_stretch_far_from_any_day_is_left_as_written() -> None:
    # a guard that holds on both: no day before it, no stretch read
    text = "Tafadhali hakikisha mtu mzima atakuwepo nyumbani wakati wote wa kazi ya mafundi (10:00–14:00)."
    assert "from 10:00" not in as_english_always(text)


def test_a_word_that_is_a_move_in_one_language_and_time_in_another() -> None:
    # Swahili "muda" (time) is no Portuguese "muda" (moves)
    assert "reschedule" not in as_english_always(
        "Tafadhali hakikisha mtu atakuwepo nyumbani muda wote wa kazi."
    )


def test_a_street_named_before_its_street_word_is_the_new_place() -> None:
    mail = "E-mail from Klinik to me: 'Randevu'\n\nYeni adresimiz: Bağdat Caddesi 145, Kadıköy. Randevunuz aynı saatte."
    assert (
        _new_place(as_english(mail), mail, "dentist at the clinic on thursday at 2") == "Bağdat Caddesi 145"
    )


@pytest.mark.parametrize("reply", ["Sawa, asante sana. Nitakuwepo.", "Добры дзень! Так, пацвярджаю. Дзякуй."])
def test_a_swahili_or_belarusian_yes_accepts(reply: str) -> None:
    proposed = datetime(2027, 5, 12, 12, 0, tzinfo=OSLO)
    assert accepts(reply, proposed, datetime(2027, 5, 10, 9, 0, tzinfo=OSLO), OSLO)


def test_another_time_asked_about_without_its_time_tells_nothing() -> None:
    finnish = (
        "E-mail from Fysioterapia Kallio <info@kallio.example> to me: 'Perjantai'\n\nHei, jos tarvitset "
        "toisen ajan, ilmoita meille hyvissä ajoin etukäteen. Ystävällisin terveisin, Kallion vastaanotto"
    )
    assert (
        read_mail(finnish, _SENT, _PLAN, _DUE, VILNIUS, "m1", "Fysioterapia Kallio", "", _says("propose"))
        is None
    )


@pytest.mark.parametrize(
    "text",
    [
        "my pa-pa has his hearing test wednesday at 11 at the ENT clinic, my cousin Tunde carrying him, he say i should stay at work, he got it",
        "細路禮拜四下晝兩點打預防針，Kelvin 話佢包晒，叫我照返工",
        "the church harvest is on sunday, I tell them nomoa this year, my knees",
    ],
)
def test_someone_else_has_it_in_hand_or_a_no_this_time(text: str) -> None:
    assert "other" in reasons(text) or declines(text)


def test_promised_someone_for_a_day_is_a_promise() -> None:
    assert is_promise("答应了外婆礼拜天下午视频，教她用新手机")


def test_the_thing_signed_up_for_before_a_clause_that_says_where_to_gather() -> None:
    text = "潛水課已經報名了、押金也付了！禮拜天早上八點在碼頭旁邊那間潛水店門口集合，要帶泳衣"
    assert "潛水課" in headline(text, datetime(2027, 5, 4, 10, 0, tzinfo=HK), HK)


@pytest.mark.parametrize(
    "text",
    [
        "Dobro jutro, šaljem vam raspored za idući tjedan.",  # Croatian: good morning
        "Un homme de l'agence passera relever le compteur.",  # French: a man
        "De rit naar het depot duurt ongeveer twintig minuten.",  # Dutch: the ride
    ],
)
def test_a_word_for_tomorrow_in_one_language_is_left_where_it_means_another(text: str) -> None:
    # guards (no "tomorrow" was read before either): the list of words for tomorrow skips them
    assert "tomorrow" not in as_english_always(text)
