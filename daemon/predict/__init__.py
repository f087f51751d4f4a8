"""Predict → act: predictors propose suggestions from new memory, work-item changes and ticks;
the suggestion outbox (outbox.py) delivers them at the right moment, or withdraws them.

PREDICTORS is the one visible list, like handlers.ROUTES: add a module with a class that has
`name`, `propose(trigger, ctx)` and `recheck(suggestion, ctx)`, and list it here.
"""

from __future__ import annotations

from daemon.predict.base import Predictor
from daemon.predict.predictors.conflict import Conflict
from daemon.predict.predictors.digest import Digest
from daemon.predict.predictors.email import EmailFollowUp
from daemon.predict.predictors.github import GithubFollowUp
from daemon.predict.predictors.patterns import Patterns
from daemon.predict.predictors.promise import Promise
from daemon.predict.predictors.upcoming import Upcoming

PREDICTORS: tuple[Predictor, ...] = (
    Upcoming(),
    Promise(),
    Conflict(),
    GithubFollowUp(),
    EmailFollowUp(),
    Digest(),
    Patterns(),
)


def predictor(name: str) -> Predictor | None:
    return next((p for p in PREDICTORS if p.name == name), None)


__all__ = ["PREDICTORS", "Predictor", "predictor"]
