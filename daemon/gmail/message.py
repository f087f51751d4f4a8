"""A Gmail API message (format=full) → the normalised `memubot.in.email` body (pure functions).

Headers give from, to, cc, subject, date and Message-ID; the text is the first text/plain part,
else the first text/html part converted to text. A body larger than MAX_TEXT_CHARS is cut (the
start is kept, with a note of what was cut, and `size` says how large the message was): a
20 MB message is still remembered, never refused.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from typing import Any

MAX_TEXT_CHARS = 48 * 1024  # keeps the event under the bus limit even in CJK (3 bytes a character)
# how much base64 of one part is decoded at most: enough for MAX_TEXT_CHARS of HTML with markup
_MAX_B64 = 4 * MAX_TEXT_CHARS * 4 // 3
_BLOCK = frozenset(
    "p div br li tr h1 h2 h3 h4 h5 h6 table ul ol blockquote pre section article header footer hr".split()
)
_SKIP = frozenset({"script", "style", "head", "title", "noscript"})


class _Text(HTMLParser):
    """HTML → text: block elements become line breaks; scripts, styles and the head vanish."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag in _BLOCK:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.out.append(data)


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.out).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _decode(data: str) -> tuple[str, bool]:
    """A part's base64url body as text (at most _MAX_B64 characters decoded); and whether it was cut."""
    cut = len(data) > _MAX_B64
    chunk = data[: _MAX_B64 - _MAX_B64 % 4] if cut else data
    try:
        raw = base64.urlsafe_b64decode(chunk + "=" * (-len(chunk) % 4))
    except (binascii.Error, ValueError):
        return "", False
    return raw.decode("utf-8", "replace"), cut


def _parts(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Every part of the MIME tree, depth first (the payload itself included)."""
    out = [payload]
    for part in payload.get("parts") or []:
        if isinstance(part, dict):
            out.extend(_parts(part))
    return out


def body_text(payload: dict[str, Any]) -> tuple[str, bool]:
    """The message's text: its first text/plain part, else its first text/html part as text."""
    parts = [p for p in _parts(payload) if not (p.get("filename") or "")]
    for mime in ("text/plain", "text/html"):
        for part in parts:
            data = (part.get("body") or {}).get("data")
            if part.get("mimeType") == mime and isinstance(data, str) and data:
                text, cut = _decode(data)
                return (html_to_text(text) if mime == "text/html" else text), cut
    return "", False


def _headers(payload: dict[str, Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    for h in payload.get("headers") or []:
        if isinstance(h, dict) and isinstance(h.get("name"), str) and isinstance(h.get("value"), str):
            found.setdefault(h["name"].lower(), h["value"])
    return found


def _date(header: str | None, internal: Any) -> datetime:
    """The Date header; a missing or broken one falls back on Gmail's internalDate (ms)."""
    if header:
        try:
            when = parsedate_to_datetime(header)
            if when.tzinfo is not None:
                return when
        except (TypeError, ValueError, IndexError):
            pass
    try:
        return datetime.fromtimestamp(int(internal) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError):
        return datetime.fromtimestamp(0, tz=UTC)


MAX_ADDRESSES = 100  # of To and of Cc each: a mail to a whole company still fits on the bus


def _addresses(value: str | None) -> list[str]:
    if not value:
        return []
    return [f"{n} <{a}>" if n else a for n, a in getaddresses([value]) if a][:MAX_ADDRESSES]


def email_body(message: dict[str, Any], scope: str, mailbox: str) -> dict[str, Any]:
    """The `memubot.in.email` body of a Gmail message (its id is Gmail's message id)."""
    payload = message.get("payload") or {}
    headers = _headers(payload)
    text, cut = body_text(payload)
    if len(text) > MAX_TEXT_CHARS:
        text, cut = text[:MAX_TEXT_CHARS], True
    size = message.get("sizeEstimate")
    if cut:
        text += f"\n[… cut at {MAX_TEXT_CHARS} characters; the message is {size or 'more'} bytes in Gmail]"
    return {
        "id": str(message["id"]),
        "scope": scope,
        "from": headers.get("from") or "(unknown sender)",
        "to": _addresses(headers.get("to")),
        "cc": _addresses(headers.get("cc")),
        "subject": headers.get("subject", ""),
        "date": _date(headers.get("date"), message.get("internalDate")).isoformat(),
        "thread": str(message.get("threadId") or message["id"]),
        "labels": [str(x) for x in message.get("labelIds") or []],
        "text": text if text.strip() or headers.get("subject", "").strip() else "(no text)",
        "message_id": headers.get("message-id"),
        "mailbox": mailbox,
        "size": size if isinstance(size, int) else None,
        "truncated": cut,
    }
