"""The dispatcher with a real Memory: ledger, duplicates, dead letters with reasons, retries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from daemon.config import load_settings
from daemon.events import MAX_EVENT_BYTES, tick_body, turn_from_dict
from daemon.memory import Memory
from daemon.runtime.dispatch import ACK, RETRY, Dispatcher, Incoming
from handlers import ROUTES, Route
from handlers.deps import Deps
from tests.conftest import FakeClock

SUBJECT = "memubot.in.conversation.main"


def turn_bytes(i: int, text: str | None = None, **over: Any) -> bytes:
    body = {
        "id": f"t{i}",
        "scope": "alice",
        "agent": "main",
        "session": "s1",
        "role": "user",
        "speaker": "Alice",
        "text": text or f"I booked flight number {i} to Lisbon for the conference.",
        "ts": f"2024-02-01T09:{i % 60:02d}:00+00:00",
    }
    body.update(over)
    return json.dumps(body).encode()


@pytest.fixture
def dispatcher(memory: Memory, tmp_path: Path, clock: FakeClock) -> Dispatcher:
    settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_STATE_DIR": str(tmp_path / "state")})
    return Dispatcher(Deps(memory, settings, clock))


async def test_turns_are_stored_once_and_recorded_in_the_ledger(
    dispatcher: Dispatcher, memory: Memory
) -> None:
    batch = [Incoming(SUBJECT, turn_bytes(i)) for i in range(3)]
    verdicts = await dispatcher.dispatch(batch)
    assert [(v.action, v.outcome, v.event_id) for v in verdicts] == [
        (ACK, "stored", "t0"),
        (ACK, "stored", "t1"),
        (ACK, "stored", "t2"),
    ]
    assert memory.ledger.seen(["t0", "t1", "t2", "t9"]) == {"t0", "t1", "t2"}
    again = await dispatcher.dispatch(
        [*batch, Incoming(SUBJECT, turn_bytes(3)), Incoming(SUBJECT, turn_bytes(3))]
    )
    assert [v.outcome for v in again] == ["duplicate", "duplicate", "duplicate", "stored", "duplicate"]
    assert memory.stats("alice")["resources"] == 4


@pytest.mark.parametrize(
    ("subject", "data", "reason"),
    [
        (SUBJECT, b"{not json", "invalid JSON"),
        (SUBJECT, b"\xff\xfe{}", "not valid UTF-8"),
        (SUBJECT, b"[1, 2]", "must be a JSON object"),
        (
            SUBJECT,
            json.dumps({"id": "x", "scope": "a", "role": "user", "ts": "2024-01-01T00:00:00Z"}).encode(),
            "'text'",
        ),
        (SUBJECT, turn_bytes(1, ts="2024-01-01T00:00:00"), "no UTC offset"),
        (SUBJECT, turn_bytes(1, role=5), "'role' must be a string"),
        (SUBJECT, turn_bytes(1, scope=""), "'scope' is empty"),
        (SUBJECT, turn_bytes(1, scope="alice.smith"), "may not contain '.'"),
        (SUBJECT, turn_bytes(1, scope="al ice>"), "may not contain ' >'"),
        (SUBJECT, b" " * (MAX_EVENT_BYTES + 1), "too large"),
        ("memubot.in.unknown", turn_bytes(1), "no handler for subject"),
        (
            "memubot.in.feedback",
            json.dumps(
                {"id": "f", "suggestion_id": "s", "verdict": "meh", "ts": "2024-01-01T00:00:00Z"}
            ).encode(),
            "'verdict'",
        ),
        ("memubot.in.tick.morning", json.dumps({"id": "m", "schedule": "morning"}).encode(), "'ts'"),
    ],
)
async def test_malformed_events_become_dead_letters_with_a_precise_reason(
    dispatcher: Dispatcher, memory: Memory, subject: str, data: bytes, reason: str
) -> None:
    [verdict] = await dispatcher.dispatch([Incoming(subject, data, stream_seq=7)])
    assert verdict.action == ACK and verdict.outcome == "dead_letter"
    assert verdict.reason and reason in verdict.reason
    [row] = memory.ledger.dead_letters()
    assert row["subject"] == subject and reason in row["reason"] and row["bytes"] == len(data)
    assert bytes(memory.ledger.get_dead_letter(row["id"])["payload"]) == data  # kept for replay
    # redelivered after a crash before the ack: the same record, not a second one
    await dispatcher.dispatch([Incoming(subject, data, attempt=2, stream_seq=7)])
    assert len(memory.ledger.dead_letters()) == 1


async def test_one_bad_event_does_not_sink_its_batch(dispatcher: Dispatcher, memory: Memory) -> None:
    batch = [Incoming(SUBJECT, turn_bytes(0)), Incoming(SUBJECT, b"oops"), Incoming(SUBJECT, turn_bytes(2))]
    verdicts = await dispatcher.dispatch(batch)
    assert [v.outcome for v in verdicts] == ["stored", "dead_letter", "stored"]
    assert memory.stats("alice")["resources"] == 2


def _flaky_routes(fail_ids: set[str], calls: list[list[str]]) -> tuple[Route, ...]:
    async def handle(events: Sequence[Any], deps: Deps) -> list[str]:
        calls.append([e.id for e in events])
        if any(e.id in fail_ids for e in events):
            raise RuntimeError("disk on fire")
        return ["stored"] * len(events)

    return (Route("conversation", "memubot.in.conversation.", turn_from_dict, handle), *ROUTES[1:])


async def test_a_failing_event_is_retried_then_dead_lettered_on_the_last_attempt(
    memory: Memory, dispatcher: Dispatcher
) -> None:
    calls: list[list[str]] = []
    flaky = Dispatcher(dispatcher.deps, routes=_flaky_routes({"t1"}, calls))
    batch = [Incoming(SUBJECT, turn_bytes(i), attempt=1, max_attempts=3) for i in range(3)]
    verdicts = await flaky.dispatch(batch)
    # the batch failed, so each event was tried alone: the good ones are committed
    assert calls == [["t0", "t1", "t2"], ["t0"], ["t1"], ["t2"]]
    assert [(v.action, v.outcome) for v in verdicts] == [(ACK, "stored"), (RETRY, "retry"), (ACK, "stored")]
    assert "disk on fire" in (verdicts[1].reason or "")
    assert memory.ledger.seen(["t0", "t1", "t2"]) == {"t0", "t2"}
    [last] = await flaky.dispatch([Incoming(SUBJECT, turn_bytes(1), attempt=3, max_attempts=3, stream_seq=2)])
    assert (last.action, last.outcome) == (ACK, "dead_letter")
    [row] = memory.ledger.dead_letters()
    assert row["event_id"] == "t1" and row["attempts"] == 3 and "RuntimeError: disk on fire" in row["reason"]


async def test_a_dead_letter_replays_once_the_cause_is_fixed(memory: Memory, dispatcher: Dispatcher) -> None:
    calls: list[list[str]] = []
    flaky = Dispatcher(dispatcher.deps, routes=_flaky_routes({"t5"}, calls))
    [dead] = await flaky.dispatch([Incoming(SUBJECT, turn_bytes(5))])
    assert dead.outcome == "dead_letter" and dead.dead_letter_id is not None
    verdict = await dispatcher.replay_dead_letter(dead.dead_letter_id)  # the real handler works
    assert verdict.outcome == "stored" and memory.stats("alice")["resources"] == 1
    assert memory.ledger.dead_letters() == []
    assert memory.ledger.dead_letters(include_replayed=True)[0]["replayed_at"] is not None
    with pytest.raises(Exception, match="already replayed"):
        await dispatcher.replay_dead_letter(dead.dead_letter_id)


async def test_a_forgotten_turn_redelivered_stays_forgotten(dispatcher: Dispatcher, memory: Memory) -> None:
    data = turn_bytes(1, text="My locker code is 4412 and I keep it at the gym.")
    await dispatcher.dispatch([Incoming(SUBJECT, data)])
    memory.forget("alice", query="locker code")
    assert memory.stats("alice")["resources"] == 0
    [verdict] = await dispatcher.dispatch([Incoming(SUBJECT, data, attempt=2, max_attempts=5)])
    assert verdict.outcome == "forgotten"  # said so: "duplicate" read as "already stored"
    assert memory.stats("alice")["resources"] == 0
    assert memory.ledger.outcome("t1") == "stored"  # its first record stays


async def test_tombstones_are_per_scope(memory: Memory) -> None:
    from tests.conftest import turn

    memory.memorize(
        [turn("turn-1", "I keep bees.", scope="alice"), turn("turn-1", "I keep goats.", scope="bob")]
    )
    memory.forget("bob", query="goats")
    memory.memorize([turn("turn-1", "I keep goats.", scope="bob")])  # re-imported: stays forgotten
    assert memory.stats("bob")["resources"] == 0
    assert memory.stats("alice")["resources"] == 1
    memory.forget("alice", query="bees")
    assert memory.stats("alice")["resources"] == 0


async def test_ticks_and_feedback(dispatcher: Dispatcher, memory: Memory, clock: FakeClock) -> None:
    await dispatcher.dispatch([Incoming(SUBJECT, turn_bytes(1))])
    tick = tick_body("consolidate", clock.now)
    fb = {
        "id": "fb1",
        "suggestion_id": "sg1",
        "verdict": "accepted",
        "ts": "2024-03-01T12:00:00Z",
        "scope": "alice",
    }
    verdicts = await dispatcher.dispatch(
        [
            Incoming("memubot.in.tick.consolidate", json.dumps(tick).encode()),
            Incoming("memubot.in.tick.morning", json.dumps(tick_body("morning", clock.now)).encode()),
            Incoming("memubot.in.feedback", json.dumps(fb).encode()),
        ]
    )
    assert [v.outcome for v in verdicts] == ["consolidated", "noop", "stored"]
    assert [f["verdict"] for f in memory.ledger.feedback("sg1")] == ["accepted"]
    again = await dispatcher.dispatch([Incoming("memubot.in.tick.consolidate", json.dumps(tick).encode())])
    assert again[0].outcome == "duplicate"  # a restart around the tick: handled once


async def test_an_event_a_handler_refuses_is_dead_lettered_without_retries(
    memory: Memory, dispatcher: Dispatcher
) -> None:
    from daemon.errors import InvalidInput

    async def refuse(events: Sequence[Any], deps: Deps) -> list[str]:
        raise InvalidInput("scope 'x' is not allowed here")

    strict = Dispatcher(
        dispatcher.deps, routes=(Route("conversation", "memubot.in.conversation.", turn_from_dict, refuse),)
    )
    [verdict] = await strict.dispatch([Incoming(SUBJECT, turn_bytes(1), attempt=1, max_attempts=5)])
    assert (verdict.action, verdict.outcome) == (ACK, "dead_letter")
    assert "not allowed" in (verdict.reason or "")


async def test_a_dead_letter_keeps_the_senders_id_when_there_is_one(
    dispatcher: Dispatcher, memory: Memory
) -> None:
    bad = json.dumps(
        {"id": "fb-9", "suggestion_id": "s", "verdict": "loved it", "ts": "2024-01-01T00:00:00Z"}
    )
    [verdict] = await dispatcher.dispatch([Incoming("memubot.in.feedback", bad.encode())])
    assert verdict.outcome == "dead_letter" and verdict.event_id == "fb-9"
    assert memory.ledger.dead_letters()[0]["event_id"] == "fb-9"
    assert memory.ledger.seen(["fb-9"]) == set()  # not handled: a fixed resend is still accepted


@pytest.mark.parametrize(
    ("subject", "data", "event_id"),
    [
        # too large: the body is still JSON, and its id is read from it
        (SUBJECT, turn_bytes(1, text="word " * (MAX_EVENT_BYTES // 5)), "t1"),
        # a subject no handler takes
        ("memubot.in.unknown", turn_bytes(2), "t2"),
        # broken JSON that still starts with its id (cut off in transit)
        (SUBJECT, turn_bytes(3)[:60], "t3"),
        # invalid UTF-8 in the text: the id is still readable
        (SUBJECT, turn_bytes(4).replace(b"Lisbon", b"Lis\xffbon"), "t4"),
        # an empty turn is refused with a reason, under its id
        (SUBJECT, turn_bytes(5, text=" "), "t5"),
        # nothing to read: no id rather than a wrong one
        (SUBJECT, b"[1, 2]", None),
        (SUBJECT, json.dumps({"id": 7, "scope": "alice"}).encode(), None),
    ],
)
async def test_a_dead_letter_keeps_the_id_whenever_it_can_be_read(
    dispatcher: Dispatcher, memory: Memory, subject: str, data: bytes, event_id: str | None
) -> None:
    [verdict] = await dispatcher.dispatch([Incoming(subject, data)])
    assert verdict.outcome == "dead_letter" and verdict.event_id == event_id
    [row] = memory.ledger.dead_letters()
    assert row["event_id"] == event_id


async def test_an_event_delivered_past_its_attempts_is_dead_lettered_without_running(
    memory: Memory, dispatcher: Dispatcher
) -> None:
    # five deliveries ended without a verdict (the daemon crashed each time): the sixth stops
    calls: list[list[str]] = []
    flaky = Dispatcher(dispatcher.deps, routes=_flaky_routes(set(), calls))
    [verdict] = await flaky.dispatch(
        [Incoming(SUBJECT, turn_bytes(3), attempt=6, max_attempts=5, stream_seq=9)]
    )
    assert (verdict.action, verdict.outcome, verdict.event_id) == (ACK, "dead_letter", "t3")
    assert "not handled after 5 deliveries" in (verdict.reason or "")
    assert calls == []
    replayed = await dispatcher.replay_dead_letter(verdict.dead_letter_id or 0)
    assert replayed.outcome == "stored"  # the record replays like any other


def deep(levels: int, event_id: str = "deep-1") -> bytes:
    """A conversation-turn body whose `meta` nests `levels` arrays: the stall of issue 22."""
    head = json.loads(turn_bytes(0))
    head["id"] = event_id
    body = json.dumps(head)[:-1] + ', "x": ' + "[" * levels + "]" * levels + "}"
    return body.encode()


async def test_a_deeply_nested_event_is_its_own_dead_letter_and_its_batch_is_stored(
    dispatcher: Dispatcher, memory: Memory
) -> None:
    # 5,000 levels in 10 KB: json.loads raised RecursionError, which failed the whole batch
    batch = [
        Incoming(SUBJECT, turn_bytes(1), stream_seq=1),
        Incoming(SUBJECT, deep(5000), stream_seq=2),
        Incoming(SUBJECT, turn_bytes(3), stream_seq=3),
        Incoming(SUBJECT, deep(64, "deep-2"), stream_seq=4),  # 65 with the event object itself
        Incoming(SUBJECT, turn_bytes(5), stream_seq=5),
    ]
    assert len(batch[1].data) < 11_000
    verdicts = await dispatcher.dispatch(batch)
    assert [(v.action, v.outcome) for v in verdicts] == [
        (ACK, "stored"),
        (ACK, "dead_letter"),
        (ACK, "stored"),
        (ACK, "dead_letter"),
        (ACK, "stored"),
    ]
    dead = {row["event_id"]: row for row in memory.ledger.dead_letters()}
    assert set(dead) == {"deep-1", "deep-2"}
    assert all("event is nested deeper than 64 levels" in row["reason"] for row in dead.values())
    assert memory.ledger.seen([f"t{i}" for i in range(6)]) == {"t1", "t3", "t5"}
    assert memory.stats("alice")["resources"] == 3
    # the bound is 64: an event that nests exactly that deep is an ordinary event
    [ok] = await dispatcher.dispatch([Incoming(SUBJECT, deep(63, "deep-ok"))])
    assert ok.outcome == "stored"


def _raising_routes(raise_for: dict[str, BaseException], calls: list[list[str]]) -> tuple[Route, ...]:
    async def handle(events: Sequence[Any], deps: Deps) -> list[str]:
        calls.append([e.id for e in events])
        for e in events:
            if e.id in raise_for:
                raise raise_for[e.id]
        return ["stored"] * len(events)

    return (Route("conversation", "memubot.in.conversation.", turn_from_dict, handle), *ROUTES[1:])


async def test_a_recursion_or_memory_error_in_a_handler_is_that_events_dead_letter_at_once(
    dispatcher: Dispatcher, memory: Memory
) -> None:
    calls: list[list[str]] = []
    faults = {"t1": RecursionError("maximum recursion depth exceeded"), "t3": MemoryError()}
    bursting = Dispatcher(dispatcher.deps, routes=_raising_routes(faults, calls))
    batch = [Incoming(SUBJECT, turn_bytes(i), attempt=1, max_attempts=5, stream_seq=i + 1) for i in range(5)]
    verdicts = await bursting.dispatch(batch)
    # no retry can mend either: dead letters on the first attempt, not after five
    assert [(v.action, v.outcome) for v in verdicts] == [
        (ACK, "stored"),
        (ACK, "dead_letter"),
        (ACK, "stored"),
        (ACK, "dead_letter"),
        (ACK, "stored"),
    ]
    reasons = {row["event_id"]: row["reason"] for row in memory.ledger.dead_letters()}
    assert reasons == {"t1": "RecursionError: maximum recursion depth exceeded", "t3": "MemoryError: "}
    assert memory.ledger.seen([f"t{i}" for i in range(5)]) == {"t0", "t2", "t4"}


class _LedgerFailingOn:
    """The real ledger, except that recording `event_id` raises (a fault outside any handler)."""

    def __init__(self, ledger: Any, event_id: str, exc: Exception) -> None:
        self._ledger, self._event_id, self._exc = ledger, event_id, exc
        self.recorded: list[str] = []

    def record(self, handled: Sequence[Any], at: Any) -> None:
        if any(h.event_id == self._event_id for h in handled):
            raise self._exc
        self._ledger.record(handled, at)
        self.recorded.extend(h.event_id for h in handled)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ledger, name)


class _FaultyDispatcher(Dispatcher):
    faulty: _LedgerFailingOn

    @property
    def ledger(self) -> Any:
        return self.faulty


@pytest.mark.parametrize(
    ("exc", "outcome"),
    [(RecursionError("maximum recursion depth exceeded"), "dead_letter"), (RuntimeError("bug"), "retry")],
)
async def test_a_failure_outside_any_handler_fails_only_its_event(
    dispatcher: Dispatcher, memory: Memory, exc: Exception, outcome: str
) -> None:
    faulty = _FaultyDispatcher(dispatcher.deps)
    faulty.faulty = _LedgerFailingOn(memory.ledger, "t2", exc)
    batch = [
        Incoming(SUBJECT, turn_bytes(0), max_attempts=5, stream_seq=1),
        Incoming(SUBJECT, b"{broken", max_attempts=5, stream_seq=2),
        Incoming(SUBJECT, turn_bytes(2), max_attempts=5, stream_seq=3),
        Incoming(SUBJECT, turn_bytes(3), max_attempts=5, stream_seq=4),
    ]
    verdicts = await faulty.dispatch(batch)
    # the failed batch's handler had already stored t0 and t3: alone, each is a duplicate of that
    assert [v.outcome for v in verdicts] == ["duplicate", "dead_letter", outcome, "duplicate"]
    assert [v.action for v in verdicts] == [ACK, ACK, ACK if outcome == "dead_letter" else RETRY, ACK]
    # each good event recorded exactly once, the broken one dead-lettered once (not again by
    # the one-by-one pass), the faulty one dead-lettered now or retried later, by its nature
    assert sorted(faulty.faulty.recorded) == ["t0", "t3"]
    assert memory.ledger.seen(["t0", "t2", "t3"]) == {"t0", "t3"}
    dead = memory.ledger.dead_letters()
    assert sorted(r["stream_seq"] for r in dead) == ([2, 3] if outcome == "dead_letter" else [2])
    if outcome == "dead_letter":
        assert "RecursionError" in next(r["reason"] for r in dead if r["stream_seq"] == 3)
    assert memory.stats("alice")["resources"] == 3  # each resource once (t2's before its ledger failed)
