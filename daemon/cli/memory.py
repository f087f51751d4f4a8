"""CLI commands that change memory — forget, restore, consolidate — beside a running daemon or not.

The daemon is the one writer of the DuckDB file and holds its lock, so while it runs these
commands are requests to it (`memubot.rpc.forget`, `restore`, `consolidate`); without one they
open the file. `--db FILE` always means the file. The privacy path (`forget`) never asks anyone
to stop the daemon.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from daemon import jobs
from daemon.cli import bus as cli_bus
from daemon.cli.progress import Progress
from daemon.compose import open_memory as _open_file
from daemon.config import Settings
from daemon.events import parse_ts
from daemon.memory import Memory
from daemon.runtime.rpc import restore_refusal

# A forget of a whole scope, or a consolidation of every scope, re-indexes many rows before the
# daemon answers: the wait is long, and a timeout still says what may have happened.
WRITE_TIMEOUT = 600.0


def _need_db(command: str, settings: Settings, db: Path | None) -> Path | None:
    path = db or settings.db_path
    if not Path(path).exists():
        print(f"memubot {command}: no database at {path}", file=sys.stderr)
        return None
    return Path(path)


def open_memory(settings: Settings, db: Path | None) -> Memory:
    return _open_file(settings, db, progress=Progress("re-embedding"))


def _ask(settings: Settings, args: argparse.Namespace, verb: str, body: dict[str, Any]) -> Any | None:
    """The daemon's answer, or None when the command should use the file (`--db`, or no daemon)."""
    if args.db is not None:
        return None
    return cli_bus.ask_daemon(settings, verb, body, timeout=WRITE_TIMEOUT)


def cmd_consolidate(args: argparse.Namespace, settings: Settings) -> int:
    at = parse_ts(args.at, "--at") if args.at else None  # a bad --at is refused before anything runs
    body = {k: v for k, v in (("scope", args.scope), ("at", args.at)) if v is not None}
    report = _ask(settings, args, "consolidate", body)
    if report is None:
        if _need_db("consolidate", settings, args.db) is None:
            return 2
        with open_memory(settings, args.db) as memory:
            report = jobs.consolidate(memory, settings, args.scope, at)
    if args.json:
        print(json.dumps(report))
        return 0
    for scope, r in report["scopes"].items():
        print(
            f"{scope}: {r['active_before']} active items → {r['active_after']}; promoted {r['promoted']},"
            f" demoted {r['demoted']}, archived {r['archived']}, newly evergreen {r['evergreen']}"
        )
    if report["profile_updated"] is not None:
        print(f"profile file: {'updated' if report['profile_updated'] else 'unchanged'}")
    return 0


def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    body = {"scope": args.scope, "items": args.item, "query": args.query, "all": args.all or None}
    body["dry_run"] = args.dry_run or None
    live = _ask(settings, args, "forget", {k: v for k, v in body.items() if v is not None})
    if live is not None:
        counts: dict[str, int] = live["deleted"]
    else:
        if _need_db("forget", settings, args.db) is None:
            return 2
        with open_memory(settings, args.db) as memory:
            counts = memory.forget(
                args.scope,
                item_ids=args.item or (),
                query=args.query,
                everything=args.all,
                dry_run=args.dry_run,
            )
            if not args.dry_run:
                jobs.refresh_profile(memory, settings)
    if args.json:
        print(json.dumps({"scope": args.scope, "dry_run": args.dry_run, **counts}))
        return 0
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{args.scope}: {verb} " + ", ".join(f"{n} {table}" for table, n in counts.items()))
    return 0


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    # the daemon's refusal (no such item, nothing to undo) comes back as an RpcError: main prints it
    if _ask(settings, args, "restore", {"scope": args.scope, "item": args.item}) is None:
        if _need_db("restore", settings, args.db) is None:
            return 2
        with open_memory(settings, args.db) as memory:
            if not memory.restore(args.scope, args.item):
                print(f"memubot restore: {restore_refusal(memory, args.scope, args.item)}", file=sys.stderr)
                return 1
    print(f"restored {args.item}")
    return 0


def add_parsers(sub: Any, db_help: str) -> None:
    """Register consolidate, forget and restore on the `memubot` parser."""
    p = sub.add_parser(
        "consolidate",
        help="run the lifecycle job now: tiers, archiving, the profile file",
        description="Move items between tiers (peripheral → working → core and back) by use and "
        "importance, archive the ones that faded (kept on disk, out of recall, restorable), and "
        "rewrite the profile file's managed block. The daemon runs this daily; while it runs, "
        "this asks it to run the job now.",
    )
    p.add_argument("--db", type=Path, help=db_help)
    p.add_argument("--scope", help="only this scope (default: every scope)")
    p.add_argument("--at", help="the time to consolidate at, ISO-8601 with offset (default: now)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_consolidate)

    p = sub.add_parser(
        "forget",
        help="delete memories for good (the privacy path)",
        description="Really delete: the items, the resources they came from, their index postings, "
        "vectors and cached vectors, and the forgotten words in neighbouring items' context. "
        "Prints how many rows went from each table. While the daemon runs, it does the deleting.",
    )
    p.add_argument("--scope", required=True, help="whose memory")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--item", action="append", metavar="ID", help="an item id (repeatable)")
    what.add_argument("--query", help="every item and resource containing all these words")
    what.add_argument("--all", action="store_true", help="everything in the scope")
    p.add_argument("--dry-run", action="store_true", help="count what would go; delete nothing")
    p.add_argument("--db", type=Path, help=db_help)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser(
        "restore",
        help="undo: bring a retired or archived item back into recall",
        description="Retired items (replaced by a newer statement) and archived ones (faded) are "
        "kept on disk; this makes one recallable again, as if it had never been replaced. "
        "`memubot recall --explain` and /ui show what retired an item and its id.",
    )
    p.add_argument("--scope", required=True, help="whose memory")
    p.add_argument("--item", required=True, metavar="ID", help="the retired or archived item's id")
    p.add_argument("--db", type=Path, help=db_help)
    p.set_defaults(func=cmd_restore)
