"""The client for agents: publish turns and feedback, ask for recall, receive suggestions.

A Main Agent needs five calls: `publish_turn` after every turn, `recall` when it wants
memories, `suggestions()` to hear what memubot has to say, `send_feedback` when the person
reacts, and `forget` when they ask. Publishing goes through JetStream with `Nats-Msg-Id` set
to the event id, so a retry after a lost acknowledgement is dropped by the server.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import nats
from nats.aio.client import Client as NATS
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from daemon.errors import MemubotError
from daemon.runtime.probe import probe
from daemon.subjects import (
    FEEDBACK,
    context_subject,
    conversation_subject,
    rpc_subject,
    scoped_subject,
    suggestion_subject,
)


class RpcError(MemubotError):
    """The daemon answered a request with an error (its type and message are kept)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Client:
    """An async memubot client over one NATS connection."""

    def __init__(self, nc: NATS, timeout: float = 30.0) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.timeout = timeout

    @classmethod
    async def connect(cls, url: str, timeout: float = 30.0, name: str = "memubot-client") -> Client:
        """Connect, failing at once if nothing answers; once connected, reconnect for as long as
        it takes (a daemon restarted by systemd comes back on the same port)."""
        if not await probe(url, timeout=2.0):
            raise RpcError("unavailable", f"no NATS server answers at {url}")
        # a cluster's servers may be given as a comma-separated list (docs/cluster.md)
        servers = [u.strip() for u in url.split(",") if u.strip()]
        nc = await nats.connect(
            servers, name=name, connect_timeout=5, max_reconnect_attempts=-1, reconnect_time_wait=1
        )
        return cls(nc, timeout)

    async def close(self) -> None:
        await self.nc.drain()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- publishing -------------------------------------------------------------------

    async def publish_turn(
        self,
        text: str,
        *,
        scope: str,
        role: str = "user",
        id: str | None = None,
        session: str | None = None,
        speaker: str | None = None,
        agent: str = "main",
        ts: datetime | str | None = None,
        meta: dict[str, Any] | None = None,
        scoped: bool = False,
    ) -> str:
        """Publish one conversation turn; returns its event id (generated when not given).

        `scoped`: on `memubot.in.scoped.<scope>.conversation.<agent>`, which a cluster stores in
        the scope's partition directly (docs/cluster.md); a one-node daemon takes either."""
        event_id = id or f"{agent}-{uuid.uuid4()}"
        body: dict[str, Any] = {
            "id": event_id,
            "scope": scope,
            "agent": agent,
            "session": session,
            "role": role,
            "speaker": speaker,
            "text": text,
            "ts": ts.isoformat() if isinstance(ts, datetime) else (ts or _now()),
            "meta": meta or {},
        }
        subject = conversation_subject(agent)
        await self.publish(scoped_subject(scope, subject) if scoped else subject, body)
        return event_id

    async def publish(self, subject: str, body: dict[str, Any]) -> bool:
        """Publish any event on a `memubot.in.*` subject, deduplicated by its id.

        False when the server dropped it as a duplicate of an id published in the last two
        hours: a corrected event needs a new id.
        """
        data = json.dumps({k: v for k, v in body.items() if v is not None}, ensure_ascii=False).encode()
        ack = await self.js.publish(
            subject, data, headers={"Nats-Msg-Id": str(body["id"])}, timeout=self.timeout
        )
        return not ack.duplicate

    async def send_feedback(
        self,
        suggestion_id: str,
        verdict: str,
        *,
        scope: str | None = None,
        until: datetime | str | None = None,
    ) -> str:
        """Report what the person did with a suggestion: accepted, dismissed or snoozed (`until`:
        when it should come back; default an hour later)."""
        event_id = f"fb-{uuid.uuid4()}"
        body = {
            "id": event_id,
            "suggestion_id": suggestion_id,
            "verdict": verdict,
            "scope": scope,
            "ts": _now(),
            "until": until.isoformat() if isinstance(until, datetime) else until,
        }
        await self.publish(FEEDBACK, body)
        return event_id

    # ---- requests ---------------------------------------------------------------------

    async def request(
        self, verb: str, body: dict[str, Any] | None = None, timeout: float | None = None
    ) -> Any:
        """One RPC round trip; raises RpcError with the daemon's error, TimeoutError if none answers."""
        data = json.dumps(body or {}, ensure_ascii=False).encode()
        try:
            msg = await self.nc.request(rpc_subject(verb), data, timeout=timeout or self.timeout)
        except nats.errors.NoRespondersError as exc:
            raise RpcError("unavailable", f"no memubot daemon answers {rpc_subject(verb)}") from exc
        except nats.errors.TimeoutError as exc:
            raise TimeoutError(
                f"memubot did not answer {verb} within {timeout or self.timeout:.0f}s"
            ) from exc
        reply = json.loads(msg.data)
        if not reply.get("ok"):
            err = reply.get("error") or {}
            raise RpcError(str(err.get("type", "error")), str(err.get("message", reply)))
        return reply["result"]

    async def recall(self, query: str, *, scope: str, k: int = 10, **options: Any) -> list[dict[str, Any]]:
        """The memories that answer `query` (options: ts, session, explain, reinforce)."""
        result = await self.request("recall", {"query": query, "scope": scope, "k": k, **options})
        return list(result["hits"])

    async def memorize(self, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Store turns synchronously (bypassing the stream); returns an outcome per turn."""
        return list((await self.request("memorize", {"turns": turns}))["results"])

    async def forget(
        self,
        *,
        scope: str,
        items: list[str] | None = None,
        query: str | None = None,
        everything: bool = False,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        body = {"scope": scope, "items": items, "query": query, "all": everything, "dry_run": dry_run}
        return dict(await self.request("forget", {k: v for k, v in body.items() if v not in (None, [])}))

    async def stats(self, scope: str | None = None) -> dict[str, Any]:
        return dict(await self.request("stats", {"scope": scope} if scope else {}))

    async def flush(self, timeout: float = 60.0) -> int:
        """Wait until the daemon has handled everything published so far."""
        result = await self.request("flush", {"timeout": timeout}, timeout=timeout + 5)
        return int(result["position"])

    # ---- suggestions and context ----------------------------------------------------------

    async def context(self, session: str) -> AsyncIterator[dict[str, Any]]:
        """The context memubot prefetches for `session`, one message per turn, as it arrives
        (core NATS: it is for the live moment; nothing is kept for a reader who was away)."""
        sub = await self.nc.subscribe(context_subject(session))
        try:
            async for msg in sub.messages:
                try:
                    yield json.loads(msg.data)
                except ValueError:
                    continue
        finally:
            await sub.unsubscribe()

    async def suggestions(self, scope: str, *, durable: str | None = None) -> AsyncIterator[dict[str, Any]]:
        """Suggestions for `scope` as they arrive; with `durable`, also those sent while away.

        Each suggestion is yielded once per id even if the stream delivers it again.
        """
        config = ConsumerConfig(
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL if durable else DeliverPolicy.NEW,
        )
        sub = await self.js.subscribe(suggestion_subject(scope), durable=durable, config=config)
        seen: set[str] = set()
        try:
            async for msg in sub.messages:
                try:
                    suggestion = json.loads(msg.data)
                except ValueError:
                    await msg.term()
                    continue
                await msg.ack()
                key = str(suggestion.get("id"))
                if key in seen:
                    continue
                seen.add(key)
                yield suggestion
        finally:
            await sub.unsubscribe()
