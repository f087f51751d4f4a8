"""Gmail: OAuth credentials, the Gmail and Pub/Sub API clients, the fetcher, and the pull loop.

A Gmail notification (`memubot.in.gmail`, from the pull loop or the push webhook) names a
mailbox and a historyId; the fetcher (sync.py) reads what changed since its cursor and
publishes every new message as a normalised `memubot.in.email` event (message.py). The
blocking google clients run off the event loop (asyncio.to_thread). The memory core never
imports this package.
"""
