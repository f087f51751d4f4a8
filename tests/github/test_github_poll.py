"""GitHub polling: Events API items in the webhook form, the poller against a local fake of the
API (pages, ETag/304, cursor, failures), and one event that came both ways stored once."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import nats
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from daemon.client import Client
from daemon.config import load_settings
from daemon.errors import InvalidEvent
from daemon.events import GithubEvent, github_from_dict, tick_body
from daemon.github.events_api import event_name, web_url, webhook_form
from daemon.github.ids import content_key, resource_id
from daemon.github.poll import MAX_PAGES, GithubPoller, PollFailed, cursor_name
from daemon.memory import Memory
from handlers import github
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.daemon_harness import daemon_env, running, wait_for
from tests.github.test_github_daemon import SECRET, TIMEOUT, post
from tests.github_fixtures import FIXTURES

LOGIN = "octocat"
# webhook event → the Events API type that lists the same event (events webhooks alone carry,
# such as workflow_run and check_suite, are not in the Events API)
TYPES = {
    "pull_request": "PullRequestEvent",
    "pull_request_review": "PullRequestReviewEvent",
    "pull_request_review_comment": "PullRequestReviewCommentEvent",
    "issues": "IssuesEvent",
    "issue_comment": "IssueCommentEvent",
    "push": "PushEvent",
    "release": "ReleaseEvent",
}


def fixture(rel: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / rel).read_text(encoding="utf-8"))
    return payload


def as_listed(rel: str, event_id: int) -> dict[str, Any]:
    """The Events API item GitHub lists for the webhook delivery `rel` (the documented item shape:
    type, actor, repo and org outside the payload, its own spellings of a review and a push)."""
    event = rel.split("/")[0]
    hook = fixture(rel)
    payload = {
        k: v for k, v in hook.items() if k not in ("repository", "sender", "organization", "installation")
    }
    if event == "pull_request_review" and payload.get("action") == "submitted":
        payload["action"] = "created"
    if event == "push":
        payload = {
            "push_id": 1,
            "ref": hook["ref"],
            "head": hook["after"],
            "before": hook["before"],
            "commits": hook.get("commits", []),
        }
    repo = hook["repository"]
    return {
        "id": str(event_id),
        "type": TYPES[event],
        "actor": {"id": hook["sender"]["id"], "login": hook["sender"]["login"]},
        "repo": {"id": repo["id"], "name": repo["full_name"], "url": repo["url"]},
        "payload": payload,
        "public": True,
        "created_at": "2019-05-15T15:21:00Z",
    }


LISTED = [
    "pull_request/opened.payload.json",
    "pull_request/review_requested.payload.json",
    "pull_request/closed.payload.json",
    "pull_request/labeled.payload.json",
    "pull_request_review/submitted.payload.json",
    "pull_request_review_comment/created.payload.json",
    "issues/opened.payload.json",
    "issues/assigned.payload.json",
    "issue_comment/created.payload.json",
    "issue_comment/edited.payload.json",
    "push/payload.json",
    "release/published.payload.json",
]


# ---- the webhook form and the shared key ------------------------------------------------


@pytest.mark.parametrize("rel", LISTED)
def test_a_listed_event_has_the_key_of_its_webhook_delivery(rel: str) -> None:
    event, payload, when = webhook_form(as_listed(rel, 10), "https://api.github.com")
    assert event == rel.split("/")[0]
    key = content_key(event, payload)
    assert key is not None and key == content_key(event, fixture(rel))
    assert payload["repository"]["html_url"] == "https://github.com/Codertocat/Hello-World"
    assert payload["sender"]["login"] == "Codertocat" and when.isoformat() == "2019-05-15T15:21:00+00:00"


def test_different_events_of_one_pull_request_have_different_keys() -> None:
    keys = {content_key(rel.split("/")[0], fixture(rel)) for rel in LISTED}
    assert len(keys) == len(LISTED)
    # two reviewers requested at the same moment are two events
    hook = fixture("pull_request/review_requested.payload.json")
    other = {**hook, "requested_reviewer": {"login": "hubot"}}
    assert content_key("pull_request", hook) != content_key("pull_request", other)


def test_events_without_a_shared_key_keep_their_own_id() -> None:
    create = fixture("create/payload.json")
    assert content_key("create", create) is None
    assert resource_id("create", create, "d-9") == "d-9"
    assert resource_id("push", fixture("push/payload.json"), "d-1").startswith("github:")


def test_event_names_actions_and_web_roots() -> None:
    assert event_name("PullRequestReviewCommentEvent") == "pull_request_review_comment"
    assert event_name("SomethingNewEvent") == "something_new"
    assert web_url("https://ghe.example.com/api/v3/") == "https://ghe.example.com"
    event, payload, _ = webhook_form(as_listed("pull_request_review/submitted.payload.json", 1), "x")
    assert (event, payload["action"]) == ("pull_request_review", "submitted")
    _, push, _ = webhook_form(as_listed("push/payload.json", 2), "x")
    assert push["after"] == fixture("push/payload.json")["after"]
    with pytest.raises(InvalidEvent, match="not an Events API item"):
        webhook_form({"type": "PushEvent", "payload": {}}, "x")


# ---- the poller against a fake API -------------------------------------------------------


class FakeEvents:
    """`/users/{login}/events` and `/received_events`, newest first, paged, with ETags."""

    def __init__(self) -> None:
        self.feeds: dict[str, list[dict[str, Any]]] = {"events": [], "received_events": []}
        self.requests: list[tuple[str, int, bool]] = []  # (feed, page, answered 304)
        self.fail: int | None = None

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/api/v3/users/{login}/{feed}", self.feed)
        return app

    async def feed(self, request: web.Request) -> web.Response:
        feed = request.match_info["feed"]
        assert request.match_info["login"] == LOGIN
        page, per_page = int(request.query.get("page", 1)), int(request.query.get("per_page", 30))
        if self.fail is not None:
            self.requests.append((feed, page, False))
            return web.json_response({"message": "Server Error"}, status=self.fail)
        items = sorted(self.feeds[feed], key=lambda i: int(i["id"]), reverse=True)
        etag = f'W/"{feed}-{len(items)}-{items[0]["id"] if items else 0}"'
        if page == 1 and request.headers.get("If-None-Match") == etag:
            self.requests.append((feed, page, True))
            return web.Response(status=304, headers={"ETag": etag})
        self.requests.append((feed, page, False))
        chunk = items[(page - 1) * per_page : page * per_page]
        return web.json_response(chunk, headers={"ETag": etag, "X-Poll-Interval": "60"})


@pytest.fixture
async def fake() -> AsyncIterator[tuple[FakeEvents, str]]:
    api = FakeEvents()
    server = TestServer(api.app())
    await server.start_server()
    try:
        yield api, str(server.make_url("/api/v3"))
    finally:
        await server.close()


class Bus:
    """Records what the poller publishes; `refuse` makes the next publish fail."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], str]] = []
        self.refuse = False

    async def __call__(self, subject: str, body: bytes, msg_id: str) -> None:
        if self.refuse:
            raise ConnectionError("bus down")
        self.sent.append((subject, json.loads(body), msg_id))


def poller(memory: Memory, url: str, bus: Bus) -> GithubPoller:
    return GithubPoller(
        token="t0ken", api_url=url, login=LOGIN, scope="alice", cursors=memory.ledger, publish=bus
    )


async def test_a_poll_publishes_new_events_oldest_first_then_only_what_is_new(
    memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    api.feeds["received_events"] = [as_listed(rel, 100 + i) for i, rel in enumerate(LISTED[:4])]
    api.feeds["events"] = [as_listed("pull_request_review/submitted.payload.json", 103)]
    bus, p = Bus(), None
    p = poller(memory, url, bus)
    report = await p.poll()
    assert report.published == 5 and report.skipped == 0
    assert {s for s, _, _ in bus.sent} == {"memubot.in.github"}
    received = [body for _, body, _ in bus.sent if body["event"] != "pull_request_review"]
    assert [b["action"] for b in received] == ["opened", "review_requested", "closed", "labeled"]
    for _, body, msg_id in bus.sent:
        assert body["id"] == msg_id and msg_id.startswith("github:") and body["scope"] == "alice"
    assert memory.ledger.cursor(cursor_name(LOGIN, "received_events")) == 103
    # nothing new: both feeds answer 304 and nothing is published
    again = await p.poll()
    assert again.published == 0 and again.unchanged == 2
    assert api.requests[-2:] == [("events", 1, True), ("received_events", 1, True)]
    # one more event: only it
    api.feeds["received_events"].append(as_listed("issues/opened.payload.json", 200))
    third = await p.poll()
    assert third.published == 1 and bus.sent[-1][1]["event"] == "issues"


async def test_a_long_feed_is_read_page_by_page_up_to_the_cursor(
    memory: Memory, fake: tuple[FakeEvents, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import daemon.github.poll as gp

    monkeypatch.setattr(gp, "PER_PAGE", 2)
    api, url = fake
    api.feeds["received_events"] = [as_listed(rel, 10 + i) for i, rel in enumerate(LISTED[:5])]
    bus = Bus()
    p = poller(memory, url, bus)
    await p.poll()
    assert len(bus.sent) == 5 and max(pg for f, pg, _ in api.requests if f == "received_events") == MAX_PAGES
    # two more: the first page holds both, the second reaches the cursor, no third is read
    api.feeds["received_events"] += [as_listed(LISTED[6], 20), as_listed(LISTED[7], 21)]
    api.requests.clear()
    await p.poll()
    assert len(bus.sent) == 7
    assert [pg for f, pg, _ in api.requests if f == "received_events"] == [1, 2]


async def test_a_failed_read_or_publish_keeps_the_cursor(
    memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    api.feeds["received_events"] = [as_listed(LISTED[0], 50), as_listed(LISTED[1], 51)]
    bus = Bus()
    p = poller(memory, url, bus)
    api.fail = 502
    with pytest.raises(PollFailed, match="502"):
        await p.poll()
    api.fail, bus.refuse = None, True
    with pytest.raises(ConnectionError):
        await p.poll()
    assert not memory.ledger.has_cursor(cursor_name(LOGIN, "received_events"))
    bus.refuse = False
    assert (await p.poll()).published == 2
    # an item that is not an event is skipped once, logged, and passed over by the cursor
    api.feeds["received_events"].append({"id": "52", "type": "PushEvent", "payload": {}})
    assert (await p.poll()).skipped == 1
    assert memory.ledger.cursor(cursor_name(LOGIN, "received_events")) == 52


# ---- one event, two ways, stored once -----------------------------------------------------


@pytest.fixture
def deps(memory: Memory, clock: FakeClock, tmp_path: Path) -> Deps:
    return Deps(memory, load_settings({"HOME": str(tmp_path), "MEMUBOT_GITHUB_LOGIN": LOGIN}), clock)


def delivered(rel: str, delivery: str) -> GithubEvent:
    return github_from_dict(
        {"id": delivery, "scope": "alice", "event": rel.split("/")[0], "payload": fixture(rel)}
    )


async def polled(memory: Memory, url: str, api: FakeEvents, rel: str, event_id: int) -> GithubEvent:
    api.feeds["received_events"].append(as_listed(rel, event_id))
    bus = Bus()
    await poller(memory, url, bus).poll()
    [(_, body, _)] = [s for s in bus.sent if s[1]["payload"]["repository"]]
    return github_from_dict(body)


def count(memory: Memory) -> int:
    row = memory.store.con.execute("SELECT count(*) FROM resources WHERE kind = 'github'").fetchone()
    return int(row[0]) if row else 0


async def test_a_webhook_delivery_then_a_poll_of_it_store_it_once(
    deps: Deps, memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    rel = "pull_request/review_requested.payload.json"
    assert await github.handle([delivered(rel, "d-1")], deps) == ["stored"]
    ev = await polled(memory, url, api, rel, 7)
    assert await github.handle([ev], deps) == ["duplicate"]
    assert count(memory) == 1
    [state] = memory.work_items.of_scope("alice")
    assert state.number == 2 and state.state == "open"


async def test_a_poll_then_the_webhook_delivery_store_it_once(
    deps: Deps, memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    rel = "issue_comment/created.payload.json"
    ev = await polled(memory, url, api, rel, 8)
    assert await github.handle([ev], deps) == ["stored"]
    assert await github.handle([ev], deps) == ["duplicate"]
    assert await github.handle([delivered(rel, "d-2")], deps) == ["duplicate"]
    assert count(memory) == 1
    # a different comment on the same issue is a different event
    other = fixture(rel) | {"comment": {**fixture(rel)["comment"], "id": 1}}
    new = github_from_dict({"id": "d-3", "scope": "alice", "event": "issue_comment", "payload": other})
    assert await github.handle([new], deps) == ["stored"]


async def test_one_batch_with_the_webhook_and_the_poll_of_an_event_stores_it_once(
    deps: Deps, memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    rel = "release/published.payload.json"
    ev = await polled(memory, url, api, rel, 11)
    assert await github.handle([delivered(rel, "d-5"), ev], deps) == ["stored", "duplicate"]
    assert await github.handle([ev], deps) == ["duplicate"]
    # the octokit variant of another release event: two webhook deliveries GitHub sent, both kept
    a, b = "release/created.payload.json", "release/created.with-discussion-url.payload.json"
    assert await github.handle([delivered(a, "d-6"), delivered(b, "d-7")], deps) == ["stored", "stored"]
    assert count(memory) == 3


async def test_a_forgotten_delivery_stays_forgotten_when_it_is_polled(
    deps: Deps, memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    rel = "issues/opened.payload.json"
    await github.handle([delivered(rel, "d-4")], deps)
    assert memory.forget("alice", query="Spelling error")["resources"] == 1
    ev = await polled(memory, url, api, rel, 9)
    assert await github.handle([ev], deps) == ["duplicate"]
    assert count(memory) == 0


# ---- in a running daemon -----------------------------------------------------------------


async def test_a_running_daemon_polls_on_its_tick_and_stores_a_webhooked_event_once(
    tmp_path: Path, nats_url: str, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    rel = "pull_request/review_requested.payload.json"
    api.feeds["received_events"] = [as_listed(rel, 300), as_listed("issues/opened.payload.json", 301)]
    env = daemon_env(
        tmp_path,
        nats_url,
        MEMUBOT_GITHUB_WEBHOOK_SECRET=SECRET,
        MEMUBOT_GITHUB_SCOPE="alice",
        MEMUBOT_GITHUB_LOGIN=LOGIN,
        MEMUBOT_GITHUB_TOKEN="t0ken",
        MEMUBOT_GITHUB_API_URL=url,
        MEMUBOT_GITHUB_POLL_MINUTES="60",
    )
    async with running(load_settings(env)) as info:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
            hook = info["http"] + "/webhooks/github"
            body = (FIXTURES / rel).read_bytes()
            assert await post(session, hook, "pull_request", str(uuid.uuid4()), body, SECRET) == 202
        # the scheduler's tick, published as it would be (the hourly grid is not due in a test)
        nc = await nats.connect(nats_url)
        tick = tick_body("github_poll", datetime.now(UTC).replace(second=0, microsecond=0))
        await nc.jetstream().publish(
            "memubot.in.tick.github_poll", json.dumps(tick).encode(), headers={"Nats-Msg-Id": tick["id"]}
        )
        await nc.close()
        async with await Client.connect(nats_url) as client:
            await wait_for(lambda: any(f == "received_events" for f, _, _ in api.requests))
            for _ in range(20):  # the poll's own events reach the bus while the tick is handled
                await client.flush(timeout=120)
                stats = await client.stats("alice")
                if stats["resources"] >= 2:
                    break
                await asyncio.sleep(0.5)
            # the webhooked review request once, the polled issue once; nothing dead-lettered
            assert stats["resources"] == 2 and stats["daemon"]["dead_letters"] == 0


async def test_forgetting_a_delivery_polled_too_forgets_its_work_item(
    deps: Deps, memory: Memory, fake: tuple[FakeEvents, str]
) -> None:
    api, url = fake
    rel = "pull_request/review_requested.payload.json"
    await github.handle([delivered(rel, "d-8")], deps)
    await github.handle([await polled(memory, url, api, rel, 12)], deps)  # the twin: no second snapshot
    assert len(memory.work_items.of_scope("alice")) == 1
    memory.forget("alice", query="requested a review")
    assert memory.work_items.of_scope("alice") == [] and count(memory) == 0
