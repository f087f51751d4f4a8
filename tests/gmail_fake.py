"""A small local Gmail / Pub/Sub / OAuth API server answering with recorded-style JSON.

Only the routes memubot calls; every request is recorded so tests can see what was asked.
The responses are the files under tests/fixtures/gmail/ (plus what a test adds at runtime).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

from daemon.web.http import serve_http

FIXTURES = Path(__file__).parent / "fixtures" / "gmail"


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


class FakeGoogle:
    """State of the fake: messages by id, history pages, what Pub/Sub has to deliver, requests seen."""

    def __init__(self) -> None:
        self.messages: dict[str, dict[str, Any]] = {
            m: fixture(f"message_{m}") for m in ("18e1a", "18e2b", "18e3c")
        }
        self.history_pages = {None: fixture("history_page1"), "page-2": fixture("history_page2")}
        self.gone_before = 50  # a startHistoryId below this: 404, as Gmail does after about a week
        self.pulls: list[list[dict[str, Any]]] = []
        self.acked: list[str] = []
        self.requests: list[tuple[str, str, str | None]] = []
        self.token = "fresh-token"
        self.url = ""

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 << 20)
        app.router.add_get("/gmail/v1/users/me/history", self.history)
        app.router.add_get("/gmail/v1/users/me/messages", self.list)
        app.router.add_get("/gmail/v1/users/me/messages/{id}", self.get)
        app.router.add_get("/gmail/v1/users/me/profile", self.profile)
        app.router.add_post("/gmail/v1/users/me/watch", self.watch)
        app.router.add_post("/v1/projects/p/subscriptions/{sub}", self.pubsub)
        app.router.add_post("/token", self.oauth)
        app.middlewares.append(self.record)
        return app

    @web.middleware
    async def record(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests.append((request.method, request.path_qs, request.headers.get("Authorization")))
        response: web.StreamResponse = await handler(request)
        return response

    async def history(self, request: web.Request) -> web.Response:
        if int(request.query["startHistoryId"]) < self.gone_before:
            return web.json_response(fixture("error_404"), status=404)
        return web.json_response(self.history_pages[request.query.get("pageToken")])

    async def list(self, request: web.Request) -> web.Response:
        return web.json_response(fixture("messages_list"))

    async def get(self, request: web.Request) -> web.Response:
        message = self.messages.get(request.match_info["id"])
        if message is None:
            return web.json_response(fixture("error_404"), status=404)
        return web.json_response(message)

    async def profile(self, request: web.Request) -> web.Response:
        return web.json_response(fixture("profile"))

    async def watch(self, request: web.Request) -> web.Response:
        body = await request.json()
        assert body["topicName"] == "projects/p/topics/gmail"
        return web.json_response(fixture("watch"))

    async def pubsub(self, request: web.Request) -> web.Response:
        _, _, verb = request.match_info["sub"].partition(":")
        body = await request.json()
        if verb == "acknowledge":
            self.acked.extend(body["ackIds"])
            return web.json_response({})
        batch = self.pulls.pop(0) if self.pulls else []
        return web.json_response({"receivedMessages": batch} if batch else {})

    async def oauth(self, request: web.Request) -> web.Response:
        form = await request.post()
        if form.get("grant_type") == "authorization_code" and form.get("code") == "4/the-code":
            return web.json_response(
                {"access_token": "first-token", "refresh_token": "the-refresh-token", "expires_in": 3600}
            )
        if form.get("grant_type") != "refresh_token" or form.get("refresh_token") != "the-refresh-token":
            return web.json_response({"error": "invalid_grant"}, status=400)
        return web.json_response({"access_token": self.token, "expires_in": 3600, "token_type": "Bearer"})


@asynccontextmanager
async def serve_fake() -> AsyncIterator[FakeGoogle]:
    fake = FakeGoogle()
    async with serve_http(fake.app(), "127.0.0.1:0") as (host, port):
        fake.url = f"http://{host}:{port}"
        yield fake
