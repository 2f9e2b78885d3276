"""A TCP proxy that breaks a chosen HTTP response: fault injection for the end-to-end tests.

``FaultProxy(host, port)`` forwards every connection to the server. :meth:`FaultProxy.arm`
sets up one fault for the next response to a request whose path contains ``path``: after
``after_events`` SSE events (blank-line separated) of its body (before its first byte
when negative), the proxy

* ``cut``: closes both connections cleanly (the client sees the body end early);
* ``reset``: aborts them (the client sees a connection reset);
* ``stall``: forwards nothing more but keeps the connection open;
* ``down``: aborts them and every other open connection, and refuses every connection for
  :attr:`FaultProxy.down_seconds` (the server restarting, as a client sees it).

Run it on its own to break a live session by hand (``python tests/fault_proxy.py --help``):
each line typed on its standard input arms a fault, e.g. ``cut messages 20``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

How = Literal["cut", "reset", "stall", "down"]
_HEADERS_END = b"\r\n\r\n"


@dataclass
class Fault:
    how: How
    path: str
    after_events: int


class FaultProxy:
    """Forwards 127.0.0.1:``port`` to the server; breaks the responses it is armed for."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.listen_port = 0
        self._faults: list[Fault] = []
        #: Faults carried out, in order.
        self.fired: list[Fault] = []
        #: Called with each fault as it is carried out.
        self.on_fire: Callable[[Fault], object] = lambda _fault: None
        #: Called with each piece of a request once it was forwarded to the server.
        self.on_forward: Callable[[bytes], object] = lambda _data: None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._connections: set[_Connection] = set()
        #: How long ``down`` refuses connections.
        self.down_seconds = 3.0
        self._down_until = 0.0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listen_port}"

    def arm(self, how: How, path: str, after_events: int = 0) -> None:
        """Break the next response to a request whose path contains ``path``."""
        self._faults.append(Fault(how, path, after_events))

    async def start(self, port: int = 0) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", port)
        self.listen_port = self._server.sockets[0].getsockname()[1]
        return self.base_url

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, client_reader: asyncio.StreamReader,
                      client_writer: asyncio.StreamWriter) -> None:
        if asyncio.get_running_loop().time() < self._down_until:
            client_writer.transport.abort()
            return
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            server_reader, server_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            client_writer.close()
            self._tasks.discard(task)
            return
        connection = _Connection(self, client_writer, server_writer)
        self._connections.add(connection)
        try:
            await asyncio.gather(connection.requests(client_reader),
                                 connection.responses(server_reader))
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # a broken or stopped connection is this proxy's business
        finally:
            connection.close()
            self._connections.discard(connection)
            self._tasks.discard(task)

    def go_down(self) -> None:
        """Abort every open connection and refuse new ones for :attr:`down_seconds`."""
        self._down_until = asyncio.get_running_loop().time() + self.down_seconds
        for connection in self._connections:
            connection.abort()

    def _take(self, request_line: bytes) -> Fault | None:
        for fault in self._faults:
            if fault.path.encode() in request_line:
                self._faults.remove(fault)
                return fault
        return None


class _Connection:
    """One client connection and its server connection."""

    def __init__(self, proxy: FaultProxy, client: asyncio.StreamWriter,
                 server: asyncio.StreamWriter) -> None:
        self.proxy, self.client, self.server = proxy, client, server
        self.fault: Fault | None = None
        self._events = 0
        self._body = False
        self._stalled = False

    async def requests(self, reader: asyncio.StreamReader) -> None:
        while data := await reader.read(65536):
            for line in data.split(b"\r\n"):
                if line[:8].split(b" ")[0] in (b"GET", b"POST", b"PATCH", b"PUT", b"DELETE"):
                    self.fault, self._events, self._body = self.proxy._take(line), 0, False
            self.server.write(data)
            await self.server.drain()
            self.proxy.on_forward(data)
        self.server.close()

    async def responses(self, reader: asyncio.StreamReader) -> None:
        while data := await reader.read(65536):
            if self._stalled:
                continue  # the response is held back; the connection stays open
            forward, broken = self._until_fault(data)
            if forward:
                self.client.write(forward)
                await self.client.drain()
            if broken:
                self._break()
                if not self._stalled:
                    return
        self.client.close()

    def _until_fault(self, data: bytes) -> tuple[bytes, bool]:
        """The part of ``data`` to forward, and whether the fault's moment came."""
        fault = self.fault
        if fault is None:
            return data, False
        if fault.after_events < 0:  # before the response even starts
            return b"", True
        position = 0
        if not self._body:
            end = data.find(_HEADERS_END)
            if end < 0:
                return data, False
            self._body, position = True, end + len(_HEADERS_END)
        while self._events < fault.after_events:
            found = data.find(b"\n\n", position)
            if found < 0:
                return data, False
            self._events += 1
            position = found + 2
        return data[:position], True

    def _break(self) -> None:
        fault = self.fault
        assert fault is not None
        self.proxy.fired.append(fault)
        self.proxy.on_fire(fault)
        self.fault = None
        if fault.how == "stall":
            self._stalled = True
        elif fault.how == "reset":
            self.abort()
        elif fault.how == "down":
            self.proxy.go_down()
        else:
            self.client.close()
            self.server.close()

    def abort(self) -> None:
        """Reset both connections."""
        self.client.transport.abort()
        self.server.transport.abort()

    def close(self) -> None:
        for writer in (self.client, self.server):
            with contextlib.suppress(Exception):
                writer.close()


async def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="the server, host:port")
    parser.add_argument("--port", type=int, default=8399, help="port to listen on")
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    proxy = FaultProxy(host or "127.0.0.1", int(port))
    proxy.on_fire = lambda fault: print(f"fired: {fault.how} after {fault.after_events} events",
                                        flush=True)
    print(f"listening on {await proxy.start(args.port)}; type: cut|reset|stall|down PATH EVENTS",
          flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        words = line.split()
        if len(words) == 3 and words[0] in ("cut", "reset", "stall", "down"):
            proxy.arm(words[0], words[1], int(words[2]))  # type: ignore[arg-type]
            print(f"armed: {line.strip()}", flush=True)


if __name__ == "__main__":
    asyncio.run(_main())
