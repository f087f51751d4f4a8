"""What the soak runs against besides the daemon: a Gmail mailbox that grows, a slow disk, a
holder of the DuckDB lock, and bad events."""

from __future__ import annotations

import base64
import copy
import json
import shutil
import socket
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import web

from tests.gmail_fake import FakeGoogle

MAILBOX = "alice@example.com"

# one line, so that the daemon's message naming this process (its command line) reads in one piece
LOCK_HOLD = (
    "import sys, duckdb; con = duckdb.connect(sys.argv[1]); print('locked', flush=True); sys.stdin.read()"
)
SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* every fsync/fdatasync waits the milliseconds written in $SOAK_SLOW_DISK_FILE (0 or no file: none) */
static void slow(void) {
    const char *path = getenv("SOAK_SLOW_DISK_FILE");
    if (!path) return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[16] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int ms = n > 0 ? atoi(buf) : 0;
    if (ms > 0) {
        struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
}
int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    slow();
    return real(fd);
}
int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    slow();
    return real(fd);
}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_shim(tmp: Path) -> Path | None:
    """The slow-disk LD_PRELOAD library, or None when there is no C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    src, lib = tmp / "slowdisk.c", tmp / "slowdisk.so"
    src.write_text(SHIM, encoding="utf-8")
    done = subprocess.run(
        [cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(src), "-ldl"], capture_output=True
    )
    return lib if done.returncode == 0 and lib.exists() else None


# ---- the fake mailbox -------------------------------------------------------------------


class Mailbox(FakeGoogle):
    """The tests' fake Gmail API with a mailbox that grows: message k arrives at historyId BASE + k."""

    BASE = 1000

    def __init__(self) -> None:
        super().__init__()
        self.template = self.messages["18e1a"]
        self.messages = {}
        self.order: list[str] = []
        self.gone_before = 0

    @property
    def latest(self) -> int:
        return self.BASE + len(self.order)

    def add(self, k: int) -> tuple[str, int]:
        """A new message in the mailbox; returns its id and the historyId it arrived at."""
        mid = f"soak{k:06d}"
        msg = copy.deepcopy(self.template)
        msg["id"] = msg["threadId"] = mid
        hid = self.BASE + len(self.order) + 1
        msg["historyId"] = str(hid)
        for h in msg["payload"]["headers"]:
            if h["name"] == "Subject":
                h["value"] = f"Soak {k}: the Q3 budget numbers"
            elif h["name"] == "Message-ID":
                h["value"] = f"<soak{k}@mail.example.com>"
        text = f"Hi Alice,\n\ncould you send me the Q3 budget numbers for team {k} by Thursday?\n\nBob"
        data = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
        for part in msg["payload"]["parts"]:
            part["body"] = {"size": len(text), "data": data}
        self.messages[mid] = msg
        self.order.append(mid)
        return mid, hid

    async def history(self, request: web.Request) -> web.Response:
        start = int(request.query["startHistoryId"])
        added = [
            {
                "id": str(self.BASE + i + 1),
                "messagesAdded": [{"message": {"id": m, "threadId": m, "labelIds": ["INBOX"]}}],
            }
            for i, m in enumerate(self.order)
            if self.BASE + i + 1 > start
        ]
        return web.json_response({"history": added, "historyId": str(self.latest)})

    async def list(self, request: web.Request) -> web.Response:
        recent = list(reversed(self.order))[: int(request.query.get("maxResults", 50))]
        return web.json_response({"messages": [{"id": m, "threadId": m} for m in recent]})

    async def profile(self, request: web.Request) -> web.Response:
        return web.json_response({"emailAddress": MAILBOX, "historyId": str(self.latest)})

    async def watch(self, request: web.Request) -> web.Response:
        return web.json_response({"historyId": str(self.latest), "expiration": "4102444800000"})


def gmail_credentials(path: Path, fake_url: str) -> Path:
    path.write_text(
        json.dumps(
            {
                "client_id": "cid.apps.googleusercontent.com",
                "client_secret": "client-secret",
                "refresh_token": "the-refresh-token",
                "token": "old-token",
                "expiry": "2020-01-01T00:00:00Z",
                "token_uri": f"{fake_url}/token",
            }
        ),
        encoding="utf-8",
    )
    return path


def deep_turn(eid: str, scope: str, levels: int = 5000) -> bytes:
    """Issue 22's stall: a conversation turn whose `meta` nests `levels` arrays (about 10 KB)."""
    body = json.dumps(
        {"id": eid, "scope": scope, "role": "user", "text": "deep", "ts": datetime.now(UTC).isoformat()}
    )
    return (body[:-1] + ', "meta": {"x": ' + "[" * levels + "]" * levels + "}}").encode()
