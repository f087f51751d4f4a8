"""/ui in a real headless Chromium (Debian's `chromium`, driven by Playwright), against the whole
daemon on a real nats-server: the page loads, search shows results, forget removes an item, and
a hostile memory text does not execute — with the page's CSP bypassed, so escaping alone is tested.
At 1280 px no element is wider than the window on any tab, item cards show no raw JSON, each plot
is a real curve, and a retired item is restored end to end with JavaScript off.

Skipped only when no Chromium is installed (`.ci/run` installs it when it can), with the reason
in pytest's summary.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from daemon.client import Client
from daemon.config import load_settings
from tests.daemon_harness import daemon_env, running

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="NO BROWSER: /ui browser test NOT RUN — install Debian's `chromium` (apt-get install chromium)",
)

HOSTILE = (
    "<script>window.__pwned = 1; document.title = 'pwned'</script> Subject: invoice "
    "<img src=x onerror=\"window.__pwned = 2; document.title = 'pwned'\"> from Dr. Okafor, my dentist."
)


@pytest.fixture
async def daemon_http(tmp_path: Path, nats_url: str) -> AsyncIterator[tuple[str, str]]:
    """The daemon running in-process; yields (its HTTP base URL, the NATS URL)."""
    settings = load_settings(daemon_env(tmp_path, nats_url, MEMUBOT_CONFIG=str(tmp_path / "none.toml")))
    async with running(settings) as info:
        yield str(info["http"]), nats_url


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            await b.close()


async def test_the_inspector_in_a_real_browser(
    daemon_http: tuple[str, str], browser: Browser, tmp_path: Path
) -> None:
    base, nats_url = daemon_http
    async with await Client.connect(nats_url) as bus:
        ts = "2024-02-01T09:00:00+00:00"
        turns = [
            {"id": "h1", "scope": "alice", "role": "user", "speaker": "Alice", "text": HOSTILE, "ts": ts},
            {"id": "c1", "scope": "alice", "role": "user", "speaker": "Alice", "ts": ts,
             "text": "We adopted a grey cat called Miso last spring."},
        ]  # fmt: skip
        assert [r["outcome"] for r in await bus.memorize(turns)] == ["stored", "stored"]

        # CSP bypassed: only the escaping stands between a memory and the page's scripts
        context = await browser.new_context(bypass_csp=True)
        page = await context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: dialogs.append(d.message))
        response = await page.goto(f"{base}/ui?scope=alice")
        assert response is not None and response.status == 200
        assert await page.title() == "memubot: alice"
        items = await page.inner_text("#items")
        assert "Miso" in items and "said by Alice" in items
        # the hostile text is shown as text, and nothing of it ran
        assert "<script>window.__pwned = 1;" in items and '<img src=x onerror="window.__pwned = 2;' in items
        assert await page.evaluate("window.__pwned") is None and not dialogs
        assert (
            await page.locator("#items img").count() == 0 and await page.locator("body script").count() == 0
        )
        # each item's survival curve is drawn (inline SVG, no script)
        plot = page.locator("#items article.item", has_text="Miso").locator("svg.survival polyline")
        assert await plot.count() == 1 and (await plot.bounding_box() or {}).get("width", 0) > 50
        await page.screenshot(path=str(tmp_path / "inspector.png"), full_page=True)

        # search: recall with each stage's score
        await page.fill("#search input[name=q]", "what is our cat called?")
        await page.click("#search button")
        await page.wait_for_selector("#hits")
        first = await page.locator("#hits tr.hit").first.inner_text()
        header = await page.locator("#hits tr").first.inner_text()
        assert "Miso" in first and "dense" in header and "final" in header

        # forget: the rows it will delete first, then a POST with the CSRF token
        await page.goto(f"{base}/ui?scope=alice")
        row = page.locator("#items article.item", has_text="Miso")
        await row.locator("a.forget").click()
        await page.wait_for_selector("#counts")
        assert "Miso" in await page.inner_text("body")
        await page.click("#forget button")
        await page.wait_for_selector("#notice")
        assert "Forgot" in await page.inner_text("#notice")
        assert "Miso" not in await page.inner_text("#items")
        assert await page.evaluate("window.__pwned") is None and not dialogs
        await context.close()

        # the daemon's memory agrees: recall no longer finds it
        hits = await bus.recall("what is our cat called?", scope="alice", k=10)
        assert not any("Miso" in h["text"] for h in hits)


WIDE = (
    "Receipt https://example.com/orders/" + "a1b2c3d4" * 40 + " for the blue sofa, delivered to "
    "Kerkstraat 12 on Tuesday; keep it until the return window closes."
)
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (r.width > width || r.right > width + 0.5) {
      wide.push(`${e.tagName.toLowerCase()}.${e.className} ${Math.round(r.right)}`);
    }
  }
  return {width, scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 8)};
}"""


async def test_the_inspector_is_readable_at_1280_px_and_restores_a_retired_item(
    daemon_http: tuple[str, str], browser: Browser, tmp_path: Path
) -> None:
    base, nats_url = daemon_http
    async with await Client.connect(nats_url) as bus:
        ts = "2024-02-01T09:00:00+00:00"
        turns = [
            {"id": "w1", "scope": "alice", "role": "user", "speaker": "Alice", "ts": ts, "text": WIDE},
            {"id": "w2", "scope": "alice", "role": "user", "speaker": "Alice", "ts": ts,
             "text": "I coach the under-12 hockey team on Saturday mornings."},
            {"id": "w3", "scope": "alice", "role": "user", "speaker": "Alice", "ts": ts,
             "text": "Next Friday I have my dentist appointment at 10:00 with Dr. Okafor."},
        ]  # fmt: skip
        assert [r["outcome"] for r in await bus.memorize(turns)] == ["stored"] * 3
        await bus.recall("which team do I coach?", scope="alice", k=1)  # one item used, once

        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        page = await context.new_page()
        await page.goto(f"{base}/ui?scope=alice")

        # item cards: labelled values, never raw JSON; each plot a real, falling curve
        cards = page.locator("#items article.item")
        assert await cards.count() >= 3
        for n in range(await cards.count()):
            text = await cards.nth(n).locator(".main").inner_text()
            assert "{" not in text and '"what"' not in text, text
        assert await page.locator("#items dl.fields dt").count() > 0
        for n in range(await cards.count()):
            points = await cards.nth(n).locator("svg.survival polyline").get_attribute("points") or ""
            ys = [float(p.split(",")[1]) for p in points.split()]
            assert len(ys) > 10 and max(ys) - min(ys) > 10, points  # not flat
        # sources are one click away, without JavaScript needed for it
        sources = cards.first.locator("details.sources")
        await sources.locator("summary").click()
        assert await sources.locator(".source").first.is_visible()

        # a correction through the page retires the old statement
        hockey = page.locator("#items article.item", has_text="under-12 hockey")
        await hockey.locator("details.correct-box summary").click()
        await hockey.locator("input[name=text]").fill(
            "I coach the under-14 hockey team now, on Sunday afternoons."
        )
        await hockey.locator("form.correct button").click()
        await page.wait_for_selector("#notice")
        assert "Corrected" in await page.inner_text("#notice")

        # at 1280 px nothing is wider than the window, on any tab, with every <details> open
        for query in ("", "&tab=retired", "&tab=categories", "&tab=suggestions", "&tab=log",
                      "&q=what+is+in+the+receipt"):  # fmt: skip
            await page.goto(f"{base}/ui?scope=alice{query}")
            await page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
            layout = await page.evaluate(OVERFLOW)
            assert layout["width"] == 1280 and layout["scroll"] <= 1280 and not layout["wide"], (
                query,
                layout,
            )
        await page.goto(f"{base}/ui?scope=alice")
        await page.screenshot(path=str(tmp_path / "inspector-1280.png"), full_page=True)
        await context.close()

        # restore, end to end, with JavaScript off: the retired tab says what retired it and when
        nojs = await browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
        page = await nojs.new_page()
        await page.goto(f"{base}/ui?scope=alice")
        await page.click("#tabs a:has-text('retired')")
        old = page.locator("#retired article.item", has_text="under-12 hockey")
        note = await old.locator(".retired-note").inner_text()
        assert note.startswith("retired by “") and "under-14 hockey" in note and ", on " in note, note
        await old.locator("form.restore button").click()
        await page.wait_for_selector("#notice")
        notice = await page.inner_text("#notice")
        assert notice.startswith("Restored “") and "under-12 hockey" in notice, notice
        assert await page.locator("#items article.item", has_text="under-12 hockey").count() == 1
        await page.goto(f"{base}/ui?scope=alice&tab=retired")
        assert await page.locator("#retired article.item", has_text="under-12 hockey").count() == 0
        # a notice someone else wrote is not shown
        await page.goto(f"{base}/ui?scope=alice&notice=Your+memory+was+wiped")
        assert await page.locator("#notice").count() == 0
        await nojs.close()

        # the daemon's memory agrees: recall finds the restored statement again
        hits = await bus.recall("under-12 hockey team", scope="alice", k=5)
        assert any("under-12" in h["text"] for h in hits)
