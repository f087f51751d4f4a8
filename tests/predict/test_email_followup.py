"""The e-mail follow-up's timing: how long without an answer is unusual for a sender."""

from __future__ import annotations

from datetime import timedelta

from daemon.predict.predictors.email import LONGEST, NO_HISTORY, SHORTEST, usual_wait


def test_twice_the_median_of_the_past_replies() -> None:
    assert usual_wait([1.0, 3.0, 8.0]) == timedelta(hours=6)


def test_no_history_waits_a_day_and_the_wait_is_bounded() -> None:
    assert usual_wait([]) == NO_HISTORY == timedelta(hours=24)
    assert usual_wait([0.05, 0.1]) == SHORTEST  # a sender answered within minutes: still an hour
    assert usual_wait([60.0, 90.0]) == LONGEST  # a slow correspondent: at most two days
