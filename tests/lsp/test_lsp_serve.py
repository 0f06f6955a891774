"""``miogen serve --tcp`` and ``--socket``: the same server on a local socket, for one client that
proves it may use it (stdio is what the other tests use)."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from miogen.lsp.server import VERSION

TIMEOUT = 60  # seconds any one read may take (the machine is shared)


class Server:
    """``miogen serve`` with ``arguments``, up once it printed where it listens."""

    def __init__(self, *arguments: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "miogen", "serve", *arguments],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.printed: list[str] = []
        while not any("listening on" in line for line in self.printed):
            line = self.process.stderr.readline().decode()
            assert line, f"the server ended: {''.join(self.printed)}"
            self.printed.append(line)
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", "".join(self.printed))
        self.port = int(found.group(1)) if found else 0
        found = re.search(r"the token is in (\S+)", "".join(self.printed))
        self.token_file = Path(found.group(1)) if found else None

    def connect(self) -> socket.socket:
        connection = socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT)
        return connection

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stderr.close()


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


INITIALIZE = {"id": 1, "method": "initialize", "params": {"capabilities": {}}}


def _initialized(connection: socket.socket, stream) -> dict:
    """A real initialize round trip on ``connection``: the server's answer."""
    _send(connection, INITIALIZE)
    result = _answer(stream, 1)["result"]
    _send(connection, {"method": "initialized", "params": {}})
    return result


def _stop(connection: socket.socket, stream, server: Server) -> None:
    _send(connection, {"id": 2, "method": "shutdown"})
    assert _answer(stream, 2)["result"] is None
    _send(connection, {"method": "exit"})
    assert server.process.wait(timeout=TIMEOUT) == 0


def _refused(connection: socket.socket, first: bytes) -> bool:
    """Whether the server closes ``connection`` without a byte after ``first`` and initialize."""
    with connection:
        try:
            connection.sendall(first)
            _send(connection, INITIALIZE)
        except OSError:
            return True  # closed before all was sent
        received = b""
        try:
            while chunk := connection.recv(4096):
                received += chunk
        except ConnectionResetError:
            pass
        return received == b""


def test_serve_over_tcp_with_the_token_from_a_private_file():
    server = Server("--tcp", "--port", "0")
    try:
        token_file = server.token_file
        assert token_file is not None and stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32
        with server.connect() as connection, connection.makefile("rb") as stream:
            connection.sendall(token.encode() + b"\n")
            result = _initialized(connection, stream)
            assert result["serverInfo"] == {"name": "miogen", "version": VERSION}
            commands = result["capabilities"]["executeCommandProvider"]["commands"]
            assert set(commands) == {
                    "miogen.generateTests", "miogen.insertTests", "miogen.cancel",
                    "miogen.generateTestsForPaths",
                }  # fmt: skip
            _stop(connection, stream, server)
        assert not token_file.exists() and not token_file.parent.exists()
    finally:
        server.close()


def test_a_client_without_the_token_or_while_one_is_served_gets_nothing():
    server = Server("--tcp", "--port", "0")
    try:
        token = server.token_file.read_text().strip().encode()
        assert _refused(server.connect(), b""), "no token: the LSP message is not served"
        assert _refused(server.connect(), token[:-1] + b"x\n"), "a wrong token"
        assert _refused(server.connect(), b"\n"), "an empty line"
        with server.connect() as connection, connection.makefile("rb") as stream:
            connection.sendall(token + b"\n")
            assert _initialized(connection, stream)["serverInfo"]["name"] == "miogen"
            assert _refused(server.connect(), token + b"\n"), "a second client, with the token"
            _send(connection, {"id": 3, "method": "miogen/units", "params": {"uri": "x"}})
            assert "id" in _answer(stream, 3), "the first client is still served"
            _stop(connection, stream, server)
    finally:
        server.close()


def test_a_token_handed_over_in_the_environment_is_the_one_asked_and_no_file_is_written():
    server = Server("--tcp", "--port", "0", env={"MIOGEN_TOKEN": "handed-over-secret"})
    try:
        assert server.token_file is None
        assert _refused(server.connect(), b"another-secret\n")
        with server.connect() as connection, connection.makefile("rb") as stream:
            connection.sendall(b"handed-over-secret\n")
            assert _initialized(connection, stream)["serverInfo"]["name"] == "miogen"
            _stop(connection, stream, server)
    finally:
        server.close()


def test_a_host_off_the_loopback_interface_is_refused():
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "serve", "--tcp", "--host", "0.0.0.0", "--port", "0"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 2
    assert "miogen serves only this machine" in done.stderr.decode()


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets")
def test_serve_on_a_unix_socket_of_mode_0600(tmp_path):
    path = tmp_path / "miogen.sock"
    server = Server("--socket", str(path))
    try:
        mode = path.stat().st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
        connection = socket.socket(socket.AF_UNIX)
        connection.settimeout(TIMEOUT)
        connection.connect(str(path))
        with connection, connection.makefile("rb") as stream:
            assert _initialized(connection, stream)["serverInfo"]["name"] == "miogen"
            second = socket.socket(socket.AF_UNIX)
            second.settimeout(TIMEOUT)
            second.connect(str(path))
            assert _refused(second, b""), "a second client"
            _stop(connection, stream, server)
        assert not path.exists()
    finally:
        server.close()


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets")
def test_a_socket_path_taken_by_a_file_is_refused_and_the_file_kept(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("mine\n")
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "serve", "--socket", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 2 and "is not a socket" in done.stderr.decode()
    assert path.read_text() == "mine\n"
