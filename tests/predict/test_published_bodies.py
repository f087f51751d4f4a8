"""What the predictors publish is what the bus contract (daemon/contract/outbound.py) says."""

from __future__ import annotations

import json

from daemon.config import Settings
from daemon.contract import outbound
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.prefetch import context_for
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, say


async def test_a_delivered_suggestion_matches_the_suggestion_model(
    pmemory: Memory, settings: Settings, pclock: FakeClock, bus: Bus, outbox: SuggestionOutbox
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 15:10")
    say(pmemory, "t1", "Next Monday at 10:00 I have an important project demo for the board.", pclock.now)
    assert len(engine.after_memory(pmemory, settings, pclock.now)) == 1
    pclock.now = at("2026-03-09 08:00")
    assert await outbox.deliver_due() == 1
    [(subject, body, msg_id)] = bus.sent
    sent = outbound.Suggestion.model_validate(body)  # every key known, none missing
    assert subject == f"memubot.out.suggestion.{sent.scope}" and msg_id == sent.id
    assert sent.deliver_at == pclock.now and sent.evidence


def test_the_prefetched_context_matches_the_context_model(
    pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    say(pmemory, "t1", "My dentist is Dr. Okafor on Elm Street.", at("2026-03-01 09:00"))
    say(pmemory, "t2", "The dentist appointment is on Friday at 3pm.", at("2026-03-01 09:05"))
    body = context_for(
        pmemory,
        settings,
        turn_id="q1",
        scope="alice",
        session="s1",
        text="When do I see the dentist?",
        at=at("2026-03-02 10:00"),
    )
    sent = outbound.Context.model_validate(json.loads(json.dumps(body, ensure_ascii=False)))
    assert sent.memories and sent.turn_id == "q1"
