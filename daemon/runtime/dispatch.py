"""The dispatcher: one path from raw incoming bytes to committed effects, for every transport.

The JetStream consumer, the `memorize` RPC, dead-letter replay and `memubot replay` all hand
their events here. For a batch it decodes and validates each event, drops the ones the ledger
has seen, runs each route's handler over its events, records the handled ids in the ledger,
and returns a verdict per event: `ack` (committed, duplicate, or dead-lettered with a reason)
or `retry` (a failure worth another attempt). Nothing here knows about NATS.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from daemon.errors import InvalidEvent, InvalidInput
from daemon.events import decode, event_id_of
from daemon.runtime.metrics import Metrics
from daemon.state.ledger import Handled, Ledger
from handlers import ROUTES, Route, route_for
from handlers.deps import Deps

log = logging.getLogger(__name__)

ACK = "ack"
RETRY = "retry"


@dataclass(frozen=True, slots=True)
class Incoming:
    """One event as it arrived: its subject and bytes, and which delivery attempt this is."""

    subject: str
    data: bytes
    attempt: int = 1
    max_attempts: int = 1  # on the last attempt a failure is dead-lettered instead of retried
    stream_seq: int | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """What became of one incoming event."""

    action: str  # ACK or RETRY
    outcome: str  # stored / duplicate / noop / dead_letter / retry / ...
    event_id: str | None = None
    reason: str | None = None
    dead_letter_id: int | None = None


@dataclass(slots=True)
class _Parsed:
    index: int
    route: Route
    event: Any


# Failures no retry can mend: a handler refusing the event's content (InvalidInput) refuses it
# every time, and a value deep or large enough to exhaust the stack or the memory does so again.
CONTENT_FAULTS: tuple[type[Exception], ...] = (InvalidInput, RecursionError, MemoryError)
MAX_REASON_CHARS = 2000  # an exception's message may quote the whole offending value


def _reason(exc: BaseException) -> str:
    """`Type: message`, cut to a length a dead-letter listing can show."""
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= MAX_REASON_CHARS else f"{text[:MAX_REASON_CHARS]}… (cut)"


def _scope(event: Any) -> str | None:
    scope = getattr(event, "scope", None)
    return scope if isinstance(scope, str) else None


class Dispatcher:
    """Incoming bytes → handler effects → ledger; every event gets a verdict, none is lost."""

    def __init__(
        self,
        deps: Deps,
        metrics: Metrics | None = None,
        routes: Sequence[Route] = ROUTES,
        dead_letters: Ledger | None = None,
    ) -> None:
        self.deps = deps
        self.metrics = metrics or Metrics()
        self.routes = routes
        self.handled = 0
        # where dead letters are written and replayed from: the memory's own ledger, or in a
        # cluster with a file per partition, the instance's file (one id sequence per instance)
        self._dead_letters = dead_letters

    @property
    def ledger(self) -> Ledger:
        return self.deps.memory.ledger

    @property
    def dead_letters(self) -> Ledger:
        return self._dead_letters or self.deps.memory.ledger

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]:
        """A verdict per event. A failure outside any handler (the ledger, a dead-letter write,
        a bug here) is isolated like a handler's: the events still without a verdict are tried
        one by one, so that one event can only ever fail itself."""
        verdicts: list[Verdict | None] = [None] * len(batch)
        try:
            await self._dispatch(batch, verdicts)
        except Exception as exc:
            if len(batch) == 1:
                raise  # nothing to isolate: the caller retries it (the consumer naks it)
            # the verdicts reached before the failure stand (a dead letter is not written twice)
            undecided = [i for i, v in enumerate(verdicts) if v is None]
            log.warning(
                "a batch of %d failed outside any handler (%s: %s): handling its %d undecided events one by one",
                len(batch),
                type(exc).__name__,
                exc,
                len(undecided),
                exc_info=exc,
            )
            for i in undecided:
                try:
                    [verdicts[i]] = await self.dispatch([batch[i]])
                except Exception as one:
                    verdicts[i] = await self._failed_alone(batch[i], one)
        done = [v for v in verdicts if v is not None]
        assert len(done) == len(batch)
        return done

    async def _dispatch(self, batch: Sequence[Incoming], verdicts: list[Verdict | None]) -> None:
        """Fill in `verdicts` as they are reached (committed), so a failure midway loses none."""
        parsed: list[_Parsed] = []
        for i, msg in enumerate(batch):
            route = route_for(msg.subject, self.routes)
            try:
                if route is None:
                    raise InvalidEvent(f"no handler for subject {msg.subject!r}")
                event = route.parse(decode(msg.data))
            except Exception as exc:
                # whatever the body makes the parser raise (InvalidEvent, and also a parser bug,
                # RecursionError, MemoryError) is this event's fault alone: its dead letter.
                # Keep the sender's id whenever the body lets us read one (too large, unknown
                # subject, a bad field): the dead letter can then be traced to what was sent
                sent_id = event_id_of(msg.data)
                reason = str(exc) if isinstance(exc, InvalidEvent) else _reason(exc)
                verdicts[i] = await self._dead(msg, route.kind if route else "unknown", reason, sent_id)
                continue
            if msg.attempt > msg.max_attempts:
                # delivered again and again without a verdict: the daemon died or the batch
                # failed outside any handler each time; stop here, with a record to replay
                reason = (
                    f"not handled after {msg.attempt - 1} deliveries (the daemon stopped or crashed while "
                    "handling it, or its batch failed outside any handler)"
                )
                verdicts[i] = await self._dead(msg, route.kind, reason, event.id)
                continue
            parsed.append(_Parsed(i, route, event))
        seen = await asyncio.to_thread(self.ledger.seen, [p.event.id for p in parsed])
        # a duplicate that was forgotten since is said so: "already stored" would be untrue
        scoped = [(scope, p.event.id) for p in parsed if p.event.id in seen and (scope := _scope(p.event))]
        gone = await asyncio.to_thread(self.deps.memory.forgotten, scoped) if scoped else set()
        fresh: list[_Parsed] = []
        for p in parsed:
            if p.event.id in seen:
                outcome = "forgotten" if (_scope(p.event), p.event.id) in gone else "duplicate"
                verdicts[p.index] = Verdict(ACK, outcome, p.event.id)
                self.metrics.event(p.route.kind, outcome)
                log.info("%s %s: %s (already handled)", batch[p.index].subject, p.event.id, outcome)
                continue
            seen.add(p.event.id)  # the same id twice in one batch: the second is a duplicate
            fresh.append(p)
        groups: dict[str, list[_Parsed]] = {}
        for p in fresh:
            groups.setdefault(p.route.kind, []).append(p)
        for group in groups.values():
            for p, verdict in zip(group, await self._handle(batch, group), strict=True):
                verdicts[p.index] = verdict

    async def _handle(self, batch: Sequence[Incoming], group: list[_Parsed]) -> list[Verdict]:
        """Run one route's handler over its events; if the batch fails, isolate the bad event."""
        route = group[0].route
        t0 = time.perf_counter()
        try:
            outcomes = await route.handle([p.event for p in group], self.deps)
        except Exception as exc:  # a handler bug or a store failure: never stops the loop
            if len(group) > 1:
                log.warning("%s batch of %d failed (%s): handling one by one", route.kind, len(group), exc)
                out: list[Verdict] = []
                for p in group:
                    out.extend(await self._handle(batch, [p]))
                return out
            return [await self._failed(batch[group[0].index], group[0], exc)]
        seconds = time.perf_counter() - t0
        self.metrics.handler_seconds(route.kind, seconds)
        handled = [
            Handled(p.event.id, batch[p.index].subject, _scope(p.event), outcome)
            for p, outcome in zip(group, outcomes, strict=True)
        ]
        await asyncio.to_thread(self.ledger.record, handled, self.deps.clock())
        self.handled += len(handled)
        for h in handled:
            self.metrics.event(route.kind, h.outcome)
            log.info(
                "%s %s: %s in %.0f ms%s",
                h.subject,
                h.event_id,
                h.outcome,
                1000 * seconds,
                f" (batch of {len(group)})" if len(group) > 1 else "",
            )
        return [Verdict(ACK, h.outcome, h.event_id) for h in handled]

    async def _failed(self, msg: Incoming, p: _Parsed, exc: Exception) -> Verdict:
        reason = _reason(exc)
        if msg.attempt < msg.max_attempts and not isinstance(exc, CONTENT_FAULTS):
            self.metrics.event(p.route.kind, "retry")
            log.warning(
                "%s %s: attempt %d/%d failed, will retry: %s",
                msg.subject,
                p.event.id,
                msg.attempt,
                msg.max_attempts,
                reason,
                exc_info=exc,
            )
            return Verdict(RETRY, "retry", p.event.id, reason)
        log.error("%s %s: failed on the last attempt: %s", msg.subject, p.event.id, reason, exc_info=exc)
        return await self._dead(msg, p.route.kind, reason, p.event.id)

    async def _failed_alone(self, msg: Incoming, exc: Exception) -> Verdict:
        """An event that failed outside any handler even on its own: retried like a handler's
        failure, dead-lettered on the last attempt or when no attempt can succeed. If the
        dead-letter write fails too, the store is down: that is raised, and the caller retries."""
        route = route_for(msg.subject, self.routes)
        kind = route.kind if route else "unknown"
        event_id = event_id_of(msg.data)
        reason = _reason(exc)
        if msg.attempt < msg.max_attempts and not isinstance(exc, CONTENT_FAULTS):
            self.metrics.event(kind, "retry")
            log.warning(
                "%s %s: attempt %d/%d failed outside any handler, will retry: %s",
                msg.subject,
                event_id,
                msg.attempt,
                msg.max_attempts,
                reason,
            )
            return Verdict(RETRY, "retry", event_id, reason)
        return await self._dead(msg, kind, reason, event_id)

    async def _dead(self, msg: Incoming, kind: str, reason: str, event_id: str | None) -> Verdict:
        dead_id = await asyncio.to_thread(
            self.dead_letters.dead_letter,
            subject=msg.subject,
            reason=reason,
            payload=msg.data,
            attempts=msg.attempt,
            at=self.deps.clock(),
            event_id=event_id,
            stream_seq=msg.stream_seq,
        )
        self.metrics.event(kind, "dead_letter")
        log.warning("%s %s: dead letter #%d: %s", msg.subject, event_id or "(no valid id)", dead_id, reason)
        return Verdict(ACK, "dead_letter", event_id, reason, dead_id)

    async def refuse(self, msg: Incoming, reason: str) -> Verdict:
        """A dead letter for an event refused before its handler (e.g. a scope that is not its
        subject's: docs/cluster.md)."""
        route = route_for(msg.subject, self.routes)
        return await self._dead(msg, route.kind if route else "unknown", reason, event_id_of(msg.data))

    async def replay_dead_letter(
        self, dead_id: int, via: Callable[[Sequence[Incoming]], Awaitable[list[Verdict]]] | None = None
    ) -> Verdict:
        """Handle a dead letter again, now; it is marked replayed unless it fails again. `via`
        dispatches it (default: this dispatcher; in a cluster, the one of its scope's file)."""
        ledger = self.dead_letters
        row = await asyncio.to_thread(ledger.get_dead_letter, dead_id)
        if row is None:
            raise InvalidEvent(f"no dead letter #{dead_id}")
        if row["replayed_at"] is not None:
            raise InvalidEvent(f"dead letter #{dead_id} was already replayed at {row['replayed_at']}")
        [verdict] = await (via or self.dispatch)([Incoming(row["subject"], bytes(row["payload"]))])
        if verdict.outcome != "dead_letter" and verdict.action == ACK:
            await asyncio.to_thread(ledger.mark_replayed, dead_id, self.deps.clock())
        elif verdict.dead_letter_id is not None and verdict.dead_letter_id != dead_id:
            # it failed again and got a fresh record: the old one is superseded by it
            await asyncio.to_thread(ledger.mark_replayed, dead_id, self.deps.clock())
        return verdict
