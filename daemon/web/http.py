"""The HTTP face of the daemon: liveness, readiness and Prometheus metrics on one aiohttp app."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from aiohttp import web

from daemon.errors import ConfigError
from daemon.runtime.metrics import Metrics

log = logging.getLogger(__name__)

ReadyCheck = Callable[[], dict[str, bool]]
ReadyDetails = Callable[[], dict[str, Any]]  # shown beside the checks: why a check says what it says
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# app keys, so that routes added later (webhooks) reach the same dependencies
METRICS = web.AppKey("metrics", Metrics)
READY = web.AppKey[ReadyCheck]("ready")
DETAILS = web.AppKey[ReadyDetails | None]("ready_details")

SHUTDOWN_TIMEOUT = 5.0  # seconds in-flight requests get once we stop listening


@web.middleware
async def _errors_as_json(request: web.Request, handler: Handler) -> web.StreamResponse:
    """An unexpected exception becomes a logged 500, never a dropped connection or a dead server."""
    try:
        return await handler(request)
    except web.HTTPException:
        raise  # 404, 405, 413 and friends are answers, not failures
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        # the details stay in the journal: the body may reach a webhook sender
        return web.json_response({"error": "internal server error"}, status=500)


async def _healthz(request: web.Request) -> web.Response:
    # liveness: answering at all proves the event loop turns
    return web.json_response({"status": "ok"})


async def _readyz(request: web.Request) -> web.Response:
    try:
        checks = {name: bool(ok) for name, ok in request.app[READY]().items()}
    except Exception as exc:
        log.warning("readiness check raised: %s", exc)
        return web.json_response({"ready": False, "error": f"{type(exc).__name__}: {exc}"}, status=503)
    ready = all(checks.values())
    body: dict[str, Any] = {"ready": ready, "checks": checks}
    details = request.app[DETAILS]
    if details is not None:
        try:
            body |= details()
        except Exception as exc:  # the details explain; they never change the answer
            log.warning("readiness details raised: %s", exc)
    return web.json_response(body, status=200 if ready else 503)


async def _metrics(request: web.Request) -> web.Response:
    body, content_type = request.app[METRICS].render()
    # the content type carries version and charset parameters, so it goes in as a raw header
    return web.Response(body=body, headers={"Content-Type": content_type})


def too_large(max_size: int, actual_size: int) -> web.HTTPRequestEntityTooLarge:
    """A 413 whose body is JSON like every other refusal of a webhook (aiohttp's is plain text).
    Raised, not returned: the connection closes instead of draining the rest of the body."""
    error = f"body is too large: more than {max_size} bytes"
    return web.HTTPRequestEntityTooLarge(
        max_size=max_size,
        actual_size=actual_size,
        text=json.dumps({"error": error}),
        content_type="application/json",
    )


def make_app(
    metrics: Metrics, ready: ReadyCheck, *, max_body: int = 1 << 20, details: ReadyDetails | None = None
) -> web.Application:
    """The app with /healthz, /readyz and /metrics; bodies over `max_body` bytes get 413.
    /readyz answers the `ready` checks, plus whatever `details` returns beside them."""
    app = web.Application(client_max_size=max_body, middlewares=[_errors_as_json])
    app[METRICS] = metrics
    app[READY] = ready
    app[DETAILS] = details
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz)
    app.router.add_get("/metrics", _metrics)
    return app


def parse_addr(addr: str) -> tuple[str, int]:
    """`host:port` (IPv6 as `[::1]:8765`) → (host, port); ConfigError names the setting."""
    host, sep, port_text = addr.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        host = ""  # a bare IPv6 address is ambiguous: which colon starts the port?
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise ConfigError(
            f"MEMUBOT_HTTP_ADDR (http_addr) must be host:port with a port 0-65535, "
            f"IPv6 as [::1]:8765; got {addr!r}"
        )
    return host, int(port_text)


def bind(addr: str, backlog: int = 128) -> list[socket.socket]:
    """Bind and listen on `addr` now, before anything else starts, so that a busy port fails fast.

    Connections that arrive before the app serves wait in the kernel's backlog. Mirrors what
    asyncio's create_server does (every address the host resolves to, SO_REUSEADDR, v6-only
    IPv6 sockets) and words a failure the same way; ConfigError names the setting.
    """
    host, port = parse_addr(addr)
    socks: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as err:
                raise OSError(
                    err.errno,
                    f"error while attempting to bind on address {address!r}: {(err.strerror or '').lower()}",
                ) from None
            sock.listen(backlog)
            sock.setblocking(False)
    except OSError as exc:  # address in use, not ours, or a host name that does not resolve
        for sock in socks:
            sock.close()
        raise ConfigError(f"MEMUBOT_HTTP_ADDR: cannot listen on {addr}: {exc}") from exc
    return socks


@contextlib.asynccontextmanager
async def serve_http(
    app: web.Application, where: str | Sequence[socket.socket]
) -> AsyncIterator[tuple[str, int]]:
    """Serve on `where` — an address (port 0 picks a free one) or sockets from `bind` — and
    yield the bound (host, port).

    On exit the listener closes first, in-flight requests get SHUTDOWN_TIMEOUT seconds, then the
    app's cleanup runs: the "HTTP stops taking requests" step of the daemon's shutdown.
    """
    socks = bind(where) if isinstance(where, str) else list(where)
    # no access log: health probes and scrapes every few seconds would bury the journal; the
    # handlers log the requests that matter (one line per event)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_TIMEOUT)
    try:
        await runner.setup()
        for sock in socks:
            await web.SockSite(runner, sock).start()
        # a name like "localhost" may bind several sockets; the first one is where we are
        bound_host, bound_port = socks[0].getsockname()[:2]
        log.info("HTTP listening on %s:%d", bound_host, bound_port)
        yield bound_host, bound_port
    finally:
        await runner.cleanup()
        for sock in socks:
            sock.close()
