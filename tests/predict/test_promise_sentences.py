"""A promise is read in its own sentence, and the words around it belong to their own things.
Sentences written after the code, as someone who had not read it would say them."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.predict.plan_text import said_of
from daemon.predict.predictors.promise import is_promise, promised_act, promised_sentence, tells_done

TZ = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    "text",
    [
        # a promise beside a report of something else done
        "meeting w the landlord was ok. told her i'll email the signed inventory on friday. already paid the deposit last week",
        "Told Priya I will ping the vendor tomorrow morning. The invoice went out yesterday.",
        # a promise with its subject left out, as Chinese leaves it
        "周四前必须把报销单交给财务，不然这个月又拿不到钱",
        # 应承 (Cantonese and written Chinese for "promised")
        "我應承咗阿May禮拜五之前覆佢份合約",
    ],
)
def test_a_promise_in_its_own_sentence(text: str) -> None:
    assert is_promise(text)


@pytest.mark.parametrize(
    "text",
    [
        # 我 before a relation is that person; 回诊 is a follow-up visit, not a reply
        "我爸下周二回诊，我姐开车送他",
        "我老公明天要回老家一趟",
        # someone else's obligation
        "她得把论文初稿交给导师",
        # done, in the same sentence as the promise words
        "told him i'd send the photos, sent them this morning",
    ],
)
def test_no_promise_of_the_persons(text: str) -> None:
    assert not is_promise(text)


def test_the_act_of_a_promise_told_with_ill() -> None:
    assert promised_act("Told Marek i'll send the floor plan") == "send the floor plan (Marek)"


def test_the_quote_of_a_plan_leaves_out_the_sentences_of_other_days() -> None:
    said = datetime(2026, 5, 4, 20, 0, tzinfo=TZ)  # a Monday
    text = (
        "今天被客户骂了一下午，真的心累。周三上午十点去车管所换驾照，要带身份证和体检表。"
        "周末我妈又要来，家里还没收拾"
    )
    quote = said_of(text, said, TZ)
    assert "车管所" in quote and "心累" not in quote and "收拾" not in quote


@pytest.mark.parametrize(
    "text", ["份proposal send咗俾客喇，收工", "季度总结终于写完了", "阿May份合約睇完喇，comment晒俾佢"]
)
def test_done_in_cantonese_and_with_wan(text: str) -> None:
    # written after blind10: 咗 is Cantonese 了, and "V完了 / V完喇" reports the thing finished
    assert tells_done(text)


@pytest.mark.parametrize(
    ("text", "promise"),
    [
        # reaching someone, with what the speaker will do (the second passed before too)
        ("聽日朝早我一定 call 返個地產問下按金幾時退", True),
        ("下礼拜一我要通知物业来修电梯门禁", True),
        # guards (pass before the change too): a number or a phone that says nothing of doing
        ("我的联系方式改咗，新號碼遲啲俾你", False),
        ("我的 Pixel 又 call 唔出，煩", False),
    ],
)
def test_a_promise_to_reach_someone(text: str, promise: bool) -> None:
    assert is_promise(text) is promise


@pytest.mark.parametrize(
    "text",
    [
        # written after the change (2026-12-06; failed on the code before): an emoji ends the
        # report of what is done, and the promise after it stands
        "finished the brand guidelines 🙌 tomorrow i'll email the invoice to Marco, promise",
        "done with the tax return 😮‍💨 i'll call mum back tonight",
        "finally submitted the grant report ✅ i will pay the electrician on friday",
    ],
)
def test_a_promise_after_a_done_report_and_an_emoji(text: str) -> None:
    assert is_promise(text)
    assert promised_sentence(text).startswith(("tomorrow", "i"))  # the promise, not the report
