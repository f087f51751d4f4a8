"""GitHub: the webhook endpoint, the Events API poller and what both reduce a GitHub event to.

`webhook` (signed deliveries → bus events), `poll` (the person's events when no webhook can
reach the machine), `events_api` (Events API items → the webhook form), `ids` (stable event ids),
`reduce` (which deliveries matter) and `enrich` (what a pull request changed). The handler that
turns these events into memory and work-item state is `handlers/github/handler.py`.
"""
