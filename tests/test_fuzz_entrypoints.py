"""Fuzz every entry point of a real daemon on a real nats-server with hostile JSON and bytes.

Hypothesis generates what a careless or hostile sender writes — nesting thousands of levels deep,
strings past every limit, invalid UTF-8, lone surrogates, NaN and Infinity, duplicate keys, wrong
types, missing fields, truncated bodies, random bytes — mixed with valid events, and throws it at
the bus (`memubot.in.*`), the GitHub and Gmail push webhooks, RPC requests, `memubot import`
lines and `memubot mcp` on stdio. Each test checks what its entry point promises for every
example as it goes (a 202 or a JSON 4xx, one RPC reply, the import's summary, one JSON-RPC reply
per request or refused line), then the accounting at the end: every valid event stored exactly
once, every bad one a dead letter with its reason, and the daemon still answering over RPC and
on /readyz.

One `memubot run` process and one nats-server serve the whole module (starting the daemon loads
the embedding model); each test writes to its own scope. The tests are plain functions: the
asyncio side (the NATS client, HTTP, the subprocess) runs on a loop in a thread of its own, so
that Hypothesis drives ordinary synchronous examples. Examples are derandomized: CI sees the same
inputs every run.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import io
import itertools
import json
import os
import re
import sys
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import mcp_types
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from daemon import bounded_json
from daemon.cli.main import main as cli_main
from daemon.client import Client
from daemon.events import MAX_EVENT_BYTES, decode, turn_from_dict
from daemon.github.webhook import MAX_BODY_DEPTH, sign
from daemon.gmail.pull import notification_body
from daemon.mcp.server import refusal_of
from daemon.runtime.broker import start_embedded
from daemon.runtime.broker import stop as stop_server
from daemon.runtime.rpc import VERBS
from daemon.runtime.rpc import encode as rpc_encode
from handlers import route_for
from tests.github_fixtures import fixture_files
from tests.gmail.test_gmail import credentials
from tests.gmail_fake import FakeGoogle, serve_fake
from tests.test_reliability import Daemon, Runner

T = TypeVar("T")

# a failing example that holds a 300 KB body is still worth printing
pytestmark = pytest.mark.filterwarnings(
    "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
)

STEP_TIMEOUT = 180.0  # one round trip with the daemon; generous for a busy 2-core machine
FLUSH_TIMEOUT = 300.0
NATS_MAX_PAYLOAD = 1 << 20  # nats-server's default max_payload
SECRET = "fuzz-secret"
PUSH_TOKEN = "fuzz-push-token"
MAILBOX = "alice@example.com"
SCOPES = {
    "bus": "fz-bus",
    "github": "fz-gh",
    "gmail": "fz-mail",
    "rpc": "fz-rpc",
    "import": "fz-imp",
    "mcp": "fz-mcp",
}

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI is deterministic
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


class Portal:
    """An event loop in a thread: the tests hand it coroutines and wait, with a timeout, for the result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fuzz-loop", daemon=True)
        self.thread.start()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = STEP_TIMEOUT) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()


class FuzzRunner(Runner):
    """The reliability tests' daemon runner, with both webhooks on and the Gmail API faked."""

    def __init__(self, tmp_path: Path, nats_url: str, fake: FakeGoogle) -> None:
        super().__init__(tmp_path, nats_url)
        self.fake = fake
        self.credentials = credentials(tmp_path, fake)  # written once: the daemon refreshes it in place

    def env(self) -> dict[str, str]:
        return {
            **super().env(),
            "MEMUBOT_CONFIG": str(self.tmp_path / "none.toml"),
            "MEMUBOT_GITHUB_WEBHOOK_SECRET": SECRET,
            "MEMUBOT_GITHUB_SCOPE": SCOPES["github"],
            "MEMUBOT_GMAIL_SCOPE": SCOPES["gmail"],
            "MEMUBOT_EMAIL_ADDRESSES": MAILBOX,
            "MEMUBOT_GMAIL_CREDENTIALS": str(self.credentials),
            "MEMUBOT_GMAIL_PUSH_TOKEN": PUSH_TOKEN,
            "MEMUBOT_GMAIL_API_URL": self.fake.url,
            "MEMUBOT_GMAIL_TOKEN_URL": f"{self.fake.url}/token",
        }


@dataclass
class World:
    portal: Portal
    runner: FuzzRunner
    daemon: Daemon
    client: Client
    http: aiohttp.ClientSession
    fake: FakeGoogle
    tmp: Path
    ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def base(self) -> str:
        return str(self.daemon.info["http"])

    def fresh(self, prefix: str) -> str:
        return f"{prefix}-{next(self.ids):08d}"  # fixed width: what is drawn never depends on it

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = STEP_TIMEOUT) -> T:
        return self.portal.call(coro, timeout)

    def stats(self, scope: str | None = None) -> dict[str, Any]:
        async def ask() -> dict[str, Any]:
            try:
                return await self.client.stats(scope)
            except Exception as exc:  # a scope nothing was stored in is not_found: empty
                if scope is not None and "no memories in scope" in str(exc):
                    return {"resources": 0}
                raise

        return self.run(ask())

    def dead_letters(self, since: int) -> list[dict[str, Any]]:
        """The dead letters after #`since`: newest first, asked for a page at a time (a listing
        of them all may be more than one bus message carries)."""
        limit, got = 50, []
        while True:
            got = self.run(self.client.request("deadletters", {"limit": limit}))["dead_letters"]
            if len(got) < limit or got[-1]["id"] <= since:
                return [d for d in got if d["id"] > since]
            limit *= 2

    def last_dead_letter(self) -> int:
        newest = self.run(self.client.request("deadletters", {"limit": 1}))["dead_letters"]
        return int(newest[0]["id"]) if newest else 0

    def flush(self) -> None:
        # until the stream stands still: a Gmail notification's handler publishes the messages it
        # fetched, after the position one flush waits for (CI saw 2 of 3 messages stored once)
        position = -1
        while (now := self.run(self.client.flush(timeout=FLUSH_TIMEOUT), FLUSH_TIMEOUT + 30)) != position:
            position = now

    def still_answers(self) -> None:
        """The daemon answers a recall over RPC and says it is ready on /readyz."""

        async def check() -> tuple[int, dict[str, Any], dict[str, Any]]:
            stats = await self.client.stats()
            async with self.http.get(f"{self.base}/readyz") as r:
                return r.status, await r.json(), stats

        status, body, stats = self.run(check())
        assert status == 200 and body["ready"] is True, body
        assert stats["daemon"]["pending"] == 0, stats["daemon"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("fuzz")
    portal = Portal()
    stack = contextlib.AsyncExitStack()
    server = portal.call(start_embedded(tmp / "nats-server"))
    runner: FuzzRunner | None = None
    failed = True
    try:
        fake = portal.call(stack.enter_async_context(serve_fake()))
        runner = FuzzRunner(tmp, server.url, fake)
        daemon = portal.call(runner.start(), 300)
        client = portal.call(Client.connect(server.url, timeout=STEP_TIMEOUT))
        stack.push_async_callback(client.close)

        async def session() -> aiohttp.ClientSession:
            return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=STEP_TIMEOUT))

        http = portal.call(session())
        stack.push_async_callback(http.close)
        yield World(portal, runner, daemon, client, http, fake, tmp)
        assert portal.call(runner.stop(daemon), 120) == 0, "the daemon did not stop cleanly after the fuzz"
        failed = False
    finally:
        if runner is not None:
            portal.call(runner.cleanup(failed), 120)
        portal.call(stack.aclose(), 60)
        portal.call(stop_server(server), 60)
        portal.close()


# ---- hostile values and bytes -------------------------------------------------------------

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2),  # lone surrogates
    st.sampled_from(["", " ", "\x00", "\u202e", "2024-05-01T10:00:00", "not a date", "x" * 70_000]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
# what may replace an id or a scope: never a usable string (a usable one would not be hostile,
# and would store a turn under an id or in a scope the accounting does not expect)
_NOT_A_STRING = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.lists(SCALARS, max_size=2))
BAD_NAME = {
    "id": st.one_of(_NOT_A_STRING, st.sampled_from(["", "   ", "\t\n"])),  # any other string is an id
    "scope": st.one_of(
        _NOT_A_STRING, st.sampled_from(["", "   ", "a.b", "a b", "*", ">", "x" * 600, "\x00"])
    ),
}


def nested(levels: int, kind: str) -> str:
    return "[" * levels + "]" * levels if kind == "list" else '{"a":' * levels + "1" + "}" * levels


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity as their bare literals, as a sender may


@st.composite
def hostile_bytes(draw: st.DrawFn, body: dict[str, Any]) -> bytes:
    """`body` spoiled one way, as bytes: a field wrong, missing, nested, huge or doubled, or the
    bytes themselves broken."""
    raw = _dumps(body)
    names = sorted(body) or ["id"]
    kind = draw(
        st.sampled_from(
            [
                "wrong_type",
                "missing",
                "deep_field",
                "deep_body",
                "huge_field",
                "too_large",
                "invalid_utf8",
                "truncated",
                "duplicate_key",
                "nan",
                "not_an_object",
                "random_bytes",
                "bom",
                "trailing",
                "empty",
            ]
        )
    )
    if kind == "wrong_type":
        name = draw(st.sampled_from(names))
        value = draw(BAD_NAME.get(name, JSON_VALUES))
        return _dumps({**body, name: value})
    if kind == "missing":
        name = draw(st.sampled_from(names))
        return _dumps({k: v for k, v in body.items() if k != name})
    if kind == "deep_field":
        name = draw(st.sampled_from([n for n in names if n not in ("id", "scope")] or names))
        levels = draw(st.integers(min_value=60, max_value=6000))
        text = raw.decode()
        return (
            text[:-1] + f', "{name}": ' + nested(levels, draw(st.sampled_from(["list", "dict"]))) + "}"
        ).encode()
    if kind == "deep_body":
        return nested(
            draw(st.integers(min_value=65, max_value=6000)), draw(st.sampled_from(["list", "dict"]))
        ).encode()
    if kind == "huge_field":
        name = draw(st.sampled_from([n for n in names if n not in ("id", "scope")] or names))
        size = draw(st.sampled_from([65_537, 100_000, 200_000]))
        return _dumps({**body, name: draw(st.sampled_from(["x", "é", "好", "\\"])) * size})
    if kind == "too_large":
        return _dumps({**body, "pad": "x" * (MAX_EVENT_BYTES + draw(st.integers(0, 1000)))})
    if kind == "invalid_utf8":
        at = draw(st.integers(min_value=0, max_value=len(raw)))
        junk = draw(st.sampled_from([b"\xff", b"\xfe\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80\x80"]))
        return raw[:at] + junk + raw[at:]
    if kind == "truncated":
        return raw[: draw(st.integers(min_value=0, max_value=max(0, len(raw) - 1)))]
    if kind == "duplicate_key":
        name = draw(st.sampled_from(names))
        value = json.dumps(draw(BAD_NAME.get(name, JSON_VALUES)))
        first = draw(st.booleans())  # the hostile value first (the valid one wins) or last (it wins)
        inner = raw.decode()[1:-1]
        return (
            "{" + (f'"{name}": {value}, {inner}' if first else f'{inner}, "{name}": {value}') + "}"
        ).encode()
    if kind == "nan":
        name = draw(st.sampled_from(names))
        literal = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
        text = raw.decode()
        return (text[:-1] + f', "{name}": {literal}' + "}").encode()
    if kind == "not_an_object":
        return _dumps(draw(st.one_of(SCALARS, st.lists(JSON_VALUES, max_size=3))))
    if kind == "random_bytes":
        return draw(st.binary(max_size=300))
    if kind == "bom":
        return b"\xef\xbb\xbf" + raw
    if kind == "trailing":
        return raw + draw(st.sampled_from([b"}", b",", b" x", b"\x00", b"{}"]))
    return b""


# ---- valid events --------------------------------------------------------------------------

WORDS = ["hiking", "Lisbon", "cello", "dentist", "ramen", "Miso", "Porto", "oboe", "bees", "Brno"]


@st.composite
def turn_body(draw: st.DrawFn, world: World, scope: str) -> dict[str, Any]:
    """A valid conversation turn with an id of its own (nothing else sends it)."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    body: dict[str, Any] = {
        "id": world.fresh(scope),
        "scope": scope,
        "role": draw(st.sampled_from(["user", "assistant"])),
        "text": f"I talked about {' and '.join(words)} today.",
        "ts": f"2024-05-{draw(st.integers(1, 28)):02d}T10:00:00+00:00",
        "agent": "main",
        "session": draw(st.sampled_from(["s1", "s2"])),
        "meta": {},
    }
    if draw(st.booleans()):
        body["meta"] = draw(st.dictionaries(st.text(max_size=5), SCALARS, max_size=3))
    return body


def turn_is_valid(data: bytes) -> bool:
    """The oracle: the daemon's own parser. Valid turns must be stored, the rest dead letters."""
    try:
        turn_from_dict(decode(data))
    except Exception:
        return False
    return True


def parses(subject: str, data: bytes) -> bool:
    route = route_for(subject)
    if route is None:
        return False
    try:
        route.parse(decode(data))
    except Exception:
        return False
    return True


# bodies for the other subjects the daemon consumes, spoiled before they are sent
OTHER_BODIES: dict[str, dict[str, Any]] = {
    "memubot.in.feedback": {
        "id": "fb",
        "suggestion_id": "sg-1",
        "verdict": "accepted",
        "ts": "2024-05-01T10:00:00Z",
    },
    "memubot.in.tick.heartbeat": {"id": "heartbeat:x", "schedule": "heartbeat", "ts": "2024-05-01T10:00:00Z"},
    "memubot.in.github": {
        "id": "gh",
        "scope": SCOPES["github"],
        "event": "issues",
        "payload": {"action": "opened"},
    },
    "memubot.in.email": {
        "id": "em",
        "scope": SCOPES["gmail"],
        "from": "Bob <bob@example.com>",
        "date": "2024-05-01T10:00:00Z",
        "subject": "Lunch",
        "text": "Lunch on Friday?",
    },
    "memubot.in.gmail": {"id": "gm", "emailAddress": MAILBOX, "historyId": 160},
    "memubot.in.nobody.listens": {"id": "nb", "scope": "x"},
}


@dataclass
class BusLedger:
    """What the bus test sent: stream seq → (subject, valid?), and the valid turns by scope."""

    sent: dict[int, tuple[str, bool]] = field(default_factory=dict)
    turns: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def test_bus_hostile_events_among_valid_turns(world: World) -> None:
    scope = SCOPES["bus"]
    ledger = BusLedger()
    before = world.last_dead_letter()

    @st.composite
    def bus_event(draw: st.DrawFn) -> tuple[str, bytes, dict[str, Any] | None]:
        subject = draw(
            st.sampled_from(["memubot.in.conversation.main", "memubot.in.conversation.other", *OTHER_BODIES])
        )
        if subject.startswith("memubot.in.conversation."):
            body = draw(turn_body(world, scope))
            if draw(st.booleans()):
                return subject, _dumps(body), body
            data = draw(hostile_bytes(body))
            assume(len(data) <= NATS_MAX_PAYLOAD)  # the publisher refuses more, before the bus sees it
            return subject, data, None
        body = {**OTHER_BODIES[subject], "id": world.fresh("other")}
        data = draw(hostile_bytes(body))
        assume(not parses(subject, data))  # only spoiled bodies on the other subjects
        assume(len(data) <= NATS_MAX_PAYLOAD)
        return subject, data, None

    @FUZZ
    @given(st.lists(bus_event(), min_size=1, max_size=5))
    def publish(events: list[tuple[str, bytes, dict[str, Any] | None]]) -> None:
        for subject, data, _ in events:
            valid = subject.startswith("memubot.in.conversation.") and turn_is_valid(data)
            ack = world.run(
                world.client.js.publish(subject, data, headers={"Nats-Msg-Id": world.fresh("msg")})
            )
            ledger.sent[ack.seq] = (subject, valid)
            if valid:
                turn = json.loads(data)
                ledger.turns.setdefault(turn["scope"], []).append(turn)

    publish()
    world.flush()

    bad = {seq for seq, (_, valid) in ledger.sent.items() if not valid}
    good = set(ledger.sent) - bad
    assert bad and good, "the examples must mix valid and hostile events"
    dead = {d["stream_seq"]: d for d in world.dead_letters(before)}
    assert set(dead) == bad, (
        f"dead letters for valid events {sorted(set(dead) - bad)}, none for {sorted(bad - set(dead))}"
    )
    for seq in bad:
        letter = dead[seq]
        assert letter["subject"] == ledger.sent[seq][0]
        assert letter["reason"] and letter["reason"].strip(), letter
        assert letter["attempts"] == 1, letter  # a malformed event is never worth a retry
    for turn_scope, turns in ledger.turns.items():
        assert world.stats(turn_scope)["resources"] == len(turns), turn_scope
        # each of them is the one stored: sent again, every one is a duplicate
        again = world.run(world.client.memorize(turns))
        assert [r["outcome"] for r in again] == ["duplicate"] * len(turns)
    world.still_answers()


# ---- the webhooks ---------------------------------------------------------------------------


def github_fixtures() -> list[tuple[str, bytes]]:
    return [(event, path.read_bytes()) for event, path in fixture_files() if event != "ping"][:40]


async def post(world: World, path: str, data: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
    # a large body as a stream: aiohttp warns that raw bytes of a megabyte would block the loop
    body: bytes | io.BytesIO = io.BytesIO(data) if len(data) > 64 * 1024 else data
    async with world.http.post(f"{world.base}{path}", data=body, headers=headers) as r:
        return r.status, r.headers.get("Content-Type", ""), await r.read()


def assert_json_error(status: int, content_type: str, body: bytes) -> None:
    assert content_type.startswith("application/json"), (status, content_type, body[:200])
    error = json.loads(body)["error"]
    assert isinstance(error, str) and error.strip()


def test_github_webhook_hostile_deliveries_among_valid_ones(world: World) -> None:
    scope = SCOPES["github"]
    fixtures = github_fixtures()
    accepted: set[str] = set()
    before = world.last_dead_letter()

    @st.composite
    def delivery(draw: st.DrawFn) -> tuple[bytes, dict[str, str], int]:
        """(body, headers, the status the contract promises)."""
        event, body = draw(st.sampled_from(fixtures))
        delivery_id = world.fresh("gh")
        headers = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery_id,
            "Content-Type": "application/json",
        }
        how = draw(st.sampled_from(["valid", "valid", "body", "signature", "event", "delivery"]))
        if how == "body":
            body = draw(hostile_bytes(json.loads(body)))
        if how == "event":
            headers["X-GitHub-Event"] = draw(st.sampled_from(["", "   "]))
        if how == "delivery":
            headers["X-GitHub-Delivery"] = draw(st.sampled_from(["", " ", "d" * 600]))
        headers["X-Hub-Signature-256"] = sign(body, SECRET if how != "signature" else "wrong")
        if how == "signature":
            return body, headers, 401
        if how in ("event", "delivery"):
            return body, headers, 400
        try:
            payload = bounded_json.load(body, max_bytes=25 << 20, max_depth=MAX_BODY_DEPTH)
        except Exception:
            return body, headers, 400
        return body, headers, 202 if isinstance(payload, dict) else 400

    @FUZZ
    @given(delivery())
    def send(case: tuple[bytes, dict[str, str], int]) -> None:
        data, headers, expected = case
        status, content_type, body = world.run(post(world, "/webhooks/github", data, headers))
        assert status == expected, (status, body[:300])
        if status == 202:
            assert json.loads(body) == {"id": headers["X-GitHub-Delivery"]}
            accepted.add(headers["X-GitHub-Delivery"])
        else:
            assert_json_error(status, content_type, body)

    send()
    world.flush()
    assert accepted
    dead = {d["event_id"]: d for d in world.dead_letters(before)}
    assert set(dead) <= accepted, "only a delivery that was accepted reaches the bus"
    for letter in dead.values():
        assert letter["reason"].strip() and letter["subject"] == "memubot.in.github"
    # every accepted delivery is one resource, or a dead letter saying why not
    assert world.stats(scope)["resources"] + len(dead) == len(accepted)
    world.still_answers()


def push_body(message_id: str, data: str | None) -> bytes:
    message: dict[str, Any] = {"messageId": message_id, "publishTime": "2024-05-01T10:00:00Z"}
    if data is not None:
        message["data"] = data
    return _dumps({"message": message, "subscription": "projects/p/subscriptions/s"})


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_gmail_push_hostile_notifications_among_valid_ones(world: World) -> None:
    accepted: dict[str, bool] = {}  # message id → its notification is valid
    before = world.last_dead_letter()

    @st.composite
    def push(draw: st.DrawFn) -> tuple[bytes, str, int, bool]:
        """(body, token, the status promised, whether the notification inside is valid)."""
        mid = world.fresh("ps")
        notification = {"emailAddress": MAILBOX, "historyId": draw(st.integers(100, 10**12))}
        how = draw(st.sampled_from(["valid", "valid", "data", "envelope", "token", "too_large"]))
        if how == "token":
            return push_body(mid, b64(_dumps(notification))), draw(st.sampled_from(["", "wrong"])), 401, False
        if how == "too_large":
            return push_body(mid, "A" * (64 * 1024)), PUSH_TOKEN, 413, False
        if how == "envelope":
            body = draw(hostile_bytes({"message": {"messageId": mid, "data": b64(_dumps(notification))}}))
            try:
                envelope = bounded_json.load(body, max_bytes=64 * 1024)
                message = envelope.get("message") if isinstance(envelope, dict) else None
                inner = message.get("messageId") if isinstance(message, dict) else None
                ok = isinstance(inner, str) and bool(inner.strip())
            except Exception:
                ok = False
            assume(not ok)  # a spoiled envelope that still carries a message is the "data" case
            return body, PUSH_TOKEN, 413 if len(body) > 64 * 1024 else 400, False
        if how == "data":
            data = draw(
                st.one_of(
                    st.builds(lambda b: b64(b), hostile_bytes(notification)),
                    st.text(max_size=40),
                    st.none(),
                )
            )
            valid = parses("memubot.in.gmail", notification_body(mid, data, SCOPES["gmail"]))
            assume(not valid)
            body = push_body(mid, data)
            return body, PUSH_TOKEN, 413 if len(body) > 64 * 1024 else 202, False
        return push_body(mid, b64(_dumps(notification))), PUSH_TOKEN, 202, True

    @FUZZ
    @given(push())
    def send(case: tuple[bytes, str, int, bool]) -> None:
        data, token, expected, valid = case
        path = f"/webhooks/gmail?token={token}" if token else "/webhooks/gmail"
        status, content_type, body = world.run(post(world, path, data, {"Content-Type": "application/json"}))
        assert status == expected, (status, body[:300])
        if status == 202:
            accepted[json.loads(body)["id"]] = valid
        else:
            assert_json_error(status, content_type, body)

    send()
    world.flush()
    assert any(accepted.values()) and not all(accepted.values())
    dead = {d["event_id"]: d for d in world.dead_letters(before) if d["subject"] == "memubot.in.gmail"}
    assert set(dead) == {mid for mid, valid in accepted.items() if not valid}
    for letter in dead.values():
        assert letter["reason"].strip() and letter["attempts"] == 1, letter
    # the valid notifications were synced: the fake mailbox's messages are stored, once each
    assert world.stats(SCOPES["gmail"])["resources"] == len(world.fake.messages)
    world.still_answers()


# ---- RPC -------------------------------------------------------------------------------------

ERROR_TYPES = {"invalid_request", "not_found", "timeout", "too_large", "internal"}


def test_rpc_hostile_requests_get_one_reply_each(world: World) -> None:
    scope = SCOPES["rpc"]
    before = world.last_dead_letter()
    stored: list[dict[str, Any]] = []
    refused: dict[str, str] = {}  # memorize: dead-letter id → its reason
    internal: list[str] = []
    # a hostile request must not delete or replay what the other tests count
    harmless = [v for v in VERBS if v not in ("forget", "restore", "deadletters")]

    @st.composite
    def request(draw: st.DrawFn) -> tuple[str, bytes]:
        """(subject, request bytes)."""
        # memorize half the time: it is the verb that writes
        verb = draw(st.one_of(st.just("memorize"), st.sampled_from([*harmless, "nosuchverb", "deadletters"])))
        subject = f"memubot.rpc.{verb}"
        if verb == "memorize":
            turns = []
            for _ in range(draw(st.integers(1, 4))):
                body = draw(turn_body(world, scope))
                turns.append(_dumps(body) if draw(st.booleans()) else draw(hostile_bytes(body)))
            # only turns that are JSON ride in a request; the request itself may be spoiled too
            carried = [t for t in turns if _json_or_none(t) is not None]
            if not carried or draw(st.integers(0, 4)) == 0:
                return subject, draw(hostile_bytes({"turns": [json.loads(t) for t in carried]}))
            return subject, b'{"turns": [' + b", ".join(carried) + b"]}"
        if verb == "deadletters":  # listing only: a replay would change the other tests' accounting
            return subject, _dumps({"action": "list", "limit": draw(JSON_VALUES)})
        body = {
            k: draw(JSON_VALUES)
            for k in draw(
                st.lists(
                    st.sampled_from(
                        [
                            "scope",
                            "query",
                            "k",
                            "ts",
                            "status",
                            "limit",
                            "timeout",
                            "at",
                            "session",
                            "explain",
                        ]
                    ),
                    max_size=4,
                )
            )
        }
        if (
            verb == "flush"
            and isinstance(body.get("timeout"), int | float)
            and not isinstance(body.get("timeout"), bool)
        ):
            body["timeout"] = 5
        return subject, draw(st.one_of(st.just(_dumps(body)), hostile_bytes(body)))

    @settings(FUZZ, max_examples=60)
    @given(request())
    def ask(case: tuple[str, bytes]) -> None:
        subject, data = case
        assume(len(data) <= NATS_MAX_PAYLOAD)  # the requester refuses more, before the daemon sees it
        msg = world.run(world.client.nc.request(subject, data, timeout=STEP_TIMEOUT))
        reply = json.loads(msg.data)
        assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool), reply
        if not reply["ok"]:
            error = reply["error"]
            assert error["type"] in ERROR_TYPES and error["message"].strip(), error
            if error["type"] == "internal":
                internal.append(f"{subject}: {error['message']}")
            return
        if subject.endswith(".memorize"):
            # the daemon parses the request, then hands each turn on as JSON of its own: that
            # is what its limits apply to (an "é" sent as \\u00e9 takes 6 bytes here, 2 there)
            request = json.loads(data) if data.strip() else {}  # an empty request is `{}` to the daemon
            sent = request.get("turns", [request])
            results = reply["result"]["results"]
            assert len(results) == len(sent)
            for turn, result in zip(sent, results, strict=True):
                raw = rpc_encode(turn)
                if turn_is_valid(raw):
                    assert result["outcome"] == "stored", (raw[:200], result)
                    stored.append(turn)
                else:
                    assert result["outcome"] == "dead_letter" and result["reason"].strip(), (
                        raw[:200],
                        result,
                    )
                    assert isinstance(result["dead_letter"], int)
                    refused[str(result["dead_letter"])] = result["reason"]

    ask()
    assert not internal, f"a bug answered instead of a refusal: {internal[:5]}"
    assert stored and refused
    assert world.stats(scope)["resources"] == len(stored)
    letters = {str(d["id"]): d for d in world.dead_letters(before)}
    for dead_id, reason in refused.items():
        assert letters[dead_id]["reason"] == reason
    world.still_answers()


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # how deep the parser gets depends on the stack: not at all
        return None


# ---- import ----------------------------------------------------------------------------------


def test_import_hostile_lines_among_valid_turns(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    scope = SCOPES["import"]
    env = world.runner.env()
    for key in [k for k in os.environ if k.startswith("MEMUBOT_")]:
        monkeypatch.delenv(key)
    for key in ("HOME", "MEMUBOT_STATE_DIR", "MEMUBOT_NATS_URL", "MEMUBOT_CONFIG"):
        monkeypatch.setenv(key, env[key])
    files = itertools.count()
    stored = 0

    @st.composite
    def line(draw: st.DrawFn) -> bytes:
        body = draw(turn_body(world, scope))
        data = _dumps(body) if draw(st.booleans()) else draw(hostile_bytes(body))
        data = data.replace(b"\n", b" ").replace(b"\r", b" ")  # one line stays one line
        assume(data.strip())
        return data

    @FUZZ
    @given(st.lists(line(), min_size=1, max_size=6))
    def run_import(lines: list[bytes]) -> None:
        nonlocal stored
        path = world.tmp / f"import-{next(files)}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        valid = [n for n, data in enumerate(lines, start=1) if turn_is_valid(data)]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(["import", str(path), "--json", "--quiet"])
        assert code == 0, err.getvalue()[-2000:]
        summary = json.loads(out.getvalue())
        assert summary["through_daemon"] is True
        assert summary["resources_added"] == len(valid), (summary, err.getvalue()[-2000:])
        assert summary["bad_lines"] == len(lines) - len(valid) and summary["dead_letters"] == 0
        for n in range(1, len(lines) + 1):
            if n not in valid:
                assert f"{path}:{n}: skipped: " in err.getvalue()
        stored += len(valid)

    run_import()
    assert stored
    assert world.stats(scope)["resources"] == stored
    world.still_answers()


# ---- MCP (stdio) -------------------------------------------------------------------------------


class McpProcess:
    """`memubot mcp` as a subprocess, spoken to in raw JSON-RPC lines as a hostile client would."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, world: World) -> McpProcess:
        env = {**world.runner.env(), "MEMUBOT_MCP_SCOPE": SCOPES["mcp"]}
        with (world.tmp / "mcp.log").open("wb") as log:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "daemon",
                "mcp",
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                limit=16 << 20,
            )
        self = cls(proc)
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"},
        }
        await self.send(_dumps({"jsonrpc": "2.0", "id": "hello", "method": "initialize", "params": hello}))
        assert (await self.reply())["id"] == "hello"
        await self.send(_dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return self

    async def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        await self.proc.stdin.drain()

    async def reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), STEP_TIMEOUT)
        assert line, f"memubot mcp closed stdout (exit {self.proc.returncode})"
        value = json.loads(line)
        assert isinstance(value, dict)
        return value

    async def exchange(
        self, lines: list[bytes], sentinel: str, owed: collections.Counter[Any]
    ) -> list[dict[str, Any]]:
        """Send `lines`, then a ping; read replies until the ping's and every `owed` id came.
        (Requests run concurrently: a tool call may answer after the ping. A second reply to
        one id shows as a surplus, here or in the next exchange.)"""
        for line in lines:
            await self.send(line)
        await self.send(_dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}))
        got: list[dict[str, Any]] = []
        pinged = False
        while not pinged or owed - collections.Counter(r.get("id") for r in got):
            reply = await self.reply()
            if reply.get("id") == sentinel:
                pinged = True
            else:
                got.append(reply)
        return got

    async def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            return await self.proc.wait()


def expected_reply(line: bytes) -> tuple[str | int | None, int | None] | None:
    """What the server owes a line: (id, error code or None for any answer), or None for no reply.
    The parse layer's oracle is the server's own (`refusal_of`, the SDK's message model)."""
    text = line.decode("utf-8", "replace")
    refusal = refusal_of(text)
    if refusal is not None:
        return refusal.id, refusal.error.code
    if not text.strip():
        return None
    message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    return (message.id, None) if isinstance(message, mcp_types.JSONRPCRequest) else None


TOOL_ARGS = {
    "recall": ["query", "k", "session", "explain"],
    "remember": ["text", "turns", "session"],
    "stats": [],
    "suggestions": ["status", "limit"],
    "feedback": ["suggestion_id", "verdict", "until"],
}


def test_mcp_hostile_lines_and_arguments_among_valid_remembers(world: World) -> None:
    mcp = world.run(McpProcess.start(world))
    stored: list[str] = []  # the event ids the server reported stored
    sentinels = itertools.count()

    def call(rid: str, tool: str, arguments: Any) -> bytes:
        params = {"name": tool, "arguments": arguments}
        return _dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})

    @st.composite
    def line(draw: st.DrawFn) -> tuple[bytes, bool]:
        """(a line, whether it is a valid `remember` that must be stored)."""
        rid = world.fresh("mcp")
        words = " and ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)))
        valid = call(rid, "remember", {"text": f"Note {rid}: I talked about {words}."})
        how = draw(st.sampled_from(["valid", "arguments", "envelope", "bytes"]))
        if how == "valid":
            return valid, True
        if how == "arguments":
            tool = draw(st.sampled_from(sorted(TOOL_ARGS)))
            names = st.sampled_from(TOOL_ARGS[tool]) if TOOL_ARGS[tool] else st.text(max_size=5)
            arguments = draw(st.one_of(st.dictionaries(names, JSON_VALUES, max_size=3), JSON_VALUES))
            return call(rid, tool, arguments), False
        if how == "envelope":
            body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "stats"}}
            name = draw(st.sampled_from(["jsonrpc", "method", "params"]))
            return _dumps({**body, name: draw(JSON_VALUES)}), False
        data = draw(hostile_bytes(json.loads(valid)))
        return data.replace(b"\n", b" ").replace(b"\r", b" "), False

    @FUZZ
    @given(st.lists(line(), min_size=1, max_size=4))
    def exchange(lines: list[tuple[bytes, bool]]) -> None:
        expected = [e for data, _ in lines if (e := expected_reply(data)) is not None]
        owed = collections.Counter(i for i, _ in expected)
        replies = world.run(mcp.exchange([data for data, _ in lines], f"sentinel-{next(sentinels)}", owed))
        # one reply per request and per refused line, never two (never none: the read waits for it)
        assert collections.Counter(r.get("id") for r in replies) == owed
        # a refused line gets the error its refusal names (parse error or invalid request)
        refusals = collections.Counter((i, c) for i, c in expected if c is not None)
        answered = collections.Counter((r.get("id"), r.get("error", {}).get("code")) for r in replies)
        assert not refusals - answered, (refusals, answered)
        for reply in replies:
            assert ("result" in reply) != ("error" in reply), reply
            if "error" in reply:
                assert reply["error"]["message"].strip(), reply
                continue
            result = reply["result"]
            content = result.get("content") or []
            text = content[0]["text"] if content and content[0].get("type") == "text" else ""
            if result.get("isError"):
                # an error reads as one line, never pydantic's dump with its documentation URLs
                assert text.strip() and "\n" not in text and "pydantic.dev" not in text, text
            elif text.startswith("{") and "results" in (body := json.loads(text)):
                stored.extend(r["id"] for r in body["results"] if r["outcome"] == "stored")
        by_id = {r.get("id"): r for r in replies}
        for data, valid in lines:
            if valid:
                reply = by_id[json.loads(data)["id"]]
                assert not reply["result"].get("isError"), reply
                [outcome] = json.loads(reply["result"]["content"][0]["text"])["results"]
                assert outcome["outcome"] == "stored", outcome

    try:
        exchange()
        assert stored and len(set(stored)) == len(stored), "a note is stored once"
        assert world.stats(SCOPES["mcp"])["resources"] == len(stored)
        # the server still answers
        assert world.run(mcp.exchange([], "last", collections.Counter())) == []
        assert mcp.proc.returncode is None
    finally:
        assert world.run(mcp.close()) == 0
    world.still_answers()


def test_the_daemon_log_lines_say_when(world: World) -> None:
    # its stderr is a file, not the journal: each line carries its time (journald would add it)
    lines = world.daemon.log.read_text(encoding="utf-8", errors="replace").splitlines()
    started = [ln for ln in lines if " INFO " in ln]
    assert started, lines[:20]
    stamp = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
    assert all(stamp.match(ln) for ln in started), started[:5]
