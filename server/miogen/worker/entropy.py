"""Unseeded sources (random generators, clocks, urandom, pids): what a test drew from them is not asserted.

Two observation runs agree by chance on a value drawn from a small set (a coin flip agrees half
the time, four runs a sixteenth), so the worker does not rely on the runs disagreeing: while a
test is observed, each statement that drew from such a source is noted, and the values that
statement made or changed are never stated as literals. A ``random.Random`` seeded with a value
(or the module's generator after ``random.seed(value)`` in the same test) is deterministic and
stays asserted; one seeded from the operating system is not.

How a draw is seen, at no cost to code that draws nothing: the functions of ``time`` and ``os``
that give such values are wrapped (``date.today()`` and ``datetime.today()`` call ``time.time``;
``uuid4``, ``secrets`` and ``SystemRandom`` call ``os.urandom``), and the state of every
generator seeded from the operating system is compared before and after each statement.
``datetime.now()`` and ``utcnow()`` read the clock in C, unseen by such wrappers: the class the
``datetime`` module offers user code is a subclass whose ``now`` and ``utcnow`` note the read
and give objects of the real class (so ``type(x) is`` and pickling see nothing new).
"""

from __future__ import annotations

import copyreg
import datetime
import functools
import os
import random
import time
import weakref
from collections.abc import Callable
from typing import Any

_WRAPPED = {
    time: (
        "time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
        "process_time", "process_time_ns", "thread_time", "thread_time_ns", "localtime",
        "gmtime", "ctime", "asctime", "strftime",
    ),
    os: ("urandom", "getrandom", "getpid", "getppid", "times"),
}  # fmt: skip
# These read the clock only when not given a time: so many arguments make them deterministic.
_GIVEN_TIME = {"localtime": 1, "gmtime": 1, "ctime": 1, "asctime": 1, "strftime": 2}
# Not here: id() and hash(), called for identity maps and in every __hash__ (deepcopy, sets);
# an address differs between the observation runs (world.varied), a str's hash between the
# verification's runs (other PYTHONHASHSEEDs).


class _Draws:
    watching = False
    drew = False


# Generators seeded from the operating system, by id: a weak reference (to tell a reused id
# apart) and their state when last looked at.
_unseeded: dict[int, tuple[weakref.ref[random.Random], object]] = {}
_installed: list[bool] = []


def install() -> None:
    """Wrap the sources and follow seeding (once per process, before user code runs)."""
    if _installed:
        return
    for module, names in _WRAPPED.items():
        for name in names:
            original = getattr(module, name, None)
            if original is not None:
                given = _GIVEN_TIME.get(name) if module is time else None
                setattr(module, name, _noting(original, module.__name__, given))
    random._urandom = os.urandom  # type: ignore[attr-defined]  # SystemRandom's, bound at import
    seed = random.Random.seed

    def seeded(self: random.Random, a: Any = None, version: int = 2) -> None:
        seed(self, a, version)
        _note_seed(self, a is not None)

    random.Random.seed = seeded  # type: ignore[method-assign]
    random.seed = random._inst.seed  # bound to the old method
    watched = _watched_datetime()
    datetime.datetime = watched  # type: ignore[misc]
    # pickle finds a class by its name, now the watching one: real objects are pickled as
    # made by it (which makes real ones, and in a process without it is the real class).
    copyreg.pickle(_REAL_DATETIME, functools.partial(_reduced, watched))
    _installed.append(True)


_REAL_DATETIME = datetime.datetime


class _Instances(type):
    """``isinstance(x, datetime.datetime)`` holds for every datetime, made here or not."""

    def __instancecheck__(cls, instance: object) -> bool:
        if cls is datetime.datetime:
            return isinstance(instance, _REAL_DATETIME)
        return super().__instancecheck__(instance)

    def __subclasscheck__(cls, subclass: type) -> bool:
        if cls is datetime.datetime:
            return issubclass(subclass, _REAL_DATETIME)
        return super().__subclasscheck__(subclass)


def _reduced(maker: type[datetime.datetime], moment: datetime.datetime) -> tuple[Any, ...]:
    return (maker, moment.__reduce__()[1])


def _watched_datetime() -> type[datetime.datetime]:
    real = _REAL_DATETIME

    class Datetime(datetime.datetime, metaclass=_Instances):
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            return (
                real(*args, **kwargs) if cls is Datetime else super().__new__(cls, *args, **kwargs)
            )

        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> Any:
            if _Draws.watching:
                _Draws.drew = True
            return real.__dict__["now"].__get__(None, real if cls is Datetime else cls)(tz)

        @classmethod
        def utcnow(cls) -> Any:
            if _Draws.watching:
                _Draws.drew = True
            return real.__dict__["utcnow"].__get__(None, real if cls is Datetime else cls)()

    # Found by pickle and by the names tests are written with as the module's own class.
    Datetime.__name__ = Datetime.__qualname__ = "datetime"
    Datetime.__module__ = "datetime"
    return Datetime


def _noting(function: Callable[..., Any], module: str, given: int | None) -> Callable[..., Any]:
    @functools.wraps(function)
    def noted(*args: Any, **kwargs: Any) -> Any:
        if _Draws.watching and (given is None or len(args) < given):
            _Draws.drew = True
        return function(*args, **kwargs)

    noted.__module__ = module  # pickled by name: found where the original was
    return noted


def _note_seed(generator: random.Random, seeded: bool) -> None:
    key = id(generator)
    if seeded:
        _unseeded.pop(key, None)
        return
    try:
        born_watched = _Draws.watching
        reference = weakref.ref(generator, lambda ref: _forget(key, ref, born_watched))
    except TypeError:  # no weak references: not followed (its draws go unseen)
        return
    _unseeded[key] = (reference, _state(generator))


def _forget(key: int, reference: weakref.ref[random.Random], born_watched: bool) -> None:
    entry = _unseeded.get(key)
    if entry is None or entry[0] is not reference:  # seeded since, or a newer one's address
        return
    del _unseeded[key]
    if born_watched and _Draws.watching:
        # Made and dropped within the test (``Random().choice(items)``): its state can no
        # longer be compared; made for nothing but drawing, it counts as drawn from.
        _Draws.drew = True


def _state(generator: random.Random) -> object:
    try:
        return generator.getstate()
    except Exception:  # noqa: BLE001 - a subclass's own getstate; then it counts as drawn
        return None


def is_seeded(generator: random.Random) -> bool:
    entry = _unseeded.get(id(generator))
    return entry is None or entry[0]() is not generator


class Watch:
    """Notes whether the code run since ``take()`` was last called drew from an unseeded source."""

    def __init__(self) -> None:
        install()

    def __enter__(self) -> Watch:
        # The module's generator is shared by all tests in an order the test does not control:
        # only a seed given in this test makes it deterministic.
        _note_seed(random._inst, seeded=False)
        _Draws.watching, _Draws.drew = True, False
        return self

    def __exit__(self, *exception: object) -> None:
        _Draws.watching = False

    def take(self) -> bool:
        """Whether a source was drawn from since the last call (and forget it)."""
        drew, _Draws.drew = _Draws.drew, False
        for key, (reference, state) in list(_unseeded.items()):
            generator = reference()
            if generator is None:
                continue
            now = _state(generator)
            if now is None or now != state:
                drew = True
                _unseeded[key] = (reference, now)
        return drew
