"""DaemonLink: the MCP server's one NATS connection to the running daemon (RPC and publish).

The MCP process holds no memory of its own: every tool call is a request to the daemon. The
link opens on first use, reopens after a drop, and turns "nobody answers" into one clear error.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing
from typing import Any

import nats.errors
import nats.js.errors

from daemon.client import Client, RpcError
from daemon.client.discovery import answering_urls, candidate_urls
from daemon.config import Settings
from daemon.errors import MemubotError

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 60.0  # a memorize of many turns embeds them all before it answers


class DaemonUnreachable(MemubotError):
    """No memubot daemon answers on any broker this server knows of."""


class DaemonLink:
    """One NATS connection to the daemon, opened on first use and reopened after it drops.

    The broker is looked up anew on each reconnect (the runtime file names the embedded one, then
    MEMUBOT_NATS_URL): a daemon restarted on another port is found without restarting this server.
    """

    def __init__(self, settings: Settings, timeout: float = REQUEST_TIMEOUT) -> None:
        self.settings = settings
        self.timeout = timeout
        self._client: Client | None = None
        self._url: str | None = None
        self._connecting = asyncio.Lock()  # concurrent tool calls open one connection, not several

    def _unreachable(self, why: str) -> DaemonUnreachable:
        return DaemonUnreachable(f"memubot daemon not reachable: {why}; start it with `memubot run`")

    async def client(self) -> Client:
        async with self._connecting:
            if self._client is not None and self._client.nc.is_connected:
                return self._client
            await self.close()
            return await self._connect()

    async def _connect(self) -> Client:
        urls = candidate_urls(self.settings)
        async with aclosing(answering_urls(urls)) as answering:
            async for url in answering:
                try:
                    self._client = await Client.connect(url, timeout=self.timeout, name="memubot-mcp")
                except (OSError, RpcError, nats.errors.Error) as exc:
                    log.warning("cannot connect to %s: %s", url, exc)
                    continue
                self._url = url
                return self._client
        raise self._unreachable(f"no NATS server answers at {', '.join(urls)}")

    async def request(self, verb: str, body: dict[str, Any]) -> Any:
        """One RPC round trip; the daemon's own error comes back as an RpcError."""
        client = await self.client()
        try:
            return await client.request(verb, body)
        except RpcError as exc:
            if exc.kind == "unavailable":
                raise self._unreachable(f"the broker at {self._url} answers, but no daemon listens") from exc
            raise

    async def publish(self, subject: str, body: dict[str, Any]) -> bool:
        """Publish an event into the daemon's input stream; False if JetStream dropped it as a repeat."""
        client = await self.client()
        try:
            return await client.publish(subject, body)
        except (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError) as exc:
            raise self._unreachable(f"the broker at {self._url} has no memubot input stream") from exc

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                await client.nc.close()
            except Exception as exc:  # closing a connection that already failed
                log.debug("closing the NATS connection: %s", exc)
