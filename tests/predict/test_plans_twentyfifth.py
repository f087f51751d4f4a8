"""Issue 21, twenty-fifth session: whose plan, read from the grammar instead of a list of relations.

English says whose thing an appointment is with its possessive: "X has his / her / their …" is
X's, whoever X is ("my chum", "my mamá", "our downstairs neighbour Ilse"), with no list of
relations to fall out of. Being wished well ("pray for me", "fingers crossed for us") is no part
in someone else's plan. A no is a no in the words chat borrows for it ("non merci", "nein", "nope")
and to whoever it is told ("told dem nah").

Sentences written after the code, in words not taken from any scenario. Each case fails on the
code before the change (4a4c422) unless its comment says it is a guard that holds on both.
"""

from __future__ import annotations

import pytest

from daemon.predict.plans import declines, reasons


@pytest.mark.parametrize(
    "text",
    [
        "my old roommie has his citizenship oath on friday at 10",
        "the twins have their swimming gala saturday at 2, carpool sorted by the other parents",
        "my nan's carer is having her day off thursday so the agency sends someone at 9",
        # guards (the lists knew these: a neighbour, a capitalised name, someone's son)
        "our downstairs neighbour Ilse has her cataract op wednesday at 7:40",
        "Tomasz has got his MOT retest tomorrow at 8.15",
        "the landlord's son has his graduation thurs at 11, whole family's flying in",
    ],
)
def test_what_someone_has_by_his_or_her_is_theirs(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards (hold before and after): the speaker's own, told with "my" / "our"
        "I have my eye test on friday at 4",
        "we've got our mortgage meeting monday at 11",
        "got my bloods at 8 tomorrow, no breakfast",
        # the speaker takes part in the other's plan
        "my brother has his court date tuesday at 9:30 and I'm going with him",
        "mum has her knee scan thursday at 2, I'm driving her",
    ],
)
def test_a_plan_of_ones_own_or_one_taken_part_in_stays(text: str) -> None:
    assert "other" not in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        "Juno has her driving test friday at 11, pray for me, I lent her my car",
        "boss has his big pitch thursday 3pm, wish us luck",
        # guard: a relation of the list, and "us" after "crossed for" was no part before either
        "my cousin has her bar exam tomorrow at 8, keep your fingers crossed for us",
    ],
)
def test_being_wished_well_is_no_part_in_it(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        "the volleyball lot want a pub quiz thursday night, I said nope, early shift",
        "Ayla's crew want a bbq sunday at 4, i said nein danke",
        "the church choir want us at the carol service saturday 6pm, told dem nah this year",
        "the book club wants a night out friday at 8, we said non, too tired",
    ],
)
def test_a_no_in_any_words_declines(text: str) -> None:
    assert declines(text)
    assert "other" in reasons(text)


def test_a_no_that_opens_a_plan_declines_nothing() -> None:
    # guard: "said no" before what the speaker will do still names their own plan
    text = "said yes to the dentist's 3pm slot on friday, she wanted 9 but no chance"
    assert not declines(text)
