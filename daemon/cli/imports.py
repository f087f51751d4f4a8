"""`memubot import` through the running daemon: the file's turns as `memubot.rpc.memorize` requests.

The daemon holds the DuckDB file, so while it runs an import is a stream of requests to it, in
file order, a chunk at a time: each turn goes through the same dispatcher as the bus (ledger,
dead letters), every turn gets its outcome back, and progress moves as chunks are answered. Bad
lines are reported by line number here and never sent.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from daemon.cli import bus as cli_bus
from daemon.client import Client
from daemon.config import Settings
from daemon.errors import InvalidEvent
from daemon.events import decode, turn_from_dict
from daemon.runtime.rpc import MAX_MEMORIZE_TURNS, MAX_REQUEST_BYTES

# well under the daemon's request limit (and NATS's 1 MB payload): the envelope and JSON escaping
# of a re-encoded turn add a little to its bytes on disk
CHUNK_BYTES = MAX_REQUEST_BYTES // 2
CHUNK_TURNS = min(256, MAX_MEMORIZE_TURNS)
REQUEST_TIMEOUT = 600.0  # a chunk of 256 turns is embedded before the daemon answers


def read_chunks(path: Path, errors: list[tuple[int, str]]) -> Iterator[list[dict[str, Any]]]:
    """The file's valid turns as JSON objects in request-sized chunks; bad lines go to `errors`."""
    chunk: list[dict[str, Any]] = []
    size = 0
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                body = decode(raw.rstrip(b"\r\n"))
                turn_from_dict(body)  # refused here with its line number, not by the daemon
            except InvalidEvent as exc:
                errors.append((lineno, str(exc)))
                continue
            except Exception as exc:  # whatever one line raises is that line's fault, not the file's
                errors.append((lineno, f"{type(exc).__name__}: {exc}"))
                continue
            if chunk and (len(chunk) >= CHUNK_TURNS or size + len(raw) > CHUNK_BYTES):
                yield chunk
                chunk, size = [], 0
            chunk.append(body)
            size += len(raw)
    if chunk:
        yield chunk


def import_through_daemon(
    settings: Settings,
    path: Path,
    errors: list[tuple[int, str]],
    progress: Callable[[int, int], None],
    total: int,
) -> tuple[Counter[str], list[tuple[str, str]]] | None:
    """Send the file's turns to the daemon: outcomes counted (stored, duplicate, dead_letter, …)
    and each dead letter's event id and reason.

    None when no daemon answers: the caller imports into the file itself (an import is
    idempotent, so a daemon that goes away part-way loses nothing).
    """

    async def send(client: Client) -> tuple[Counter[str], list[tuple[str, str]]]:
        outcomes: Counter[str] = Counter()
        dead: list[tuple[str, str]] = []
        for chunk in read_chunks(path, errors):
            reply = await client.request("memorize", {"turns": chunk}, timeout=REQUEST_TIMEOUT)
            for r in reply["results"]:
                outcomes[r["outcome"]] += 1
                if r["outcome"] == "dead_letter":
                    dead.append((str(r["id"]), str(r["reason"])))
            progress(sum(outcomes.values()) + len(errors), total)
        return outcomes, dead

    return asyncio.run(cli_bus.with_daemon(settings, send))
