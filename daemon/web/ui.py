"""The memory inspector: `/ui` on the daemon's HTTP app, one server-rendered page per scope.

It reads the same store as everything else, through the memory facade, in tabs (plain links,
no script): the items recall can find, as cards (statement, category, who said it and when, due
time, the structured fields as labelled values, sources one click away, the survival plot); the
retired and archived ones, each saying what retired it and when, with a restore button; the
categories with their summaries; the suggestions and what became of each; the memory-op log; and
a search box that runs recall with `explain`. Forgetting an item shows the rows it will delete
first, and deletes on a POST that carries a CSRF token; restoring and correcting are POSTs with
the same token. Each action redirects back with a notice this inspector signed (HMAC, a key made
at start-up): a `?notice=` someone else wrote shows nothing.

Safety: every text from memory goes through Jinja2's autoescaping (an e-mail body with
`<script>` stays text), and the page forbids scripts outright by its Content-Security-Policy.
On a loopback address the page is open, as the rest of the HTTP app; bound to any other address
it requires `MEMUBOT_UI_TOKEN` (and is off without one).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import tzinfo
from typing import Any
from urllib.parse import urlencode

import jinja2
from aiohttp import web

from daemon.config import Settings
from daemon.errors import InvalidInput
from daemon.memory import Memory
from daemon.state.suggestions import suggestion_json
from daemon.web import ui_view as V
from daemon.web.http import parse_addr
from daemon.web.ui_plot import HEIGHT, WIDTH, survival_curve

log = logging.getLogger(__name__)

COOKIE = "memubot_ui"
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
MAX_SUGGESTIONS = 100  # the newest suggestions shown
MAX_ITEMS = 300
MAX_SCOPES = 200  # on the root page, each with its counts
TABS = ("items", "retired", "categories", "suggestions", "log")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _environment(tz: tzinfo) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("daemon.web", "templates"),
        autoescape=True,  # every {{ value }} is HTML-escaped; nothing is marked safe
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = lambda v: V.when(v, tz)
    env.filters["day"] = lambda v: V.when(v, tz, date_only=True)
    env.filters["ago"] = V.ago
    env.filters["fields"] = lambda item: V.l1_fields(item, tz)
    env.filters["summary_lines"] = V.summary_lines
    return env


class Inspector:
    """The /ui routes over one Memory (in a cluster, one per file: `others`, and `of` names a
    scope's); `after_write` publishes the ops a forget made."""

    def __init__(
        self,
        memory: Memory,
        settings: Settings,
        after_write: Callable[[], Awaitable[Any]],
        others: Sequence[Memory] = (),
        of: Callable[[str], Memory] | None = None,
    ) -> None:
        self.memory = memory
        self.files = [memory, *others]
        self._of = of
        self.after_write = after_write
        self.token = settings.ui_token
        self.open = is_loopback(parse_addr(settings.http_addr)[0])
        # the CSRF token: unguessable, and only a page served to an authorised reader shows it
        self.csrf = secrets.token_urlsafe(32)
        # signs the notices this inspector redirects with: a crafted link shows no notice
        self.notice_key = secrets.token_bytes(32)
        self.env = _environment(memory.tz)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/ui", self.page)
        app.router.add_get("/ui/forget", self.confirm_forget)
        app.router.add_post("/ui/forget", self.forget)
        app.router.add_post("/ui/restore", self.restore)
        app.router.add_post("/ui/correct", self.correct)

    # ---- access -------------------------------------------------------------------------

    def _authorised(self, request: web.Request) -> bool:
        if self.open and not self.token:
            return True
        if not self.token:
            return False
        offered = (
            request.cookies.get(COOKIE)
            or request.query.get("token")
            or request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        )
        return bool(offered) and hmac.compare_digest(offered.encode(), self.token.encode())

    def _guard(self, request: web.Request) -> None:
        if self._authorised(request):
            return
        if not self.token:
            raise web.HTTPForbidden(
                text="/ui is off: HTTP listens beyond loopback and MEMUBOT_UI_TOKEN is not set\n"
            )
        raise web.HTTPUnauthorized(text="/ui needs the token: open /ui?token=… (MEMUBOT_UI_TOKEN)\n")

    def _render(self, request: web.Request, template: str, **context: Any) -> web.Response:
        html = self.env.get_template(template).render(csrf=self.csrf, **context)
        response = web.Response(text=html, content_type="text/html", charset="utf-8")
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        if self.token and request.query.get("token"):
            # remembered in an HttpOnly cookie, so the token leaves the address bar after one visit
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/ui")
        return response

    def _redirect(self, scope: str, code: str, anchor: str | None, **args: str) -> web.HTTPSeeOther:
        """Back to the items after an action, with a notice only this inspector can sign."""
        notice = V.sign_notice(self.notice_key, scope, code, **args)
        query = urlencode({"scope": scope, "notice": notice})
        return web.HTTPSeeOther(f"/ui?{query}" + (f"#item-{anchor}" if anchor else ""))

    def _scopes(self) -> list[str]:
        return sorted({s for memory in self.files for s in memory.scopes()})

    def _memory(self, scope: str) -> Memory:
        """The memory of the file holding `scope`."""
        if self._of is None:
            return self.memory
        try:
            return self._of(scope)
        except InvalidInput as exc:
            raise web.HTTPNotFound(text=f"{exc}\n") from exc

    # ---- pages --------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.Response:
        self._guard(request)
        scopes = await asyncio.to_thread(self._scopes)
        scope = request.query.get("scope") or (scopes[0] if len(scopes) == 1 else None)
        context: dict[str, Any] = {
            "scopes": scopes,
            "scope": scope,
            "query": "",
            "tab": "items",
            "notice": "",
        }
        if scope is None:
            context["overview"] = await asyncio.to_thread(self._overview, scopes)
            return self._render(request, "ui.html", **context)
        if scope not in scopes:
            raise web.HTTPNotFound(text=f"no memories in scope {scope!r}\n")
        query = request.query.get("q", "").strip()
        tab = "recall" if query else request.query.get("tab", "items")
        if tab not in TABS and tab != "recall":
            raise web.HTTPBadRequest(text=f"no tab {tab!r}: one of {', '.join(TABS)}\n")
        category = request.query.get("category") or None
        context.update(await asyncio.to_thread(self._scope_view, scope, tab, query, category))
        statements = context["l0"]
        notice = V.read_notice(
            self.notice_key,
            scope,
            request.query.get("notice", ""),
            name=lambda i: f"“{statements[i]}”" if i in statements else i,
        )
        context.update(query=query, tab=tab, category=category, notice=notice or "")
        return self._render(request, "ui.html", **context)

    def _overview(self, scopes: list[str]) -> list[dict[str, Any]]:
        return [{"scope": s, **self._memory(s).stats(s)} for s in scopes[:MAX_SCOPES]]

    def _scope_view(self, scope: str, tab: str, query: str, category: str | None) -> dict[str, Any]:
        memory = self._memory(scope)
        stats = memory.stats(scope)
        active = memory.items(scope, MAX_ITEMS, state="active")
        retired = memory.items(scope, MAX_ITEMS, state="retired")
        view: dict[str, Any] = {
            "stats": stats,
            "counts": {"items": len(active), "retired": len(retired), "categories": stats["categories"]},
            "limit": MAX_ITEMS,
            "plot": {"width": WIDTH, "height": HEIGHT},
            "categories_by_name": stats["items_by_category"],
            "tz": str(memory.tz),
        }
        now, lifecycle = memory.clock(), memory.params.lifecycle
        shown: list[dict[str, Any]] = []
        if tab == "items":
            shown = [i for i in active if category is None or i["category"] == category]
            view["curves"] = {i["id"]: survival_curve(i, lifecycle, now) for i in shown}
        elif tab == "retired":
            shown = retired
            by = {i["superseded_by"] for i in retired if i["superseded_by"]}
            view["retired_by"] = {b: memory.get_item(scope, b) for b in sorted(by)}
        elif tab == "categories":
            names = stats["items_by_category"]
            view["categories"] = [c for c in (memory.get_category(scope, n) for n in names) if c is not None]
        elif tab == "suggestions":
            view["suggestions"] = [
                suggestion_json(x)
                for x in sorted(
                    memory.suggestions.of_scope(scope),
                    key=lambda x: (x.delivered_at or x.deliver_at, x.id),
                    reverse=True,
                )[:MAX_SUGGESTIONS]
            ]
        elif tab == "log":
            view["ops"] = memory.recent_ops(scope, 100)
        elif tab == "recall":
            # an inspection is not a use: it must not reinforce what it shows
            hits = [h.as_json(True) for h in memory.recall(query, scope, k=20, explain=True, reinforce=False)]
            view["table"] = V.stage_table(hits)
        view["items"] = shown
        source_ids = sorted({s for i in shown for s in (i["source_ids"] or [])})
        view["sources"] = {r.id: r for r in memory.resources(scope, source_ids)}
        # the statement of every item a page links to, so a link reads as text, not an id
        view["l0"] = {i["id"]: i["l0"] for i in active + retired}
        return view

    async def confirm_forget(self, request: web.Request) -> web.Response:
        self._guard(request)
        scope, item_id = self._target(request.query)
        memory = self._memory(scope)
        item = await asyncio.to_thread(memory.get_item, scope, item_id)
        if item is None:
            raise web.HTTPNotFound(text=f"no item {item_id!r} in scope {scope!r}\n")
        counts = await asyncio.to_thread(memory.forget, scope, item_ids=[item_id], dry_run=True)
        return self._render(request, "forget.html", scope=scope, item=item, counts=counts)

    async def _checked_form(self, request: web.Request) -> tuple[str, str]:
        """A state-changing POST: authorised, with the page's CSRF token, naming scope and item."""
        self._guard(request)
        form = await request.post()
        offered = str(form.get("csrf", ""))
        if not hmac.compare_digest(offered.encode(), self.csrf.encode()):
            raise web.HTTPForbidden(text="missing or wrong CSRF token: reload the page and try again\n")
        return self._target(form)

    async def restore(self, request: web.Request) -> web.Response:
        scope, item_id = await self._checked_form(request)
        if not await asyncio.to_thread(self._memory(scope).restore, scope, item_id):
            raise web.HTTPNotFound(text=f"no retired or archived item {item_id!r} in scope {scope!r}\n")
        await self.after_write()
        log.info("ui: restored item %s in scope %s", item_id, scope)
        raise self._redirect(scope, "restored", item_id, item=item_id)

    async def forget(self, request: web.Request) -> web.Response:
        scope, item_id = await self._checked_form(request)
        memory = self._memory(scope)
        if await asyncio.to_thread(memory.get_item, scope, item_id) is None:
            raise web.HTTPNotFound(text=f"no item {item_id!r} in scope {scope!r}\n")
        counts = await asyncio.to_thread(memory.forget, scope, item_ids=[item_id])
        await self.after_write()
        log.info("ui: forgot item %s in scope %s: %s", item_id, scope, counts)
        deleted = ", ".join(f"{n} {table}" for table, n in counts.items() if n) or "nothing"
        raise self._redirect(scope, "forgot", None, item=item_id, counts=deleted)

    async def correct(self, request: web.Request) -> web.Response:
        """A correction from the person: the new text supersedes the item (provenance "corrected
        by the person"); a text that states no fact is refused and nothing changes."""
        scope, item_id = await self._checked_form(request)
        text = str((await request.post()).get("text", ""))
        try:
            new_id = await asyncio.to_thread(self._memory(scope).correct, scope, item_id, text)
        except InvalidInput as exc:
            raise web.HTTPBadRequest(text=f"not corrected: {exc}\n") from exc
        await self.after_write()
        log.info("ui: corrected item %s in scope %s: now %s", item_id, scope, new_id)
        raise self._redirect(scope, "corrected", new_id, item=item_id, other=new_id)

    @staticmethod
    def _target(values: Any) -> tuple[str, str]:
        scope, item_id = str(values.get("scope", "")), str(values.get("item", ""))
        if not scope or not item_id:
            raise web.HTTPBadRequest(text="needs 'scope' and 'item'\n")
        return scope, item_id


def add_ui(
    app: web.Application,
    memory: Memory,
    settings: Settings,
    after_write: Callable[[], Awaitable[Any]],
    others: Sequence[Memory] = (),
    of: Callable[[str], Memory] | None = None,
) -> Inspector:
    inspector = Inspector(memory, settings, after_write, others, of)
    inspector.add_routes(app)
    if not inspector.open and not inspector.token:
        log.warning(
            "/ui is off: HTTP listens on %s, beyond loopback, and MEMUBOT_UI_TOKEN is not set",
            settings.http_addr,
        )
    return inspector
