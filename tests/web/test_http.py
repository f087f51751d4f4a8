"""The real aiohttp app on a loopback port, asked the way probes, scrapers and senders ask it."""

from __future__ import annotations

import io
import socket
from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from daemon.errors import ConfigError
from daemon.runtime.metrics import Metrics
from daemon.web.http import make_app, parse_addr, serve_http

TIMEOUT = aiohttp.ClientTimeout(total=10)
Checks = dict[str, bool]


def _all_ready() -> Checks:
    return {"broker": True, "consumer": True, "db": True}


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


def _url(bound: tuple[str, int], path: str) -> str:
    host, port = bound
    return f"http://{host}:{port}{path}"


async def test_healthz(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    async with serve_http(make_app(metrics, _all_ready), "127.0.0.1:0") as bound:
        assert bound[0] == "127.0.0.1" and bound[1] > 0
        async with client.get(_url(bound, "/healthz")) as resp:
            assert resp.status == 200
            assert await resp.json() == {"status": "ok"}


@pytest.mark.parametrize(
    ("ready", "status", "body"),
    [
        (_all_ready, 200, {"ready": True, "checks": {"broker": True, "consumer": True, "db": True}}),
        (
            lambda: {"broker": True, "consumer": False, "db": True},
            503,
            {"ready": False, "checks": {"broker": True, "consumer": False, "db": True}},
        ),
    ],
)
async def test_readyz(
    metrics: Metrics,
    client: aiohttp.ClientSession,
    ready: Callable[[], Checks],
    status: int,
    body: dict[str, object],
) -> None:
    async with (
        serve_http(make_app(metrics, ready), "127.0.0.1:0") as bound,
        client.get(_url(bound, "/readyz")) as resp,
    ):
        assert resp.status == status
        assert await resp.json() == body


async def test_readyz_when_the_check_raises(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    def broken() -> Checks:
        raise RuntimeError("duckdb connection closed")

    async with (
        serve_http(make_app(metrics, broken), "127.0.0.1:0") as bound,
        client.get(_url(bound, "/readyz")) as resp,
    ):
        assert resp.status == 503
        body = await resp.json()
        assert body["ready"] is False
        assert "duckdb connection closed" in body["error"]


async def test_metrics_endpoint(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    metrics.event("conversation", "stored")
    async with (
        serve_http(make_app(metrics, _all_ready), "127.0.0.1:0") as bound,
        client.get(_url(bound, "/metrics")) as resp,
    ):
        assert resp.status == 200
        assert resp.headers["Content-Type"] == CONTENT_TYPE_LATEST
        text = await resp.text()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert samples[("memubot_events_total", (("kind", "conversation"), ("outcome", "stored")))] == 1


async def test_unknown_path_and_wrong_method(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    async with serve_http(make_app(metrics, _all_ready), "127.0.0.1:0") as bound:
        async with client.get(_url(bound, "/nope")) as resp:
            assert resp.status == 404
        async with client.post(_url(bound, "/healthz")) as resp:
            assert resp.status == 405


async def test_body_over_the_limit_gets_413(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    app = make_app(metrics, _all_ready)

    async def echo_size(request: web.Request) -> web.Response:  # test-only route: no webhooks yet
        return web.json_response({"size": len(await request.read())})

    app.router.add_post("/test-upload", echo_size)
    async with serve_http(app, "127.0.0.1:0") as bound:
        async with client.post(_url(bound, "/test-upload"), data=b"x" * 1000) as resp:
            assert resp.status == 200
            assert await resp.json() == {"size": 1000}
        # its own session, closed before the server stops: aiohttp's client stops sending an oversized
        # body once the 413 arrives but keeps the socket open, and the server would wait out its
        # shutdown timeout draining the rest
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as sender,
            sender.post(_url(bound, "/test-upload"), data=io.BytesIO(b"x" * (2 << 20))) as resp,
        ):
            assert resp.status == 413


async def test_unexpected_exception_is_a_json_500(
    metrics: Metrics, client: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(metrics, _all_ready)

    async def boom(request: web.Request) -> web.Response:
        raise ValueError("secret internal detail")

    app.router.add_get("/test-boom", boom)
    async with serve_http(app, "127.0.0.1:0") as bound:
        async with client.get(_url(bound, "/test-boom")) as resp:
            assert resp.status == 500
            body = await resp.json()
            assert "error" in body and "secret" not in body["error"]
        async with client.get(_url(bound, "/healthz")) as resp:  # still serving
            assert resp.status == 200
    assert any(r.levelname == "ERROR" and "/test-boom" in r.getMessage() for r in caplog.records)


async def test_ipv6_loopback(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError as exc:  # containers may run with IPv6 disabled: nothing to learn then
        pytest.skip(f"no IPv6 loopback here: {exc}")
    async with serve_http(make_app(metrics, _all_ready), "[::1]:0") as (host, port):
        assert host == "::1"
        async with client.get(f"http://[::1]:{port}/healthz") as resp:
            assert resp.status == 200


@pytest.mark.parametrize(
    "addr", ["8765", "127.0.0.1", "127.0.0.1:", ":8765", "127.0.0.1:http", "127.0.0.1:70000", "::1:8765"]
)
async def test_malformed_addr_is_a_config_error(metrics: Metrics, addr: str) -> None:
    with pytest.raises(ConfigError, match="MEMUBOT_HTTP_ADDR"):
        async with serve_http(make_app(metrics, _all_ready), addr):
            pass


def test_parse_addr() -> None:
    assert parse_addr("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_addr("[::1]:0") == ("::1", 0)
    assert parse_addr("localhost:80") == ("localhost", 80)


async def test_port_in_use_is_a_config_error_naming_the_address(metrics: Metrics) -> None:
    async with serve_http(make_app(metrics, _all_ready), "127.0.0.1:0") as (_, port):
        addr = f"127.0.0.1:{port}"
        with pytest.raises(ConfigError, match=addr):
            async with serve_http(make_app(Metrics(), _all_ready), addr):
                pass


async def test_stops_listening_on_exit(metrics: Metrics, client: aiohttp.ClientSession) -> None:
    async with serve_http(make_app(metrics, _all_ready), "127.0.0.1:0") as bound:
        pass
    with pytest.raises(aiohttp.ClientConnectionError):
        async with client.get(_url(bound, "/healthz")):
            pass
