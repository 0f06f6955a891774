"""Unseeded sources (random generators, clocks, urandom, pids): what a test drew from them is not asserted.

Two observation runs agree by chance on a value drawn from a small set (a coin flip agrees half
the time, four runs a sixteenth), so the worker does not rely on the runs disagreeing: while a
test is observed, a profile function notes each statement that called such a source, and the
values that statement made or changed are never stated as literals. A ``random.Random`` seeded
with a value (or the module's generator after ``random.seed(value)`` in the same test) is
deterministic and stays asserted; one seeded from the operating system is not.
"""

from __future__ import annotations

import datetime
import os
import random
import sys
import time
import uuid
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

# Functions whose result differs from run to run (or between the worker and pytest's process).
_SOURCE_NAMES = {
    time: (
        "time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
        "process_time", "process_time_ns", "thread_time", "thread_time_ns", "localtime",
        "gmtime", "ctime", "asctime", "strftime",
    ),
    os: ("urandom", "getrandom", "getpid", "getppid", "times"),
}  # fmt: skip
_CLOCK_METHODS = frozenset({"datetime.now", "datetime.utcnow", "datetime.today", "date.today"})
_GENERATOR_METHODS = frozenset({"Random.random", "Random.getrandbits"})
# Not here: id() and hash(), called for identity maps and in every __hash__ (deepcopy, sets);
# an address differs between the observation runs (world.varied), a str's hash between the
# verification's runs (another PYTHONHASHSEED).
_OWN_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _sources() -> frozenset[int]:
    found = [
        getattr(module, name, None) for module, names in _SOURCE_NAMES.items() for name in names
    ]
    found += [getattr(uuid, "_generate_time_safe", None)]  # uuid1 from the C library
    return frozenset(id(function) for function in found if function is not None)


# Generators seeded with a value (``Random(5)``, ``seed(5)``): by id, with a weak reference to
# tell a reused id apart. Every other generator was seeded from the operating system.
_seeded: dict[int, weakref.ref[random.Random]] = {}
_installed: list[Callable[..., None]] = []


def install() -> None:
    """Note which generators are seeded with a value (once per process, before user code runs)."""
    if _installed:
        return
    original = random.Random.seed

    def seed(self: random.Random, a: Any = None, version: int = 2) -> None:
        original(self, a, version)
        _note_seed(self, a is not None)

    random.Random.seed = seed  # type: ignore[method-assign]
    instance = random._inst
    random.seed = instance.seed  # the module's function is bound to the original method
    _installed.append(original)


def _note_seed(generator: random.Random, seeded: bool) -> None:
    if not seeded:
        _seeded.pop(id(generator), None)
        return
    key = id(generator)
    try:
        _seeded[key] = weakref.ref(generator, lambda ref: _forget(key, ref))
    except TypeError:  # no weak references: counted as unseeded, which only costs assertions
        pass


def _forget(key: int, reference: weakref.ref[random.Random]) -> None:
    if _seeded.get(key) is reference:  # not a newer generator's, at the same address
        del _seeded[key]


def is_seeded(generator: object) -> bool:
    reference = _seeded.get(id(generator))
    return reference is not None and reference() is generator


class Watch:
    """Notes whether the code run since ``take()`` was last called drew from an unseeded source."""

    def __init__(self) -> None:
        install()
        self._sources = _sources()
        self.drew = False

    def __enter__(self) -> Watch:
        # The module's generator is shared by all tests in an order the test does not control:
        # only a seed given in this test makes it deterministic.
        _seeded.pop(id(random._inst), None)
        self.drew = False
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exception: object) -> None:
        sys.setprofile(None)

    def take(self) -> bool:
        drew, self.drew = self.drew, False
        return drew

    def _profile(self, frame: FrameType, event: str, function: Any) -> None:
        if event == "c_call" and not self.drew and self._unseeded(function):
            # The sandbox's own checks (a kill's pid, say) are not the test's doing.
            self.drew = not frame.f_code.co_filename.startswith(_OWN_FOLDER)

    def _unseeded(self, function: Any) -> bool:
        if id(function) in self._sources:
            return True
        name = getattr(function, "__qualname__", "")
        owner = getattr(function, "__self__", None)
        if name in _GENERATOR_METHODS:
            return isinstance(owner, random.Random) and not is_seeded(owner)
        if name in _CLOCK_METHODS:
            return isinstance(owner, type) and issubclass(owner, datetime.date)
        return False
