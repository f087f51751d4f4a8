"""The daemon works inside the unit's seccomp sandbox, applied here without a systemd manager.

There is no user manager to start the unit under in a test, so this applies what the unit's
`SystemCallFilter=` and `RestrictAddressFamilies=` ask for — the same system call list, taken
from `systemd-analyze syscall-filter`, and socket() limited to the listed families — with
libseccomp (through ctypes, as systemd uses it), then execs `memubot run` on its embedded
broker and uses it: READY, a turn stored and recalled over NATS, /readyz, a clean SIGTERM.
"""

from __future__ import annotations

import asyncio
import ctypes.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from daemon.client import Client, runtime_info
from tests.test_systemd import UNIT, _directives

READY_TIMEOUT = 180.0

# Run in the child before it becomes the daemon: build the filter, load it, exec. A filter with
# an allow list (default: EPERM, as SystemCallErrorNumber=EPERM) and socket() allowed for the
# listed families only (systemd answers the others with EAFNOSUPPORT).
LOADER = r"""
import ctypes, json, os, sys
spec = json.loads(sys.argv[1])
lib = ctypes.CDLL(spec["lib"], use_errno=True)
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]
lib.seccomp_load.argtypes = [ctypes.c_void_p]

class Cmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]

ALLOW = 0x7FFF0000
def errno(n): return 0x00050000 | (n & 0xFFFF)
ctx = lib.seccomp_init(errno(spec["errno"]))
assert ctx
for name in spec["allow"]:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0 or name in ("socket", "socketpair"):
        continue
    assert lib.seccomp_rule_add_array(ctx, ALLOW, nr, 0, None) == 0, name
for name in ("socket", "socketpair"):
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    for family in spec["families"]:
        cmp = Cmp(0, 4, family, 0)  # arg 0 == family (SCMP_CMP_EQ)
        assert lib.seccomp_rule_add_array(ctx, ALLOW, nr, 1, ctypes.byref(cmp)) == 0
    for family in spec["refused"]:
        cmp = Cmp(0, 4, family, 0)
        assert lib.seccomp_rule_add_array(ctx, errno(97), nr, 1, ctypes.byref(cmp)) == 0  # EAFNOSUPPORT
assert lib.seccomp_load(ctx) == 0, "seccomp_load failed"
os.execv(sys.executable, [sys.executable, *spec["argv"]])
"""


def _groups() -> dict[str, list[str]]:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.fail("systemd-analyze not found: install systemd, the unit's filter must be checked")
    out = subprocess.run([analyze, "syscall-filter"], capture_output=True, text=True, check=True).stdout
    groups: dict[str, list[str]] = {}
    current: list[str] = []
    for line in out.splitlines():
        if line.startswith("@"):
            current = groups.setdefault(line.strip(), [])
        elif line.startswith("    ") and not line.strip().startswith("#"):
            current.append(line.strip())
    return groups


def expand(group: str, groups: dict[str, list[str]]) -> set[str]:
    """A syscall group with its nested groups resolved, as systemd resolves them."""
    names: set[str] = set()
    for entry in groups[group]:
        names |= expand(entry, groups) if entry.startswith("@") else {entry}
    return names


def _family(name: str) -> int:
    return int(getattr(socket, name))


def test_the_filter_lists_what_the_unit_asks_for() -> None:
    d = _directives(UNIT.read_text(encoding="utf-8"))
    assert d["SystemCallFilter"] == ["@system-service"] and d["SystemCallErrorNumber"] == ["EPERM"]
    allowed = expand("@system-service", _groups())
    # the calls the stack is known to need are in the set; the privileged ones are not
    assert {"epoll_pwait", "futex", "clone3", "mmap", "openat", "socket", "getrandom"} <= allowed
    assert not {"mount", "reboot", "init_module", "swapon", "settimeofday"} & allowed


async def test_the_daemon_runs_inside_the_units_sandbox(tmp_path: Path) -> None:
    lib = ctypes.util.find_library("seccomp")
    if lib is None:
        pytest.fail("libseccomp not found (it ships with systemd): cannot apply the unit's filter")
    d = _directives(UNIT.read_text(encoding="utf-8"))
    families = [_family(f) for f in d["RestrictAddressFamilies"][0].split()]
    refused = [_family(f) for f in ("AF_NETLINK", "AF_PACKET") if hasattr(socket, f)]
    spec = {
        "lib": lib,
        "errno": 1,  # EPERM
        "allow": sorted(expand("@system-service", _groups())),
        "families": families,
        "refused": refused,
        "argv": ["-m", "daemon", "run"],
    }
    with socket.socket() as probe:  # a free port for the embedded broker: nothing answers there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    state = tmp_path / "state"
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MEMUBOT_", "STATE_DIRECTORY", "XDG_"))}
    env = {
        **keep,
        "HOME": str(tmp_path),
        "MEMUBOT_STATE_DIR": str(state),
        "MEMUBOT_NATS_URL": f"nats://127.0.0.1:{port}",
        "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
    }
    log = tmp_path / "daemon.log"
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LOADER, json.dumps(spec), env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        async with asyncio.timeout(READY_TIMEOUT):
            while (runtime_info(state) or {}).get("pid") != proc.pid:
                assert proc.returncode is None, log.read_text(errors="replace")
                await asyncio.sleep(0.1)
        info = runtime_info(state)
        assert info is not None and info["embedded_broker"]
        async with await Client.connect(str(info["nats_url"]), timeout=60) as client:
            turn = {
                "id": "sb1",
                "scope": "zoe",
                "role": "user",
                "text": "My bike is a green Brompton.",
                "ts": "2024-05-01T10:00:00+00:00",
            }
            assert (await client.memorize([turn]))[0]["outcome"] == "stored"
            hits = await client.recall("what bike do I ride?", scope="zoe")
            assert hits and "Brompton" in hits[0]["text"]
        async with aiohttp.ClientSession() as http, http.get(f"{info['http']}/readyz") as resp:
            assert resp.status == 200, await resp.text()
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 60) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = log.read_text(errors="replace")
    # nothing in the stack was refused a system call it needed on the way
    assert "Operation not permitted" not in text and "Traceback" not in text, text[-3000:]
    assert re.search(r"stopped with status 0", text), text[-3000:]
