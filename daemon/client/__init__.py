"""The client side of memubot: what an agent, the CLI and the MCP server use to reach it.

`agent` is the client for agents (publish turns and feedback, recall, suggestions, forget);
`discovery` finds the running daemon (its runtime file, then MEMUBOT_NATS_URL), one
implementation for all three. `from daemon.client import Client` is the agent's import.
"""

from daemon.client.agent import Client, RpcError
from daemon.client.discovery import runtime_info

__all__ = ["Client", "RpcError", "runtime_info"]
