"""``footnoted mcp``: the MCP server over stdio, for MCP hosts that launch it."""

from __future__ import annotations


def mcp() -> None:
    """Serve MCP over stdio: tools to search the documents and to ask them, with citations.

    An MCP host (Claude Desktop, an IDE…) launches this command and talks to it on
    standard input and output; it answers in this process, from this home's documents.
    The running footnoted serve offers the same tools over HTTP at /mcp.
    """
    from ..mcp.local import serve_stdio

    serve_stdio()
