"""Creates the language server, registers its features, and serves it over stdio or a socket.

Imports point one way: this module -> features (the handlers) -> session -> its parts (commands,
reporting, jobs, documents...). Handlers get the session by closure, not through the server.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Generator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from miogen.host.runs import stop_runs
from miogen.lsp.features import actions, commands, documents, hovers, lenses, requests
from miogen.lsp.session import Session
from miogen.lsp.transport import Listener, loopback, remove_token, serve_socket, token

NAME = "miogen"
VERSION = (
    "0.2.0"  # equal to pyproject.toml and vscode-extension/package.json (tests/test_packaging.py)
)


class MiogenProtocol(LanguageServerProtocol):
    """pygls' protocol, with ``$/cancelRequest`` reaching the handler of a command.

    pygls runs ``workspace/executeCommand`` as a generator that calls the command's handler as
    a task of its own; cancelling the request cancels only the outer future, so the command
    (and its job) would go on. Here the handler's task is cancelled with it.
    """

    def _run_generator(
        self,
        future: Future[Any] | None,
        *,
        gen: Generator[Any, Any, Any],
        result_future: Future[Any],
    ) -> None:
        before = set(self._request_futures)
        super()._run_generator(future, gen=gen, result_future=result_future)
        for key in set(self._request_futures) - before:
            inner = self._request_futures.pop(key)  # never answered on its own id
            result_future.add_done_callback(_cancelling(inner))

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, cancelling the pending requests from a copy of their table: a command
        cancelled there answers at once, which takes it out of the table pygls iterates over
        (a RuntimeError, and no answer to shutdown, when a command was still running)."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True


def _cancelling(inner: Future[Any]) -> Callable[[Future[Any]], None]:
    """A callback that cancels ``inner`` when the future it is called with was cancelled."""

    def cancel(outer: Future[Any]) -> None:
        if outer.cancelled():
            inner.cancel()

    return cancel


class MiogenServer(LanguageServer):
    """The pygls server; the state lives in ``session``."""

    def __init__(self) -> None:
        super().__init__(NAME, VERSION, protocol_cls=MiogenProtocol)
        self.session = Session(self)

    def report_server_error(self, error: Exception, source: object) -> None:
        """Errors outside requests go to the log, not to pop-ups in the editor."""
        logging.getLogger(__name__).error("%s: %s", getattr(source, "__name__", source), error)


def create_server() -> MiogenServer:
    server = MiogenServer()
    for feature in (documents, lenses, actions, hovers, commands, requests):
        feature.register(server, server.session)
    return server


def serve(
    tcp: bool = False,
    host: str = "127.0.0.1",
    port: int = 2087,
    token_file: Path | None = None,
    socket_path: Path | None = None,
) -> NoReturn:
    """Run until the client says exit or goes away, then end the process: status 0 after a
    clean shutdown, else 1.

    Over stdio unless ``tcp`` (loopback ``host`` only, the client sends the token first) or
    ``socket_path`` (a Unix socket of mode 0600): see ``transport``. Raises TransportError.
    """
    listener, written = None, None
    if socket_path is not None:
        listener = Listener(path=socket_path)
    elif tcp:
        loopback(host)  # raises TransportError for another host
        secret, written = token(token_file)
        listener = Listener(host, port, secret)
        if written is not None:
            print(f"miogen: the token is in {written} (mode 0600)", file=sys.stderr, flush=True)
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("MIOGEN_LOG_LEVEL", "WARNING").upper(),
        format="miogen-lsp %(levelname)s %(name)s: %(message)s",
    )
    server = create_server()
    if listener is not None:
        try:
            serve_socket(server, listener)
        finally:
            if written is not None:
                remove_token(written, token_file)
    else:
        stdin, stdout = _private_stdio()
        server.start_io(stdin, stdout)
    server.session.analyser.close()
    stop_runs()  # the suite measured in the background (verify.baseline), pytest runs under way
    finished = server.session.scheduler.close()
    code = 0 if server.session.client.stopped else 1  # stopped: the client asked for shutdown
    if not finished:
        logging.getLogger(__name__).warning("a job's thread is still running: not waiting for it")
    # Whatever the server started is stopped by now (analysis processes killed, workers and
    # verification subprocesses ended or left to end on their own). The interpreter's own
    # teardown took a second more (an 8,000-function module open, under load): the client
    # waits for the exit, so it is skipped.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _private_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The protocol gets private copies of fds 0 and 1; the numbers themselves point elsewhere.

    Nothing in this process or its children (which inherit 0, 1 and 2) can then read the client's
    messages or write into the protocol stream by accident: fd 1 goes to stderr, fd 0 to /dev/null.
    """
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    sys.stdout = sys.stderr
    return protocol_in, protocol_out
