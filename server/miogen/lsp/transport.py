"""The server on a socket, for one client that proves it may run code: TCP on the loopback
interface with a token, or a Unix socket only its owner can open.

Whoever is served may have the server run code (a workspace folder of its choosing, a save, a
command), so a socket must not serve any local process:

* ``--tcp`` listens on a loopback address only (another host is refused). The client's first
  line, before any LSP message, must be the token followed by ``\\n``; anything else, or nothing
  within ``HANDSHAKE_SECONDS``, and the connection is closed unanswered. The token is taken from
  the environment variable ``MIOGEN_TOKEN`` (a client that starts the server chooses it; the
  variable is removed from the server's environment, so its workers never see it), else made
  at random and written to a new file of mode 0600 (``--token-file``, else ``token`` in a new
  private temporary folder) whose path is printed on stderr.
* ``--socket PATH`` listens on a Unix socket of mode 0600 (created under umask 0177): the file's
  permissions are the check, no token is asked.

One client at a time: a connection made while a client is served is closed at once. The server
ends when its client goes away or says exit, as over stdio.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import os
import secrets
import socket
import stat
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer

from miogen.common.errors import MiogenError

logger = logging.getLogger(__name__)

TOKEN_VARIABLE = "MIOGEN_TOKEN"
HANDSHAKE_SECONDS = 10.0  # a client that connected must send its token within this time


class TransportError(MiogenError):
    """The socket cannot be served as asked (a host not on this machine, a path in use)."""


@dataclass(frozen=True)
class Listener:
    """Where to listen: ``host``/``port`` with ``token``, or the Unix socket ``path``."""

    host: str = "127.0.0.1"
    port: int = 2087
    token: bytes | None = None
    path: Path | None = None


def loopback(host: str) -> str:
    """``host`` if it is a loopback address (or ``localhost``); raises TransportError otherwise."""
    if host == "localhost":
        return host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise TransportError(f"--host {host}: give a loopback address (127.0.0.1 or ::1)") from None
    if not address.is_loopback:
        raise TransportError(
            f"--host {host}: miogen serves only this machine (127.0.0.1 or ::1); whoever "
            "connects can run code as you"
        )
    return host


def token(token_file: Path | None) -> tuple[bytes, Path | None]:
    """The token: from ``MIOGEN_TOKEN`` (removed from the environment; no file), else a new
    random one written to ``token_file`` (a new file of mode 0600) or to a private temporary
    folder. Returns the token and the file it was written to."""
    given = os.environ.pop(TOKEN_VARIABLE, "")
    if given:
        return given.encode(), None
    value = secrets.token_urlsafe(32)
    path = (
        token_file if token_file is not None else Path(tempfile.mkdtemp(prefix="miogen-")) / "token"
    )
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as error:
        raise TransportError(f"cannot create the token file {path}: {error.strerror}") from None
    with os.fdopen(descriptor, "w") as file:
        file.write(value + "\n")
    return value.encode(), path


def remove_token(path: Path, given: Path | None) -> None:
    """Remove the token file at the end, and the private folder made for it (not ``given``'s)."""
    path.unlink(missing_ok=True)
    if given is None:
        try:
            path.parent.rmdir()
        except OSError:
            pass


def serve_socket(ls: LanguageServer, listener: Listener) -> None:
    """Serve one client on ``listener`` until it goes away or says exit."""
    if listener.path is not None:
        _clear_stale(listener.path)  # raises TransportError, before anything is made
    stop = threading.Event()
    ls._stop_event = stop  # pygls' shutdown() sets it
    gate = _Gate(ls, listener, stop)
    try:
        asyncio.run(gate.run())
    except (KeyboardInterrupt, SystemExit):  # exit: pygls raises SystemExit in the loop
        pass
    finally:
        ls.shutdown()  # type: ignore[no-untyped-call]
        if listener.path is not None and gate.listening:
            _unlink(listener.path)


class _Gate:
    """Accepts connections; serves the first that authenticates, closes the others."""

    def __init__(self, ls: LanguageServer, listener: Listener, stop: threading.Event) -> None:
        self.ls = ls
        self.listener = listener
        self.stop = stop
        self.served: asyncio.Future[None] | None = None
        self.taken = False  # a client was admitted
        self.listening = False  # the Unix socket file was made (it is removed at the end)

    async def run(self) -> None:
        self.served = asyncio.get_running_loop().create_future()
        server = await self._listen()
        async with server:
            await self.served

    async def _listen(self) -> asyncio.Server:
        listener = self.listener
        if listener.path is None:
            server = await asyncio.start_server(self._connected, listener.host, listener.port)
            port = server.sockets[0].getsockname()[1]
            _say(f"listening on {listener.host}:{port}")
            return server
        path = listener.path
        previous = os.umask(0o177)  # the socket file is made with mode 0600, never wider
        try:
            server = await asyncio.start_unix_server(self._connected, str(path))
        finally:
            os.umask(previous)
        self.listening = True
        os.chmod(path, 0o600)
        _say(f"listening on the Unix socket {path}")
        return server

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not await self._admitted(reader):
            writer.close()
            return
        assert self.served is not None
        self.ls.protocol.set_writer(writer)
        try:
            await run_async(
                stop_event=self.stop,
                reader=reader,
                protocol=self.ls.protocol,
                logger=logger,
                error_handler=self.ls.report_server_error,
            )
        finally:
            if not self.served.done():
                self.served.set_result(None)

    async def _admitted(self, reader: asyncio.StreamReader) -> bool:
        """Whether to serve this connection: nobody is served yet, and it sent the token."""
        if self.taken:
            logger.warning("refused a connection: a client is being served")
            return False
        expected = self.listener.token
        if expected is not None:
            try:
                line = await asyncio.wait_for(reader.readline(), HANDSHAKE_SECONDS)
            except (TimeoutError, ValueError, ConnectionError):
                line = b""  # too slow, too long (past 64 KiB: not a token), or gone
            if not hmac.compare_digest(line.rstrip(b"\r\n"), expected):
                logger.warning("refused a connection: it did not send the token")
                return False
            if self.taken:  # another client was admitted while this one sent its token
                logger.warning("refused a connection: a client is being served")
                return False
        self.taken = True
        return True


def _say(message: str) -> None:
    print(f"miogen: {message}", file=sys.stderr, flush=True)


def _clear_stale(path: Path) -> None:
    """Remove a socket file no server listens on; refuse any other file, or a socket in use."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise TransportError(f"--socket {path}: the file exists and is not a socket")
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # nobody answers: left by a server that was killed
            return
    raise TransportError(f"--socket {path}: another server listens there")


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
