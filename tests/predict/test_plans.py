"""Whose plan a dated sentence is, the words a reminder is written in, and quiet hours that move
a reminder earlier — each on a real memory where the pipeline is involved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.types import ItemView
from daemon.predict import engine, plans
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_text import headline, names_a_thing, said_of
from daemon.predict.plans import is_own_plan, own_plan, reasons, why_not
from daemon.state.email_rules import asks
from tests.conftest import FakeClock
from tests.predict.conftest import BERLIN, Bus, at, say

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Wednesday again tomorrow, I am so tired of this week.", "vent"),
        ("明天又得六点起，真烦。", "vent"),
        ("My husband has his annual physical on Friday at 9.", "other"),
        ("我表姐下周六结婚。", "other"),
        ("If the weather holds I'd love to hike on Sunday someday.", "hypothetical"),
        ("要是下个月能休假就好了。", "hypothetical"),
        ("Already dropped the forms off at the council this morning.", "done"),
        ("The bakery closes early this Saturday for a wedding.", "world"),
        ("Do I have anything on Friday?", "question"),
        # written after the blind scenarios of 2026-12-03, in other words than theirs
        ("omar's got his driving test friday at 10, fingers crossed for him", "other"),
        ("我爸下周三复查，我姐陪他去，我不用回去了", "other"),
        ("后天还得七点起床打卡，好烦", "routine"),
        ("下周一又要早起通勤了", "vent"),
        # names beyond ASCII, and a name told who it is (written after the change of 2026-12-03)
        ("Søren has his viva on Thursday at 11, poor guy", "other"),
        ("Inès (my sister-in-law) has a scan tomorrow at 9.40", "other"),
        # a request to the assistant (written after the change, issue 21)
        ("recommend a brunch place for sunday that takes bookings", "question"),
        ("求推荐一个周六晚上适合两个人吃饭的馆子", "question"),
        # 男友 / 女友, the short words (written after blind8's first run)
        ("我女友下周二上午去国贸那边面试", "other"),
        ("然後我男友週五晚上要飛去東京出差", "other"),
        # someone's person, as chat writes it in lower case; a question with its alternative
        # (written after blind10's first run)
        ("tom's sister gets married saturday at 3, big fancy thing in bath", "other"),
        ("周六的聚餐要带酒吗，还是餐厅有得卖", "question"),
        # the weather is the world's (written after blind9's 天文台 turn)
        ("天文台講聽朝可能要掛八號風球", "world"),
        ("looks like a big storm rolls in sunday night", "world"),
        # a one-word clause before the rest only opens the telling; "as usual" is a habit
        # (written after blind15's first run; the first three fail on the code before)
        ("right so the clocks go back tonight, extra hour in bed for everyone", "world"),
        ("ok, clocks go forward this weekend, lost hour", "world"),
        ("five-a-side at the leisure centre tuesday 8pm as usual", "habit"),
    ],
)
def test_what_is_not_the_persons_plan_says_why(text: str, why: str) -> None:
    assert why_not(text) == why


@pytest.mark.parametrize("text", ["dentist, thursday at 4", "cool, booked the vet for monday 9am"])
def test_a_one_word_clause_that_names_the_plan_still_makes_it_one(text: str) -> None:
    # guards (pass on the code before too): the opener rule skips a one-word clause only to
    # find what the sentence is about, not to drop the plan it names
    assert why_not(text) is None


# Sentences written after the code that its cue lists do not reach: the rules' price, kept in
# view (each test fails once the sentence is read right: then move it to the list above).
KNOWN_PLAN_MISSES = {
    "back at the desk monday 8am, weekend went way too fast": "routine: 'back at the desk' is no cue",
}


@pytest.mark.parametrize("text", sorted(KNOWN_PLAN_MISSES))
def test_known_misses_of_the_plan_rules(text: str) -> None:
    assert why_not(text) is None, "read right now: move it to test_what_is_not_the_persons_plan_says_why"
    pytest.xfail(KNOWN_PLAN_MISSES[text])


@pytest.mark.parametrize(
    "text",
    [
        "Root canal on Thursday at 11, I'm dreading it a little but it has to happen.",
        "I'm driving my dad to his cardiology appointment on Tuesday at 2.",
        "周六早上六点四十的火车，票已经买好了。",
        "下周二下午三点我跟房东去看房。",
        "明天四点半起床去机场，早班机",
        "男友周六早上八点的飞机去成都，我开车送他去机场",
    ],
)
def test_own_plans_stay_plans_even_with_a_feeling_or_a_relative_in_them(text: str) -> None:
    # the first has "dreading" in it: a vent cue; it is written down here as what the rules cost
    assert own_plan(text) is (not text.startswith("Root canal"))


@pytest.mark.parametrize(
    "text",
    [
        "Can't wait for the pottery workshop on Saturday at 2!",
        "can’t believe the move is finally next Friday, van booked for 8am",
    ],
)
def test_a_negated_auxiliary_first_is_no_question(text: str) -> None:
    # found on real chat nobody here wrote (LoCoMo): "Can't wait for…" read as a question by
    # `^can\b`, so the plan got no reminder
    assert why_not(text) != "question"


def test_the_rules_hold_on_the_check_set_that_nothing_was_tuned_on() -> None:
    rows = [json.loads(x) for x in (ROOT / "bench/check/plans_asks.jsonl").read_text().splitlines() if x]
    plans = [r for r in rows if r["task"] == "plan"]
    ask_rows = [r for r in rows if r["task"] == "ask"]
    plan_acc = sum(own_plan(r["text"]) == r["label"] for r in plans) / len(plans)
    ask_acc = sum(asks(r["text"]) == r["label"] for r in ask_rows) / len(ask_rows)
    # measured 0.966 and 0.938 when the rules were written (bench/train_plans.py); a regression
    # below 0.9 is a rule that broke, not noise
    assert plan_acc >= 0.9 and ask_acc >= 0.9, (plan_acc, ask_acc)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("The vendor call is now Thursday at 3pm. Same dial-in as before.", "The vendor call"),
        ("I've got a dentist appointment on Friday at 10.", "Dentist appointment"),
        ("周五早上七点的航班，行李还没收拾。", "航班"),
        ("周四下午三点我要去银行办卡。", "去银行办卡"),
        # "下周三之前" is the deadline, 之前 goes with its date
        ("答应老陈下周三之前把账单对一遍", "答应老陈把账单对一遍"),
        ("got us a table at the oyster bar for friday at 8", "Table at the oyster bar"),
        # the clause of the day says only that it moved: the thing is in the clause beside it
        ("optician rang, they've pushed me to thursday at twenty past 2, same shop", "Optician"),
        ("ugh the vet emailed, they moved us to saturday 9am", "The vet"),
        # a date before the plan's own ("this week", then the day): the plan's clause is named
        (
            "right so next week: wednesday is the fire warden course at the depot, 8 till 4",
            "The fire warden course at the depot",
        ),
    ],
)
def test_a_headline_names_the_thing_without_its_date_or_the_rest_of_the_turn(text: str, thing: str) -> None:
    assert headline(text, at("2026-03-02 10:00"), BERLIN) == thing


async def test_a_reminder_is_written_for_the_reminder_with_the_quote_as_evidence(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 10:00")
    say(pmemory, "r1", "The insurance renewal call is now Wednesday at 15:00. Same dial-in.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-04 13:00")
    assert await outbox.deliver_due() == 1
    [(_, body, _)] = bus.sent
    assert body["title"] == "Reminder: today at 15:00 — The insurance renewal call"
    # the quote is evidence, in the body: what was said with the plan's date
    assert "You said: “The insurance renewal call is now Wednesday at 15:00" in body["body"]


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        # written after the change (2026-12-05), in the register of late-night chat
        (
            "cannot sleep AGAIN. anyway the electrician comes thursday at 8 for the fuse box. "
            "hope he's less useless than the last one",
            "… anyway the electrician comes thursday at 8 for the fuse box. …",
        ),
        ("又失眠了。周四早上八点电工来修电箱。上次那个真是靠不住", "…周四早上八点电工来修电箱。…"),
        # when to leave is said of the plan too, in its own sentence
        (
            "road trip friday!! leaving at 6:30 sharp. so excited lol",
            "road trip friday!! leaving at 6:30 sharp. …",
        ),
        (
            "Next Monday at 10:00 I have the project demo for the board.",
            "Next Monday at 10:00 I have the project demo for the board.",
        ),
        # one run-on sentence of the week's complaints: only the plan's clauses are quoted
        # (written after the change, 2026-12-05)
        (
            "the printer jammed twice, my boss wants the deck redone, the optician is thursday at "
            "5:40 on Kastanienallee, and the neighbours' dog barked all night",
            "… the optician is thursday at 5:40 on Kastanienallee …",
        ),
        (
            "地铁又晚点了，午饭也没吃上，周四下午五点四十去配眼镜，隔壁的狗叫了一整晚",
            "…周四下午五点四十去配眼镜…",
        ),
        # two clauses: quoted whole, as a sentence is
        (
            "ugh, the optician is thursday at 5:40",
            "ugh, the optician is thursday at 5:40",
        ),
    ],
)
def test_the_quote_is_what_was_said_of_the_plan(text: str, quote: str) -> None:
    assert said_of(text, at("2026-03-02 10:00"), BERLIN) == quote


def test_a_plan_names_something_to_do_not_only_when() -> None:
    assert not names_a_thing("Week") and not names_a_thing("Friday tmrw") and not names_a_thing("6:45")
    assert not names_a_thing("明早") and not names_a_thing("Noonish")
    assert names_a_thing("Dentist at the Leith clinic") and names_a_thing("去机场接人")


async def test_a_day_named_with_nothing_on_it_brings_no_reminder(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    """Written after the headline check (issue 21): a day and the weather, a day and a mood."""
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")
    say(pmemory, "d1", "thursday. grey again, kettle on.", pclock.now)
    say(pmemory, "d2", "Saturday week, finally.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert pmemory.suggestions.of_scope("alice") == []


async def test_the_persons_part_in_the_next_sentence_makes_it_their_plan(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    """Written after the change (issue 21): someone else's arrival, then what the person does
    for it, on the same day, in a sentence of its own."""
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")
    say(
        pmemory,
        "p1",
        "My brother flies into Dublin on Saturday, landing at 7:10am. I'll be at arrivals by 6:45 to pick him up.",
        pclock.now,
    )
    say(pmemory, "p2", "我姐周五下午三点拔牙。她说不用陪。", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    [s] = pmemory.suggestions.of_scope("alice")
    assert s.kind == "reminder" and s.data["due_at"].startswith("2026-03-07")


async def test_talk_about_days_and_other_peoples_appointments_brings_no_reminder(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 21:00")
    say(pmemory, "v1", "Ugh, Thursday tomorrow already and nothing is done.", pclock.now)
    say(pmemory, "v2", "我室友周五上午去拔智齿。", pclock.now)
    say(pmemory, "v3", "My boss is on leave from Monday for two weeks.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert pmemory.suggestions.of_scope("alice") == []


def test_a_reminder_whose_lead_falls_in_quiet_hours_comes_the_evening_before(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    assert settings.quiet_hours == ("22:00", "07:00")
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 12:00")
    say(pmemory, "t1", "Thursday at 06:40 I take the train to Hamburg.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    [s] = pmemory.suggestions.of_scope("alice")
    assert (
        s.kind == "reminder"
        # an hour before the quiet hours, not their last minute: there is time to pack
        and s.deliver_at == at("2026-03-04 21:00")
        and s.expires_at == at("2026-03-05 06:40")
    )


def test_said_just_before_the_quiet_hours_it_comes_when_they_end_if_still_ahead(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 21:00")
    # the 21:59 reminder would repeat what was said an hour before: 07:01, still before 08:30
    say(pmemory, "t2", "Tomorrow at 08:30 I have a flight to Oslo.", pclock.now)
    # and a 22:40 call said at 21:00: the last minute before the quiet hours, not nothing
    say(pmemory, "t3", "Tonight at 22:40 I have a call with the Sydney office.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    got = sorted(s.deliver_at for s in pmemory.suggestions.of_scope("alice"))
    assert got == [at("2026-03-02 21:59"), at("2026-03-03 07:01")]


def test_a_day_event_that_names_its_hours_clashes_and_one_without_hours_does_not(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 10:00")
    say(pmemory, "w1", "Wednesday is the design workshop, 10 to 4, all of it.", pclock.now)
    say(pmemory, "w2", "Friday is our anniversary.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-02 11:00")
    say(pmemory, "w3", "Wednesday at 11:30 I have a call with the tax office.", pclock.now)
    say(pmemory, "w4", "Friday at 15:00 I have the dentist.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    [c] = [s for s in pmemory.suggestions.of_scope("alice") if s.kind == "conflict"]
    assert set(c.source_ids) == {"w1", "w3"} and "11:30" in c.title
    assert c.expires_at == at("2026-03-04 11:30")


def test_day_span_reads_hours_in_both_languages() -> None:
    from daemon.predict.predictors.conflict import day_span

    day = at("2026-03-04 00:00")
    item = ItemView("i1", "alice", "events", "", {"what": "周三公司年会彩排，上午九点到下午五点。"})
    assert day_span(item, day) == (at("2026-03-04 09:00"), at("2026-03-04 17:00"))
    assert day_span(
        ItemView("i2", "alice", "events", "", {"what": "Team offsite the whole day on Wednesday."}), day
    ) == (
        at("2026-03-04 09:00"),
        at("2026-03-04 18:00"),
    )
    assert (
        day_span(ItemView("i3", "alice", "events", "", {"what": "Wednesday is Mum's birthday."}), day) is None
    )


@pytest.mark.parametrize(
    ("text", "end"),
    [
        # written after the change (2026-12-05): a day taken whole, with the time it starts
        ("Wednesday's the staff away-day, all day, coach at 8:15 from the car park", "2026-03-04 18:00"),
        ("周三全天外出培训，早上8:15在公司门口上车", "2026-03-04 18:00"),
        # ... and a timed event that says nothing of the day lasts its hour
        ("Wednesday at 8:15 I have the coach to the away-day", "2026-03-04 09:15"),
    ],
)
def test_a_timed_event_said_to_take_the_whole_day_lasts_the_working_day(text: str, end: str) -> None:
    from daemon.predict.predictors.conflict import span

    item = ItemView("i1", "alice", "events", "", {"what": text}, due_at=at("2026-03-04 08:15"))
    assert span(item, BERLIN) == (at("2026-03-04 08:15"), at(end))


def test_the_labelled_sets_are_apart_and_in_both_languages() -> None:
    def rows(name: str) -> list[dict[str, object]]:
        path = ROOT / name / "plans_asks.jsonl"
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]

    data, check = rows("bench/data"), rows("bench/check")
    assert not {r["text"] for r in data} & {r["text"] for r in check}
    for part in (data, check):
        kinds = {(r["task"], r["lang"], r["label"]) for r in part}
        assert kinds == {
            (t, lang, y) for t in ("plan", "ask") for lang in ("en", "zh") for y in (True, False)
        }


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # a space between Chinese characters ends a clause: what is done already is the booking
        ("周五晚上七点同学聚会 老地方 包间我已经订好了", "同学聚会"),
        ("周六上午十点看房 中介说钥匙已经拿到了", "看房"),
    ],
)
def test_a_done_booking_in_its_own_spaced_clause_leaves_the_plan(text: str, thing: str) -> None:
    assert why_not(text) is None
    assert headline(text, at("2026-03-02 10:00"), BERLIN) == thing


def test_the_speaker_woken_by_someone_elses_train_has_no_part_in_it() -> None:
    assert why_not("舍友明早五点半的飞机 我被她闹钟吵醒是肯定的") == "other"
    assert why_not("舍友明天五点半的飞机 我得开车送她去机场") is None


@pytest.mark.parametrize(
    ("thing", "named"),
    [
        ("Will have a look", False),
        ("Want them", False),
        ("Do it", False),
        ("Look at flats", True),
        ("Get the keys", True),
    ],
)
def test_light_verbs_and_pronouns_name_nothing_to_do(thing: str, named: bool) -> None:
    assert names_a_thing(thing) is named


@pytest.mark.parametrize(
    ("text", "own"),
    [
        # the clause of the date is someone else's: she / they lead it and the speaker is not in it
        ("talked to the landlord, he's off to portugal on the 14th so repairs wait", False),
        ("emre can't do the handover, they're at a wedding on saturday", False),
        # the speaker is in the clause, or leads the sentence
        ("the garage called, they can take me on thursday at 8", True),
        ("they're driving us to the ferry on saturday at 6", True),
        ("dentist on friday at 11, she said bring the x-rays", True),
    ],
)
def test_a_plan_in_a_clause_led_by_someone_else_is_theirs(text: str, own: bool) -> None:
    said = at("2026-03-02 10:00")
    item = ItemView("i1", "alice", "events", f"alice: {text}", {"what": text}, observed_at=said)
    assert is_own_plan(item, BERLIN, said) is own


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # the dated sentence only gives details: the thing is in the announcement before it
        (
            "Finally got an appointment with the orthodontist. Tuesday, 11:40, the practice above the bakery.",
            "Orthodontist",
        ),
        ("ok booked the car service. monday 8am, the garage on elm st", "Car service"),
        ("牙套复诊终于约上了！下周一上午十点，口腔医院三楼，记得带病历", "牙套复诊"),
        # the announcement in the clause before the date's, or said of the thing
        ("驾照体检预约好了，周四下午两点，区医院体检中心", "驾照体检"),
        ("the boiler service is booked in. wednesday 8am, the engineer's called Dev", "The boiler service"),
        # what was arranged, not that it was
        ("booked the 7:10 coach to the airport for sunday", "Coach to the airport"),
        # not an announcement before it: the details stand as they did
        ("Long week. Tuesday, 11:40, the practice above the bakery.", "The practice above the bakery"),
        # the 's before the date is "is"; a possessive before a day stays
        ("the recital's sunday at 3 in the church hall", "The recital in the church hall"),
        ("Mia's saturday party is at 4pm, I'm bringing the cake", "Mia's party"),
        # … ends a sentence: the mood before it is not the plan
        ("眼睛都睁不开了…后天早上八点要去社保局办卡", "去社保局办卡"),
        # the date's clause says only where: what it is was announced before it
        ("booked a haircut. thursday 6pm at the place next to the station", "Haircut"),
        (
            "sorted the kid's vaccination: wednesday 10:20 at the health centre on park road",
            "Kid's vaccination",
        ),
        # a lead-in before a colon, what the arrangement is for, chat's "ive"
        (
            "ok so big news: finally booked the notary for the flat!! tuesday 10:15 at the office on king st",
            "Notary for the flat",
        ),
        (
            "train tix are sorted for the cousins reunion in york: saturday 8:04, kings cross",
            "Train tix for the cousins reunion in york",
        ),
        ("tmrw ive got physio at 4pm", "Physio"),
        # nothing announced before the place: the place stands
        ("see you there: saturday 8pm at the old fire station", "At the old fire station"),
        ("at the climbing gym on thursday at 7, with ana", "At the climbing gym"),
    ],
)
def test_a_headline_takes_the_thing_from_the_announcement_before_its_details(text: str, thing: str) -> None:
    assert headline(text, at("2026-03-02 10:00"), BERLIN) == thing


@pytest.mark.parametrize(
    ("text", "own"),
    [
        (
            "My girlfriend's citizenship interview is Thursday at 9, her brother's taking her so I'm off the hook.",
            False,
        ),
        (
            "our neighbour has a hospital appointment on friday at 2 and said there's no need for me to come along",
            False,
        ),
        ("rohans physio is monday at 5, his dad is taking him so im off the hook", False),
        # someone else's "no need to come early" is no word of the speaker's part
        ("dentist friday at 10, they said no need to come early", True),
        ("我爸下周三复查，我哥陪他去，用不着我，我正好加班", False),
        # in Traditional characters the same rules hold
        ("我爸週六早上八點做胃鏡，我媽陪他去", False),
        ("下週一早上九點半我要去戶政事務所換身分證", True),
        # the English words Chinese chat keeps for people, with or without a space
        ("flatmate 周五早上六点的火车回老家，她自己打车", False),
        ("我的 boss 下周二去新加坡出差", False),
        ("我周四下午三点跟 boss 开 one-on-one", True),
        # the speaker's own part keeps it theirs
        ("My girlfriend's citizenship interview is Thursday at 9 and I'm taking her.", True),
    ],
)
def test_a_speaker_who_says_they_are_not_part_of_it_has_no_plan(text: str, own: bool) -> None:
    assert (why_not(text) is None) == own, why_not(text)


@pytest.mark.parametrize(
    "text", ["picnic at the botanic gardens saturday at 12, rain or shine", "下雨也照样去，周日早上九点爬山"]
)
def test_a_plan_said_with_the_weather_is_still_a_plan(text: str) -> None:
    assert why_not(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # written after the change (2026-12-05): venting about someone else's day is both
        "my sister has her viva on thursday morning, she is so stressed she can't sleep ugh",
        "我哥下周一面试，紧张得要命，烦死了",
    ],
)
def test_every_reason_against_a_plan_is_found(text: str) -> None:
    """`reasons` gives the plan model every cue the rules find, `why_not` the first of them."""
    found = plans.reasons(text)
    assert found[:2] == ["vent", "other"]
    assert why_not(text) == found[0]


def test_why_not_is_the_first_reason_on_every_labelled_sentence() -> None:
    rows = [
        json.loads(line)
        for f in sorted((ROOT / "bench" / "data").glob("plans_asks*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(rows) > 1000
    for r in rows:
        found = plans.reasons(r["text"])
        assert why_not(r["text"]) == (found[0] if found else None), r["text"]


@pytest.mark.parametrize(
    ("text", "kept", "left_out"),
    [
        # written after the change (2026-12-05): who "him" / "她" is, is said in a clause before
        (
            "ugh what a week, Jonas lent me the deposit, $2,300, I'll pay him back on Saturday, promise",
            ["Jonas lent me the deposit", "$2,300", "pay him back on Saturday"],
            ["what a week"],
        ),
        (
            "累死了，小周上个月帮我交了物业费，八百块，周六把钱还给她，别忘了",
            ["小周上个月帮我交了物业费", "周六把钱还给她"],
            ["累死了"],
        ),
    ],
)
def test_the_quote_keeps_who_the_plan_points_back_to(text: str, kept: list[str], left_out: list[str]) -> None:
    quote = said_of(text, at("2026-03-02 10:00"), BERLIN)
    assert all(k in quote for k in kept), quote
    assert not any(k in quote for k in left_out), quote


@pytest.mark.parametrize(
    ("text", "own"),
    [
        # written after the change (2026-12-06): a run-on message's complaints are about their own
        # clauses; the appointment in another clause is still the person's
        (
            "honestly this week is killing me, the printer jammed twice, my inbox is a disaster, "
            "anyway the physio can fit me in on thursday at 8:30, then straight to the office",
            True,
        ),
        ("最近真的烦死了，房东又要涨租，组里的会一个接一个，周五下午三点半约了牙医洗牙，得请半天假", True),
        # ... and so is the day's routine told in another clause
        (
            "long week, the commute has been brutal, trains cancelled every day, saturday at 11 I'm getting a haircut",
            True,
        ),
        # the complaint is in the plan's own clause: quoting it back would mock them
        ("the week's a mess, my car's in the shop, friday at 10 is the review I've been dreading", False),
        # someone else's plan stays theirs however the message runs on
        (
            "ugh the week, my boss pings me at midnight, my sister's flight lands saturday at 6, she'll grab a cab",
            False,
        ),
    ],
)
def test_venting_elsewhere_in_a_run_on_message_leaves_the_plan(text: str, own: bool) -> None:
    said = at("2026-03-02 10:00")
    item = ItemView("i1", "alice", "events", f"alice: {text}", {"what": text}, observed_at=said)
    assert is_own_plan(item, BERLIN, said) is own


@pytest.mark.parametrize(
    "text",
    # written after the change (2026-12-06): Cantonese says "not needed" with 唔使 / 唔駛, "not" with 唔
    ["我老公星期五朝早九點見工，佢話唔使我陪", "阿媽下個禮拜三覆診，細佬陪佢去，我唔去"],
)
def test_cantonese_left_out_is_someone_elses_plan(text: str) -> None:
    assert why_not(text) == "other"


@pytest.mark.parametrize(
    "text",
    # written after the change (2026-12-06): the speaker only goes about their day (to work) or
    # owns a thing someone else takes; the appointment is that someone's
    [
        "阿老公星期五要飛新加坡開會，揸我部車去機場，我自己搭巴士返工",
        "my husband's job interview is monday at 10 in the city, he's borrowing the car so I'll cycle to work",
    ],
)
def test_going_to_work_or_lending_a_thing_is_no_part_in_someone_elses_plan(text: str) -> None:
    assert why_not(text) == "other"


def test_a_plan_told_after_so_i_in_a_run_on_message_is_quoted_and_named_on_its_own() -> None:
    # written after the change (2026-12-06): the pronoun's name is in its own clause, the plan
    # comes after "so I", and the why after "because" is not what it is
    text = (
        "the kitchen tap is dripping again, my brother wants to talk about Easter in Leeds, ugh, "
        "and Biscuit ate a sock so I booked him in at Harbourside Vets for thursday at 9:10 because nothing else was free"
    )
    said = at("2026-03-02 10:00")
    quote = said_of(text, said, BERLIN)
    assert "Biscuit ate a sock" in quote and "Leeds" not in quote, quote
    assert headline(text, said, BERLIN) == "Harbourside Vets"


def test_a_clause_that_opens_on_it_after_the_plan_says_where_it_is() -> None:
    # written after the change (2026-12-06)
    text = (
        "the clinic rang back, my follow-up scan got slotted in for friday at 8:40, which means no "
        "breakfast, it's at the Westfield imaging centre on level 2, so that's my morning gone"
    )
    said = at("2026-03-02 10:00")
    quote = said_of(text, said, BERLIN)
    assert "Westfield imaging centre" in quote and "morning gone" not in quote, quote
    assert headline(text, said, BERLIN) == "My follow-up scan"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # written after the change (2026-12-06): the booking is made, the trip is ahead
        ("下礼拜四回老家的高铁票已经抢到了，早上7:48虹桥出发", None),
        ("周日的羽毛球场已经订好了，下午四点到六点", None),
        # ... and what is done is done
        ("周日的羽毛球已经打完了，累瘫", "done"),
    ],
)
def test_a_booking_made_is_no_event_done(text: str, why: str | None) -> None:
    assert why_not(text) == why


def test_a_dawn_event_told_just_before_the_quiet_hours_gets_no_last_minute_repeat(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    # written after the change (2026-12-06): told at 21:35, quiet from 22:00; the 05:50 coach is
    # hours past the quiet hours' start, so 21:59 would only repeat what was just said
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 21:35")
    say(pmemory, "d1", "coach to the airport leaves at 5:50 tomorrow morning from Victoria", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert [s.deliver_at for s in pmemory.suggestions.of_scope("alice")] == []


@pytest.mark.parametrize(
    ("text", "reminded"),
    [
        # written after the change (2026-12-06): a flight's reminder leaves time for the airport
        ("my flight to Lisbon is at 15:20 tomorrow, terminal 2", "2026-03-03 11:20"),
        ("明天下午三点二十的航班去深圳，T2", "2026-03-03 11:20"),
        # ... anything else keeps the usual lead
        ("dentist tomorrow at 15:20, the one on Kastanienallee", "2026-03-03 13:20"),
    ],
)
def test_a_flight_is_reminded_with_time_to_get_to_the_airport(
    text: str, reminded: str, pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 12:00")
    say(pmemory, "f1", text, pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert [s.deliver_at for s in pmemory.suggestions.of_scope("alice")] == [at(reminded)]


def test_day_span_reads_traditional_hours() -> None:
    # written after the change (2026-12-06)
    from daemon.predict.spans import day_span, span_clause

    day = at("2026-03-04 00:00")
    item = ItemView("i1", "alice", "events", "", {"what": "禮拜三去幫手搬貨倉，朝早9點到下晝6點，會好攰"})
    assert day_span(item, day) == (at("2026-03-04 09:00"), at("2026-03-04 18:00"))
    assert span_clause(item) == "朝早9點到下晝6點"


@pytest.mark.parametrize(
    "text",
    # written after the change (2026-12-06): the other goes by themself
    [
        "阿爸禮拜五朝早十點喺瑪麗醫院覆診，佢自己搭的士去，我喺公司開會",
        "我哥周六下午两点的面试，他自己开车过去，我在家打游戏",
        "my flatmate has her driving test monday at 10, she's going by herself, I'll be at uni anyway",
    ],
)
def test_someone_going_by_themself_is_their_appointment(text: str) -> None:
    assert why_not(text) == "other"


def test_a_dawn_event_told_earlier_in_the_evening_still_gets_the_last_minutes(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    # written after the change (2026-12-06): told at 20:30, quiet from 22:00, more than an hour left
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 20:30")
    say(
        pmemory,
        "d2",
        "ferry to the island at 6:10 tomorrow morning, nothing to eat after midnight",
        pclock.now,
    )
    engine.after_memory(pmemory, settings, pclock.now)
    assert [s.deliver_at for s in pmemory.suggestions.of_scope("alice")] == [at("2026-03-02 21:59")]


@pytest.mark.parametrize(
    "text",
    [
        # a pronoun or an adverb before "got" is no one else's name (written after blind15's first
        # run; each was read as someone else's plan before)
        "we got seats for the ballet on saturday at 7.30",
        "ive got the orthodontist for josh wednesday 3:40",
        "just got a text, the boiler service is friday between 8 and 12",
        "actually got a table at the thai place for tomorrow 7pm",
        # ... and the relief or "already" of a booking is of the booking: the appointment is ahead
        "finally booked the MOT for next tuesday 9am",
        "already got us a slot at the passport office thursday 11:20",
    ],
)
def test_a_booking_told_without_i_or_with_relief_is_the_persons_plan(text: str) -> None:
    assert why_not(text) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # names before "got" / "has" are still someone else's (guards: they pass on the code before
        # too), and coming back from somewhere is done (read as someone else's before)
        ("priya got her visa appointment moved to monday 10am", "other"),
        ("rahul has his driving test thursday at 2", "other"),
        ("just got back from the optician, new glasses friday", "done"),
    ],
)
def test_names_and_returns_keep_their_reading(text: str, why: str) -> None:
    assert why_not(text) == why


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # a dated clause that says only who with: what it is was announced before it
        ("managed to get a fitting for the suit, sat the 11th at 2.30 with jorge", "Fitting for the suit"),
        (
            "booked a viewing for the flat on elm st! monday 6pm with the agent",
            "Viewing for the flat on elm st",
        ),
    ],
)
def test_a_dated_clause_of_only_who_with_takes_the_thing_announced(text: str, thing: str) -> None:
    assert headline(text, at("2026-04-02 12:00"), BERLIN) == thing


@pytest.mark.parametrize(
    ("text", "reminded"),
    [
        # written after the change (blind15's first run): when the person says when they must be
        # on their way, the reminder comes half an hour before that, not two hours before the event
        (
            "quiz night at the Anchor tomorrow 20:00, gotta leave the office by 6 to make it",
            "2026-03-03 17:30",
        ),
        ("明天晚上八点在望京吃火锅，我五点半就得出门，不然堵死", "2026-03-03 17:00"),
        (
            "theatre tomorrow at 7.45pm in town. if i set off after 5 the ring road is a car park",
            "2026-03-03 16:30",
        ),
        # guards (the usual lead, on the code before too): someone else leaving, leave as time off,
        # a time of leaving after the event
        ("gig tomorrow at 21:00 in Kreuzberg, my sister leaves at 6 for her train", "2026-03-03 19:00"),
        ("team dinner tomorrow 20:00 at Lucky Leek, I'm on annual leave at 3 anyway", "2026-03-03 18:00"),
        ("cinema tomorrow at 18:00, we'll leave around 9 after the film", "2026-03-03 16:00"),
    ],
)
def test_a_reminder_comes_before_the_person_must_leave(
    text: str, reminded: str, pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 12:00")
    say(pmemory, "l1", text, pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert [s.deliver_at for s in pmemory.suggestions.of_scope("alice")] == [at(reminded)]


def test_an_if_about_the_way_there_leaves_the_plan() -> None:
    # found writing the leave-by tests above (a known miss until 2026-12-07: an "if" after the
    # plan's day, in a clause of its own, is about what may go wrong, not a condition on it)
    assert (
        why_not("theatre tomorrow at 7.45pm in town, if i set off after 5 the ring road is a car park")
        is None
    )


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # written after blind15's first run: a Chinese dated clause that says only where takes what
        # was bought or booked in the sentence before, without the ticket
        ("周杰伦演唱会的票终于买到了！下个礼拜六 14号 7.30pm 在国家体育场", "周杰伦演唱会"),
        ("牙科的号抢到了，周四上午十点，在口腔医院二楼", "牙科的号"),
    ],
)
def test_a_chinese_clause_of_only_where_takes_what_was_booked(text: str, thing: str) -> None:
    assert headline(text, at("2026-03-02 12:00"), BERLIN) == thing


@pytest.mark.parametrize(
    ("text", "own"),
    [
        # written after blind15's first run: an English relation in a Chinese sentence is that person
        ("my dad 下周二去做胃镜，我妹陪他去，我不用请假", False),
        # guard (passes on the code before too): the speaker with them
        ("my mum 周六到，我去机场接她", True),
    ],
)
def test_an_english_relation_in_chinese_chat_is_someone_else(text: str, own: bool) -> None:
    assert own_plan(text) is own


@pytest.mark.parametrize(
    "text",
    [
        # written after the change (2026-12-06): a word given, with the "I" chat drops at the
        # start of its clause, makes someone else's event theirs (the second failed on the code
        # before; the first is a guard)
        "the twins' recital is thursday at 6:30, promised I'd film it for grandma",
        "Priya's leaving drinks friday 7pm at the Crown, said I'd bring the card",
    ],
)
def test_a_word_given_without_its_i_takes_part(text: str) -> None:
    assert reasons(text) == [], reasons(text)
