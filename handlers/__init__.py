"""ROUTES: the one visible list of trigger handlers, event type → handler.

Each handler is a plain async function in its own module. The conversation handler is the only
one so far; the daemon (issue 4) wires ROUTES to the bus.
"""

from handlers import conversation

ROUTES = {
    "conversation": conversation.handle,
}
