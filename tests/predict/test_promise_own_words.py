"""A promise is checked on in its own words: the day the person gave it, not a deadline or a plan of
someone else's told beside it; telling someone to do a thing is no promise of one's own. Sentences
written after the code (2026-12-07), as someone who had not read it would say them."""

from __future__ import annotations

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.predictors.promise import is_promise, promised_part
from tests.conftest import FakeClock
from tests.predict.conftest import at, say


@pytest.mark.parametrize(
    "text",
    [
        "reminded my brother to renew his car tax, he always forgets",
        "told the intern to email the venue again about the projector",
        "i told mum to call the GP first thing monday",
    ],
)
def test_telling_someone_else_to_do_it_is_no_promise(text: str) -> None:
    assert not is_promise(text)


@pytest.mark.parametrize(
    "text",
    [
        "agreed to send the wedding playlist to Tomasz by the weekend",
        "promised Ines to sign the lease on thursday",
    ],
)
def test_agreeing_or_promising_to_do_it_is(text: str) -> None:
    assert is_promise(text)


@pytest.mark.parametrize(
    ("text", "mine", "theirs"),
    [
        ("今晚我把装修合同扫描件发给林工，她后天上午要拿去物业盖章", "林工", "盖章"),
        ("I'll courier the spare keys to Dario today, he flies out on Friday", "keys", "flies"),
    ],
)
def test_the_promised_part_leaves_out_what_someone_else_does_next(text: str, mine: str, theirs: str) -> None:
    part = promised_part(text)
    assert mine in part and theirs not in part


@pytest.mark.parametrize(
    "text",
    [
        # the promise's day is tonight; the deadline after it is the other person's
        "Tonight I'm finally sending Mr Okafor the revised quote. He wants to sign it at Thursday's site visit.",
        "今晚一定把发票抬头改好发给周会计，她周四上午要报账。",
    ],
)
async def test_a_promise_for_tonight_is_checked_on_the_next_morning_not_after_the_deadline(
    text: str, pmemory: Memory, settings: Settings, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 20:20")  # a Monday evening
    say(pmemory, "c1", text, pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    [s] = [s for s in pmemory.suggestions.of_scope("alice") if s.kind == "follow_up"]
    assert s.deliver_at.astimezone(at("2026-03-03 09:00").tzinfo).date().isoformat() == "2026-03-03"
    assert ("Okafor" in s.title or "周会计" in s.title) and "报账" not in s.title and "sign it" not in s.title
