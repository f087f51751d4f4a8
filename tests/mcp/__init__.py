"""Tests of the MCP server (daemon/mcp/)."""
