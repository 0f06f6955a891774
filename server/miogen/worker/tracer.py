"""A small arc tracer with coverage.py's semantics, for one file, reset per test execution."""

from __future__ import annotations

import dis
import sys
from types import FrameType
from typing import Any

YIELD_VALUE = dis.opmap["YIELD_VALUE"]


class ArcTracer:
    """Records (from_line, to_line) arcs the way coverage.py's PyTracer does.

    Function entry is the arc (-first_line, line) and a real return is (line, -first_line); a
    generator resuming continues from where it stopped. Lambdas are not traced: they have no
    branches of their own, and the instrumentation's thunks are lambdas.
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.arcs: set[tuple[int, int]] = set()

    def start(self) -> None:
        self.arcs = set()
        sys.settrace(self._call)

    def stop(self) -> set[tuple[int, int]]:
        sys.settrace(None)
        return self.arcs

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        if event != "call" or code.co_filename != self.filename or code.co_name == "<lambda>":
            return None
        arcs = self.arcs
        first = code.co_firstlineno
        real_call = code.co_code[frame.f_lasti + 1] == 0 if frame.f_lasti >= 0 else True
        last = -first if real_call else frame.f_lineno

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            nonlocal last
            if event == "line":
                line = frame.f_lineno
                arcs.add((last, line))
                last = line
            elif event == "return":
                lasti = frame.f_lasti
                if lasti < 0 or frame.f_code.co_code[lasti] != YIELD_VALUE:
                    arcs.add((last, -first))
            return local

        return local
