"""The person corrects a fact: the correction supersedes the item, with provenance."""

from __future__ import annotations

import pytest

from daemon.errors import InvalidInput
from daemon.memory import Memory
from daemon.memory.write.pipeline import item_id_for
from tests.conftest import turn


def test_a_correction_supersedes_the_item_and_says_who_made_it(memory: Memory) -> None:
    memory.memorize([turn("w1", "I work as a sound engineer at a radio station in Ghent.")])
    old_id = item_id_for("alice", "w1", 0)
    new_id = memory.correct("alice", old_id, "I'm a sound engineer at a theatre in Antwerp.")
    old = memory.get_item("alice", old_id)
    assert old is not None and old["superseded_by"] == new_id and old["valid_until"] is not None
    new = memory.get_item("alice", new_id)
    assert new is not None and new["superseded_by"] is None
    (source,) = memory.resources("alice", new["source_ids"])
    assert source.kind == "correction" and source.meta["provenance"] == "corrected by the person"
    assert source.meta["corrects"] == old_id and source.speaker == "Alice"
    hits = memory.recall("where do I work", "alice", k=5, reinforce=False)
    assert [h.item_id for h in hits] == [new_id]
    assert [o["op"] for o in memory.ops("alice")][-1] == "superseded"


def test_a_correction_that_states_nothing_changes_nothing(memory: Memory) -> None:
    memory.memorize([turn("p1", "My cat Tofu is nine years old.")])
    item_id = item_id_for("alice", "p1", 0)
    with pytest.raises(InvalidInput, match="states no fact"):
        memory.correct("alice", item_id, "ok thanks, bye!")
    item = memory.get_item("alice", item_id)
    assert item is not None and item["superseded_by"] is None


@pytest.mark.parametrize(
    ("item", "text", "message"),
    [("it_nope", "I live in Porto.", "no item"), ("", "", "needs the text")],
)
def test_a_correction_needs_an_item_and_a_text(memory: Memory, item: str, text: str, message: str) -> None:
    memory.memorize([turn("h1", "I live in Lisbon.")])
    target = item or item_id_for("alice", "h1", 0)
    with pytest.raises(InvalidInput, match=message):
        memory.correct("alice", target, text)


def test_an_item_is_corrected_once(memory: Memory) -> None:
    memory.memorize([turn("d1", "My dentist is Dr. Varga on Mill Street.")])
    old_id = item_id_for("alice", "d1", 0)
    new_id = memory.correct("alice", old_id, "My dentist is Dr. Ferreira at the Old Town clinic.")
    with pytest.raises(InvalidInput, match=f"already superseded by {new_id}"):
        memory.correct("alice", old_id, "My dentist is Dr. Ferreira at the Old Town clinic.")
    assert memory.stats("alice")["items"] == 2
