"""A newer statement that answers one thing of an older one with several does not retire the
older: the rest of it is still true (nothing told is lost). Sentences written after the code."""

from __future__ import annotations

from datetime import timedelta

from daemon.memory import Memory
from daemon.memory.write.updates import says_more
from tests.conftest import FakeClock, turn


def _active(memory: Memory, scope: str, needle: str) -> bool:
    rows = memory.store.con.execute(
        "SELECT superseded_by FROM items WHERE scope = ? AND l0 LIKE ?", [scope, f"%{needle}%"]
    ).fetchall()
    assert rows, needle
    return all(r[0] is None for r in rows)


def test_finishing_one_task_of_a_turn_keeps_its_trip(memory: Memory, clock: FakeClock) -> None:
    memory.memorize(
        [
            turn(
                "p1",
                "Saturday 7:05 flight to Lyon from Gatwick, already checked in. Giving the keynote at the "
                "robotics meetup on Sunday. Still need to rewrite the demo script before Friday.",
                at=clock.now,
            )
        ]
    )
    clock.now += timedelta(days=1)
    memory.memorize(
        [turn("p2", "Demo script rewrite is finally done, sent it to Hana for a read.", at=clock.now)]
    )
    assert _active(memory, "alice", "flight to Lyon")


def test_a_chinese_turn_with_three_things_keeps_the_other_two(memory: Memory, clock: FakeClock) -> None:
    memory.memorize(
        [
            turn(
                "z1",
                "下周二早上八点的高铁去杭州，票买好了。周三上午在西湖边的酒店有个客户提案。"
                "老板又让我周一之前把报价单改第三版，头大",
                at=clock.now,
            )
        ]
    )
    clock.now += timedelta(days=1)
    memory.memorize([turn("z2", "报价单第三版终于改完了，已经发给老板了", at=clock.now)])
    assert _active(memory, "alice", "高铁去杭州")


def test_a_title_with_a_full_stop_ends_no_sentence() -> None:
    # written after blind7 lost its withdrawal: "Prof." split the promise in two
    assert not says_more(
        "promised Dr. Osei I'd send the ethics form by thursday", "sent Dr. Osei the ethics form"
    )
    assert says_more("Saw Dr. Osei about the ethics form. Flight to Accra on Friday.", "ethics form is sent")
