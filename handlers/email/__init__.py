"""The e-mail trigger: `handle` (handler.py) takes a batch of messages; `items` draws the
contacts, meetings, deadlines and promises a message carries."""

from handlers.email.handler import handle

__all__ = ["handle"]
