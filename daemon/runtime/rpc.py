"""Request/reply API on `memubot.rpc.<verb>`: recall, memorize, forget, restore, consolidate,
stats, profile, suggestions, flush, deadletters.

Every request gets exactly one JSON reply: `{"ok": true, "result": {...}}` or
`{"ok": false, "error": {"type": ..., "message": ...}}`; a bad request is answered, never
dropped — an unknown verb, an unknown key or an oversized query included. The verbs are plain
async functions over the memory and the dispatcher; this module owns only the NATS side
(subscriptions, decoding, the reply envelope).

The subscriptions are FastStream subscribers on the daemon's own connection (daemon/
shared_broker.py): a verb's handler returns its reply and FastStream publishes it to the
caller's inbox. The handlers see the raw message (no FastStream decoding or dependency
injection): the request is parsed here, with its bounds on size and depth, so that a bad one is
answered with the reason instead of failing inside the framework.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import date, datetime
from typing import Any

import nats.errors
from faststream.nats import NatsMessage, NatsRouter
from faststream.nats.subscriber.usecases.core_subscriber import CoreSubscriber
from nats.aio.client import Client as NATS

from daemon import bounded_json, jobs
from daemon.contract import requests
from daemon.errors import InvalidInput, MemubotError
from daemon.events import MAX_EVENT_BYTES, parse_ts
from daemon.memory import MAX_QUERY_CHARS, Memory
from daemon.memory.profile import render as render_profile
from daemon.runtime.connection import settle
from daemon.runtime.dispatch import Dispatcher, Incoming
from daemon.runtime.metrics import Metrics
from daemon.runtime.partitions import Plan
from daemon.runtime.shards import Shards, add_counts
from daemon.runtime.shared_broker import SharedBroker
from daemon.state.suggestions import STATUSES, suggestion_json
from daemon.subjects import conversation_subject, rpc_partition_subject, rpc_subject

log = logging.getLogger(__name__)

# Each verb and the request keys it reads (from its request model, daemon/contract/requests.py):
# any other key is refused with its name, as the TOML settings are, so that a typo ("explian")
# is an error instead of a silently ignored option. memorize reads `turns`, or the request is
# itself one turn (an event: see rpc_memorize).
KEYS: dict[str, frozenset[str]] = {verb: requests.keys(verb) for verb in requests.VERBS}
VERBS = tuple(KEYS)
MAX_REQUEST_BYTES = 4 * MAX_EVENT_BYTES
MAX_MEMORIZE_TURNS = requests.MAX_MEMORIZE_TURNS
# how long a request forwarded to the owner of its scope's partition may take (docs/cluster.md)
FORWARD_TIMEOUT_S = 60.0


class NotFound(MemubotError):
    """The request names something that does not exist."""


def restore_refusal(memory: Memory, scope: str, item_id: str) -> str:
    """Why an item cannot be restored: there is no such item, or it is in recall already."""
    if memory.get_item(scope, item_id) is None:
        return f"no item {item_id!r} in scope {scope!r}"
    return f"item {item_id!r} in scope {scope!r} is neither retired nor archived: recall already returns it"


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    return str(value)


def encode(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, default=_json_default).encode()


MAX_ERROR_CHARS = 1000  # an error quoting a caller's huge value must not send it back whole


def error_reply(kind: str, message: str) -> bytes:
    if len(message) > MAX_ERROR_CHARS:
        message = f"{message[:MAX_ERROR_CHARS]}… ({len(message)} characters)"
    return encode({"ok": False, "error": {"type": kind, "message": message}})


def _field(req: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    value = req.get(name, default)
    if value is None:
        return default
    # bool is an int in Python: refuse it where a number is meant
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        wanted = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidInput(f"field {name!r} must be {wanted}, got {type(value).__name__}")
    return value


def _known_keys(verb: str, req: dict[str, Any]) -> None:
    unknown = sorted(set(req) - KEYS[verb])
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        raise InvalidInput(
            f"unknown field{'s' if len(unknown) > 1 else ''} {names} for {verb}; known: {', '.join(sorted(KEYS[verb]))}"
        )


def _as_message(msg: NatsMessage) -> NatsMessage:
    """FastStream's decoder for the RPC subscribers: the handler gets the message itself."""
    return msg


def _required(req: dict[str, Any], name: str) -> str:
    value = _field(req, name, str)
    if not value or not value.strip():
        raise InvalidInput(f"missing required field {name!r}")
    return str(value)


class RpcServer:
    """Serves the verbs; one subscriber per verb (each answers its requests in order)."""

    def __init__(
        self,
        nc: NATS,
        dispatcher: Dispatcher,
        *,
        flush: Callable[[float], Awaitable[int]],
        pending: Callable[[], Awaitable[tuple[int, int]]],
        after_write: Callable[[], Awaitable[Any]],
        metrics: Metrics | None = None,
        backlog: Callable[[], dict[str, Any] | None] | None = None,
        plan: Plan | None = None,
        shards: Shards | None = None,
    ) -> None:
        self.nc = nc
        self.plan = plan
        self.dispatcher = dispatcher
        # which file answers for a scope: the one file, or in a cluster its partition's
        self.shards = shards or Shards.single(dispatcher)
        self._flush = flush
        self._pending = pending
        self._after_write = after_write
        self._backlog = backlog
        self.metrics = metrics or dispatcher.metrics
        # no FastStream decoding and no dependency injection: a handler gets the message as it came
        self.broker = SharedBroker(nc, apply_types=False)
        self._subs: list[CoreSubscriber] = []
        for verb in VERBS:
            sub = self.broker.subscriber(rpc_subject(verb), queue="memubot", decoder=_as_message)
            sub(self._handler(verb))
            self._subs.append(sub)
        # In a cluster, each owned partition's verbs too: a router (this daemon's verbs on another
        # instance) forwards a request there when the scope is in a partition it does not own.
        for part in plan.owned if plan is not None else ():
            for verb in VERBS:
                sub = self.broker.subscriber(
                    rpc_partition_subject(part, verb), queue="memubot", decoder=_as_message
                )
                sub(self._handler(verb, route=False))
                self._subs.append(sub)
        # Every other subject under memubot.rpc. gets its invalid_request here: without this
        # subscription the server answers "no responders" and the caller learns nothing. Known
        # verbs reach this subscription too and are left to their own (one reply each). Its own
        # queue group: the server picks one member per group *name* among all matching
        # subscriptions, so sharing "memubot" would hand known verbs to this one alone. It
        # replies itself (no_reply): FastStream would answer a known verb a second time, empty.
        # On a router of its own, so that it comes after the verbs in `broker.subscribers`
        # (FastStream's in-memory test broker hands a request to the first match).
        # In a cluster it takes one token only: a partition's verb (`memubot.rpc.part.<p>.<verb>`)
        # is its owner's alone, and with no owner running the router hears "no responders" at once.
        fallback = NatsRouter()
        unknown = fallback.subscriber(
            rpc_subject(">" if plan is None else "*"),
            queue="memubot-unknown",
            decoder=_as_message,
            no_reply=True,
        )
        unknown(self._on_unknown)
        self.broker.include_router(fallback)
        self._subs.append(unknown)

    async def start(self) -> None:
        await self.broker.start()
        # the server has the subscriptions before anyone is told we are ready
        await settle(self.nc)
        log.info("answering requests on %s", ", ".join(rpc_subject(v) for v in VERBS))

    async def _on_unknown(self, msg: NatsMessage) -> None:
        verb = msg.raw_message.subject.removeprefix(rpc_subject(""))
        if verb in KEYS:
            return
        shown = verb if len(verb) <= 64 else verb[:64] + "…"
        log.info("rpc: unknown verb %r", shown)
        # one metrics label for every unknown verb: a caller must not grow the label set
        self.metrics.rpc("unknown", "invalid")
        if msg.reply_to:
            await msg.raw_message.respond(
                error_reply("invalid_request", f"unknown verb {shown!r}; known verbs: {', '.join(VERBS)}")
            )

    async def stop(self, timeout: float = 30.0) -> None:
        """Stop taking requests; requests in hand are answered first (drain, not unsubscribe:
        unsubscribing cancels a running callback, and a forget would commit unanswered)."""
        for sub in self._subs:
            nats_sub, sub.subscription = sub.subscription, None  # drained here, not unsubscribed
            if nats_sub is None:
                continue
            try:
                await asyncio.wait_for(nats_sub.drain(), timeout)  # type: ignore[no-untyped-call]
            except Exception as exc:  # the connection may already be closing, or a request hangs
                log.warning("rpc %s: not drained: %s", nats_sub.subject, exc or type(exc).__name__)
        try:
            await self.broker.stop()  # its subscribers marked stopped; the connection stays open
        except Exception as exc:  # a shutdown goes on whatever the framework says
            log.warning("rpc: stopping the FastStream broker: %s", exc or type(exc).__name__)

    def _handler(self, verb: str, route: bool = True) -> Callable[[NatsMessage], Awaitable[bytes]]:
        method: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] = getattr(self, f"rpc_{verb}")

        async def on_request(msg: NatsMessage) -> bytes:
            reply = await self.answer(verb, method, msg.body, route=route)
            limit = self.nc.max_payload
            if len(reply) > limit:
                # the bus would refuse it and the caller would hear nothing: say why instead
                log.warning("rpc %s: a reply of %d bytes is over the bus's %d", verb, len(reply), limit)
                reply = error_reply(
                    "too_large",
                    f"the reply would be {len(reply)} bytes, more than the bus carries ({limit}); "
                    "ask for less (a smaller 'limit' or 'k')",
                )
            return reply

        on_request.__name__ = f"rpc_{verb}" if route else f"rpc_part_{verb}"
        return on_request

    def _elsewhere(self, verb: str, req: dict[str, Any]) -> int | None:
        """The partition whose owner answers this request, when it is not this instance; None:
        answered here (no cluster, a partition of ours, or no scope: docs/cluster.md)."""
        plan = self.plan
        if plan is None:
            return None
        if verb == "memorize":
            turns = req.get("turns", [req])
            scopes = {
                t["scope"]
                for t in (turns if isinstance(turns, list) else [])
                if isinstance(t, dict) and isinstance(t.get("scope"), str) and t["scope"]
            }
        else:
            scope = req.get("scope")
            scopes = {scope} if isinstance(scope, str) and scope else set()
        parts = {plan.partition(s) for s in scopes}
        foreign = parts - set(plan.owned)
        if not foreign:
            return None
        if len(parts) > 1:
            raise InvalidInput(
                f"in a cluster one {verb} request holds the scopes of one instance: these are in "
                f"partitions {sorted(parts)}, not all owned by one instance; send one request per scope"
            )
        return foreign.pop()

    async def _forward(self, part: int, verb: str, data: bytes) -> bytes:
        subject = rpc_partition_subject(part, verb)
        try:
            msg = await self.nc.request(subject, data, timeout=FORWARD_TIMEOUT_S)
        except nats.errors.NoRespondersError:
            return error_reply("unavailable", f"no memubot instance owns partition {part} ({subject})")
        except nats.errors.TimeoutError:
            return error_reply(
                "unavailable",
                f"no memubot instance answered {subject} within {FORWARD_TIMEOUT_S:.0f}s "
                f"(is the owner of partition {part} running?)",
            )
        return bytes(msg.data)

    async def answer(
        self,
        verb: str,
        method: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
        data: bytes,
        route: bool = True,
    ) -> bytes:
        t0 = time.perf_counter()
        outcome = "ok"
        try:
            # size, UTF-8, JSON and nesting depth (a deep request raised RecursionError here)
            req = bounded_json.load(data, max_bytes=MAX_REQUEST_BYTES, what="request") if data.strip() else {}
            if not isinstance(req, dict):
                raise InvalidInput(f"request must be a JSON object, got {type(req).__name__}")
            if verb != "memorize" or "turns" in req:
                _known_keys(verb, req)
            part = self._elsewhere(verb, req) if route else None
            if part is not None:
                # the owner answers, with the same reply it would give the caller directly
                reply = await self._forward(part, verb, data)
                outcome = "forwarded"
            else:
                reply = encode({"ok": True, "result": await method(req)})
        except NotFound as exc:
            outcome, reply = "not_found", error_reply("not_found", str(exc))
        except (InvalidInput, MemubotError) as exc:
            outcome, reply = "invalid", error_reply("invalid_request", str(exc))
        except TimeoutError as exc:
            outcome, reply = "timeout", error_reply("timeout", str(exc) or "timed out")
        except Exception as exc:  # a bug must still answer, and never stop the daemon
            log.exception("rpc %s failed", verb)
            outcome, reply = "error", error_reply("internal", f"{type(exc).__name__}: {exc}")
        self.metrics.rpc(verb, outcome)
        log.info("rpc %s: %s in %.1f ms", verb, outcome, 1000 * (time.perf_counter() - t0))
        return reply

    # ---- verbs ------------------------------------------------------------------------

    async def _known_scope(self, scope: str) -> str:
        """An unknown scope is an error, not an empty answer: a typo must not look like amnesia."""
        if not await asyncio.to_thread(self.shards.memory(scope).has_scope, scope):
            raise NotFound(
                f"no memories in scope {scope!r} (nothing was stored for it, or all was forgotten)"
            )
        return scope

    async def rpc_recall(self, req: dict[str, Any]) -> dict[str, Any]:
        scope, query = _required(req, "scope"), _required(req, "query")
        if len(query) > MAX_QUERY_CHARS:
            # a query is a question or a cue; a long one costs seconds of tokenising and its
            # tail would not reach the embedder anyway. Refused, and not quoted back.
            raise InvalidInput(
                f"field 'query' is too long: {len(query)} characters, at most {MAX_QUERY_CHARS}"
            )
        k = _field(req, "k", int, 10)
        if not 1 <= k <= requests.MAX_RECALL_K:
            raise InvalidInput(f"field 'k' must be between 1 and {requests.MAX_RECALL_K}, got {k}")
        ts = parse_ts(req["ts"], "ts") if req.get("ts") is not None else None
        explain = bool(_field(req, "explain", bool, False))
        await self._known_scope(scope)
        memory = self.shards.memory(scope)
        t0 = time.perf_counter()
        hits = await asyncio.to_thread(
            memory.recall,
            query,
            scope,
            k=k,
            ts=ts,
            session=_field(req, "session", str),
            explain=explain,
            reinforce=bool(_field(req, "reinforce", bool, True)),
        )
        seconds = time.perf_counter() - t0
        self.metrics.recall_seconds(seconds)
        # the query is not echoed: the caller has it, and a long one would double the reply
        reply = {
            "scope": scope,
            "latency_ms": round(1000 * seconds, 2),
            "hits": [h.as_json(explain) for h in hits],
        }
        if explain:  # what recall no longer returns, and what replaced it (the undo is `restore`)
            reply["retired"] = await asyncio.to_thread(memory.retired_near, query, scope)
        return reply

    async def rpc_memorize(self, req: dict[str, Any]) -> dict[str, Any]:
        """Store turns now, through the same dispatcher as the bus (ledger, dead letters)."""
        turns = req.get("turns", [req])
        if not isinstance(turns, list) or not turns:
            raise InvalidInput("field 'turns' must be a non-empty list of conversation turns")
        if len(turns) > MAX_MEMORIZE_TURNS:
            raise InvalidInput(f"at most {MAX_MEMORIZE_TURNS} turns per request, got {len(turns)}")
        batch = []
        for turn in turns:
            agent = turn.get("agent") if isinstance(turn, dict) else None
            subject = conversation_subject(agent if isinstance(agent, str) and agent else "main")
            batch.append(Incoming(subject, encode(turn)))
        verdicts = await self.shards.dispatch(batch)  # each turn to its scope's file
        await self._after_write()
        return {
            "results": [
                {"id": v.event_id, "outcome": v.outcome, "reason": v.reason, "dead_letter": v.dead_letter_id}
                for v in verdicts
            ]
        }

    async def rpc_forget(self, req: dict[str, Any]) -> dict[str, Any]:
        scope = _required(req, "scope")
        items = _field(req, "items", list, [])
        if not all(isinstance(i, str) for i in items):
            raise InvalidInput("field 'items' must be a list of item ids")
        if sum([bool(items), req.get("query") is not None, bool(req.get("all"))]) != 1:
            raise InvalidInput("forget needs exactly one of: 'items', 'query', 'all'")
        await self._known_scope(scope)
        shard = self.shards.of(scope)
        counts = await asyncio.to_thread(
            shard.memory.forget,
            scope,
            item_ids=items,
            query=_field(req, "query", str),
            everything=bool(_field(req, "all", bool, False)),
            dry_run=bool(_field(req, "dry_run", bool, False)),
        )
        if not req.get("dry_run"):
            # the profile file must not go on quoting what was just forgotten (the CLI's file path
            # does the same)
            await asyncio.to_thread(jobs.refresh_profile, shard.memory, shard.dispatcher.deps.settings)
        await self._after_write()
        return {"scope": scope, "deleted": counts, "dry_run": bool(req.get("dry_run"))}

    async def rpc_restore(self, req: dict[str, Any]) -> dict[str, Any]:
        """Undo a retirement or an archive: the item is back in recall."""
        scope, item_id = _required(req, "scope"), _required(req, "item")
        await self._known_scope(scope)
        memory = self.shards.memory(scope)
        if not await asyncio.to_thread(memory.restore, scope, item_id):
            raise NotFound(await asyncio.to_thread(restore_refusal, memory, scope, item_id))
        await self._after_write()
        return {"scope": scope, "restored": item_id}

    async def rpc_consolidate(self, req: dict[str, Any]) -> dict[str, Any]:
        """The daily lifecycle job now (tiers, archiving, the profile file), as the tick runs it."""
        scope = _field(req, "scope", str)
        if scope is not None:
            await self._known_scope(scope)
        at = parse_ts(req["at"], "at") if req.get("at") is not None else None
        report: dict[str, Any] = {"scopes": {}, "profile_updated": None}
        # one scope's file, or every file of this instance in turn
        for shard in [self.shards.of(scope)] if scope is not None else self.shards.all:
            one = await asyncio.to_thread(
                jobs.consolidate, shard.memory, shard.dispatcher.deps.settings, scope, at
            )
            report["scopes"].update(one["scopes"])
            if one["profile_updated"] is not None:
                report["profile_updated"] = bool(report["profile_updated"]) or one["profile_updated"]
        await self._after_write()
        return report

    async def rpc_stats(self, req: dict[str, Any]) -> dict[str, Any]:
        scope = _field(req, "scope", str)
        if scope is not None:
            await self._known_scope(scope)
        shards = [self.shards.of(scope)] if scope is not None else self.shards.all
        stats: dict[str, Any] = {}
        for shard in shards:  # without a scope: the counts of every file of this instance
            add_counts(stats, await asyncio.to_thread(shard.memory.stats, scope))
        if scope is None:
            stats["scopes"] = sum([len(await asyncio.to_thread(s.memory.scopes)) for s in shards])
        else:
            stats["scopes"] = 1
        pending, in_flight = await self._pending()
        handled = sum([await asyncio.to_thread(s.memory.ledger.count) for s in self.shards.all])
        stats["daemon"] = {
            "handled": handled,
            "dead_letters": await asyncio.to_thread(self.shards.dead_letters.count_dead_letters),
            "pending": pending,
            "in_flight": in_flight,
        }
        backlog = self._backlog() if self._backlog is not None else None
        if backlog is not None:
            stats["daemon"]["backlog"] = backlog
        if self.plan is not None:  # whose answer this is: the instance that owns these partitions
            stats["daemon"]["partitions"] = {"count": self.plan.partitions, "owned": list(self.plan.owned)}
        return stats

    async def rpc_profile(self, req: dict[str, Any]) -> dict[str, Any]:
        """Read-only: a scope's category summaries and its profile block (what USER.md shows)."""
        scope = await self._known_scope(_required(req, "scope"))

        memory = self.shards.memory(scope)

        def read() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            names = memory.stats(scope)["items_by_category"]
            rows = [memory.get_category(scope, name) for name in names]
            return [r for r in rows if r is not None], memory.profile_items(scope)

        categories, items = await asyncio.to_thread(read)
        return {
            "scope": scope,
            "categories": [
                {k: c[k] for k in ("name", "summary", "item_count", "version", "updated_at")}
                for c in categories
            ],
            "profile": render_profile(items),
            "profile_items": [{k: i[k] for k in ("id", "category", "l0")} for i in items],
        }

    async def rpc_suggestions(self, req: dict[str, Any]) -> dict[str, Any]:
        """Read-only: a scope's suggestions (pending, delivered, withdrawn, expired), newest first;
        with `id`, that one suggestion (not_found if the scope has no such suggestion)."""
        scope = _required(req, "scope")
        memory = self.shards.memory(scope)
        sid = _field(req, "id", str)
        if sid is not None:
            one = await asyncio.to_thread(memory.suggestions.get, sid)
            if one is None or one.scope != scope:
                raise NotFound(f"no suggestion {sid!r} in scope {scope!r}")
            return {"scope": scope, "suggestions": [suggestion_json(one)]}
        status = _field(req, "status", str, None)
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"field 'status' must be one of {', '.join(STATUSES)}, got {status!r}")
        limit = int(_field(req, "limit", int, 50))
        if not 1 <= limit <= requests.MAX_SUGGESTIONS_LIMIT:
            raise InvalidInput(f"field 'limit' must be in [1, {requests.MAX_SUGGESTIONS_LIMIT}], got {limit}")
        rows = await asyncio.to_thread(memory.suggestions.of_scope, scope, status)
        rows = sorted(rows, key=lambda s: (s.delivered_at or s.deliver_at, s.id), reverse=True)[:limit]
        return {"scope": scope, "suggestions": [suggestion_json(s) for s in rows]}

    async def rpc_flush(self, req: dict[str, Any]) -> dict[str, Any]:
        timeout = float(_field(req, "timeout", (int, float), 30.0))
        if not 0 < timeout <= requests.MAX_FLUSH_TIMEOUT_S:
            raise InvalidInput(
                f"field 'timeout' must be in (0, {requests.MAX_FLUSH_TIMEOUT_S}] seconds, got {timeout}"
            )
        position = await self._flush(timeout)
        await self._after_write()
        return {"position": position}

    async def rpc_deadletters(self, req: dict[str, Any]) -> dict[str, Any]:
        action = _field(req, "action", str, "list")
        ledger = self.shards.dead_letters
        if action == "list":
            limit = _field(req, "limit", int, 100)
            rows = await asyncio.to_thread(
                ledger.dead_letters, include_replayed=bool(_field(req, "all", bool, False)), limit=limit
            )
            return {"dead_letters": rows}
        if action == "replay":
            dead_id = _field(req, "id", int)
            if dead_id is None:
                raise InvalidInput("replay needs field 'id' (a dead-letter id)")
            if await asyncio.to_thread(ledger.get_dead_letter, dead_id) is None:
                raise NotFound(f"no dead letter #{dead_id}")
            verdict = await self.shards.replay_dead_letter(dead_id)  # into its scope's file
            await self._after_write()
            return {
                "id": dead_id,
                "event_id": verdict.event_id,
                "outcome": verdict.outcome,
                "reason": verdict.reason,
            }
        raise InvalidInput(f"field 'action' must be 'list' or 'replay', got {action!r}")
