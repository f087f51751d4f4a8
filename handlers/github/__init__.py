"""The GitHub trigger: `handle` (handler.py) takes a batch of deliveries; `summary` writes the
one-line text a delivery is kept as, `state` and `items` its work-item state and drafts, `cases`
what a failing CI run teaches."""

from handlers.github.handler import handle

__all__ = ["handle"]
