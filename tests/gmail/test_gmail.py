"""Gmail: the fetcher, the pull loop and OAuth against a local fake of Google's APIs.

google-api-python-client runs for real (static discovery documents, no network) with its API
roots pointed at tests/gmail_fake.py; the e-mails it publishes go through the real dispatcher
and e-mail handler into a real DuckDB memory, and the pull loop publishes to a real nats-server.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import stat
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from nats.js import JetStreamContext

from daemon.config import load_settings
from daemon.events import MAX_EVENT_BYTES
from daemon.gmail.api import GmailApi
from daemon.gmail.message import MAX_TEXT_CHARS, email_body, html_to_text
from daemon.gmail.oauth import CredentialFile, code_from
from daemon.gmail.pull import pull_once
from daemon.gmail.sync import GmailSync, cursor_name
from daemon.memory import Memory
from daemon.runtime.dispatch import Dispatcher, Incoming
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.gmail_fake import FakeGoogle, serve_fake

ALICE = "alice@example.com"


def credentials(
    tmp_path: Path, fake: FakeGoogle, token: str = "old-token", expiry: str = "2020-01-01T00:00:00Z"
) -> Path:
    path = tmp_path / "gmail.json"
    path.write_text(
        json.dumps(
            {
                "client_id": "cid.apps.googleusercontent.com",
                "client_secret": "client-secret",
                "refresh_token": "the-refresh-token",
                "token": token,
                "expiry": expiry,
                "token_uri": f"{fake.url}/token",
            }
        ),
        encoding="utf-8",
    )
    return path


class Bus:
    """Publishes into the real dispatcher (and through it the e-mail handler), recording each event."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.sent: list[tuple[str, dict[str, Any], str, int]] = []
        self.outcomes: list[str] = []

    async def publish(self, subject: str, body: bytes, msg_id: str) -> None:
        self.sent.append((subject, json.loads(body), msg_id, len(body)))
        [verdict] = await self.dispatcher.dispatch([Incoming(subject, body)])
        self.outcomes.append(verdict.outcome)


@pytest.fixture
async def fake() -> AsyncIterator[FakeGoogle]:
    async with serve_fake() as f:
        yield f


def api_for(tmp_path: Path, fake: FakeGoogle, path: Path | None = None) -> GmailApi:
    creds = CredentialFile(path or credentials(tmp_path, fake), token_url=f"{fake.url}/token")
    return GmailApi(creds, fake.url, fake.url)


@pytest.fixture
def setup(
    fake: FakeGoogle, memory: Memory, clock: FakeClock, tmp_path: Path
) -> Iterator[tuple[GmailSync, Bus]]:
    settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_EMAIL_ADDRESSES": ALICE})
    bus = Bus(Dispatcher(Deps(memory, settings, clock)))
    api = api_for(tmp_path, fake)
    yield GmailSync(api, memory.ledger, bus.publish, "alice"), bus
    api.close()


async def test_history_pages_become_one_email_event_per_new_message(
    setup: tuple[GmailSync, Bus], memory: Memory, fake: FakeGoogle
) -> None:
    sync, bus = setup
    memory.ledger.set_cursor(cursor_name(ALICE), 100)
    report = await sync.sync(ALICE, 130)
    # both pages read; the draft skipped; the label change is no new message
    assert [(s, m) for s, _, m, _ in bus.sent] == [
        ("memubot.in.email", "18e1a"),
        ("memubot.in.email", "18e2b"),
        ("memubot.in.email", "18e3c"),
    ]
    assert bus.outcomes == ["stored"] * 3 and report.published == 3 and not report.resynced
    assert memory.ledger.cursor(cursor_name(ALICE)) == 130
    assert any("pageToken=page-2" in path for _, path, _ in fake.requests)
    first = bus.sent[0][1]
    assert first["from"] == "Bob Chen <bob@example.com>" and first["to"] == ["Alice Wong <alice@example.com>"]
    assert first["thread"] == "18e1a" and first["message_id"] == "<CAB1@mail.example.com>"
    assert first["date"] == "2026-03-03T09:12:00+01:00" and first["mailbox"] == ALICE
    assert (
        "could you send me the Q3 budget numbers by Thursday?" in first["text"]
        and "<div>" not in first["text"]
    )
    # the same notification again, or an older one: nothing is fetched or published
    asked = len(fake.requests)
    assert (await sync.sync(ALICE, 130)).published == 0 and (await sync.sync(ALICE, 120)).published == 0
    assert len(fake.requests) == asked and len(bus.sent) == 3


async def test_a_thread_with_the_persons_reply(setup: tuple[GmailSync, Bus], memory: Memory) -> None:
    sync, _ = setup
    memory.ledger.set_cursor(cursor_name(ALICE), 100)
    await sync.sync(ALICE, 130)
    t = memory.email_thread("alice", "18e1a")
    assert t is not None and t.source_ids == ("18e1a", "18e3c") and t.subject == "Q3 budget numbers?"
    assert not t.waiting_on_person and t.person_promised == "Hi Bob, I'll send them tomorrow at 10am."
    assert t.promise_due is not None and t.promise_due.isoformat().startswith("2026-03-04T10:00")
    carol = memory.email_thread("alice", "18e2b")
    assert carol is not None and carol.waiting_on_person and carol.ask == "Can you book the room?"


async def test_an_html_only_message_is_read_as_text(setup: tuple[GmailSync, Bus], fake: FakeGoogle) -> None:
    body = email_body(fake.messages["18e2b"], "alice", ALICE)
    assert body["text"] == "The offsite meeting is on Friday at 10am.\n\nCan you book the room?"
    assert body["cc"] == ["Dan <dan@example.com>"] and body["to"] == [ALICE]
    assert html_to_text("<p>a&amp;b</p><br><ul><li>x</li></ul>") == "a&b\n\nx"


async def test_history_gone_resyncs_the_recent_messages(
    setup: tuple[GmailSync, Bus], memory: Memory, fake: FakeGoogle
) -> None:
    sync, bus = setup
    memory.ledger.set_cursor(cursor_name(ALICE), 7)  # older than Gmail keeps: history.list answers 404
    report = await sync.sync(ALICE, 131)
    assert (
        report.resynced
        and report.published == 3
        and sorted(m for _, _, m, _ in bus.sent) == ["18e1a", "18e2b", "18e3c"]
    )
    assert any(p.startswith("/gmail/v1/users/me/messages?maxResults=50") for _, p, _ in fake.requests)
    assert memory.ledger.cursor(cursor_name(ALICE)) == 140  # the profile's historyId
    # a message deleted between the history and the fetch is skipped, not an error
    del fake.messages["18e2b"]
    memory.ledger.set_cursor(cursor_name(ALICE), 100)
    again = await sync.sync(ALICE, 141)
    assert again.published == 2 and bus.outcomes[-2:] == ["duplicate", "duplicate"]
    assert memory.stats("alice")["resources"] == 3


async def test_a_20_mb_message_is_capped_not_lost(
    setup: tuple[GmailSync, Bus], memory: Memory, fake: FakeGoogle
) -> None:
    sync, bus = setup
    huge = "The budget review is on Friday. " + "numbers and more numbers " * 840_000  # ~21 MB
    message = json.loads(json.dumps(fake.messages["18e3c"]))
    message |= {"id": "big1", "threadId": "big", "sizeEstimate": len(huge)}
    message["payload"]["body"] = {"size": len(huge), "data": base64.urlsafe_b64encode(huge.encode()).decode()}
    fake.messages["big1"] = message
    fake.history_pages = {
        None: {"history": [{"id": "1", "messagesAdded": [{"message": {"id": "big1"}}]}], "historyId": "200"}
    }
    memory.ledger.set_cursor(cursor_name(ALICE), 100)
    await sync.sync(ALICE, 200)
    [(_, body, _, size)] = bus.sent
    assert bus.outcomes == ["stored"] and size <= MAX_EVENT_BYTES
    assert body["truncated"] is True and body["size"] == len(huge)
    assert (
        body["text"].startswith("The budget review is on Friday.")
        and len(body["text"]) < MAX_TEXT_CHARS + 200
    )
    row = memory.store.con.execute("SELECT text, meta FROM resources WHERE id = 'big1'").fetchone()
    assert row is not None and row[0].endswith("more characters not kept]")
    assert json.loads(row[1])["truncated"] is True and json.loads(row[1])["size"] == len(huge)


async def test_refreshed_tokens_are_written_back_privately(tmp_path: Path, fake: FakeGoogle) -> None:
    path = credentials(tmp_path, fake)
    os.chmod(path, 0o644)
    api = api_for(tmp_path, fake, path)
    profile = await asyncio.to_thread(api.profile)
    api.close()
    assert profile["emailAddress"] == ALICE
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["token"] == "fresh-token" and saved["refresh_token"] == "the-refresh-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert fake.requests[-1] == ("GET", "/gmail/v1/users/me/profile?alt=json", "Bearer fresh-token")
    assert [p for _, p, _ in fake.requests if p.startswith("/token")] == ["/token"]
    assert (
        code_from("http://localhost/?state=s&code=4/abc&scope=x") == "4/abc"
        and code_from(" 4/xyz ") == "4/xyz"
    )


async def test_watch_renewal_starts_the_cursor(setup: tuple[GmailSync, Bus], memory: Memory) -> None:
    sync, _ = setup
    assert await sync.renew_watch("projects/p/topics/gmail") == 150
    assert memory.ledger.cursor(cursor_name(ALICE)) == 150
    memory.ledger.set_cursor(cursor_name(ALICE), 160)
    await sync.renew_watch("projects/p/topics/gmail")
    assert memory.ledger.cursor(cursor_name(ALICE)) == 160  # an existing cursor is never moved back


def pushed(mid: str, data: Any) -> dict[str, Any]:
    raw = data if isinstance(data, str) else base64.b64encode(json.dumps(data).encode()).decode()
    return {
        "ackId": f"ack-{mid}",
        "message": {"messageId": mid, "data": raw, "publishTime": "2026-03-03T08:00:00Z"},
    }


async def test_the_pull_loop_acks_only_what_the_bus_accepted(
    js: JetStreamContext, fake: FakeGoogle, tmp_path: Path
) -> None:
    api = api_for(tmp_path, fake)
    sub = "projects/p/subscriptions/s"

    async def publish(subject: str, body: bytes, msg_id: str) -> None:
        await js.publish(subject, body, headers={"Nats-Msg-Id": msg_id}, timeout=5)

    fake.pulls = [[pushed("p1", {"emailAddress": ALICE, "historyId": 130}), pushed("p2", "not base64 json!")]]
    assert await pull_once(api, sub, publish, "alice") == 2
    assert fake.acked == ["ack-p1", "ack-p2"]
    first = await js.get_msg("MEMUBOT_IN", 1)
    assert first.data is not None and json.loads(first.data) == {
        "id": "p1",
        "emailAddress": ALICE,
        "historyId": 130,
        "scope": "alice",
    }
    second = await js.get_msg("MEMUBOT_IN", 2)
    assert second.data is not None and json.loads(second.data)["id"] == "p2"  # kept: it becomes a dead letter

    async def refuse(subject: str, body: bytes, msg_id: str) -> None:
        raise ConnectionError("no JetStream")

    fake.pulls = [[pushed("p3", {"emailAddress": ALICE, "historyId": 131})]]
    with pytest.raises(ConnectionError):
        await pull_once(api, sub, refuse, "alice")
    assert fake.acked == ["ack-p1", "ack-p2"]  # p3 was not acked: Pub/Sub delivers it again
    # a redelivered notification is a duplicate on the bus
    fake.pulls = [[pushed("p1", {"emailAddress": ALICE, "historyId": 130})]]
    await pull_once(api, sub, publish, "alice")
    info = await js.stream_info("MEMUBOT_IN")
    api.close()
    assert info.state.messages == 2


async def test_notifications_without_the_gmail_trigger_are_dead_letters(
    memory: Memory, clock: FakeClock, tmp_path: Path
) -> None:
    dispatcher = Dispatcher(Deps(memory, load_settings({"HOME": str(tmp_path)}), clock))
    good = json.dumps({"id": "n1", "emailAddress": ALICE, "historyId": "5"}).encode()
    bad = json.dumps({"id": "n2", "data": "xx"}).encode()
    verdicts = await dispatcher.dispatch(
        [Incoming("memubot.in.gmail", good), Incoming("memubot.in.gmail", bad)]
    )
    assert [v.outcome for v in verdicts] == ["dead_letter", "dead_letter"]
    assert verdicts[0].reason is not None and "Gmail trigger is off" in verdicts[0].reason
    assert verdicts[1].reason is not None and "'emailAddress'" in verdicts[1].reason


def test_the_doctor_line_says_on_or_off_and_why(tmp_path: Path) -> None:
    from daemon.cli.bus import gmail_status

    env = {"HOME": str(tmp_path)}
    assert gmail_status(load_settings(env)) == (
        True,
        "trigger off: no scope (set MEMUBOT_GMAIL_SCOPE or MEMUBOT_PROFILE_SCOPE)",
    )
    half = load_settings(
        env | {"MEMUBOT_GMAIL_SCOPE": "alice", "MEMUBOT_GMAIL_SUBSCRIPTION": "projects/p/subscriptions/s"}
    )
    ok, detail = gmail_status(half)
    assert not ok and "no OAuth credentials" in detail  # partly configured: a warning
    creds = tmp_path / "c.json"
    creds.write_text("{}", encoding="utf-8")
    on = load_settings(
        env
        | {
            "MEMUBOT_GMAIL_SCOPE": "alice",
            "MEMUBOT_GMAIL_SUBSCRIPTION": "projects/p/subscriptions/s",
            "MEMUBOT_GMAIL_CREDENTIALS": str(creds),
            "MEMUBOT_EMAIL_ADDRESSES": ALICE,
        }
    )
    ok, detail = gmail_status(on)
    assert ok and detail.startswith(
        "trigger on: pull projects/p/subscriptions/s, scope alice, addresses alice@example.com"
    )


async def test_gmail_auth_prints_the_url_and_takes_the_code(
    tmp_path: Path, fake: FakeGoogle, monkeypatch: pytest.MonkeyPatch
) -> None:
    from daemon.gmail.oauth import authorize

    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")  # the fake token endpoint is plain http
    client = tmp_path / "client.json"
    client.write_text(
        json.dumps(
            {
                "installed": {
                    "client_id": "cid.apps.googleusercontent.com",
                    "client_secret": "client-secret",
                    "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                    "token_uri": f"{fake.url}/token",
                    "redirect_uris": ["http://localhost"],
                }
            }
        ),
        encoding="utf-8",
    )
    said: list[str] = []
    target = tmp_path / "cfg" / "gmail.json"
    await asyncio.to_thread(
        authorize, client, target, lambda _: "http://localhost/?state=x&code=4/the-code&scope=y", said.append
    )
    assert any(
        line.startswith("https://accounts.google.com/o/oauth2/auth?") and "access_type=offline" in line
        for line in said
    )
    saved = json.loads(target.read_text(encoding="utf-8"))
    assert saved["refresh_token"] == "the-refresh-token" and saved["token"] == "first-token"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


async def test_notifications_and_ticks_drive_the_fetcher(
    fake: FakeGoogle, memory: Memory, clock: FakeClock, tmp_path: Path
) -> None:
    from daemon.events import tick_body

    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_EMAIL_ADDRESSES": ALICE,
            "MEMUBOT_GMAIL_TOPIC": "projects/p/topics/gmail",
        }
    )
    api = api_for(tmp_path, fake)
    published: list[bytes] = []

    async def publish(subject: str, body: bytes, msg_id: str) -> None:
        published.append(body)

    sync = GmailSync(api, memory.ledger, publish, "alice")
    dispatcher = Dispatcher(Deps(memory, settings, clock, gmail=sync))
    watch = Incoming("memubot.in.tick.gmail_watch", json.dumps(tick_body("gmail_watch", clock())).encode())
    assert [v.outcome for v in await dispatcher.dispatch([watch])] == ["watch_renewed"]
    assert memory.ledger.cursor(cursor_name(ALICE)) == 150
    # a notification newer than the cursor: history is read (the fake's pages) and published
    fake.gone_before = 0
    note = Incoming(
        "memubot.in.gmail", json.dumps({"id": "n1", "emailAddress": ALICE, "historyId": 160}).encode()
    )
    assert [v.outcome for v in await dispatcher.dispatch([note])] == ["synced"]
    assert len(published) == 3 and memory.ledger.cursor(cursor_name(ALICE)) == 160
    # the heartbeat catches up from the cursor (this fake answers the same pages whatever the start)
    beat = Incoming("memubot.in.tick.heartbeat", json.dumps(tick_body("heartbeat", clock())).encode())
    assert [v.outcome for v in await dispatcher.dispatch([beat])] == ["noop"]
    assert [json.loads(b)["id"] for b in published[3:]] == ["18e1a", "18e2b", "18e3c"]
    api.close()
