"""The lifecycle model: Weibull scores per tier, promotion, demotion, archiving, idempotence."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daemon.memory import lifecycle as L
from daemon.memory.types import TIERS

P = L.LifecycleParams()
DAY = 86400.0
NOW = 1_750_000_000.0  # a fixed "now" in epoch seconds
PERI, WORK, CORE = (TIERS.index(t) for t in ("peripheral", "working", "core"))


def score(
    age_days: float | np.ndarray,
    tier: int = PERI,
    accesses: float = 0,
    importance: float = 0.5,
    evergreen: bool = False,
    p: L.LifecycleParams = P,
) -> np.ndarray:
    age = np.atleast_1d(np.asarray(age_days, np.float64))
    n = age.shape[0]
    return L.lifecycle_score(
        NOW,
        NOW - age * DAY,
        np.full(n, accesses, np.float64),
        np.full(n, importance),
        np.full(n, tier, np.int64),
        np.full(n, evergreen),
        p,
    )


def one_plan(
    age_days: float,
    tier: int,
    accesses: int = 0,
    importance: float = 0.5,
    evergreen: bool = False,
    p: L.LifecycleParams = P,
) -> tuple[int, bool, float]:
    out = L.plan(
        NOW,
        np.array([NOW - age_days * DAY]),
        np.array([accesses]),
        np.array([importance]),
        np.array([tier]),
        np.array([evergreen]),
        p,
    )
    return int(out.tier[0]), bool(out.archive[0]), float(out.score[0])


# Up to ~11 years: past the day a never-recalled core item falls below demote_below (~6.3 years).
AGES = np.arange(0.0, 4000.0, 0.5)


def first_below(curve: np.ndarray, threshold: float, ages: np.ndarray = AGES) -> float:
    """The first age at which `curve` is below `threshold`; it must cross within `ages`."""
    below = curve < threshold
    assert below.any(), f"never below {threshold} before day {ages[-1]:g}"
    return float(ages[np.argmax(below)])


# --- the score -----------------------------------------------------------------------------


@pytest.mark.parametrize("tier", [PERI, WORK, CORE])
def test_score_is_one_at_age_zero_and_falls_monotonically(tier: int) -> None:
    s = score(AGES, tier)
    assert s[0] == 1.0
    assert np.all(np.diff(s) <= 0.0)
    assert s[-1] < s[0] - 0.5  # it really decays, not a flat line
    assert np.all((s >= 0.0) & (s <= 1.0))


def test_future_dated_items_count_as_age_zero() -> None:
    assert score(-10.0)[0] == 1.0


def test_higher_tiers_decay_slower() -> None:
    ages = np.arange(0.5, 4000.0, 0.5)
    peri, work, core = (score(ages, t) for t in (PERI, WORK, CORE))
    # Peripheral's k>1 grace period keeps it above working for the first ~32 days, and core's
    # k<1 puts it marginally below working for the first ~4 days; from then on the order holds.
    late = ages >= 32.0
    assert np.all(peri[late] < work[late])
    assert np.all(work[ages >= 5.0] < core[ages >= 5.0])
    # Where the order is inverted, every score is far above both thresholds: no decision
    # (promote, demote, archive) depends on it.
    inverted = (peri >= work) | (work >= core)
    assert inverted.any() and ages[inverted].max() < 32.0
    assert min(peri[inverted].min(), work[inverted].min(), core[inverted].min()) > 0.9


def test_defaults_match_the_documented_horizons() -> None:
    # The days the LifecycleParams docstring quotes for an item that is never recalled (each
    # within a day; the grid is half a day): median life and the day it crosses the archive floor
    # (peripheral) or demote_below (working, core).
    peri = score(AGES, PERI)
    assert first_below(peri, 0.5) == pytest.approx(164.5, abs=1.0)  # median ~164 days
    assert first_below(peri, P.archive_floor) == pytest.approx(366.2, abs=1.0)  # ~1 year
    assistant_turn = score(AGES, PERI, importance=0.35)
    assert first_below(assistant_turn, P.archive_floor) == pytest.approx(297.4, abs=1.0)  # ~297
    assert first_below(score(AGES, PERI, importance=0.6), P.archive_floor) == pytest.approx(420.6, abs=1.0)
    work = score(AGES, WORK)
    assert first_below(work, 0.5) == pytest.approx(374.3, abs=1.0)  # median ~1 year
    assert first_below(work, P.demote_below) == pytest.approx(650.2, abs=1.0)  # ~1.8 years
    core = score(AGES, CORE)
    assert first_below(core, 0.5) == pytest.approx(1154.2, abs=1.0)  # median ~3.2 years
    assert first_below(core, P.demote_below) == pytest.approx(2301.6, abs=1.0)  # ~6.3 years
    assert score(5 * 365.0, CORE, importance=0.9)[0] > P.demote_below  # core almost never goes
    # Why a year: LoCoMo's questions cite turns up to 243 days old; even an assistant turn of
    # that age is still above the floor, so the consolidation job does not archive it.
    assert score(243.0, PERI, importance=0.35)[0] >= P.archive_floor


def test_accesses_slow_the_decay() -> None:
    ages = np.arange(1.0, 1500.0, 1.0)
    none, few, many = (score(ages, PERI, accesses=a) for a in (0, 3, 30))
    assert np.all(none < few) and np.all(few < many)
    # a few accesses keep an item alive past the point where an unused one is archived (~366 days;
    # two accesses stretch that to ~567)
    assert score(400.0, PERI, accesses=2)[0] >= P.archive_floor > score(400.0, PERI, accesses=0)[0]


def test_importance_slows_the_decay() -> None:
    ages = np.arange(1.0, 400.0, 1.0)
    low, mid, high = (score(ages, WORK, importance=i) for i in (0.2, 0.5, 0.9))
    assert np.all(low < mid) and np.all(mid < high)


def test_evergreen_never_decays() -> None:
    for tier in (PERI, WORK, CORE):
        assert np.all(score(AGES, tier, evergreen=True, importance=0.0) == 1.0)


def test_out_of_range_tier_is_refused() -> None:
    with pytest.raises(ValueError, match="tier"):
        score(1.0, tier=3)


def test_nan_last_seen_is_refused_not_scored() -> None:
    with pytest.raises(ValueError, match="last_seen"):
        L.lifecycle_score(
            NOW, np.array([np.nan]), np.zeros(1), np.full(1, 0.5), np.zeros(1, int), np.zeros(1, bool), P
        )


def test_access_history_replays_a_schedule() -> None:
    last, count = L.access_history(np.array([0.0, 6.9, 7.0, 10.0, 14.0]), np.array([14.0, 7.0]))
    assert count.tolist() == [0, 0, 1, 1, 2]
    assert np.isnan(last[:2]).all() and last[2:].tolist() == [7.0, 7.0, 14.0]
    last, count = L.access_history(np.array([1.0, 2.0]), np.array([]))
    assert count.tolist() == [0, 0] and np.isnan(last).all()


def test_last_seen_is_the_later_of_occurrence_and_access() -> None:
    seen = L.last_seen_of(np.array([10.0, 10.0, 10.0]), np.array([np.nan, 5.0, 20.0]))
    assert seen.tolist() == [10.0, 10.0, 20.0]


# --- promotion -----------------------------------------------------------------------------


def test_promotion_by_access() -> None:
    n_work, n_core = P.promote_working[0], P.promote_core[0]
    assert one_plan(1.0, PERI, accesses=n_work - 1)[0] == PERI
    assert one_plan(1.0, PERI, accesses=n_work)[0] == WORK
    assert one_plan(1.0, WORK, accesses=n_core - 1)[0] == WORK
    assert one_plan(1.0, WORK, accesses=n_core)[0] == CORE
    # both steps in one run, so that the next run at the same time has nothing left to do
    assert one_plan(1.0, PERI, accesses=n_core)[0] == CORE


def test_promotion_by_importance() -> None:
    i_work, i_core = P.promote_working[1], P.promote_core[1]
    assert one_plan(1.0, PERI, importance=i_work - 0.01)[0] == PERI
    assert one_plan(1.0, PERI, importance=i_work)[0] == WORK
    assert one_plan(1.0, WORK, importance=i_core - 0.01)[0] == WORK
    assert one_plan(1.0, WORK, importance=i_core)[0] == CORE


def test_no_promotion_into_a_tier_where_the_item_is_already_dead() -> None:
    # recalled ten times, but the last time was ten years ago: not core (nor working) material
    tier, archive, _ = one_plan(10 * 365.0, PERI, accesses=P.promote_core[0])
    assert tier == PERI and archive


# --- demotion and archiving ----------------------------------------------------------------


def test_demotion_when_the_score_drops() -> None:
    cross = first_below(score(AGES, WORK), P.demote_below)
    assert one_plan(cross - 1.0, WORK)[0] == WORK
    assert one_plan(cross + 1.0, WORK)[0] == PERI
    cross_core = first_below(score(AGES, CORE), P.demote_below)
    assert one_plan(cross_core - 1.0, CORE)[0] == CORE
    # demoted as far as it must go: its working score at that age is below the threshold too
    assert one_plan(cross_core + 1.0, CORE)[0] == PERI


def test_demotion_stops_at_the_first_tier_where_the_item_is_alive() -> None:
    # a core item whose core score is low but whose working score is fine (a working tier that
    # lives longer than usual) goes down exactly one tier
    p = dataclasses.replace(P, scale_days=(50.0, 1000.0, 1000.0), shape=(1.5, 1.0, 3.0))
    age = 1150.0
    assert score(age, CORE, p=p)[0] < p.demote_below <= score(age, WORK, p=p)[0]
    assert one_plan(age, CORE, p=p)[0] == WORK


def test_archive_only_below_the_floor() -> None:
    cross = first_below(score(AGES, PERI), P.archive_floor)
    tier, archive, s = one_plan(cross - 1.0, PERI)
    assert tier == PERI and not archive and s >= P.archive_floor
    tier, archive, s = one_plan(cross + 1.0, PERI)
    assert tier == PERI and archive and s < P.archive_floor


def test_never_archive_evergreen_or_core() -> None:
    for tier in (PERI, WORK, CORE):
        t, archive, s = one_plan(50 * 365.0, tier, evergreen=True, importance=0.0)
        assert not archive and s == 1.0 and t == tier
    # a core item whose core score is still above demote_below (hence also above the floor) stays
    # core and unarchived, even where a peripheral item of the same age is long archived
    age = 3 * 365.0
    assert score(age, PERI)[0] < P.archive_floor
    assert one_plan(age, CORE)[:2] == (CORE, False)
    # with no floor at all, nothing is archived
    assert not one_plan(50 * 365.0, PERI, p=dataclasses.replace(P, archive_floor=0.0))[1]


def test_plan_is_vectorised_and_keeps_order() -> None:
    ages = np.array([1.0, 400.0, 1.0, 1.0])  # the second is past the archive floor (~366 days)
    out = L.plan(
        NOW,
        NOW - ages * DAY,
        np.array([0, 0, P.promote_working[0], 0]),
        np.array([0.5, 0.5, 0.5, 0.5]),
        np.array([PERI, PERI, PERI, CORE]),
        np.array([False, False, False, False]),
        P,
    )
    assert out.tier.tolist() == [PERI, PERI, WORK, CORE]
    assert out.archive.tolist() == [False, True, False, False]
    assert out.score.shape == (4,)


def test_plan_is_idempotent_at_the_same_now() -> None:
    rng = np.random.default_rng(7)
    n = 5000
    seen = NOW - rng.uniform(0, 5 * 365, n) * DAY
    acc = rng.integers(0, 30, n)
    imp = rng.uniform(0, 1, n)
    ever = rng.random(n) < 0.05
    tier = rng.integers(0, 3, n)
    first = L.plan(NOW, seen, acc, imp, tier, ever, P)
    second = L.plan(NOW, seen, acc, imp, first.tier, ever, P)
    assert np.array_equal(first.tier, second.tier)
    assert np.array_equal(first.archive, second.archive)
    assert np.array_equal(first.score, second.score)
    # the sample is not trivial: every kind of move happened
    assert (first.tier > tier).any() and (first.tier < tier).any() and first.archive.any()
    assert not first.archive[ever].any() and not first.archive[first.tier != PERI].any()


# --- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scale_days", (50.0, 180.0)),
        ("scale_days", (0.0, 180.0, 1000.0)),
        ("scale_days", (200.0, 180.0, 1000.0)),
        ("scale_days", (50.0, float("inf"), 1000.0)),
        ("shape", (1.5, -1.0, 0.8)),
        ("shape", (1.5, 1.0, float("nan"))),
        ("access_boost", -0.1),
        ("importance_boost", float("nan")),
        ("archive_floor", 1.0),
        ("archive_floor", -0.1),
        ("demote_below", 1.5),
        ("promote_working", (0, 0.7)),
        ("promote_working", (3.5, 0.7)),
        ("promote_working", (3, 0.0)),
        ("promote_core", (2, 0.9)),
        ("promote_core", (10, 0.5)),
    ],
)
def test_validate_rejects_bad_params(field: str, value: object) -> None:
    bad = dataclasses.replace(P, **{field: value})
    with pytest.raises(ValueError, match=field):
        L.validate(bad)
    with pytest.raises(ValueError, match=field):
        L.plan(NOW, np.array([NOW]), np.array([0]), np.array([0.5]), np.array([0]), np.array([False]), bad)


def test_validate_accepts_the_defaults() -> None:
    L.validate(P)


# --- properties ----------------------------------------------------------------------------

sane_params = st.builds(
    lambda scales, shapes, a, b, floor, demote, nw, iw, dn, di: L.LifecycleParams(
        scale_days=tuple(sorted(scales)),
        shape=shapes,
        access_boost=a,
        importance_boost=b,
        archive_floor=floor,
        demote_below=demote,
        promote_working=(nw, iw),
        promote_core=(nw + dn, iw + di),
    ),
    st.tuples(*[st.floats(1.0, 5000.0)] * 3),
    st.tuples(*[st.floats(0.3, 4.0)] * 3),
    st.floats(0.0, 3.0),
    st.floats(0.0, 3.0),
    st.floats(0.0, 0.5),
    st.floats(0.0, 0.9),
    st.integers(1, 20),
    st.floats(0.1, 1.0),
    st.integers(0, 50),
    st.floats(0.0, 0.5),
)


@settings(max_examples=150, deadline=None)
@given(
    p=sane_params,
    tier=st.integers(0, 2),
    accesses=st.integers(0, 1000),
    importance=st.floats(0.0, 1.0),
)
def test_score_in_unit_interval_and_monotone_in_age(
    p: L.LifecycleParams, tier: int, accesses: int, importance: float
) -> None:
    L.validate(p)
    ages = np.concatenate([[0.0], np.geomspace(1e-3, 1e5, 400)])
    s = score(ages, tier, accesses=accesses, importance=importance, p=p)
    assert np.all((s >= 0.0) & (s <= 1.0))
    assert s[0] == 1.0
    assert np.all(np.diff(s) <= 1e-12)


@settings(max_examples=100, deadline=None)
@given(p=sane_params, seed=st.integers(0, 2**32 - 1))
def test_plan_is_a_fixed_point_for_any_sane_params(p: L.LifecycleParams, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 200
    seen = NOW - rng.uniform(-1, 3000, n) * DAY
    acc = rng.integers(0, 60, n)
    imp = rng.uniform(0, 1, n)
    ever = rng.random(n) < 0.1
    tier = rng.integers(0, 3, n)
    first = L.plan(NOW, seen, acc, imp, tier, ever, p)
    second = L.plan(NOW, seen, acc, imp, first.tier, ever, p)
    assert np.array_equal(first.tier, second.tier) and np.array_equal(first.archive, second.archive)
    assert not first.archive[ever].any() and not first.archive[first.tier != PERI].any()
    assert np.all((first.score >= 0.0) & (first.score <= 1.0))
