"""Whose plan, read from how Chinese names people: a name (阿芳, 小王, 老李) with where they are from
before it ("隔壁铺的阿芳") is someone else's. Sentences written after the code (2026-12-07), as a
stranger would say them."""

from __future__ import annotations

import pytest

from daemon.predict.plans import reasons


@pytest.mark.parametrize(
    "text",
    [
        "对门杂货店的阿珍下礼拜二去做胃镜，店里叫她侄女看两天",
        "隔壁班的小周周四下午考科目三",
        "车队里的老郑后天上午去社保局办退休",
    ],
)
def test_a_name_with_where_they_are_from_is_someone_elses(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards: the speaker takes part, or the modifier is the speaker's own group and no name follows
        "楼上的阿伟周六搬家，我过去帮他抬冰箱",
        "我的小组周三下午两点答辩",
    ],
)
def test_a_plan_the_speaker_is_in_stays_theirs(text: str) -> None:
    assert "other" not in reasons(text)
