"""Forgetting one external delivery: the others keep their handler-made items, and the state
derived from deliveries (work items) is derived again from what remains."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import duckdb
import pytest

from daemon.config import load_settings
from daemon.events import github_from_dict
from daemon.memory import Memory
from daemon.memory.store import MIGRATIONS, Store
from daemon.memory.types import EXTERNAL, ItemDraft, ResourceIn
from daemon.memory.write import drafts as draftcodec
from daemon.state.tables.work_items import WorkItemTable
from handlers import email, github
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.github_fixtures import FIXTURES
from tests.handlers.test_email_handler import ALICE, ASK, BOB, mail

REPO = "Codertocat/Hello-World"


def delivery(rel: str, delivery_id: str) -> Any:
    payload = json.loads((FIXTURES / rel).read_text(encoding="utf-8"))
    return github_from_dict(
        {"id": delivery_id, "scope": "alice", "event": rel.split("/")[0], "payload": payload}
    )


@pytest.fixture
def deps(memory: Memory, clock: FakeClock, tmp_path: Path) -> Deps:
    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_GITHUB_LOGIN": "octocat",
            "MEMUBOT_EMAIL_ADDRESSES": "alice@example.com",
        }
    )
    return Deps(memory, settings, clock)


def by_l0(memory: Memory) -> dict[str, list[str]]:
    return {i["l0"]: i["source_ids"] for i in memory.items("alice")}


def only_from(memory: Memory, source: str, category: str) -> str:
    return next(
        i["id"] for i in memory.items("alice") if i["category"] == category and i["source_ids"] == [source]
    )


def test_drafts_round_trip_through_json() -> None:
    at = datetime(2026, 3, 3, 9, 12, tzinfo=timezone(timedelta(hours=1)))
    d = ItemDraft(
        category="events",
        l0="Meeting",
        search_text="Meeting",
        l1={"who": ["bob"], "n": 2},
        source_ids=("m-1", "m-2"),
        happened_at=at,
        due_at=at.astimezone(UTC),
        days=(at,),
        evergreen=True,
    )
    assert draftcodec.loads(draftcodec.dumps((d,))) == (d,)
    assert draftcodec.dumps(()) is None and draftcodec.loads(None) == ()


async def test_a_kept_delivery_gets_its_items_back_after_a_forget(deps: Deps, memory: Memory) -> None:
    await github.handle([delivery("pull_request/opened.payload.json", "o-1")], deps)
    await github.handle([delivery("pull_request/labeled.payload.json", "l-1")], deps)
    before = by_l0(memory)
    # both deliveries taught the repository and the pull request: one entity each, two sources
    assert before[f"GitHub repository {REPO}"] == ["l-1", "o-1"]
    counts = memory.forget("alice", item_ids=[only_from(memory, "o-1", "events")])
    assert counts["resources"] == 1 and counts["reextracted"] == 1
    after = by_l0(memory)
    # what the kept delivery taught is still known, now from it alone; the opening event is gone
    assert after == {l0: ["l-1"] for l0, src in before.items() if "l-1" in src}, after
    assert len(after) == 2


async def test_a_kept_mail_gets_its_contacts_back_after_a_forget(deps: Deps, memory: Memory) -> None:
    reply = mail("m-2", ALICE, [BOB], "Sure, attached.", "2026-03-03T10:00:00+01:00", subject="Re: Q3 budget")
    await email.handle([ASK, reply], deps)
    shared = [l0 for l0, src in by_l0(memory).items() if src == ["m-1", "m-2"]]
    assert shared, by_l0(memory)  # a contact both mails name
    counts = memory.forget("alice", query="attached")
    assert counts["resources"] == 1 and counts["reextracted"] == 1
    after = by_l0(memory)
    assert all(after.get(l0) == ["m-1"] for l0 in shared), after


async def test_forgetting_a_delivery_derives_its_work_item_again(deps: Deps, memory: Memory) -> None:
    requested = delivery("pull_request/review_requested.payload.json", "r-1")
    closed = delivery("pull_request/closed.payload.json", "c-1")
    await github.handle([closed], deps)
    await github.handle([requested], deps)  # older: the close stays the state
    w = memory.work_items.get("alice", REPO, 2)
    assert w is not None and w.state == "closed" and w.last_event == "c-1"
    counts = memory.forget("alice", item_ids=[only_from(memory, "c-1", "events")])
    assert counts["work_item_snapshots"] == 1
    w = memory.work_items.get("alice", REPO, 2)
    # the review request is all that is left: open and waiting on the person again
    assert w is not None and w.state == "open" and w.last_event == "r-1" and w.waiting_on("octocat")
    # the forgotten close, delivered again, stays forgotten
    assert await github.handle([closed], deps) == ["duplicate"]
    w = memory.work_items.get("alice", REPO, 2)
    assert w is not None and w.state == "open"
    memory.forget("alice", item_ids=[only_from(memory, "r-1", "events")])
    assert memory.work_items.get("alice", REPO, 2) is None  # no delivery left: no state


async def test_forgetting_everything_forgets_snapshots_and_runs(deps: Deps, memory: Memory) -> None:
    await github.handle([delivery("pull_request/review_requested.payload.json", "r-1")], deps)
    await github.handle([delivery("workflow_run/completed.payload.json", "w-1")], deps)
    one = memory.store.con.execute
    assert one("SELECT count(*) FROM work_item_snapshots").fetchone() == (1,)
    assert one("SELECT count(*) FROM workflow_runs").fetchone() == (1,)
    counts = memory.forget("alice", everything=True)
    assert counts["work_items"] == 1 and counts["workflow_runs"] == 1
    assert one("SELECT count(*) FROM work_item_snapshots").fetchone() == (0,)
    assert memory.work_items.of_scope("alice") == []


def test_version_7_keeps_what_version_6_learnt_as_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "v6.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TIMESTAMPTZ)")
    for version, statements in MIGRATIONS:
        if version <= 6:
            for sql in statements:
                con.execute(sql)
            con.execute("INSERT INTO schema_version VALUES (?, now())", [version])
    con.execute(
        "INSERT INTO work_items VALUES ('alice', ?, 2, 'pr', 'open', 't', '2019-05-15 15:20:00+00',"
        " NULL, 'Codertocat', ['octocat'], [], NULL, 'r-1')",
        [REPO],
    )
    con.close()
    store = Store(path)
    try:
        assert store.schema_version() == 7
        [snap] = WorkItemTable(store).work_item_snapshots("alice", REPO, 2)
        assert snap.last_event == "r-1" and snap.requested == ("octocat",) and snap.state == "open"
    finally:
        store.close()


def test_a_draft_citing_a_resource_forgotten_earlier_stays_forgotten(
    memory: Memory, clock: FakeClock
) -> None:
    def res(rid: str, *drafts: tuple[str, tuple[str, ...]]) -> ResourceIn:
        return ResourceIn(
            id=rid,
            scope="alice",
            text=f"delivery {rid}",
            occurred_at=clock(),
            kind="github",
            trust=EXTERNAL,
            drafts=tuple(ItemDraft("events", l0, l0, source_ids=src) for l0, src in drafts),
        )

    memory.memorize(
        [
            res(
                "x", ("Release v1 shipped to the mirrors", ("x",)), ("Kepler repository archived", ("x", "y"))
            ),
            res(
                "y", ("Nightly benchmark regressed by nine percent", ("y",)), ("Zeta build broke", ("y", "z"))
            ),
            res("z", ("Zeta build alerts muted by the bot", ("z",))),
        ]
    )

    def l0s() -> set[str]:
        return {i["l0"] for i in memory.items("alice")}

    def item(l0: str) -> str:
        return next(i["id"] for i in memory.items("alice") if i["l0"] == l0)

    memory.forget("alice", item_ids=[item("Zeta build alerts muted by the bot")])  # y is extracted again
    assert "Zeta build broke" not in l0s() and "Nightly benchmark regressed by nine percent" in l0s()
    memory.forget("alice", item_ids=[item("Release v1 shipped to the mirrors")])  # y again, via x
    assert l0s() == {"Nightly benchmark regressed by nine percent"}
