"""Whether a NATS server answers at a URL, found out without ever hanging.

nats-py's own connect loop retries forever, so a probe opens a plain TCP connection and waits,
with a timeout, for the INFO line every NATS server greets its clients with.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit


def host_port(url: str) -> tuple[str, int]:
    """(host, port) of a NATS URL; a bare `host:port` is accepted, 4222 is the default port."""
    parts = urlsplit(url if "://" in url else f"nats://{url}")
    return parts.hostname or "127.0.0.1", parts.port or 4222


async def probe(url: str, timeout: float = 1.0) -> bool:
    """Whether a NATS server answers at `url` (it greets every client with an INFO line); of a
    comma-separated list (a cluster's servers), whether any does."""
    urls = [u.strip() for u in url.split(",") if u.strip()]
    if len(urls) > 1:
        return any(await asyncio.gather(*(probe(u, timeout) for u in urls)))
    writer: asyncio.StreamWriter | None = None
    try:
        host, port = host_port(url)
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            line = await reader.readline()
        return line.startswith(b"INFO ")
    except (OSError, TimeoutError, ValueError):
        return False
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
