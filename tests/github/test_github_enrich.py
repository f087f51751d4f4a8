"""GitHub enrichment through PyGithub against a local fake of the API: PR files and stats, an
issue thread, failures that leave the delivery unenriched, the rate limit, no call on redelivery."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from daemon.config import load_settings
from daemon.events import GithubEvent, github_from_dict
from daemon.github.enrich import RESERVE, Enricher
from daemon.memory import Memory
from handlers import github
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.github_fixtures import FIXTURES

REPO = "Codertocat/Hello-World"  # the repository of the shared fixtures


class FakeGitHub:
    """The few API routes enrichment reads, with rate-limit headers; counts its requests."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.remaining = 4000
        self.fail: int | None = None  # answer every request with this status

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/api/v3/repos/{owner}/{repo}/pulls/{n}", self.pull)
        app.router.add_get("/api/v3/repos/{owner}/{repo}/pulls/{n}/files", self.files)
        app.router.add_get("/api/v3/repos/{owner}/{repo}/issues/{n}", self.issue)
        app.router.add_get("/api/v3/repos/{owner}/{repo}/issues/{n}/comments", self.comments)
        return app

    def _answer(self, request: web.Request, body: Any) -> web.Response:
        self.requests.append(request.path)
        self.remaining -= 1
        headers = {
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": str(max(self.remaining, 0)),
            "X-RateLimit-Reset": str(int(time.time()) + 1800),
        }
        if self.fail == 403:
            headers["X-RateLimit-Remaining"] = "0"
            body = {"message": "API rate limit exceeded for user ID 1."}
            return web.json_response(body, status=403, headers=headers)
        if self.fail is not None:
            return web.json_response({"message": "Server Error"}, status=self.fail, headers=headers)
        return web.json_response(body, headers=headers)

    async def pull(self, request: web.Request) -> web.Response:
        n = int(request.match_info["n"])
        return self._answer(
            request,
            {
                "number": n,
                "changed_files": 4,
                "additions": 120,
                "deletions": 7,
                "commits": 3,
                "state": "open",
            },
        )

    async def files(self, request: web.Request) -> web.Response:
        names = ["README.md", "src/app.py", "src/db.py", "tests/test_app.py"]
        return self._answer(
            request,
            [{"filename": f, "status": "modified", "additions": 30, "deletions": 2} for f in names],
        )

    async def issue(self, request: web.Request) -> web.Response:
        return self._answer(request, {"number": int(request.match_info["n"]), "comments": 7})

    async def comments(self, request: web.Request) -> web.Response:
        return self._answer(
            request,
            [
                {
                    "id": i,
                    "user": {"login": f"user{i}"},
                    "body": f"comment {i} " + "x" * 400,
                    "created_at": f"2024-05-0{i}T10:00:00Z",
                }
                for i in range(1, 8)
            ],
        )


@pytest.fixture
async def fake() -> AsyncIterator[tuple[FakeGitHub, str]]:
    gh = FakeGitHub()
    server = TestServer(gh.app())
    await server.start_server()
    try:
        yield gh, str(server.make_url("/api/v3"))
    finally:
        await server.close()


def event(rel: str, delivery: str) -> GithubEvent:
    payload = json.loads((FIXTURES / rel).read_text(encoding="utf-8"))
    return github_from_dict(
        {"id": delivery, "scope": "alice", "event": rel.split("/")[0], "payload": payload}
    )


def deps_with(memory: Memory, clock: FakeClock, tmp_path: Path, url: str) -> Deps:
    settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_GITHUB_LOGIN": "octocat"})
    return Deps(memory, settings, clock, github=Enricher("test-token", url))


def stored(memory: Memory, rid: str) -> tuple[str, dict[str, Any]]:
    text, meta = memory.store.con.execute(
        "SELECT text, meta FROM resources WHERE scope = 'alice' AND id = ?", [rid]
    ).fetchone()
    return text, json.loads(meta)


async def test_a_pull_request_delivery_gains_its_files_and_diff_stats(
    fake: tuple[FakeGitHub, str], memory: Memory, clock: FakeClock, tmp_path: Path
) -> None:
    gh, url = fake
    deps = deps_with(memory, clock, tmp_path, url)
    ev = event("pull_request/review_requested.payload.json", "d-1")
    assert await github.handle([ev], deps) == ["stored"]
    text, meta = stored(memory, "d-1")
    extra = meta["enrichment"]
    assert (extra["changed_files"], extra["additions"], extra["deletions"]) == (4, 120, 7)
    assert [f["file"] for f in extra["files"]] == [
        "README.md",
        "src/app.py",
        "src/db.py",
        "tests/test_app.py",
    ]
    assert text.endswith("(4 files, +120 −7: README.md, src/app.py, src/db.py, +1 more)")
    assert gh.requests == [f"/api/v3/repos/{REPO}/pulls/2", f"/api/v3/repos/{REPO}/pulls/2/files"]
    # a redelivery is stored already: no API call
    assert await github.handle([ev], deps) == ["duplicate"]
    assert len(gh.requests) == 2


async def test_an_issue_comment_gains_the_newest_comments_of_its_thread(
    fake: tuple[FakeGitHub, str], memory: Memory, clock: FakeClock, tmp_path: Path
) -> None:
    _, url = fake
    deps = deps_with(memory, clock, tmp_path, url)
    ev = event("issue_comment/created.payload.json", "c-1")
    assert await github.handle([ev], deps) == ["stored"]
    text, meta = stored(memory, "c-1")
    thread = meta["enrichment"]["thread"]
    assert meta["enrichment"]["comments"] == 7 and [c["author"] for c in thread] == [
        f"user{i}" for i in range(3, 8)
    ]
    assert all(len(c["text"]) <= 300 for c in thread) and text.endswith("(7 comments; last by user7)")


@pytest.mark.parametrize("status", [500, 404, 403])
async def test_a_failing_api_leaves_the_delivery_stored_unenriched(
    fake: tuple[FakeGitHub, str], memory: Memory, clock: FakeClock, tmp_path: Path, status: int
) -> None:
    gh, url = fake
    gh.fail = status
    deps = deps_with(memory, clock, tmp_path, url)
    assert await github.handle([event("pull_request/review_requested.payload.json", "d-2")], deps) == [
        "stored"
    ]
    text, meta = stored(memory, "d-2")
    assert "enrichment" not in meta and text.startswith("Codertocat requested a review")
    assert len(gh.requests) == 1, "no retries of its own"


async def test_enrichment_pauses_when_the_rate_limit_runs_low(fake: tuple[FakeGitHub, str]) -> None:
    gh, url = fake
    enricher = Enricher("test-token", url)
    payload = json.loads(
        (FIXTURES / "pull_request/review_requested.payload.json").read_text(encoding="utf-8")
    )
    gh.remaining = RESERVE + 1  # two requests later, fewer than the reserve are left
    assert await enricher.enrich("pull_request", payload) is not None
    assert enricher.paused_until > time.time()
    calls = len(gh.requests)
    assert await enricher.enrich("pull_request", payload) is None
    assert len(gh.requests) == calls, "paused: no request"
    # once the reset time has passed, it reads again
    enricher.paused_until = 0.0
    assert await enricher.enrich("pull_request", payload) is not None


async def test_events_without_a_pull_request_or_issue_ask_nothing(fake: tuple[FakeGitHub, str]) -> None:
    gh, url = fake
    enricher = Enricher("test-token", url)
    payload = json.loads((FIXTURES / "create/payload.json").read_text(encoding="utf-8"))
    assert await enricher.enrich("create", payload) is None and gh.requests == []


def test_the_token_and_api_url_are_settings(tmp_path: Path) -> None:
    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_GITHUB_TOKEN": "ghp_secret",
            "MEMUBOT_GITHUB_API_URL": "https://ghe.example.com/api/v3",
        }
    )
    assert (
        settings.github_token == "ghp_secret" and settings.github_api_url == "https://ghe.example.com/api/v3"
    )
    assert "ghp_secret" not in repr(settings)
    assert replace(settings, github_token=None).github_token is None
