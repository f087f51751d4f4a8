"""What a mail does to a plan, read sentence by sentence (predict/plan_news.py): another event
moved beside a plan said to stand, a proposal said without a question mark, a cancellation with a
vague "later", another appointment of the same day, a new hour told without its day, a change
said only as a condition. Sentences written after the code, in the way a stranger would."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.predict.plan_news import PlanNews, read_mail

TZ = ZoneInfo("America/Chicago")
SENT = datetime(2026, 4, 13, 9, 15, tzinfo=TZ)  # Monday 13 April 2026


def news(plan: str, due: datetime, mail: str, sender: str = "Dana") -> PlanNews | None:
    return read_mail(f"E-mail from {sender} to me: 'news'\n\n{mail}", SENT, plan, due, TZ, "m1", sender)


PILATES = ("pilates with dana thursday 7pm", datetime(2026, 4, 16, 19, 0, tzinfo=TZ))


@pytest.mark.parametrize(
    "mail",
    [
        "Heads up: the studio bumped Tuesday's barre class to Wednesday at 6. Thursday pilates is still on though!",
        "Barre on Tuesday is cancelled this week (instructor sick). Thursday's pilates goes ahead as planned.",
    ],
)
def test_another_event_changed_beside_the_plan_said_to_stand_is_no_news(mail: str) -> None:
    assert news(*PILATES, mail) is None


def test_a_plan_said_to_stand_in_chinese_is_no_news() -> None:
    plan, due = "周三上午十点产品评审会", datetime(2026, 4, 15, 10, 0, tzinfo=TZ)
    mail = "各位：周三下午的新人培训改到周四下午三点。周三上午的评审会照常进行。"
    assert news(plan, due, mail, "行政部") is None


def test_a_plan_said_to_stand_with_another_change_of_it_is_an_update() -> None:
    plan, due = "quiz night at the Anchor friday 8pm", datetime(2026, 4, 17, 20, 0, tzinfo=TZ)
    mail = "Friday's quiz night still starts at 8, but we've moved it upstairs to the Loft room."
    got = news(plan, due, mail, "The Anchor")
    assert got is not None and got.moved_to == due and "Loft room" in got.update


def test_a_stand_that_names_another_hour_is_a_move() -> None:
    mail = "Studio's double booked at 7 so see you thursday at 8:15 instead of 7!"
    got = news(*PILATES, mail)
    assert got is not None and got.moved_to == datetime(2026, 4, 16, 20, 15, tzinfo=TZ)


def test_a_proposal_without_a_question_mark_is_no_new_plan() -> None:
    plan, due = "signing the lease with Marta on friday at 11", datetime(2026, 4, 17, 11, 0, tzinfo=TZ)
    mail = (
        "Marta is stuck in Denver on Friday. We would like to propose pushing the signing to "
        "Monday 20 April at 2pm. Please let us know."
    )
    got = news(plan, due, mail, "Marta")
    assert got is not None and got.moved_to is None
    assert got.proposed == datetime(2026, 4, 20, 14, 0, tzinfo=TZ)


@pytest.mark.parametrize(
    "mail",
    [
        "So sorry, I've got to cancel pilates Thursday. Let's pick it up again next week sometime.",
        "No pilates on Thursday, I'm away at a conference. We'll carry on the Thursday after as normal.",
    ],
)
def test_a_cancellation_with_a_later_day_that_is_no_new_time_calls_the_plan_off(mail: str) -> None:
    got = news(*PILATES, mail)
    assert got is not None and got.moved_to is None and got.proposed is None and not got.update


def test_another_appointment_of_the_same_day_is_no_news() -> None:
    plan, due = "dentist tues 2:15", datetime(2026, 4, 14, 14, 15, tzinfo=TZ)
    mail = "Hello, Leo's cleaning on Tuesday at 9:00 AM has been cancelled as the hygienist is out."
    assert news(plan, due, mail, "Lakeview Dental") is None


def test_the_same_appointment_cancelled_at_its_own_hour_is_news() -> None:
    plan, due = "dentist tues 2:15", datetime(2026, 4, 14, 14, 15, tzinfo=TZ)
    mail = "Hello, your dentist appointment on Tuesday at 2:15 PM has been cancelled as Dr. Ruiz is out."
    got = news(plan, due, mail, "Lakeview Dental")
    assert got is not None and got.moved_to is None


@pytest.mark.parametrize(
    ("plan", "due", "mail", "new"),
    [
        (
            "train to St. Louis saturday 7:40am",
            datetime(2026, 4, 18, 7, 40, tzinfo=TZ),
            "Your Saturday train has a schedule change. New departure: 8:25 AM (was 7:40 AM).",
            datetime(2026, 4, 18, 8, 25, tzinfo=TZ),
        ),
        (
            "周日早上八点飞成都",
            datetime(2026, 4, 19, 8, 0, tzinfo=TZ),
            "尊敬的旅客：您4月19日的成都航班起飞时间由08:00调整为09:50，请留意。",
            datetime(2026, 4, 19, 9, 50, tzinfo=TZ),
        ),
    ],
)
def test_a_new_hour_told_without_its_day_moves_the_plan_on_its_day(
    plan: str, due: datetime, mail: str, new: datetime
) -> None:
    got = news(plan, due, mail, "Rail")
    assert got is not None and got.moved_to == new


@pytest.mark.parametrize(
    "mail",
    [
        "Reminder: your eye exam is on Thursday at 11:30 AM. If you need to cancel or reschedule, please call us.",
        "温馨提示：您预约的周四上午11点半验光。如需更改或取消预约，请提前一天来电。",
    ],
)
def test_a_change_said_only_as_a_condition_is_no_news(mail: str) -> None:
    plan, due = "eye exam thursday 11:30", datetime(2026, 4, 16, 11, 30, tzinfo=TZ)
    assert news(plan, due, mail, "Clear Optical") is None


def test_a_part_of_the_plans_day_called_off_moves_nothing() -> None:
    plan, due = "周五上午十点半上钢琴课", datetime(2026, 4, 17, 10, 30, tzinfo=TZ)
    got = news(plan, due, "家长您好，4月17日上午钢琴课老师请假，课程取消。", "琴行")
    assert got is not None and got.moved_to is None
