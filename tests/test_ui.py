"""The /ui inspector on the real aiohttp app over a real Memory: what it shows, that memory text
stays text, forgetting with a CSRF token, and the token beyond loopback."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from aiohttp.test_utils import TestClient, TestServer

from daemon.config import load_settings
from daemon.http import make_app
from daemon.memory import Memory
from daemon.metrics import Metrics
from daemon.ui import add_ui
from tests.conftest import turn

HOSTILE = "<script>document.title='pwned'</script> My dentist <img src=x onerror=alert(1)> is Dr. Okafor."


@asynccontextmanager
async def ui_client(memory: Memory, tmp_path: Path, **env: str) -> AsyncIterator[TestClient[Any, Any]]:
    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_STATE_DIR": str(tmp_path / "state"),
            "MEMUBOT_CONFIG": str(tmp_path / "none.toml"),
            "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
            **env,
        }
    )
    writes: list[int] = []

    async def after_write() -> None:
        writes.append(1)

    app = make_app(Metrics(), lambda: {"ok": True})
    add_ui(app, memory, settings, after_write)
    async with TestClient(TestServer(app)) as client:
        yield client


def store(memory: Memory) -> None:
    memory.memorize(
        [
            turn("r1", HOSTILE),
            turn("r2", "We adopted a grey cat called Miso last spring."),
        ]
    )


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, "no CSRF token in the form"
    return match.group(1)


async def test_the_page_shows_items_sources_and_search_with_stage_scores(
    memory: Memory, tmp_path: Path
) -> None:
    store(memory)
    async with ui_client(memory, tmp_path) as client:
        resp = await client.get("/ui")
        assert resp.status == 200
        html = await resp.text()
        assert "Miso" in html and "Okafor" in html  # the only scope opens by itself
        assert "default-src 'none'" in resp.headers["Content-Security-Policy"]
        assert re.search(r'id="counts">2 sources, \d+ items \(0 archived\)', html), html[:3000]
        search = await client.get("/ui", params={"scope": "alice", "q": "what is the cat called?"})
        html = await search.text()
        hits = html[html.index('id="hits"') : html.index('id="categories"')]
        assert "Miso" in hits and "dense " in hits and "bm25 " in hits and "final " in hits, hits[:2000]
        missing = await client.get("/ui", params={"scope": "bob"})
        assert missing.status == 404


async def test_memory_text_is_escaped_never_markup(memory: Memory, tmp_path: Path) -> None:
    store(memory)
    async with ui_client(memory, tmp_path) as client:
        for params in ({"scope": "alice"}, {"scope": "alice", "q": "dentist"}):
            html = await (await client.get("/ui", params=params)).text()
            assert "Okafor" in html
            assert "<script>document" not in html and "<img src=x" not in html
            assert "&lt;script&gt;document.title=" in html and "&lt;img src=x onerror" in html


async def test_forget_shows_the_rows_first_and_needs_the_csrf_token(memory: Memory, tmp_path: Path) -> None:
    store(memory)
    [item] = [i for i in memory.items("alice") if "Miso" in i["l0"]]
    async with ui_client(memory, tmp_path) as client:
        confirm = await client.get("/ui/forget", params={"scope": "alice", "item": item["id"]})
        html = await confirm.text()
        assert confirm.status == 200 and "Miso" in html and "<td>items</td><td>1</td>" in html
        assert memory.get_item("alice", item["id"]) is not None, "showing the rows deletes nothing"
        form = {"scope": "alice", "item": item["id"]}
        for bad in ({}, {"csrf": "guess"}):
            refused = await client.post("/ui/forget", data={**form, **bad}, allow_redirects=False)
            assert refused.status == 403
        assert memory.get_item("alice", item["id"]) is not None
        done = await client.post("/ui/forget", data={**form, "csrf": csrf_of(html)}, allow_redirects=False)
        assert done.status == 303
        assert memory.get_item("alice", item["id"]) is None
        page = await (await client.get(done.headers["Location"])).text()
        assert "forgot " + item["id"] in page and "Miso" not in page
        # the op log shows the newest first: the forget just made
        newest = re.search(
            r'id="ops">\s*<tr>.*?</tr>\s*<tr><td>\d+</td><td>[^<]*</td><td>(\w+)</td>', page, re.S
        )
        assert newest and newest.group(1) == "forgotten", page[page.index('id="ops"') :][:600]


async def test_beyond_loopback_the_page_needs_the_token(memory: Memory, tmp_path: Path) -> None:
    store(memory)
    async with ui_client(memory, tmp_path, MEMUBOT_HTTP_ADDR="0.0.0.0:0") as client:
        off = await client.get("/ui")
        assert off.status == 403 and "MEMUBOT_UI_TOKEN" in await off.text()
    async with ui_client(
        memory, tmp_path, MEMUBOT_HTTP_ADDR="0.0.0.0:0", MEMUBOT_UI_TOKEN="s3cret-token"
    ) as client:
        for params in ({}, {"token": "wrong"}):
            assert (await client.get("/ui", params=params)).status == 401
        ok = await client.get("/ui", params={"token": "s3cret-token"})
        assert ok.status == 200 and "Miso" in await ok.text()
        # the cookie it set is enough from now on, for the page and for a forget
        again = await client.get("/ui", params={"scope": "alice"})
        assert again.status == 200
        client.session.cookie_jar.clear()
        assert (await client.get("/ui", params={"scope": "alice"})).status == 401
        bearer = await client.get("/ui", headers={"Authorization": "Bearer s3cret-token"})
        assert bearer.status == 200


async def test_doctor_reports_the_ui_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from daemon.cli import main

    base = {
        "HOME": str(tmp_path),
        "MEMUBOT_STATE_DIR": str(tmp_path / "state"),
        "MEMUBOT_CONFIG": str(tmp_path / "none.toml"),
        "MEMUBOT_NATS_URL": "nats://127.0.0.1:1",
    }
    for addr, token, expected in [
        ("127.0.0.1:8765", None, "[ok ] ui         inspector at http://127.0.0.1:8765/ui (loopback: open)"),
        ("0.0.0.0:8765", None, "[warn] ui         inspector at http://0.0.0.0:8765/ui is off"),
        ("0.0.0.0:8765", "t0ken", "[ok ] ui         inspector at http://0.0.0.0:8765/ui (token required"),
    ]:
        for k, v in {**base, "MEMUBOT_HTTP_ADDR": addr}.items():
            monkeypatch.setenv(k, v)
        if token:
            monkeypatch.setenv("MEMUBOT_UI_TOKEN", token)
        assert await asyncio.to_thread(main, ["doctor"]) == 0
        out = capsys.readouterr().out
        assert expected in out, out
        assert "t0ken" not in out


async def test_a_configured_token_is_needed_on_loopback_too(memory: Memory, tmp_path: Path) -> None:
    store(memory)
    async with ui_client(memory, tmp_path, MEMUBOT_UI_TOKEN="s3cret-token") as client:
        assert (await client.get("/ui")).status == 401
        assert (await client.post("/ui/forget", data={"scope": "alice", "item": "x"})).status == 401
        assert (await client.get("/ui", params={"token": "s3cret-token"})).status == 200


async def test_an_archived_item_is_restored_by_a_post_with_the_csrf_token(
    memory: Memory, tmp_path: Path
) -> None:
    store(memory)
    memory.consolidate("alice", datetime(2034, 1, 1, tzinfo=UTC))  # ten years on: everything faded
    [item] = [i for i in memory.items("alice") if "Miso" in i["l0"]]
    assert item["archived"]
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
        row = html[html.index(f'id="item-{item["id"]}"') :]
        row = row[: row.index("</tr>")]
        assert "archived" in row and 'action="/ui/restore"' in row
        form = {"scope": "alice", "item": item["id"]}
        refused = await client.post("/ui/restore", data={**form, "csrf": "guess"}, allow_redirects=False)
        assert refused.status == 403 and memory.get_item("alice", item["id"])["archived"]
        done = await client.post("/ui/restore", data={**form, "csrf": csrf_of(html)}, allow_redirects=False)
        assert done.status == 303 and not memory.get_item("alice", item["id"])["archived"]
        page = await (await client.get(done.headers["Location"])).text()
        assert f"restored {item['id']}" in page
        again = await client.post("/ui/restore", data={**form, "csrf": csrf_of(html)}, allow_redirects=False)
        assert again.status == 404  # no longer archived


def test_the_survival_curve_follows_the_lifecycle_model() -> None:
    from daemon.memory.lifecycle import LifecycleParams
    from daemon.ui_plot import survival_curve

    now = datetime(2024, 3, 1, tzinfo=UTC)
    base = {
        "created_at": datetime(2024, 2, 1, tzinfo=UTC),
        "happened_at": None,
        "last_access": None,
        "access_count": 0,
        "importance": 0.5,
        "tier": "peripheral",
        "evergreen": False,
    }
    p = LifecycleParams()
    peripheral = survival_curve(base, p, now)
    assert 0 < peripheral.at(0) <= 1 and bool((np.diff(peripheral.score) <= 0).all())
    assert peripheral.at(365) < peripheral.at(0)
    core = survival_curve({**base, "tier": "core"}, p, now)
    used = survival_curve({**base, "access_count": 20, "last_access": now}, p, now)
    important = survival_curve({**base, "importance": 0.95}, p, now)
    for slower in (core, used, important):
        assert slower.at(365) > peripheral.at(365)
    assert set(survival_curve({**base, "evergreen": True}, p, now).score) == {1.0}
    # what the template draws: points inside the box, the floor where the model archives
    xs_ys = [tuple(map(float, pt.split(","))) for pt in peripheral.points.split()]
    assert xs_ys[0][0] == 0 and all(0 <= y <= 36 for _, y in xs_ys)
    if peripheral.archived_after is not None:
        assert peripheral.at(peripheral.archived_after) < p.archive_floor


async def test_each_active_item_has_its_survival_plot(memory: Memory, tmp_path: Path) -> None:
    store(memory)
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
    assert html.count('<svg class="survival"') == len(memory.items("alice")) >= 2
    assert "in a year" in html


async def test_a_fact_is_corrected_by_a_post_with_the_csrf_token(memory: Memory, tmp_path: Path) -> None:
    memory.memorize([turn("j1", "I teach piano at a music school in Utrecht.")])
    [item] = memory.items("alice")
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
        assert 'action="/ui/correct"' in html
        form = {"scope": "alice", "item": item["id"], "text": "I teach piano at home now, in Amersfoort."}
        refused = await client.post("/ui/correct", data={**form, "csrf": "guess"}, allow_redirects=False)
        assert refused.status == 403 and memory.get_item("alice", item["id"])["superseded_by"] is None  # type: ignore[index]
        empty = await client.post(
            "/ui/correct", data={**form, "text": "  ", "csrf": csrf_of(html)}, allow_redirects=False
        )
        assert empty.status == 400 and "not corrected" in await empty.text()
        done = await client.post("/ui/correct", data={**form, "csrf": csrf_of(html)}, allow_redirects=False)
        assert done.status == 303
        old = memory.get_item("alice", item["id"])
        assert old is not None and old["superseded_by"]
        page = await (await client.get(done.headers["Location"])).text()
        assert f"corrected {item['id']}" in page and "Amersfoort" in page


async def test_a_retired_item_says_what_retired_it_and_is_restored_by_a_post(
    memory: Memory, tmp_path: Path
) -> None:
    memory.memorize([turn("k1", "I coach the under-12 hockey team on Saturday mornings.")])
    [item] = memory.items("alice")
    new_id = memory.correct(
        "alice", item["id"], "I coach the under-14 hockey team now, on Sunday afternoons."
    )
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
        row = html[html.index(f'id="item-{item["id"]}"') :]
        row = row[: row.index("</tr>")]
        assert f'retired by <a href="#item-{new_id}">' in row and 'action="/ui/restore"' in row
        form = {"scope": "alice", "item": item["id"], "csrf": csrf_of(html)}
        done = await client.post("/ui/restore", data=form, allow_redirects=False)
        assert done.status == 303
        back = memory.get_item("alice", item["id"])
        assert back is not None and back["superseded_by"] is None and back["valid_until"] is None
        hits = memory.recall("under-12 hockey", "alice", k=3, reinforce=False)
        assert any(h.item_id == item["id"] for h in hits)
        again = await client.post("/ui/restore", data=form, allow_redirects=False)
        assert again.status == 404  # nothing left to undo


async def test_the_suggestions_timeline_shows_what_became_of_each(memory: Memory, tmp_path: Path) -> None:
    from datetime import timedelta

    from daemon.memory.suggestions import WITHDRAWN, Suggestion

    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    said = [
        Suggestion(
            scope="alice",
            kind="follow_up",
            predictor="github",
            dedup_key=f"s{i}",
            about=f"pr:o/r#{i}",
            title=title,
            body="<b>bold?</b>",
            created_at=t0,
            deliver_at=t0 + timedelta(hours=i),
        )
        for i, title in enumerate(["Review requested: o/r#0", "<script>alert(1)</script> review"])
    ]
    memory.memorize([turn("r1", "We adopted a grey cat called Miso last spring.")])
    memory.suggestions.propose(said)
    memory.suggestions.mark(said[0].id, WITHDRAWN, t0, "the review request was removed")
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
    timeline = html[html.index('id="suggestions"') : html.index('id="ops"')]
    assert "Review requested: o/r#0" in timeline and "the review request was removed" in timeline
    assert "withdrawn" in timeline and "pending" in timeline
    assert "<script>alert(1)</script>" not in timeline and "&lt;script&gt;" in timeline
    assert "<b>bold?</b>" not in timeline
