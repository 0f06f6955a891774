"""``miogen serve --tcp``: the same server on a local socket (stdio is what the other tests use)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from miogen.lsp.server import VERSION


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _send(connection: socket.socket, message: dict) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    connection.sendall(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def _receive(stream) -> dict:
    length = 0
    while (line := stream.readline().strip()) != b"":
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(stream.read(length))


def _answer(stream, request_id: int) -> dict:
    while True:
        message = _receive(stream)
        if message.get("id") == request_id and "method" not in message:
            return message


def test_serve_over_tcp_on_the_loopback_interface():
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "miogen", "serve", "--tcp", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=60)
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "server not up"
                time.sleep(0.1)
        with connection, connection.makefile("rb") as stream:
            _send(connection, {"id": 1, "method": "initialize", "params": {"capabilities": {}}})
            result = _answer(stream, 1)["result"]
            assert result["serverInfo"] == {"name": "miogen", "version": VERSION}
            commands = result["capabilities"]["executeCommandProvider"]["commands"]
            assert set(commands) == {"miogen.generateTests", "miogen.insertTests", "miogen.cancel"}
            _send(connection, {"method": "initialized", "params": {}})
            _send(connection, {"id": 2, "method": "shutdown"})
            assert _answer(stream, 2)["result"] is None
            _send(connection, {"method": "exit"})
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stderr.close()
