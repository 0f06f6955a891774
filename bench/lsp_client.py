"""A raw JSON-RPC client of ``miogen serve`` over stdio, for the bench and the tests.

The server's own requests are left unanswered. A thread reads the messages as they come, with
their arrival times, so that a measurement does not count the reader's delays and a test can
close the server's input while messages are still arriving.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Message = dict[str, Any]


class RawClient:
    """``miogen serve`` over stdio, initialized on ``root``."""

    def __init__(self, root: Path, timeout: float = 600.0) -> None:
        self.server = subprocess.Popen(
            [sys.executable, "-m", "miogen", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        self.received: list[Message] = []  # the messages taken so far, in order
        self._arrived: queue.Queue[tuple[float, Message] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="raw-client-reader", daemon=True)
        self._reader.start()
        self.request("initialize", {"capabilities": {}, "rootUri": root.as_uri()})
        self.answer(self.next_id, timeout)
        self.send("initialized", {})

    def _read(self) -> None:
        stream = self.server.stdout
        assert stream is not None
        try:
            while True:
                length = 0
                while (line := stream.readline()).strip():
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                if not line:
                    return
                self._arrived.put((time.perf_counter(), json.loads(stream.read(length))))
        except (OSError, ValueError):
            return  # the pipe was closed under the reader
        finally:
            self._arrived.put(None)

    def send(self, method: str, params: Message, request: bool = False) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.server.stdin is not None
        self.server.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.server.stdin.flush()

    def request(self, method: str, params: Message) -> int:
        """Send a request; its id."""
        self.send(method, params, request=True)
        return self.next_id

    def receive(self, timeout: float = 600.0) -> Message:
        """The next message (EOFError once the server's output has ended)."""
        return self.receive_timed(timeout)[1]

    def receive_timed(self, timeout: float = 600.0) -> tuple[float, Message]:
        """The next message with its arrival time (``time.perf_counter``)."""
        try:
            item = self._arrived.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no message from the server in {timeout} s") from None
        if item is None:
            self._arrived.put(None)
            raise EOFError("the server's output ended")
        self.received.append(item[1])
        return item

    def wait(self, matches: Callable[[Message], bool], timeout: float = 600.0) -> float:
        """The arrival time of the first message that ``matches`` (later ones stay queued)."""
        deadline = time.perf_counter() + timeout
        while True:
            arrived, message = self.receive_timed(max(0.0, deadline - time.perf_counter()))
            if matches(message):
                return arrived

    def answer(self, request_id: int, timeout: float = 600.0) -> Message:
        """The response to request ``request_id``."""
        found: list[Message] = []

        def response(message: Message) -> bool:
            if message.get("id") == request_id and "method" not in message:
                found.append(message)
            return bool(found)

        self.wait(response, timeout)
        return found[0]

    def open(self, path: Path, text: str) -> float:
        """Send didOpen of ``path`` with ``text``; when it was sent (``time.perf_counter``)."""
        item = {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}
        started = time.perf_counter()
        self.send("textDocument/didOpen", {"textDocument": item})
        return started

    def close(self) -> None:
        """Kill the server if it still runs, and close the pipes (its output once the reader
        has seen its end: a child of the server may hold it open a little longer)."""
        if self.server.poll() is None:
            self.server.kill()
        self.server.wait()
        if self.server.stdin is not None:
            try:
                self.server.stdin.close()
            except OSError:
                pass  # the server was gone before the last write was flushed
        self._reader.join(timeout=10)
        if self.server.stdout is not None and not self._reader.is_alive():
            self.server.stdout.close()
