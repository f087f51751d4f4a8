"""The `memubot` command line: import, recall and stats — through the running daemon, else on the DuckDB file."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from daemon import __version__, bounded_json
from daemon.cli import bus as cli_bus
from daemon.cli import gmail as cli_gmail
from daemon.cli import memory as cli_memory
from daemon.cli import partition as cli_partition
from daemon.cli.imports import import_through_daemon
from daemon.cli.progress import Progress
from daemon.client import RpcError
from daemon.compose import open_memory
from daemon.config import Settings, journal_stream, load_settings
from daemon.errors import InvalidEvent, MemubotError, StoreLocked
from daemon.events import MAX_EVENT_BYTES, parse_ts, parse_turn
from daemon.memory import Memory, ResourceIn, Store
from handlers.conversation import resource_from

log = logging.getLogger("memubot")

EPILOG = """\
examples:
  memubot import turns.jsonl --db mem.duckdb
  memubot recall "when did Caroline go to the support group?" --scope conv-26 --db mem.duckdb
  memubot recall --queries questions.jsonl --db mem.duckdb --k 20 --out answers.jsonl
  memubot stats --db mem.duckdb --json
  memubot consolidate --db mem.duckdb
  memubot forget --scope conv-26 --query "support group" --dry-run --db mem.duckdb
  memubot partition move --partitions 4 --partition 1 --from a.duckdb --to b.duckdb

settings come from $MEMUBOT_CONFIG (TOML) and MEMUBOT_* variables; see docs/settings.md.
"""


def _open_memory(settings: Settings, db: Path | None) -> Memory:
    return open_memory(settings, db, progress=Progress("re-embedding"))


def _read_turns(path: Path, errors: list[tuple[int, str]]) -> Iterator[tuple[int, ResourceIn]]:
    """Valid turns of a JSON-lines file, streaming; bad lines are appended to `errors`."""
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                resource = resource_from(parse_turn(raw.rstrip(b"\r\n")))
            except InvalidEvent as exc:
                errors.append((lineno, str(exc)))
                continue
            except Exception as exc:  # whatever one line raises is that line's fault, not the file's
                errors.append((lineno, f"{type(exc).__name__}: {exc}"))
                continue
            yield lineno, resource


IMPORT_CHUNK = 4096  # turns held in memory at once; progress spans the whole file


def _chunks(turns: Iterator[tuple[int, ResourceIn]], size: int) -> Iterator[list[ResourceIn]]:
    chunk: list[ResourceIn] = []
    for _, turn in turns:
        chunk.append(turn)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    path = Path(args.file)
    if not path.is_file():
        print(f"memubot import: no such file: {path}", file=sys.stderr)
        return 2
    with path.open("rb") as f:
        total = sum(1 for line in f if line.strip())
    errors: list[tuple[int, str]] = []
    bar = None if args.quiet else Progress("importing")
    t0 = time.perf_counter()
    if args.db is None:
        live = import_through_daemon(settings, path, errors, bar or (lambda done, total: None), total)
        if live is not None:
            return _imported_through_daemon(args, path, errors, *live, time.perf_counter() - t0)
        errors.clear()  # the daemon went away part-way: the file path reads every line again
    reported = valid = added = skipped = items = noise = gone = 0
    with _open_memory(settings, args.db) as memory:
        for chunk in _chunks(_read_turns(path, errors), IMPORT_CHUNK):
            for lineno, reason in errors[reported:]:
                print(f"{path}:{lineno}: skipped: {reason}", file=sys.stderr)
            reported = len(errors)
            base = valid + len(errors)

            def progress(done: int, _total: int, base: int = base) -> None:
                if bar is not None:
                    bar(base + done, total)

            gone += len(memory.forgotten([(t.scope, t.id) for t in chunk]))
            report = memory.memorize(chunk, progress=progress)
            valid += len(chunk)
            added += report.resources_added
            skipped += report.resources_skipped
            items += report.items_added
            noise += report.noise
    for lineno, reason in errors[reported:]:
        print(f"{path}:{lineno}: skipped: {reason}", file=sys.stderr)
    took = time.perf_counter() - t0
    summary = {
        "lines": valid + len(errors),
        "valid": valid,
        "bad_lines": len(errors),
        "resources_added": added,
        "already_stored": skipped - gone,
        "forgotten": gone,
        "items_added": items,
        "noise_turns": noise,
        "seconds": round(took, 2),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"imported {path}: {valid} valid turns ({len(errors)} bad lines), {added} new resources, "
            f"{skipped - gone} already stored, {gone} forgotten, {items} items ({noise} turns were noise) "
            f"in {took:.1f}s"
        )
        if gone:
            print(FORGOTTEN_NOTE.format(n=gone))
    return 1 if errors and args.strict else 0


def _imported_through_daemon(
    args: argparse.Namespace,
    path: Path,
    errors: list[tuple[int, str]],
    outcomes: Counter[str],
    dead: list[tuple[str, str]],
    took: float,
) -> int:
    """The import's summary when the daemon stored the turns (it reports outcomes, not rows)."""
    for lineno, reason in errors:
        print(f"{path}:{lineno}: skipped: {reason}", file=sys.stderr)
    for event_id, reason in dead:
        print(f"{path}: {event_id}: dead letter: {reason}", file=sys.stderr)
    valid = sum(outcomes.values())
    summary = {
        "lines": valid + len(errors),
        "valid": valid,
        "bad_lines": len(errors),
        # the file path's keys where the meaning is the same, so a script reads either
        "resources_added": outcomes["stored"],
        "already_stored": outcomes["duplicate"],
        "forgotten": outcomes["forgotten"],
        "dead_letters": outcomes["dead_letter"],
        "through_daemon": True,
        "seconds": round(took, 2),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"imported {path} through the running daemon: {valid} valid turns ({len(errors)} bad lines), "
            f"{outcomes['stored']} stored, {outcomes['duplicate']} already stored, "
            f"{outcomes['forgotten']} forgotten, {outcomes['dead_letter']} dead letters in {took:.1f}s"
        )
        if outcomes["forgotten"]:
            print(FORGOTTEN_NOTE.format(n=outcomes["forgotten"]))
    return 1 if (errors or dead) and args.strict else 0


# what a forgotten turn's line says: the tombstone is the privacy promise, a new id the way round it
FORGOTTEN_NOTE = (
    "{n} of these turns were forgotten (`memubot forget`) and are not stored again under the same id; "
    "to store them again, give their lines new ids"
)


def _hit_lines(hits: Sequence[Any], explain: bool) -> Iterator[str]:
    for rank, h in enumerate(hits, start=1):
        when = h.occurred_at.date().isoformat() if h.occurred_at else "?"
        yield f"{rank:2d}. [{h.score:.3f}] ({h.category}, {when}) {h.text}"
        yield f"      sources: {', '.join(h.source_ids)}"
        if h.replaced_by:
            yield f"      replaced by? {h.replaced_by['text']} (said {h.replaced_by['said'][:10]})"
        if explain:
            yield "      " + "  ".join(f"{k}={v:.3f}" for k, v in h.trace.items())


def _retired_lines(retired: Sequence[dict[str, Any]], scope: str) -> Iterator[str]:
    """What recall no longer returns because a newer statement retired it, and the undo."""
    if not retired:
        return
    yield f"retired (not returned; `memubot restore --scope {scope} --item ID` puts one back):"
    for r in retired:
        on = (r["retired_at"] or "?")[:10]
        yield f"  - {r['item_id']} {r['text']}"
        yield f"      retired on {on} by {r['retired_by']['item_id']}: {r['retired_by']['text']}"


def _recall_daemon(args: argparse.Namespace) -> bool:
    """Ask the running daemon (it holds the file); False when there is none."""
    body = {"query": args.query, "scope": args.scope, "k": args.k, "ts": args.ts, "session": args.session}
    body |= {"explain": args.explain, "reinforce": not args.no_reinforce}
    result = cli_bus.ask_daemon(args.settings, "recall", {k: v for k, v in body.items() if v is not None})
    if result is None:
        return False
    if args.json:
        # the daemon does not echo the query; the file path's output has it first
        print(json.dumps({"query": args.query, **result}, ensure_ascii=False))
        return True
    if not result["hits"]:
        print(f"no memories in scope {args.scope!r} match")
    for rank, h in enumerate(result["hits"], start=1):
        when = (h["occurred_at"] or "?")[:10]
        print(f"{rank:2d}. [{h['score']:.3f}] ({h['category']}, {when}) {h['text']}")
        print(f"      sources: {', '.join(h['source_ids'])}")
        if h.get("replaced_by"):
            print(f"      replaced by? {h['replaced_by']['text']} (said {h['replaced_by']['said'][:10]})")
        if args.explain:
            print("      " + "  ".join(f"{k}={v:.3f}" for k, v in h["trace"].items()))
    for line in _retired_lines(result.get("retired", []), args.scope):
        print(line)
    return True


def cmd_recall(args: argparse.Namespace, settings: Settings) -> int:
    args.settings = settings
    if args.db is None and args.query and args.scope and not args.queries and _recall_daemon(args):
        return 0
    path = args.db or settings.db_path
    if not Path(path).exists():
        print(f"memubot recall: no database at {path} (import something first)", file=sys.stderr)
        return 2
    if args.queries:
        return _recall_batch(args, settings)
    if not args.query:
        print("memubot recall: give a query, or --queries FILE for batch mode", file=sys.stderr)
        return 2
    if not args.scope:
        print("memubot recall: --scope is required (a recall never spans users)", file=sys.stderr)
        return 2
    ts = parse_ts(args.ts, "--ts") if args.ts else None
    with _open_memory(settings, args.db) as memory:
        t0 = time.perf_counter()
        hits = memory.recall(
            args.query,
            args.scope,
            k=args.k,
            ts=ts,
            session=args.session,
            explain=args.explain,
            reinforce=not args.no_reinforce,
        )
        ms = (time.perf_counter() - t0) * 1000
        retired = memory.retired_near(args.query, args.scope) if args.explain else []
    if args.json:
        out: dict[str, Any] = {
            "query": args.query,
            "scope": args.scope,
            "latency_ms": round(ms, 2),
            "hits": [h.as_json(args.explain) for h in hits],
        }
        if args.explain:
            out["retired"] = retired
        print(json.dumps(out, ensure_ascii=False))
    else:
        if not hits:
            print(f"no memories in scope {args.scope!r} match")
        for line in _hit_lines(hits, args.explain):
            print(line)
        for line in _retired_lines(retired, args.scope):
            print(line)
    return 0


def _recall_batch(args: argparse.Namespace, settings: Settings) -> int:
    src = Path(args.queries)
    if not src.is_file():
        print(f"memubot recall: no such file: {src}", file=sys.stderr)
        return 2
    queries: list[tuple[str, str, str, datetime | None]] = []
    bad = 0
    for lineno, line in enumerate(src.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = bounded_json.load(line, max_bytes=MAX_EVENT_BYTES, what="line")
            if not isinstance(q, dict):
                raise InvalidEvent("line must be a JSON object")
            for name in ("id", "scope", "query"):
                if not isinstance(q.get(name), str) or not q[name]:
                    raise InvalidEvent(f"missing or non-string field {name!r}")
            ts = parse_ts(q["ts"]) if q.get("ts") is not None else None
        except InvalidEvent as exc:
            bad += 1
            print(f"{src}:{lineno}: skipped: {exc}", file=sys.stderr)
            continue
        queries.append((q["id"], q["scope"], q["query"], ts))
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    progress = Progress("recalling")
    try:
        with _open_memory(settings, args.db) as memory:
            for n, (qid, scope, query, ts) in enumerate(queries, start=1):
                t0 = time.perf_counter()
                hits = memory.recall(
                    query, scope, k=args.k, ts=ts, explain=args.explain, reinforce=not args.no_reinforce
                )
                ms = (time.perf_counter() - t0) * 1000
                row = {
                    "id": qid,
                    "scope": scope,
                    "latency_ms": round(ms, 3),
                    "hits": [h.as_json(args.explain) for h in hits],
                }
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                if args.out:
                    progress(n, len(queries))
    finally:
        if args.out:
            out.close()
    if args.out:
        print(f"answered {len(queries)} queries ({bad} bad lines) → {args.out}", file=sys.stderr)
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    path = args.db or settings.db_path
    live = (
        None
        if args.db
        else cli_bus.ask_daemon(settings, "stats", {"scope": args.scope} if args.scope else {})
    )
    if live is not None:
        stats, nscopes = live, live.get("scopes")
    else:
        if not Path(path).exists():
            print(f"memubot stats: no database at {path}", file=sys.stderr)
            return 2
        store = Store(path, read_only=True)
        try:
            stats = store.stats(args.scope)
            nscopes = len(store.scopes()) if args.scope is None else 1
        finally:
            store.close()
    if args.json:
        print(json.dumps({**stats, "scope": args.scope, "scopes": nscopes}))
        return 0
    if live is not None:
        d = live["daemon"]
        print(
            f"daemon     running: handled {d['handled']} events, {d['pending']} pending, {d['dead_letters']} dead letters"
        )
    print(f"database   {path}  (schema v{stats['schema_version']})")
    print(f"scope      {args.scope or f'all ({nscopes} scopes)'}")
    print(f"resources  {stats['resources']}")
    print(f"items      {stats['items']}  ({stats['items_archived']} archived)")
    for cat, n in stats["items_by_category"].items():
        print(f"  {cat:12s} {n}")
    for tier, n in stats["items_by_tier"].items():
        print(f"  tier {tier:7s} {n}")
    print(f"categories {stats['categories']}")
    print(f"index      {stats['index_terms']} terms, {stats['index_postings']} postings")
    return 0


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    from daemon.app import serve

    # said before the model loads and before the HTTP port or the file's lock says it less clearly
    running = cli_bus.already_running(settings)
    if running is not None:
        print(f"memubot run: {running}", file=sys.stderr)
        return 1

    root = logging.getLogger()
    root.setLevel(logging.DEBUG if args.verbose else logging.INFO)
    for handler in root.handlers:
        handler.setFormatter(logging.Formatter(daemon_log_format(journal_stream())))
    # APScheduler logs every run at INFO; our tick handler logs each tick once already
    logging.getLogger("apscheduler").setLevel(logging.DEBUG if args.verbose else logging.WARNING)
    return asyncio.run(serve(settings))


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    from daemon.events import check_scope
    from daemon.mcp.server import check_loopback, serve

    scope = args.scope or settings.mcp_scope
    if not scope:
        print("memubot mcp: no scope: pass --scope NAME or set MEMUBOT_MCP_SCOPE", file=sys.stderr)
        return 2
    check_scope(scope, "--scope")
    http = None
    if args.http:
        host, _, port = args.http.rpartition(":")
        if not host or not port.isdigit():
            print(f"memubot mcp: --http must be HOST:PORT, got {args.http!r}", file=sys.stderr)
            return 2
        check_loopback(host.strip("[]"))
        http = (host.strip("[]"), int(port))
    serve(settings, scope, http)
    return 0


def cmd_asyncapi(args: argparse.Namespace, settings: Settings) -> int:
    from daemon.contract.asyncapi import render  # FastStream is imported for this command only

    sys.stdout.write(render())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memubot",
        description="memubot: a proactive memory daemon for AI agents. `run` starts the service; "
        "the other commands ask it while it runs, and work on the DuckDB memory file (--db) without it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"memubot {__version__}")
    parser.add_argument(
        "--config",
        type=Path,
        help="TOML config file (default: $MEMUBOT_CONFIG or $XDG_CONFIG_HOME/memubot/memubot.toml)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "run",
        help="start memubot in the foreground (stops on SIGTERM / Ctrl-C)",
        description="Open the memory file under the state directory (migrating it), load "
        "the embedding model and serve until SIGTERM or Ctrl-C.",
    )
    p.set_defaults(func=cmd_run)

    db_help = "DuckDB memory file (default: $MEMUBOT_DB or <state dir>/memubot.duckdb)"
    p = sub.add_parser(
        "import",
        help="import conversation turns from a JSON-lines file",
        description="Import conversation turns (DESIGN.md §4 JSON lines). Bad lines are "
        "reported with their line number and skipped; importing the same file twice adds nothing.",
    )
    p.add_argument("file", help="JSON-lines file, one conversation turn per line")
    p.add_argument("--db", type=Path, help=db_help)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--strict", action="store_true", help="exit 1 if any line was bad")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "recall",
        help="find the memories that answer a query",
        description="Hybrid recall (vectors + BM25, decay, MMR) within one scope, or a batch "
        "of queries from a JSON-lines file ({id, scope, query, ts} per line).",
    )
    p.add_argument("query", nargs="?", help="the question or cue")
    p.add_argument("--scope", help="whose memory to search (required for a single query)")
    p.add_argument("--db", type=Path, help=db_help)
    p.add_argument("--k", type=int, default=10, help="number of hits (default 10)")
    p.add_argument("--ts", help="the time of the query, ISO-8601 with offset (default: now)")
    p.add_argument("--session", help="the live session, for the short-term source")
    p.add_argument("--explain", action="store_true", help="show each hit's score after every stage")
    p.add_argument(
        "--no-reinforce",
        action="store_true",
        help="do not count this recall as a use of what it returns (for evaluations)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a list")
    p.add_argument("--queries", help="batch mode: JSON-lines file of queries")
    p.add_argument("--out", help="batch mode: write answers here (default: stdout)")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser(
        "stats",
        help="count resources, items and categories",
        description="Counts of the memory file, for one scope or the whole file.",
    )
    p.add_argument("--db", type=Path, help=db_help)
    p.add_argument("--scope", help="only this scope")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_stats)

    cli_memory.add_parsers(sub, db_help)

    p = sub.add_parser(
        "mcp",
        help="serve one person's memory to MCP clients (Claude Code, Cursor, Claude Desktop)",
        description="A Model Context Protocol server on stdin/stdout with the tools {tools}, asking the "
        "running daemon. The scope is fixed here, never by the model.",
        formatter_class=_McpHelp,
    )
    p.add_argument("--scope", help="whose memory (default: $MEMUBOT_MCP_SCOPE)")
    p.add_argument(
        "--http", metavar="HOST:PORT", help="streamable HTTP on a loopback address instead of stdio"
    )
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser(
        "asyncapi",
        help="print the AsyncAPI 3.0 document of memubot's subjects (JSON)",
        description="The AsyncAPI 3.0 contract of every subject memubot consumes, publishes and "
        "answers, with the payload schemas its validation uses (docs/asyncapi.json is this output).",
    )
    p.set_defaults(func=cmd_asyncapi)
    cli_bus.add_parsers(sub)
    cli_gmail.add_parsers(sub)
    cli_partition.add_parsers(sub)
    return parser


class _McpHelp(argparse.HelpFormatter):
    """`memubot mcp --help` names the tools the server registers: read from the registry when the
    help is shown (the MCP SDK is not imported for any other command)."""

    def add_text(self, text: str | None) -> None:
        if text and "{tools}" in text:
            from daemon.mcp.server import tool_names

            text = text.replace("{tools}", ", ".join(tool_names()))
        super().add_text(text)


LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"


def daemon_log_format(journal: str | None, stderr_fd: int = 2) -> str:
    """The daemon's log line: journald stamps each line with its time itself; anywhere else (a
    terminal, a file) the line carries it. Under journald means `$JOURNAL_STREAM` names the very
    stream stderr is (systemd's own rule: a child whose stderr was redirected is not under it)."""
    if journal is not None:
        try:
            st = os.fstat(stderr_fd)
        except OSError:
            pass
        else:
            if journal == f"{st.st_dev}:{st.st_ino}":
                return LOG_FORMAT
    return "%(asctime)s " + LOG_FORMAT


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format=LOG_FORMAT)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    settings: Settings | None = None
    try:
        settings = load_settings(config_file=args.config)
        code = int(args.func(args, settings))
        # flushed here, not at exit: a reader that went away must be noticed inside this handler
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # `memubot deadletters | head -3`: the reader has what it wanted; stop quietly, as a
        # filter killed by SIGPIPE would. stdout goes to /dev/null so that the interpreter's
        # final flush of what is still buffered does not fail a second time.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 128 + signal.SIGPIPE
    except StoreLocked as exc:
        message = cli_bus.locked_message(settings, exc, args.command) if settings else str(exc)
        print(f"memubot {args.command}: {message}", file=sys.stderr)
        return 1
    except RpcError as exc:
        # the daemon's own refusal, worded for a person already ("no item 'x' in scope 'y'")
        print(f"memubot {args.command}: {exc.message}", file=sys.stderr)
        return 1
    except MemubotError as exc:
        print(f"memubot {args.command}: {exc}", file=sys.stderr)
        return 1
    except TimeoutError as exc:
        # a request the daemon took too long over may still complete: say so, do not guess
        print(
            f"memubot {args.command}: {exc}; it may still finish (check with `memubot stats`)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print(f"memubot {args.command}: interrupted", file=sys.stderr)
        return 130
