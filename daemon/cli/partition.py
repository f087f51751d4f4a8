"""`memubot partition move`: hand a partition's scopes, with their data, from one instance's
DuckDB file to another's while both instances are stopped (docs/cluster.md#moving-a-partition)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from daemon.client.discovery import command_line
from daemon.config import MAX_PARTITIONS, Settings, own_partitions
from daemon.errors import ConfigError, StoreLocked
from daemon.memory.move import MoveReport, move_scopes
from daemon.subjects import partition_of

DESCRIPTION = """\
Copy every row of the scopes in the given partitions (the partition each scope's events are
filed under, `partition(N, scope)`, the same function the daemon and NATS use) from one
instance's DuckDB file to another's: resources, items, their sources, vectors and index
postings, categories, the memory-op log, the ledger, tombstones, suggestions and verdicts,
work items, workflow runs and e-mail threads.

Stop both instances first (SIGTERM): the command refuses a file another process holds. The
copy is one transaction of the target, refused when the target already holds rows of those
scopes, and checked table by table before it commits; the source is left as it was unless
--delete-source is given, which deletes the moved rows from it after checking once more that
the target holds every one. Run the same command with --delete-source after a copy to delete
then. The index copies beside both files (<file>.index/) of the moved scopes are removed, so
each daemon rebuilds those scopes' indexes from DuckDB.

Afterwards, start the new owner with the partitions in its MEMUBOT_OWN_PARTITIONS and the old
owner without them. Start the old owner again only after --delete-source: with the rows still
in its file, its schedules and its suggestion outbox would go on serving those scopes.
"""

EPILOG = """\
example (move partition 1 of 4 from instance A to instance B):
  systemctl --user stop memubot        # on A and on B
  memubot partition move --partitions 4 --partition 1 --from /srv/a/memubot.duckdb --to /srv/b/memubot.duckdb
  memubot partition move --partitions 4 --partition 1 --from /srv/a/memubot.duckdb --to /srv/b/memubot.duckdb --delete-source
  # A: MEMUBOT_OWN_PARTITIONS=0    B: MEMUBOT_OWN_PARTITIONS=1-3; start both

exit status: 0 moved (or nothing to move), 1 refused or failed (nothing lost: see the message), 2 bad arguments
"""


def _partitions(args: argparse.Namespace) -> tuple[int, tuple[int, ...]] | None:
    n = args.partitions
    if not 1 <= n <= MAX_PARTITIONS:
        print(f"memubot partition move: --partitions must be 1..{MAX_PARTITIONS}, got {n}", file=sys.stderr)
        return None
    if not args.partition.strip(", "):  # own_partitions reads "" as "all of them"
        print("memubot partition move: --partition names no partition", file=sys.stderr)
        return None
    try:
        parts = own_partitions(args.partition, n)
    except ConfigError as exc:
        message = (
            str(exc)
            .replace("MEMUBOT_OWN_PARTITIONS", "--partition")
            .replace("MEMUBOT_PARTITIONS", "--partitions")
        )
        print(f"memubot partition move: {message}", file=sys.stderr)
        return None
    return n, parts


def _locked(exc: StoreLocked) -> str:
    holder = f"process {exc.pid}" if exc.pid is not None else "another process"
    seen = command_line(exc.pid) if exc.pid is not None else None
    if seen:
        holder += f" ({seen})"
    return (
        f"{exc.path} is in use by {holder}: stop the memubot instances of both files (SIGTERM, e.g. "
        "`systemctl --user stop memubot`) before moving a partition; nothing was changed"
    )


def _summary(report: MoveReport, took: float) -> list[str]:
    lines = [f"{len(report.scopes)} scopes, {report.source} → {report.target} in {took:.1f}s"]
    width = max((len(t) for t in report.rows), default=0)
    for table, n in report.rows.items():
        if not n and not (report.deleted or {}).get(table):
            continue
        line = f"  {table:{width}s} {n:>9d} in the source"
        if report.copied:
            line += f", {report.copied.get(table, 0):>9d} copied"
        kept = report.kept_target.get(table)
        if kept:
            line += f" ({kept} ids the target's ledger had already)"
        if report.deleted is not None:
            line += f", {report.deleted.get(table, 0):>9d} deleted from the source"
        lines.append(line)
    if report.cached_vectors:
        lines.append(f"  embed_cache: {report.cached_vectors} cached vectors copied")
    for name, at in report.cursors.items():
        lines.append(f"  cursor {name}: moved to {at} (the source had read the ops before it)")
    if report.deleted is None and report.scopes:
        lines.append(
            "the source still holds these rows: delete them with the same command and --delete-source "
            "before its instance starts again"
        )
    return lines


def cmd_partition_move(args: argparse.Namespace, settings: Settings) -> int:
    from daemon.predict.engine import CURSOR as PREDICT_CURSOR
    from daemon.runtime.ops_outbox import CURSOR as OPS_CURSOR

    got = _partitions(args)
    if got is None:
        return 2
    n, parts = got
    source, target = Path(args.source), Path(args.target)
    if not source.is_file():
        print(f"memubot partition move: no DuckDB file at {source}", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    say(f"partition{'s' if len(parts) > 1 else ''} {','.join(map(str, parts))} of {n}: {source} → {target}")
    t0 = time.perf_counter()
    try:
        report = move_scopes(
            source,
            target,
            lambda scope: partition_of(scope, n) in parts,
            delete_source=args.delete_source,
            op_cursors=(OPS_CURSOR, PREDICT_CURSOR),
            say=say,
        )
    except StoreLocked as exc:
        print(f"memubot partition move: {_locked(exc)}", file=sys.stderr)
        return 1
    for warning in report.warnings:
        print(f"memubot partition move: warning: {warning}", file=sys.stderr)
    if args.json:
        out: dict[str, Any] = {"partitions": n, "moved": list(parts), **report.as_json()}
        print(json.dumps(out, ensure_ascii=False))
    elif report.scopes:
        print("\n".join(_summary(report, time.perf_counter() - t0)))
    else:
        print(f"nothing to move: {source} holds no scope of partition {','.join(map(str, parts))} of {n}")
    return 0


def add_parsers(sub: Any) -> None:
    """Register `partition move` on the `memubot` parser."""
    p = sub.add_parser(
        "partition",
        help="cluster partitions: move one with its data between instances' files",
        description="Work on the partitions of a cluster's scopes (docs/cluster.md).",
    )
    verbs = p.add_subparsers(dest="partition_command", metavar="ACTION", required=True)
    m = verbs.add_parser(
        "move",
        help="copy a partition's scopes from one DuckDB file to another (both instances stopped)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m.add_argument(
        "--partitions",
        type=int,
        required=True,
        metavar="N",
        help="the cluster's number of partitions (its MEMUBOT_PARTITIONS)",
    )
    m.add_argument(
        "--partition",
        required=True,
        metavar="P",
        help="the partition to move: 1, or several as in MEMUBOT_OWN_PARTITIONS (0,2 or 0-3)",
    )
    m.add_argument("--from", dest="source", required=True, metavar="FILE", help="the old owner's DuckDB file")
    m.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="FILE",
        help="the new owner's DuckDB file (created when missing)",
    )
    m.add_argument(
        "--delete-source",
        action="store_true",
        help="after the copy is checked, delete the moved rows from the source (alone, after an "
        "earlier copy: check the target holds them all, then delete)",
    )
    m.add_argument("--json", action="store_true", help="print the report as one JSON object")
    m.add_argument("--quiet", action="store_true", help="no progress output")
    m.set_defaults(func=cmd_partition_move)
