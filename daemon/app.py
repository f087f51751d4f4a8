"""Composition root: builds the parts from Settings, runs them on one AsyncExitStack, stops on signal.

Start order: the HTTP socket (bound first, so that a busy port fails at once), memory, broker,
NATS connection and streams, consumer, RPC, scheduler, serving HTTP, then READY to systemd. On
SIGTERM the stack unwinds in reverse: HTTP stops taking requests, the scheduler stops, RPC
unsubscribes, the consumer finishes and acks its batch, the last memory ops are published, the
connection drains (or, with the broker gone, closes), the embedded broker stops, DuckDB
checkpoints last.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from daemon import __version__
from daemon.client.discovery import RUNTIME_FILE
from daemon.compose import open_memories
from daemon.config import Settings
from daemon.errors import ConfigError
from daemon.github.enrich import Enricher
from daemon.github.poll import GithubPoller
from daemon.github.webhook import add_github_webhook
from daemon.gmail.push import add_gmail_webhook
from daemon.gmail.start import start_gmail
from daemon.memory import Clock, Memory, system_clock
from daemon.predict import engine
from daemon.predict.delivery_timer import DeliveryTimer
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.outlet import Outlet
from daemon.runtime.broker import broker
from daemon.runtime.connection import connect
from daemon.runtime.consumer import Consumer, ConsumerParams, Handles
from daemon.runtime.dispatch import Dispatcher, Incoming
from daemon.runtime.faststream_consumer import FastStreamConsumer
from daemon.runtime.index_keeper import IndexKeeper
from daemon.runtime.metrics import Metrics
from daemon.runtime.notify import Notifier, watchdog_interval, watchdog_loop
from daemon.runtime.ops_outbox import OpsOutbox
from daemon.runtime.partitions import (
    Forwarder,
    Leases,
    Partitioned,
    Plan,
    ScopedDispatch,
    by_partition,
    scope_finder,
)
from daemon.runtime.publisher import Publisher
from daemon.runtime.rpc import RpcServer
from daemon.runtime.shards import Shard, Shards, partition_db
from daemon.runtime.streams import ensure_streams
from daemon.subjects import CONVERSATIONS, SCOPED_CONVERSATIONS
from daemon.web.http import bind, make_app, serve_http
from daemon.web.ui import add_ui
from handlers.deps import Deps
from handlers.live_context import Claims, LiveContext
from schedules.scheduler import TickScheduler

log = logging.getLogger(__name__)

SIZES_EVERY_S = 2.0
# A batch this slow is stuck: 64 turns embed in ~4 s, and with an LLM each call times out in 20 s.
STUCK_AFTER_S = 600.0  # how stale the /metrics store sizes may be
# The watchdog withholds its ping once the broker has been unreachable this long: an embedded
# broker is restarted within seconds, and a lost external one gets minutes to come back.
BROKER_GRACE_S = 300.0
PARTITION_KEY = "partition"  # in a partition file's meta: "<p> of <N>"


def runtime_file(settings: Settings) -> Path:
    return settings.state_dir / RUNTIME_FILE


def refuse_scopes_in_instance_file(memory: Memory, settings: Settings, plan: Plan) -> None:
    """In a cluster the scopes are in the partitions' files: an instance file that still holds
    some (written before files per partition) must be split first (docs/cluster.md)."""
    scopes = memory.scopes()
    if not scopes:
        return
    moves = "; ".join(
        f"memubot partition move --partitions {plan.partitions} --partition {p} --from {settings.db_path}"
        f" --to {partition_db(settings.state_dir, p)} --delete-source"
        for p in plan.owned
    )
    raise ConfigError(
        f"{settings.db_path} holds {len(scopes)} scopes, but in a cluster each partition's scopes are in"
        f" its own file ({partition_db(settings.state_dir, plan.owned[0]).parent}/p<p>.duckdb): with"
        f" memubot stopped, split it: {moves}"
    )


def check_partition_file(memory: Memory, path: Path, partition: int, plan: Plan) -> None:
    """A partition's file says which partition (of how many) it holds, from its first start: a
    file put under another partition's name, or kept across a change of N, is refused."""
    want = f"{partition} of {plan.partitions}"
    found = memory.stamp(PARTITION_KEY, want)
    if found != want:
        raise ConfigError(
            f"{path} holds partition {found}, not partition {want}: a partition's file keeps its"
            " name when it is handed over, and N (MEMUBOT_PARTITIONS) cannot change (docs/cluster.md)"
        )


def _write_runtime(path: Path, info: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(info, indent=1), encoding="utf-8")
    tmp.replace(path)


async def serve(settings: Settings, stop: asyncio.Event | None = None, clock: Clock | None = None) -> int:
    """Run until SIGTERM/SIGINT (or `stop` is set); every teardown unwinds in reverse order.

    `clock` replaces the wall clock for the memory and the suggestion timer (tests move it)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    notifier = Notifier(settings.notify_socket)
    t_start = time.monotonic()
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    async with AsyncExitStack() as stack:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
            stack.callback(loop.remove_signal_handler, sig)
        # first: a busy HTTP port fails in a moment, not after the model, the broker and the ticks
        listeners = bind(settings.http_addr)
        for sock in listeners:
            stack.callback(sock.close)
        # scopes over a cluster (docs/cluster.md): which partitions this instance owns; each
        # owned partition has its own DuckDB file, beside the instance's own (MEMUBOT_DB)
        plan = Plan(settings.partitions, settings.own_partitions) if settings.partitions else None
        owned = plan.owned if plan is not None else ()
        paths = [settings.db_path, *(partition_db(settings.state_dir, p) for p in owned)]
        notifier.status("opening the memory")
        memories = await asyncio.to_thread(open_memories, settings, paths, clock or system_clock)
        for opened in memories:
            stack.callback(opened.close)  # DuckDB checkpoints last
        memory, part_memories = memories[0], dict(zip(owned, memories[1:], strict=True))
        if plan is not None:
            await asyncio.to_thread(refuse_scopes_in_instance_file, memory, settings, plan)
            for (p, each), path in zip(part_memories.items(), paths[1:], strict=True):
                await asyncio.to_thread(check_partition_file, each, path, p, plan)
        for path, opened in zip(paths, memories, strict=True):
            indexed = await asyncio.to_thread(opened.warm)
            log.info(
                "memory %s open, indexes ready for %d items (%d loaded from their persisted copy,"
                " %d built from DuckDB)",
                path,
                indexed,
                opened.index_loads,
                opened.index_builds,
            )
        metrics = Metrics()

        def table_counts() -> dict[str, float]:
            total: dict[str, float] = {}
            for each in memories:
                for name, n in each.ledger.table_counts().items():
                    total[name] = total.get(name, 0.0) + n
            return total

        # A scrape runs on the event loop: it reads counts refreshed off-loop, never the DuckDB file
        # (whose lock a long memorize may hold).
        sizes = await asyncio.to_thread(table_counts)
        metrics.set_sizes_source(lambda: sizes)

        async def refresh_sizes() -> None:
            while True:
                await asyncio.sleep(SIZES_EVERY_S)
                try:
                    sizes.update(await asyncio.to_thread(table_counts))
                except Exception as exc:  # closed during shutdown, or a store error: keep the old counts
                    log.debug("store sizes: %s", exc)

        sizer = asyncio.create_task(refresh_sizes(), name="memubot-sizes")
        stack.callback(sizer.cancel)

        notifier.status("connecting to NATS")
        bus = await stack.enter_async_context(broker(settings.nats_url, settings.state_dir))
        nc, link = await stack.enter_async_context(connect(bus.url))
        js = nc.jetstream()
        await ensure_streams(js, partitions=settings.partitions, replicas=settings.stream_replicas)

        # every send goes through FastStream on this connection (runtime/publisher.py)
        publisher = Publisher(nc)
        await publisher.start()
        stack.push_async_callback(publisher.stop)
        publish = publisher.publish

        # each file's memory ops: in a cluster a partition's are `memory-op:p<p>:<seq>` (the name
        # goes with the file to its next owner), the instance file's (it has none) its own name
        outboxes: dict[int | None, OpsOutbox] = {
            None: OpsOutbox(
                memory.ledger, publish, metrics, instance=f"instance-{plan.name}" if plan else ""
            ),
            **{p: OpsOutbox(m.ledger, publish, metrics, instance=f"p{p}") for p, m in part_memories.items()},
        }

        def pumper(outbox: OpsOutbox) -> Callable[[], Awaitable[None]]:
            async def pump_one() -> None:
                try:
                    await outbox.pump()
                except Exception as exc:  # the bus is down: the cursor stays, the next pump resends
                    log.warning("publishing memory ops failed: %s", exc)

            return pump_one

        pumps = {key: pumper(outbox) for key, outbox in outboxes.items()}

        async def pump() -> None:
            for one in pumps.values():
                await one()

        gmail = await start_gmail(stack, settings, memory.ledger, publish)
        enricher = Enricher(settings.github_token, settings.github_api_url) if settings.github_token else None
        claims = Claims()
        timers: list[DeliveryTimer] = []

        def outlet_for(each: Memory, each_settings: Settings) -> Outlet:
            # suggestions: the outbox publishes to JetStream (an agent offline catches up), the
            # timer wakes at the next deliver_at; prefetched context goes out at once on core NATS
            timer = DeliveryTimer(SuggestionOutbox(each, each_settings, publish, each.clock), each.clock)
            timers.append(timer)
            return Outlet(context=publisher.send, wake=timer.wake, claim=claims.claim)

        for each in memories:
            await asyncio.to_thread(engine.start_cursor, each)
        poller = None
        if settings.github_poll_off() is None:
            poller = GithubPoller(
                token=settings.github_token,
                api_url=settings.github_api_url,
                login=str(settings.github_login),
                scope=str(settings.github_webhook_scope),
                cursors=memory.ledger,
                publish=publish,
            )
            log.info("GitHub polling every %g min as %s", settings.github_poll_minutes, settings.github_login)
        # the instance's file takes the triggers' own work (Gmail, GitHub polling); in a cluster it
        # holds no scope, so the profile file is written only by the file of the profile's scope
        home_settings = settings if plan is None else replace(settings, profile_dir=None)
        deps = Deps(
            memory,
            home_settings,
            memory.clock,
            outlet_for(memory, home_settings),
            gmail=gmail,
            github=enricher,
            github_poll=poller,
        )
        dispatcher = Dispatcher(deps, metrics)
        parts: dict[int, Shard] = {}
        for p, each in part_memories.items():
            assert plan is not None
            profiled = settings.profile_scope is not None and plan.partition(settings.profile_scope) == p
            each_settings = settings if profiled else replace(settings, profile_dir=None)
            each_deps = Deps(
                each, each_settings, each.clock, outlet_for(each, each_settings), github=enricher
            )
            # every dead letter of the instance in its own file: one id sequence to list and replay
            parts[p] = Shard(Dispatcher(each_deps, metrics, dead_letters=memory.ledger), p)
        shards = Shards(Shard(dispatcher), parts, plan)
        consumer: Consumer | Partitioned

        def make_consumer(handles: Handles, params: ConsumerParams, part: int | None = None) -> Consumer:
            # after each batch, the memory ops of the partition's file (the forwarder's: every file's)
            after = pumps[part] if part is not None else pump
            # MEMUBOT_CONSUMER: FastStream's pull subscriber (the default), or memubot's nats-py loop
            if settings.consumer == "faststream":
                return FastStreamConsumer(nc, js, handles, params, after_batch=after)
            return Consumer(js, handles, params, after_batch=after)

        if plan is not None:
            # one durable per owned partition, and the forwarder of the subjects without a scope
            forwarder = Forwarder(
                shards, publish, scope_finder(settings.github_webhook_scope, settings.email_scope)
            )
            # the partitions' leases: a second instance configured to own one waits here
            leases = Leases(
                js, plan, f"{socket.gethostname()}:{settings.state_dir}", settings.stream_replicas
            )
            notifier.status(f"waiting for the leases of partitions {plan.owned}")
            await leases.acquire()
            stack.push_async_callback(leases.release)  # after the consumers have stopped
            consumer = Partitioned(
                js,
                plan,
                dispatcher,
                forwarder,
                leases=leases,
                make=make_consumer,
                dispatchers={p: shard.dispatcher for p, shard in parts.items()},
            )
            log.info("partitions %s of %d are this instance's", plan.owned, plan.partitions)
        else:
            consumer = make_consumer(ScopedDispatch(dispatcher), ConsumerParams())
        for outbox in outboxes.values():
            await outbox.start_cursor()
        # whatever a previous run committed but did not publish goes out in the background
        backlog = asyncio.create_task(pump(), name="memubot-ops-backlog")
        stack.push_async_callback(asyncio.wait, {backlog})
        await consumer.start()
        # a live turn's context goes out as the turn arrives, not after the batch before it
        lives = {shard.partition: LiveContext(shard.dispatcher.deps, claims) for shard in shards.all}
        for live in lives.values():
            stack.push_async_callback(live.close)
        # turns with the scope in the subject too; in a cluster, those of owned partitions only,
        # each read from its partition's file
        on_turn = (
            lives[None].on_message
            if plan is None
            else by_partition(plan, {p: live.on_message for p, live in lives.items() if p is not None})
        )
        for subject in (CONVERSATIONS, SCOPED_CONVERSATIONS):
            live_sub = await nc.subscribe(subject, cb=on_turn)
            stack.push_async_callback(live_sub.unsubscribe)

        async def redeclare() -> None:
            # a broker that came back without its data (a new external server) gets the
            # streams and the durable consumer again; with its data this changes nothing
            await ensure_streams(js, partitions=settings.partitions, replicas=settings.stream_replicas)
            await consumer.declare()

        link.after_reconnect.append(redeclare)
        stack.push_async_callback(pump)  # after the consumer's last batch
        stack.push_async_callback(consumer.stop, settings.stop_timeout)

        def backlog_json() -> dict[str, Any] | None:
            """The consumer's latest look at what is not yet handled (refreshed every few seconds)."""
            return consumer.last_backlog.as_json() if consumer.last_backlog is not None else None

        rpc = RpcServer(
            nc,
            dispatcher,
            flush=consumer.flush,
            pending=consumer.pending,
            after_write=pump,
            metrics=metrics,
            backlog=backlog_json,
            plan=plan,
            shards=shards,
        )
        await rpc.start()
        stack.push_async_callback(rpc.stop)

        async def publish_tick(subject: str, body: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            if plan is None:
                await publish(subject, data, body["id"])
                return
            # in a cluster every instance runs its schedules over its own scopes: the tick is
            # handled here, by each file once (its ledger), not put on the bus where one instance
            # would take it
            await shards.dispatch([Incoming(subject, data)])
            await pump()

        for timer in timers:
            timer.start()
            stack.push_async_callback(timer.stop)

        scheduler = TickScheduler(settings, publish_tick)
        scheduler.start()
        stack.push_async_callback(scheduler.shutdown)
        caught_up = await scheduler.catch_up(memory.ledger)
        if caught_up:
            log.info("published ticks due while memubot was not running: %s", ", ".join(caught_up))

        def ready() -> dict[str, bool]:
            return {
                "broker": link.connected,
                "consumer": consumer.healthy(STUCK_AFTER_S),
                "db": all(each.is_open for each in memories),
                "scheduler": scheduler.running,
            }

        app = make_app(metrics, ready, details=lambda: {"backlog": backlog_json()})
        add_github_webhook(app, settings, publish, memory.clock, metrics)
        add_gmail_webhook(app, settings, publish, metrics)
        add_ui(app, memory, settings, pump, others=memories[1:], of=shards.memory if plan else None)
        off = settings.github_webhook_off()
        if off:
            # a secret without a scope is a mistake; no secret at all is the default
            (log.warning if settings.github_webhook_secrets else log.info)("GitHub webhook off: %s", off)
        host, port = await stack.enter_async_context(serve_http(app, listeners))
        info = {
            "pid": os.getpid(),
            "version": __version__,
            "nats_url": bus.url,
            "embedded_broker": bus.embedded,
            "broker_pid": bus.pid,  # at start; nats/nats-server.pid follows restarts
            "http": f"http://{host}:{port}",
            "db": str(settings.db_path),
        }
        if plan is not None:
            info["partition_dbs"] = {str(p): str(path) for p, path in zip(owned, paths[1:], strict=True)}
        runtime = runtime_file(settings)
        _write_runtime(runtime, info)
        stack.callback(runtime.unlink, missing_ok=True)

        interval = watchdog_interval(settings.watchdog_usec)
        if interval:
            # no pings while the consumer is stuck (a DuckDB call or a batch that never ends) or
            # the broker stays unreachable: systemd restarts the daemon, the batch in hand is
            # redelivered
            dog = asyncio.create_task(
                watchdog_loop(
                    notifier,
                    interval,
                    lambda: consumer.healthy(STUCK_AFTER_S) and link.healthy(BROKER_GRACE_S),
                )
            )
            stack.callback(dog.cancel)
        status = (
            f"ready: {memory.embedder.name}, NATS {bus.url}{' (embedded)' if bus.embedded else ''}, "
            f"HTTP {host}:{port}"
        )
        notifier.ready(status)
        log.info("memubot %s %s in %.1fs", __version__, status, time.monotonic() - t_start)
        # an index built from DuckDB at start is written beside the file now, after READY, so
        # that the next start loads it even if this run ends in a crash before any write
        for each in memories:
            await asyncio.to_thread(each.persist_indexes)
        # … and again whenever the memory has been quiet, so that a crash after writes still
        # finds a current copy unless it comes within a minute of the last write
        for n, each in enumerate(memories):
            keeper = asyncio.create_task(IndexKeeper(each).run(), name=f"memubot-index-keeper-{n}")
            stack.callback(keeper.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await stop.wait()
        log.info("memubot stopping: draining")
        notifier.stopping()
    log.info("memubot stopped")
    return 0
