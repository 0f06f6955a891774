"""A shared page where the worker notes the test it is running, so a dead worker names its killer."""

from __future__ import annotations

import marshal
import mmap
import os
import struct
import time

from miogen.testcase.model import TestCase, from_json, to_json

SIZE = 1 << 16
STATEMENT = struct.Struct("<I")
HEADER = struct.Struct("<dII")  # started (monotonic, 0 = idle), statement index, length of the test


class Heartbeat:
    def __init__(self, path: str, create: bool = False) -> None:
        if create:
            with open(path, "wb") as handle:
                handle.write(b"\0" * SIZE)
        self._fd = os.open(path, os.O_RDWR)
        self._map = mmap.mmap(self._fd, SIZE)

    def begin(self, test: TestCase) -> None:
        # marshal, not pickle: the server reads this page, and loading it must never run code.
        # The JSON form, because values such as dates are not marshallable.
        data = marshal.dumps(to_json(test))
        if len(data) > SIZE - HEADER.size:
            data = b""
        self._map[HEADER.size : HEADER.size + len(data)] = data
        HEADER.pack_into(self._map, 0, time.monotonic(), 0, len(data))

    def statement(self, index: int) -> None:
        """Note the statement about to run, so that a crash names it (and its prefix is safe)."""
        STATEMENT.pack_into(self._map, 8, index)

    def end(self) -> None:
        HEADER.pack_into(self._map, 0, 0.0, 0, 0)

    def running_since(self) -> float:
        """Monotonic time the current test started, 0 when idle."""
        return float(HEADER.unpack_from(self._map, 0)[0])

    def current_statement(self) -> int:
        return int(HEADER.unpack_from(self._map, 0)[1])

    def current_test(self) -> TestCase | None:
        started, _, length = HEADER.unpack_from(self._map, 0)
        if not started or not length:
            return None
        try:
            return from_json(marshal.loads(self._map[HEADER.size : HEADER.size + length]))
        except Exception:  # noqa: BLE001 - torn write by a dying worker
            return None

    def close(self) -> None:
        self._map.close()
        os.close(self._fd)
