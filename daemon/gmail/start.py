"""Starting the Gmail trigger in the daemon: the fetcher, and the pull loop when subscribed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextlib import AsyncExitStack

from daemon.config import Settings
from daemon.gmail.api import GmailApi
from daemon.gmail.oauth import CredentialFile
from daemon.gmail.pull import Publish, pull_loop
from daemon.gmail.sync import GmailSync
from daemon.state.ledger import Ledger

log = logging.getLogger(__name__)


async def start_gmail(
    stack: AsyncExitStack, settings: Settings, ledger: Ledger, publish: Publish
) -> GmailSync | None:
    """The Gmail fetcher when the trigger is on (None, logged, when off); the pull loop runs until
    the stack unwinds."""
    off = settings.gmail_off()
    if off is not None or settings.gmail_credentials is None or settings.email_scope is None:
        log.info("Gmail trigger off: %s", off)
        return None
    creds = await asyncio.to_thread(
        CredentialFile, settings.gmail_credentials, token_url=settings.gmail_token_url
    )
    api = GmailApi(creds, settings.gmail_api_url, settings.pubsub_api_url)
    stack.callback(api.close)
    sync = GmailSync(api, ledger, publish, settings.email_scope)
    if settings.gmail_topic:
        topic = settings.gmail_topic

        async def first_watch() -> None:
            # Gmail sends nothing before users.watch; the daily gmail_watch tick renews it
            try:
                await sync.renew_watch(topic)
            except Exception as exc:  # Google unreachable: the daily tick tries again
                log.warning("gmail: users.watch at start failed: %s", exc)

        watching = asyncio.create_task(first_watch(), name="memubot-gmail-watch")
        stack.callback(watching.cancel)
    else:
        log.warning(
            "Gmail: no MEMUBOT_GMAIL_TOPIC, so users.watch is not called; notifications stop after 7 days"
        )
    if settings.gmail_subscription:
        stop = asyncio.Event()
        task = asyncio.create_task(
            pull_loop(api, settings.gmail_subscription, publish, settings.email_scope, stop),
            name="memubot-gmail-pull",
        )

        async def halt() -> None:
            stop.set()
            # a pull in flight blocks its worker thread until Pub/Sub answers: do not wait for it
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), 5.0)
            task.cancel()

        stack.push_async_callback(halt)
        log.info("Gmail trigger on: pulling %s", settings.gmail_subscription)
    else:
        log.info("Gmail trigger on: push only (POST /webhooks/gmail)")
    return sync
