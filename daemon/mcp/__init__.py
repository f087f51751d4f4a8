"""MCP: memubot as tools for Claude Code, Cursor and Claude Desktop.

`server` is the stdio MCP server (`memubot mcp`); `link` is its one NATS connection to the
running daemon: the MCP process holds no memory of its own.
"""
