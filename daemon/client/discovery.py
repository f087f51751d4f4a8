"""Discovery: how a process outside the daemon finds the running one (one implementation).

A daemon writes its runtime file (`memubot.json` in its state directory) when READY: its pid,
its embedded broker's NATS URL, its HTTP address. The agent client, the CLI and the MCP server
all look here: the broker named by that file first, then MEMUBOT_NATS_URL; and, for a daemon
that holds the DuckDB file but does not answer, the pid it wrote, checked to be alive and to be
a `memubot run`.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daemon.runtime.probe import probe

if TYPE_CHECKING:  # only the type: the agent client does not load the configuration (nor memory)
    from daemon.config import Settings

RUNTIME_FILE = "memubot.json"  # where a running daemon says how to reach it (pid, NATS URL, HTTP)


def runtime_info(state_dir: Path) -> dict[str, Any] | None:
    """What a running daemon wrote about itself (pid, NATS URL, HTTP), if anything."""
    try:
        info = json.loads((state_dir / RUNTIME_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def candidate_urls(settings: Settings) -> list[str]:
    """The brokers to try, in order: the one the runtime file names, then MEMUBOT_NATS_URL."""
    info = runtime_info(settings.state_dir)
    urls = [str(info["nats_url"])] if info and info.get("nats_url") else []
    return [*urls, settings.nats_url] if settings.nats_url not in urls else urls


async def answering_urls(urls: Sequence[str]) -> AsyncGenerator[str, None]:
    """Those of `urls` where a NATS server answers now, in order, each probed only when the
    caller asks for the next (close it with `contextlib.aclosing` when leaving early)."""
    for url in urls:
        if await probe(url, timeout=1.0):
            yield url


async def find_broker(settings: Settings) -> str | None:
    """The first candidate broker that answers, or None."""
    async with aclosing(answering_urls(candidate_urls(settings))) as answering:
        async for url in answering:
            return url
    return None


# ---- a daemon that holds the file but does not answer ---------------------------------------


def command_line(pid: int) -> str | None:
    """A process's command line (Linux /proc), or None when it cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part) or None


def looks_like_daemon(command: str | None) -> bool:
    """Whether a command line is a daemon's."""
    # `memubot run`, `python -m daemon run`, or the venv's console script under systemd
    words = (command or "").split()
    return bool(words) and words[-1] == "run" and any("memubot" in w or w == "daemon" for w in words)


def running_daemon_pid(settings: Settings) -> int | None:
    """The pid of a live `memubot run` named by the runtime file, whether or not NATS reaches it."""
    info = runtime_info(settings.state_dir)
    pid = info.get("pid") if info else None
    if not isinstance(pid, int) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None  # a runtime file left by a daemon that was killed
    except PermissionError:
        pass  # alive, under another user
    command = command_line(pid)
    # a pid reused by something else since: not our daemon
    return pid if command is None or looks_like_daemon(command) else None
