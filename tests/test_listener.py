"""``footnoted serve --workers N`` shares a listener whose connections get TCP_NODELAY."""

from __future__ import annotations

import asyncio
import socket

from footnoted.api.listener import TcpConfig


class Probe(asyncio.Protocol):
    """Reports TCP_NODELAY of the connection asyncio accepted, then closes it."""

    def __init__(self, seen: asyncio.Future[int]) -> None:
        self.seen = seen

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        self.seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        transport.close()


async def accepted_nodelay(listener: socket.socket) -> int:
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[int] = loop.create_future()
    server = await loop.create_server(lambda: Probe(seen), sock=listener)
    _, writer = await asyncio.open_connection(*listener.getsockname()[:2])
    try:
        return await asyncio.wait_for(seen, 10)
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


def test_the_shared_listener_is_tcp_and_its_connections_skip_nagle() -> None:
    config = TcpConfig("footnoted.api.app:create_app", factory=True, host="127.0.0.1", port=0,
                       workers=2, log_level="warning")  # fmt: skip
    listener = config.bind_socket()
    assert listener.proto == socket.IPPROTO_TCP and listener.get_inheritable()
    assert asyncio.run(accepted_nodelay(listener)) == 1
