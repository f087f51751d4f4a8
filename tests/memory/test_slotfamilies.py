"""The slot families' lookup reaches every stored item a contradiction rule fires on.

Dedup used to compare a new slotted statement with its whole family; `SlotFamilies` hands it
only the members reachable by a slot key or by similarity. The decision stays the scan's only if
no member that `dedup.contradicts` would retire is left out: checked here over generated fields
(English, Chinese, blank and odd-cased values) and over fields the real extractor produces.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from daemon.memory.write import dedup as D
from daemon.memory.write.extract import entity_fields, preference_fields, profile_fields
from daemon.memory.write.slotfamilies import SlotFamilies, terms_key

P = D.DedupParams()
WORDS = [
    "Python",
    " python ",
    "Pythons",
    "MySQL",
    "PostgreSQL",
    "hiking",
    "hiking in the rain",
    "the",
    "them",
    "",
    " ",
    None,
    "咖啡",
    "喝咖啡",
    "咖啡 ",
    "Straße",
    "STRASSE",
    "Lyon",
    "lyon",
    "老板",
    "boss",
    " Boss",
    "job",
    "location",
    "Location ",
    "favourite food",
    "favorite  food",
]
TEXTS = ["I switched to it now", "whatever", "我现在改用这个", "plain statement"]
field_values = st.sampled_from(WORDS)


@st.composite
def fields(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("key", "value", "instead_of", "attribute", "name"):
        if draw(st.booleans()):
            out[name] = draw(field_values)
    if draw(st.booleans()):
        out["negative"] = draw(st.booleans())
    return out


def _families(category: str, olds: list[dict[str, Any]], speaker: str = "Ann") -> SlotFamilies:
    fam = SlotFamilies()
    ids = [f"i{n:03d}" for n in range(len(olds))]
    fam.refresh(
        ids,
        [category] * len(olds),
        [speaker] * len(olds),
        {i: n for n, i in enumerate(ids)},
        lambda want: {i: olds[int(i[1:])] for i in want},
    )
    return fam


def _candidates(
    fam: SlotFamilies, category: str, new: dict[str, Any], family: np.ndarray, cos: np.ndarray
) -> set[int]:
    """What dedup hands the lookup: the family's rows at the threshold, and the family."""
    near = np.flatnonzero(family & (cos >= P.same_threshold)).tolist()
    return set(fam.candidates(category, "Ann", new, near, lambda r: bool(family[r]), lambda: family))


def _missed(
    category: str, new: dict[str, Any], olds: list[dict[str, Any]], cos: list[float], text: str
) -> list[int]:
    fam = _families(category, olds)
    family = np.ones(len(olds), bool)
    reach = _candidates(fam, category, new, family, np.asarray(cos, np.float32))
    return [
        n
        for n, old in enumerate(olds)
        if n not in reach
        and (D.contradicts(category, new, old, text, cos[n], P) or cos[n] >= P.same_threshold)
    ]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(sorted(D.SLOTTED)),
    fields(),
    st.lists(st.tuples(fields(), st.sampled_from([0.2, 0.9, 0.96, 0.99])), min_size=1, max_size=8),
    st.sampled_from(TEXTS),
)
def test_every_member_a_rule_fires_on_is_reached(
    category: str, new: dict[str, Any], olds: list[tuple[dict[str, Any], float]], text: str
) -> None:
    assert _missed(category, new, [o for o, _ in olds], [c for _, c in olds], text) == []


def test_extracted_fields_of_both_languages_are_reached() -> None:
    """Real statements through the real extractor: a later one retires an earlier one."""
    cases = [
        (preference_fields, "preferences", "I like MySQL.", "Use PostgreSQL, not MySQL."),
        (preference_fields, "preferences", "I love sushi.", "I don't like sushi any more."),
        (preference_fields, "preferences", "My favourite colour is blue.", "My favorite colour is green."),
        (preference_fields, "preferences", "我喜欢吃辣", "我不喜欢吃辣"),
        (preference_fields, "preferences", "我喜欢MySQL", "以后都用PostgreSQL，不要用MySQL"),
        (profile_fields, "profile", "I live in Lyon.", "I live in Porto these days."),
        (profile_fields, "profile", "我住在上海", "我住在成都"),
        (entity_fields, "entities", "My boss is Karen.", "My boss is Dana."),
    ]
    fired = 0
    for extract, category, old_text, new_text in cases:
        old, new = extract(old_text) or {}, extract(new_text) or {}
        unrelated = extract("I enjoy gardening on Sundays.") or {}
        olds = [unrelated, old]
        assert _missed(category, new, olds, [0.3, 0.3], new_text) == [], (old_text, new_text)
        fired += D.contradicts(category, new, old, new_text, 0.3, P)
    assert fired >= 6  # the rules do fire on these: the check above is not vacuous


def test_a_member_no_rule_reaches_is_left_out() -> None:
    """The point of the lookup: a dissimilar item of another slot is not handed to dedup."""
    olds = [{"attribute": "job", "value": "nurse"}, {"attribute": "location", "value": "Lyon"}]
    fam = _families("profile", olds)
    got = _candidates(
        fam, "profile", {"attribute": "location", "value": "Porto"}, np.ones(2, bool), np.zeros(2)
    )
    assert got == {1}


def test_terms_key_is_same_terms() -> None:
    pairs = [
        ("Hiking", "hiking "),
        ("hiking", "hiking in the rain"),
        ("咖啡", "咖啡"),
        ("咖啡", "喝咖啡"),
        ("the", "the"),
    ]
    for a, b in pairs:
        ka, kb = terms_key(a), terms_key(b)
        assert (ka is not None and ka == kb) == D.same_terms(a, b), (a, b)


def test_a_merged_item_is_found_under_its_new_slot() -> None:
    olds = [{"attribute": "job", "value": "nurse"}]
    fam = _families("profile", olds)
    olds[0] = {"attribute": "location", "value": "Lyon"}  # a MERGE rewrote its fields
    fam.changed("i000")
    fam.refresh(["i000"], ["profile"], ["Ann"], {"i000": 0}, lambda want: {i: olds[0] for i in want})
    got = _candidates(
        fam, "profile", {"attribute": "location", "value": "Porto"}, np.ones(1, bool), np.zeros(1)
    )
    assert got == {0}
    assert fam.l1["i000"] == olds[0]
