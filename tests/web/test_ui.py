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
from daemon.memory import Memory
from daemon.runtime.metrics import Metrics
from daemon.web.http import make_app
from daemon.web.ui import add_ui
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
        hits = html[html.index('id="hits"') :]
        hits = hits[: hits.index("</table>")]
        assert "Miso" in hits and all(f">{s}</th>" in hits for s in ("dense", "bm25", "final")), hits[:2000]
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
        assert f'id="notice">Forgot {item["id"]}: deleted ' in page and "Miso" not in page, page[:3000]
        # the op log shows the newest first: the forget just made
        log = await (await client.get("/ui", params={"scope": "alice", "tab": "log"})).text()
        newest = re.search(
            r'id="ops">\s*<tr>.*?</tr>\s*<tr><td>\d+</td><td[^>]*>[^<]*</td><td>(\w+)</td>', log, re.S
        )
        assert newest and newest.group(1) == "forgotten", log[log.index('id="ops"') :][:600]


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
    from daemon.cli.main import main

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
        html = await (await client.get("/ui", params={"scope": "alice", "tab": "retired"})).text()
        row = html[html.index(f'id="item-{item["id"]}"') :]
        row = row[: row.index("</article>")]
        assert "archived by the daily consolidation, on 1 Jan 2034" in row and 'action="/ui/restore"' in row
        form = {"scope": "alice", "item": item["id"]}
        refused = await client.post("/ui/restore", data={**form, "csrf": "guess"}, allow_redirects=False)
        assert refused.status == 403 and memory.get_item("alice", item["id"])["archived"]
        done = await client.post("/ui/restore", data={**form, "csrf": csrf_of(html)}, allow_redirects=False)
        assert done.status == 303 and not memory.get_item("alice", item["id"])["archived"]
        page = await (await client.get(done.headers["Location"])).text()
        assert f"Restored “{item['l0']}”: recall finds it again." in page
        assert done.headers["Location"].endswith(f"#item-{item['id']}")
        again = await client.post("/ui/restore", data={**form, "csrf": csrf_of(html)}, allow_redirects=False)
        assert again.status == 404  # no longer archived


def test_the_survival_curve_follows_the_lifecycle_model() -> None:
    from daemon.memory.lifecycle import LifecycleParams
    from daemon.web.ui_plot import HEIGHT, survival_curve

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
    assert xs_ys[0][0] == 0 and all(0 <= y <= HEIGHT for _, y in xs_ys)
    if peripheral.archived_after is not None:
        assert peripheral.at(peripheral.archived_after) < p.archive_floor


async def test_each_active_item_has_its_survival_plot(memory: Memory, tmp_path: Path) -> None:
    store(memory)
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
    assert html.count('<svg class="survival"') == len(memory.items("alice", state="active")) >= 2
    assert "in a year" in html and "0.00 → 0.00" not in html


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
        notice = page[page.index('id="notice"') :]
        assert notice.startswith('id="notice">Corrected “') and "Utrecht" in notice and "Amersfoort" in notice


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
        assert f'id="item-{item["id"]}"' not in html  # the items tab holds what recall finds
        html = await (await client.get("/ui", params={"scope": "alice", "tab": "retired"})).text()
        row = html[html.index(f'id="item-{item["id"]}"') :]
        row = row[: row.index("</article>")]
        assert re.search(
            rf'retired by\s*<a href="[^"]*tab=items#item-{new_id}">“[^”]*under-14 hockey[^”]*”</a>, on \d+ \w+ \d{{4}}',
            row,
        ), row
        assert 'action="/ui/restore"' in row
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

    from daemon.state.suggestions import WITHDRAWN, Suggestion

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
        html = await (await client.get("/ui", params={"scope": "alice", "tab": "suggestions"})).text()
    timeline = html[html.index('id="suggestions"') :]
    timeline = timeline[: timeline.index("</table>")]
    assert "Review requested: o/r#0" in timeline
    assert "withdrawn because the review request was removed" in timeline
    assert "withdrawn" in timeline and "pending" in timeline
    assert "<script>alert(1)</script>" not in timeline and "&lt;script&gt;" in timeline
    assert "<b>bold?</b>" not in timeline


def test_the_plot_counts_age_from_when_it_was_said_not_from_what_it_tells() -> None:
    """The cause of "0.00 → 0.00": the plot aged an item from `happened_at` (when what it tells
    happened), the consolidation from when it was said. Said today about 2010, it is fresh."""
    from daemon.memory.lifecycle import LifecycleParams
    from daemon.web.ui_plot import survival_curve

    now = datetime(2024, 3, 1, tzinfo=UTC)
    item = {
        "created_at": now,
        "observed_at": datetime(2024, 2, 28, tzinfo=UTC),
        "happened_at": datetime(2010, 6, 1, tzinfo=UTC),
        "last_access": None,
        "access_count": 0,
        "importance": 0.5,
        "tier": "peripheral",
        "evergreen": False,
    }
    curve = survival_curve(item, LifecycleParams(), now)
    assert curve.at(0) > 0.95 and 0 < curve.at(365) < curve.at(0) and curve.archived_after
    assert not curve.off_axis and 0 < float(curve.now_x) < 5


def test_the_plot_agrees_with_what_the_consolidation_archives(memory: Memory) -> None:
    from daemon.web.ui_plot import survival_curve

    memory.memorize(
        [
            turn("a1", "We adopted a grey cat called Miso last spring."),
            turn("a2", "I am allergic to peanuts, badly.", at=datetime(2024, 2, 20, tzinfo=UTC)),
            turn("a3", "My sister Ana lives in Lisbon and works as an architect."),
        ]
    )
    later = datetime(2025, 4, 1, tzinfo=UTC)  # 13 months on: the two said earlier fade, not the third
    predicted = {
        i["id"]: survival_curve(i, memory.params.lifecycle, later).archived_after == 0
        for i in memory.items("alice", state="active")
        if i["tier"] == "peripheral"
    }
    memory.consolidate("alice", later)
    archived = {i: bool((memory.get_item("alice", i) or {})["archived"]) for i in predicted}
    assert archived == predicted and len(set(predicted.values())) == 2, (predicted, archived)


def _polylines(html: str) -> dict[str, list[tuple[float, float]]]:
    out = {}
    for card in html.split('<article class="card item')[1:]:
        item_id = re.search(r'id="item-([^"]+)"', card)
        points = re.search(r'<polyline [^>]*points="([^"]+)"', card)
        if item_id and points:
            out[item_id.group(1)] = [tuple(map(float, p.split(","))) for p in points.group(1).split()]
    return out  # type: ignore[return-value]


async def test_two_items_with_different_importance_and_use_draw_different_curves(
    memory: Memory, tmp_path: Path
) -> None:
    memory.memorize(
        [
            turn("p1", "I run the Utrecht half marathon every spring."),
            turn("p2", "My brother Tom moved to Oslo for a job at a shipping firm."),
        ]
    )
    first, second = memory.items("alice", state="active")[:2]
    for _ in range(6):  # six uses, as six accepted suggestions citing it would count
        assert memory.reinforce_items("alice", [second["id"]], memory.clock()) == 1
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
    curves = _polylines(html)
    a, b = curves[first["id"]], curves[second["id"]]
    for points in (a, b):  # a real curve: from the top, falling, not a flat line
        ys = [y for _, y in points]
        assert ys[0] < 1 and max(ys) - min(ys) > 10
    assert a != b
    # used six times, the second falls more slowly: higher (smaller y) at the two-year mark
    assert b[-1][1] < a[-1][1]
    assert "used 6×" in html[html.index(f'id="item-{second["id"]}"') :][:6000]


async def test_notices_come_only_from_the_servers_own_redirect(memory: Memory, tmp_path: Path) -> None:
    """A `?notice=` text anyone can write shows nothing; only a notice this inspector signed,
    for this scope, is shown — and it is still escaped."""
    store(memory)
    memory.consolidate("alice", datetime(2034, 1, 1, tzinfo=UTC))
    [item] = [i for i in memory.items("alice") if "Okafor" in i["l0"]]
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice", "tab": "retired"})).text()
        for crafted in ("Your account is locked: call +1 555 0100", "<b>x</b>", "e30.00", ""):
            page = await (await client.get("/ui", params={"scope": "alice", "notice": crafted})).text()
            assert 'id="notice"' not in page and "call +1 555" not in page
        done = await client.post(
            "/ui/restore",
            data={"scope": "alice", "item": item["id"], "csrf": csrf_of(html)},
            allow_redirects=False,
        )
        location = done.headers["Location"]
        token = re.search(r"notice=([^&#]+)", location)
        assert token
        body, _, mac = token.group(1).partition(".")
        tampered = f"{body[:-2]}{'AA' if body[-2:] != 'AA' else 'BB'}.{mac}"
        page = await (await client.get("/ui", params={"scope": "alice", "notice": tampered})).text()
        assert 'id="notice"' not in page
        page = await (await client.get(location)).text()
        notice = page[page.index('id="notice"') :][:600]
        assert (
            notice.startswith('id="notice">Restored “')
            and "&lt;script&gt;" in notice
            and "<script>" not in notice
        )


async def test_items_read_as_cards_with_labelled_fields_and_sources_one_click_away(
    memory: Memory, tmp_path: Path
) -> None:
    memory.memorize(
        [
            turn("d1", "Next Friday I have my dentist appointment at 10:00 with Dr. Okafor."),
            turn("d2", "I go running by the lake every morning before work."),
        ]
    )
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice"})).text()
    section = html[html.index('<section id="items">') : html.index("</section>")]
    cards = section.split('<article class="card item')[1:]
    assert len(cards) == len(memory.items("alice", state="active")) >= 2
    for card in cards:
        text = re.sub(r"<[^>]+>", "", card)  # what the reader sees
        assert "{" not in text and "&#34;what&#34;" not in text and '"what":' not in text, text
        assert (
            "said by <b>Alice</b>" in card and '<details class="sources"><summary>1 source</summary>' in card
        )
    dentist = next(c for c in cards if "dentist" in c)
    assert re.search(r'<span class="badge due">due \d+ \w+ 20\d\d', dentist), dentist[:2000]
    running = next(c for c in cards if "running" in c)
    assert re.search(r'<dl class="fields">.*<dt>frequency</dt><dd>every morning</dd>', running, re.S), (
        running[:2000]
    )
    assert "<dt>behavior</dt>" not in running  # the statement itself, not repeated


async def test_category_summaries_link_their_items_without_showing_ids(
    memory: Memory, tmp_path: Path
) -> None:
    store(memory)
    memory.consolidate("alice", datetime(2024, 3, 2, tzinfo=UTC))
    categories = [memory.get_category("alice", n) for n in memory.stats("alice")["items_by_category"]]
    assert any(c and "[ref:" in c["summary"] for c in categories)
    async with ui_client(memory, tmp_path) as client:
        html = await (await client.get("/ui", params={"scope": "alice", "tab": "categories"})).text()
    section = html[html.index('<section id="categories">') : html.index("</section>")]
    assert "[ref:" not in section and "it_" not in section.replace("#item-it_", "")
    assert re.search(r'<li><a href="/ui\?scope=alice&amp;tab=items#item-it_\w+">[^<]*Miso', section), section


async def test_the_root_page_lists_scopes_with_their_counts_and_a_wrong_tab_is_refused(
    memory: Memory, tmp_path: Path
) -> None:
    store(memory)
    memory.memorize([turn("b1", "I keep bees on the allotment.", scope="bob")])
    async with ui_client(memory, tmp_path) as client:
        root = await (await client.get("/ui")).text()
        assert re.search(r'href="/ui\?scope=alice"><b>alice</b>.*?\d+ items in recall', root, re.S)
        assert 'href="/ui?scope=bob"' in root
        assert (await client.get("/ui", params={"scope": "alice", "tab": "nope"})).status == 400
        for tab in ("items", "retired", "categories", "suggestions", "log"):
            assert (await client.get("/ui", params={"scope": "alice", "tab": tab})).status == 200
