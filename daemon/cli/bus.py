"""CLI commands that talk to a running daemon: send, deadletters, doctor, replay; and the lookup
that lets recall and stats ask the daemon first and fall back to the DuckDB file.

The daemon holds the DuckDB file's write lock, so while it runs, the CLI asks it over NATS
request/reply. A daemon is found through the runtime file it writes when READY (its embedded
broker's URL) or at MEMUBOT_NATS_URL (daemon/client/discovery.py, shared with the agent client and the
MCP server). When it holds the file but cannot be reached, the CLI says
so (`locked_message`) instead of quoting DuckDB's lock error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC
from pathlib import Path
from typing import Any, TypeVar

from daemon.cli.progress import Progress
from daemon.client import Client, RpcError
from daemon.client.discovery import (
    candidate_urls,
    command_line,
    find_broker,
    looks_like_daemon,
    running_daemon_pid,
    runtime_info,
)
from daemon.config import Settings
from daemon.errors import InvalidEvent, MemubotError, StoreLocked
from daemon.events import ROLES, parse_ts
from daemon.runtime.broker import server_binary
from daemon.runtime.rpc import encode

T = TypeVar("T")


async def with_daemon(settings: Settings, fn: Callable[[Client], Awaitable[T]]) -> T | None:
    """Run fn against the daemon; None when no broker answers or no daemon listens on it."""
    url = await find_broker(settings)
    if url is None:
        return None
    client = await Client.connect(url)
    try:
        return await fn(client)
    except RpcError as exc:
        if exc.kind == "unavailable":
            return None
        raise
    finally:
        await client.close()


def ask_daemon(settings: Settings, verb: str, body: dict[str, Any], timeout: float = 60.0) -> Any | None:
    """One RPC to the running daemon; None if there is none (the caller falls back to the file)."""
    return asyncio.run(with_daemon(settings, lambda c: c.request(verb, body, timeout=timeout)))


# ---- a daemon that holds the file but does not answer ---------------------------------------


def _answers(settings: Settings) -> bool:
    """Whether a daemon answers a stats request now (any failure is a no)."""
    try:
        return ask_daemon(settings, "stats", {}, timeout=10) is not None
    except (MemubotError, TimeoutError, OSError):
        return False


def already_running(settings: Settings) -> str | None:
    """What to tell a second `memubot run`: which daemon already runs here, and how to reach it."""
    pid = running_daemon_pid(settings)
    if pid is None:
        return None
    info = runtime_info(settings.state_dir) or {}
    reach = "".join(
        f", {name} {info[key]}" for name, key in (("NATS", "nats_url"), ("HTTP", "http")) if info.get(key)
    )
    return (
        f"a memubot daemon is already running (pid {pid}{reach}) on {info.get('db') or settings.db_path}; "
        f"one daemon serves a memory file. Stop it first (`kill {pid}`, or `systemctl --user stop memubot`), "
        "or give this one its own MEMUBOT_STATE_DIR."
    )


def locked_message(settings: Settings, exc: StoreLocked, command: str | None = None) -> str:
    """What to tell the person when the DuckDB file is held by another process.

    Whether the daemon answers is asked here, not assumed: a command that reads the file itself
    (`--db`, a batch recall) meets the lock while the daemon is alive and well.
    """
    holder_command = command_line(exc.pid) if exc.pid is not None else None
    daemon_pid = running_daemon_pid(settings)
    if (exc.pid is not None and exc.pid == daemon_pid) or looks_like_daemon(holder_command):
        if command == "run":
            return (
                f"another memubot daemon (pid {exc.pid}) holds {exc.path}; one daemon serves a memory "
                "file (it may still be starting: `memubot doctor` tells)."
            )
        if _answers(settings):
            what = f"`memubot {command}` in this form" if command else "this"
            return (
                f"the memubot daemon (pid {exc.pid}) is running and holds {exc.path}; {what} reads the "
                "file itself, which DuckDB allows to one process at a time. Without --db the commands "
                "that can ask the daemon do (stats, recall of one query, forget, restore, consolidate, "
                "import)."
            )
        tried = ", ".join(candidate_urls(settings))
        return (
            f"the memubot daemon (pid {exc.pid}) is running and holds {exc.path}, but it does not answer "
            f"over NATS (tried {tried}), and the file cannot be read while it runs. "
            "Check it with `memubot doctor`."
        )
    holder = (
        f"process {exc.pid}" + (f" ({holder_command})" if holder_command else "")
        if exc.pid
        else "another process"
    )
    return (
        f"{exc.path} is in use by {holder}; DuckDB lets one process open it at a time. "
        "Stop that process, or check with `memubot doctor`."
    )


# ---- send -------------------------------------------------------------------------------


def cmd_send(args: argparse.Namespace, settings: Settings) -> int:
    async def send() -> str | None:
        url = await find_broker(settings)
        if url is None:
            return None
        async with await Client.connect(url) as client:
            event_id = await client.publish_turn(
                args.text,
                scope=args.scope,
                role=args.role,
                id=args.id,
                session=args.session,
                speaker=args.speaker,
                agent=args.agent,
                ts=args.ts,
            )
            if args.wait:
                await client.flush(timeout=args.wait)
            return event_id

    event_id = asyncio.run(send())
    if event_id is None:
        tried = ", ".join(candidate_urls(settings))
        print(f"memubot send: no NATS server answers ({tried}); is `memubot run` running?", file=sys.stderr)
        return 1
    print(event_id)
    return 0


# ---- dead letters -------------------------------------------------------------------------


def _when(value: str | None) -> str:
    """An ISO-8601 time from either path as `YYYY-MM-DD HH:MM:SSZ` (UTC, whole seconds)."""
    if not value:
        return "-"
    try:
        return parse_ts(value).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    except InvalidEvent:
        return value


def _print_dead(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no dead letters")
    for r in rows:
        replayed = f"  (replayed {_when(r['replayed_at'])})" if r.get("replayed_at") else ""
        print(
            f"#{r['id']}  {_when(r['failed_at'])}  {r['subject']}  {r['event_id'] or '-'}  "
            f"x{r['attempts']}{replayed}"
        )
        print(f"     {r['reason']}")


def cmd_deadletters(args: argparse.Namespace, settings: Settings) -> int:
    body: dict[str, Any] = (
        {"action": "replay", "id": args.replay}
        if args.replay is not None
        else {"action": "list", "all": args.all, "limit": args.limit}
    )
    result = None if args.db else ask_daemon(settings, "deadletters", body)
    if result is None:
        # the daemon's reply is JSON: the file's rows go through the same encoding, so that the
        # two paths print the same thing (times included)
        result = json.loads(encode(_deadletters_offline(args, settings, body)))
    if args.json:
        print(json.dumps(result, default=str, ensure_ascii=False))
    elif args.replay is not None:
        print(f"dead letter #{args.replay} ({result['event_id']}): {result['outcome']}")
        if result.get("reason"):
            print(f"     {result['reason']}")
    else:
        _print_dead(result["dead_letters"])
    return 1 if args.replay is not None and result["outcome"] == "dead_letter" else 0


def _deadletters_offline(
    args: argparse.Namespace, settings: Settings, body: dict[str, Any]
) -> dict[str, Any]:
    """No daemon: work on the DuckDB file directly, through the same dispatcher for a replay."""
    from daemon.compose import open_memory
    from daemon.runtime.dispatch import Dispatcher
    from handlers.deps import Deps

    path = args.db or settings.db_path
    if not Path(path).exists():
        raise MemubotError(f"no database at {path}")
    with open_memory(settings, args.db) as memory:
        if body["action"] == "list":
            rows = memory.ledger.dead_letters(include_replayed=args.all, limit=args.limit)
            return {"dead_letters": rows}
        dispatcher = Dispatcher(Deps(memory, settings, memory.clock))
        verdict = asyncio.run(dispatcher.replay_dead_letter(args.replay))
        return {
            "id": args.replay,
            "event_id": verdict.event_id,
            "outcome": verdict.outcome,
            "reason": verdict.reason,
        }


# ---- doctor -----------------------------------------------------------------------------


def gmail_status(settings: Settings) -> tuple[bool, str]:
    """The doctor's Gmail line: on (pull / push, which scope, which addresses) or off and why.

    Off with nothing configured is a choice (ok); off with part of it configured is a warning.
    """
    off = settings.gmail_off()
    configured = any(
        (
            settings.gmail_credentials,
            settings.gmail_subscription,
            settings.gmail_push_audience,
            settings.gmail_push_token,
        )
    )
    if off is not None:
        return not configured, f"trigger off: {off}"
    assert settings.gmail_credentials is not None
    if not settings.gmail_credentials.is_file():
        return False, f"credentials file {settings.gmail_credentials} does not exist (`memubot gmail auth`)"
    modes = []
    if settings.gmail_subscription:
        modes.append(f"pull {settings.gmail_subscription}")
    if settings.gmail_push_audience or settings.gmail_push_token:
        how = "OIDC" if settings.gmail_push_audience else "shared token"
        modes.append(f"push at POST /webhooks/gmail ({how})")
    watch = (
        f"watch {settings.gmail_topic} renewed daily"
        if settings.gmail_topic
        else "no MEMUBOT_GMAIL_TOPIC: watch not renewed"
    )
    mine = ", ".join(settings.email_addresses) or "the mailbox's own"
    return True, f"trigger on: {'; '.join(modes)}, scope {settings.email_scope}, addresses {mine}, {watch}"


def _backlog_line(b: dict[str, Any]) -> str:
    """The doctor's backlog line: what waits, how old the oldest is, and whether it moves."""
    if not b["unhandled"]:
        return "nothing waiting: every event received is handled"
    line = (
        f"{b['unhandled']} events not yet handled, the oldest received {b['oldest_unhandled_age_s']:.0f}s ago; "
        f"the last one handled {b['since_progress_s']:.0f}s ago"
    )
    if b["stalled"]:
        line += " — stalled: events wait and none is handled (see the daemon's log)"
    return line


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    """Check configuration, broker, daemon, database and model; one line per check."""
    failures = 0

    def check(name: str, ok: bool, detail: str, fatal: bool = True) -> None:
        nonlocal failures
        mark = "ok " if ok else ("FAIL" if fatal else "warn")
        failures += 0 if ok or not fatal else 1
        print(f"[{mark}] {name:10s} {detail}")

    check(
        "config", True, f"state {settings.state_dir}, timezone {settings.timezone}, HTTP {settings.http_addr}"
    )
    try:
        settings.state_dir.mkdir(parents=True, exist_ok=True)
        probe_file = settings.state_dir / ".doctor"
        probe_file.write_text("ok", encoding="utf-8")
        probe_file.unlink()
        check("state dir", True, f"{settings.state_dir} is writable")
    except OSError as exc:
        check("state dir", False, f"{settings.state_dir}: {exc}")
    off = settings.github_webhook_off()
    check(
        "github",
        # off for want of a secret is a choice; a secret without a scope is a mistake worth a warning
        off is None or not settings.github_webhook_secrets,
        f"webhook off: {off}"
        if off
        else f"webhook on at POST /webhooks/github, scope {settings.github_webhook_scope}, "
        f"{len(settings.github_webhook_secrets)} secret(s), login {settings.github_login or '(not set)'}",
        fatal=False,
    )
    check(
        "github api",
        True,
        f"deliveries enriched through {settings.github_api_url} (MEMUBOT_GITHUB_TOKEN set)"
        if settings.github_token
        else "no enrichment (set MEMUBOT_GITHUB_TOKEN for PR files and diff stats, issue threads)",
        fatal=False,
    )
    poll_off = settings.github_poll_off()
    check(
        "github poll",
        # off by default is a choice; minutes set without a login or scope is a mistake
        poll_off is None or not settings.github_poll_minutes,
        f"polling off: {poll_off}"
        if poll_off
        else f"reads {settings.github_login}'s events every {settings.github_poll_minutes:g} min into scope "
        f"{settings.github_webhook_scope}"
        + ("" if settings.github_token else " (no MEMUBOT_GITHUB_TOKEN: public events only, 60 requests/h)"),
        fatal=False,
    )
    check("gmail", *gmail_status(settings), fatal=False)
    check(
        "mcp",
        True,
        f"`memubot mcp` serves scope {settings.mcp_scope} (MEMUBOT_MCP_SCOPE)"
        if settings.mcp_scope
        else "no scope configured: `memubot mcp` needs --scope NAME (or set MEMUBOT_MCP_SCOPE)",
    )
    from daemon.web.http import parse_addr
    from daemon.web.ui import is_loopback

    loopback = is_loopback(parse_addr(settings.http_addr)[0])
    check(
        "ui",
        loopback or bool(settings.ui_token),
        f"inspector at http://{settings.http_addr}/ui"
        + (
            " (loopback: open)"
            if loopback and not settings.ui_token
            else " (token required: MEMUBOT_UI_TOKEN is set)"
            if settings.ui_token
            else " is off: HTTP listens beyond loopback and MEMUBOT_UI_TOKEN is not set"
        ),
        fatal=False,
    )
    try:
        check("nats-server", True, str(server_binary()))
    except MemubotError as exc:
        check("nats-server", False, str(exc))
    url = asyncio.run(find_broker(settings))
    stats = ask_daemon(settings, "stats", {}, timeout=10) if url else None
    if stats is not None:
        d = stats["daemon"]
        check("broker", True, f"{url}")
        check(
            "daemon",
            True,
            f"running: {stats['resources']} resources, {stats['items']} items; handled {d['handled']} events, "
            f"{d['pending']} pending, {d['dead_letters']} dead letters",
        )
        backlog = d.get("backlog")
        if backlog is not None:
            check(
                "backlog",
                not backlog["stalled"],
                _backlog_line(backlog),
            )
        check(
            "dead letters",
            d["dead_letters"] == 0,
            f"{d['dead_letters']} (see `memubot deadletters`)",
            fatal=False,
        )
    else:
        detail = f"{url} answers, but no daemon listens" if url else f"none answers at {settings.nats_url}"
        check("broker", True, detail + " (`memubot run` starts an embedded one)")
        pid = running_daemon_pid(settings)
        if pid is not None:
            # alive but unreachable: the CLI cannot ask it, nor read the file it holds
            check(
                "daemon",
                False,
                f"pid {pid} is running but does not answer over NATS ({', '.join(candidate_urls(settings))}); "
                "see its log (`journalctl --user -u memubot`, or the terminal running `memubot run`)",
            )
        else:
            check("daemon", False, "not running", fatal=False)
        _doctor_offline(settings, check)
    return 1 if failures else 0


def _doctor_offline(settings: Settings, check: Callable[..., None]) -> None:
    from daemon.memory import Store, make_embedder

    if settings.db_path.exists():
        try:
            store = Store(settings.db_path, read_only=True)
            version = store.schema_version()
            store.close()
            check("database", True, f"{settings.db_path} (schema v{version})")
        except StoreLocked as exc:
            check("database", False, locked_message(settings, exc))
        except Exception as exc:
            check("database", False, f"{settings.db_path}: {exc}")
    else:
        check("database", True, f"{settings.db_path} does not exist yet (created on first run)")
    try:
        embedder = make_embedder(
            settings.embedder,
            url=settings.embed_url,
            model=settings.embed_model,
            api_key=settings.embed_api_key,
        )
        vec = embedder.embed_query("doctor")
        check("model", True, f"{embedder.name}: {vec.shape[-1]} dimensions")
    except Exception as exc:
        check("model", False, f"{settings.embedder}: {exc}")


# ---- replay -----------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace, settings: Settings) -> int:
    from daemon.runtime.replay import replay

    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    trace = open(args.trace, "w", encoding="utf-8") if args.trace else None  # noqa: SIM115
    try:
        summary = asyncio.run(
            replay(
                Path(args.scenario),
                out,
                settings,
                state_dir=args.state,
                progress=None if args.quiet else Progress("replaying"),
                trace=trace,
            )
        )
    finally:
        if args.out:
            out.close()
        if trace is not None:
            trace.close()
    print(json.dumps(summary, ensure_ascii=False), file=sys.stderr)
    return 0


def add_parsers(sub: Any) -> None:
    """Register send, deadletters, doctor and replay on the `memubot` parser."""
    p = sub.add_parser(
        "send",
        help="publish one conversation turn to the running daemon",
        description="Publish a turn on memubot.in.conversation.<agent> (JetStream, Nats-Msg-Id = its id). "
        "Prints the event id.",
    )
    p.add_argument("text", help="what was said")
    p.add_argument("--scope", required=True, help="whose memory")
    p.add_argument("--role", default="user", choices=sorted(ROLES))
    p.add_argument("--session", help="conversation session id")
    p.add_argument("--speaker", help="who spoke (a name)")
    p.add_argument("--agent", default="main", help="the agent that saw the turn (default main)")
    p.add_argument("--id", help="event id (default: generated)")
    p.add_argument("--ts", help="ISO-8601 time with offset (default: now)")
    p.add_argument("--wait", type=float, metavar="SECONDS", help="wait until the daemon has stored it")
    p.set_defaults(func=cmd_send)

    p = sub.add_parser(
        "deadletters",
        help="list events that could not be handled, or replay one",
        description="Dead letters: malformed events and events that failed on every delivery attempt, "
        "each with its reason and raw bytes. Asks the running daemon, else reads the file.",
    )
    p.add_argument("--replay", type=int, metavar="ID", help="handle dead letter ID again now")
    p.add_argument("--all", action="store_true", help="include dead letters already replayed")
    p.add_argument("--limit", type=int, default=100, help="how many to list (newest first, default 100)")
    p.add_argument("--db", type=Path, help="work on this DuckDB file instead of asking the daemon")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_deadletters)

    p = sub.add_parser(
        "doctor",
        help="check configuration, broker, daemon, database and model",
        description="One line per check; exits 1 if something needed to run is broken.",
    )
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser(
        "replay",
        help="run a recorded scenario with simulated time and write what memubot says",
        description="Replay a scenario (../shared/bench/proactive/README.md format) through the same "
        "pipeline as the daemon, with a simulated clock and scheduled ticks at their simulated times, "
        "into a fresh memory. Writes one JSON line per delivered suggestion (with its simulated "
        "deliver_at and source_ids, what ../shared/bench/score_proactive.py reads); --trace writes "
        "every outgoing message (memory ops, context, suggestions) with its simulated time.",
    )
    p.add_argument("scenario", help="scenario JSON file")
    p.add_argument("--out", help="delivered suggestions, JSON lines (default: stdout)")
    p.add_argument("--trace", help="every outgoing message, JSON lines")
    p.add_argument(
        "--state", type=Path, help="keep the replay's memory in this directory (default: temporary)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_replay)
