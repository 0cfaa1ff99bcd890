"""The MCP server: tools to search the documents and to ask them, with citations.

:mod:`.tools` builds the server on a :class:`.tools.Backend`; :mod:`.local` answers in
this process (``footnoted mcp``, stdio) and :mod:`footnoted.api.mcp_http` through the
running server's chat service (``/mcp``, streamable HTTP, bearer tokens).
"""
