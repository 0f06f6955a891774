"""The static model of a module under test: its units, signatures, constants and targets."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from miogen.analysis.typespec import TypeSpec


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __reduce__(self) -> str:
        return "NO_DEFAULT"  # unpickles as the module's one instance: `is NO_DEFAULT` holds


NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    type: TypeSpec
    default: Any = NO_DEFAULT  # a literal value, or NO_DEFAULT (also for non-literal defaults)
    has_default: bool = False
    keyword_only: bool = False
    # The body checks the type (analysis.guards): a value of another type takes the other side.
    type_checked: bool = False
    annotated: bool = False  # ``type`` is the source's annotation (type checkers hold calls to it)
    # The annotation names what cannot be built (analysis.opaque): never passed when it has a
    # default, and a callable that must be given one is not called.
    opaque: bool = False


@dataclass(frozen=True, slots=True)
class Signature:
    """A callable of a unit: a function, a method, a property or a constructor."""

    name: str
    params: tuple[Parameter, ...]
    returns: TypeSpec
    line: int
    # function | method | static | classmethod | property | constructor | operator | setter
    kind: str = "function"
    # Declared by ``@overload`` stubs: a checker matches a function passed as a value to a
    # ``Callable`` parameter against none of them (analysis.overloads).
    overloaded: bool = False
    # The keyword-only parameters each ``@overload`` stub requires, when the stubs differ by
    # them (``split_by(..., *, criterion)`` / ``(..., *, separator)``): a call passing none of
    # these sets of them matches no stub (mypy: call-overload). () when not so declared.
    overload_keywords: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True, slots=True)
class ClassModel:
    name: str
    line: int
    end_line: int
    constructor: Signature | None  # None: cannot be built (enum, protocol, abstract)
    methods: tuple[Signature, ...]
    enum_members: tuple[str, ...] = ()
    is_dataclass: bool = False
    # Callables not called by name (analysis.inference): special methods (kind "operator",
    # analysis.special) and property setters (kind "setter").
    special: tuple[Signature, ...] = ()
    module: str = ""  # where a class of the package was imported from; "" for the module's own
    # Generic in a type parameter (``class Box(Generic[T])``, ``class Box[T]``): a checker
    # infers ``Box(...)``'s type argument from what it is given (nothing from an empty list).
    generic: bool = False


@dataclass(frozen=True, slots=True)
class Target:
    """A coverage goal: one of coverage.py's branch arcs, or a line of code that has no branches."""

    id: int
    unit: str
    kind: str  # "branch" | "line"
    line: int
    arc: tuple[int, int] | None
    description: str  # coverage.py's English cause, fits a diagnostic as it is
    positive: bool = True  # branch taken when the condition is true / the loop is entered
    condition: str = ""  # source text of the condition, for messages

    @property
    def outcome(self) -> bool | None:
        """The probe outcome that covers this target: True/False for branches, None for lines."""
        return None if self.kind == "line" else self.positive

    @property
    def short(self) -> str:
        """Like "`x > 10` never true", for diagnostics."""
        if self.kind == "line":
            return f"line {self.line} never executed"
        if self.condition.startswith("for "):
            verdict = "never entered" if self.positive else "never ran to completion"
            return f"loop `{self.condition}` {verdict}"
        if self.condition:
            verdict = "never true" if self.positive else "never false"
            return f"`{self.condition}` {verdict}"
        return self.description


@dataclass(frozen=True, slots=True)
class Unit:
    """A public class or top-level function: what a user asks tests for."""

    name: str
    kind: str  # "class" | "function"
    line: int  # first line, decorators included
    end_line: int
    ast_hash: str
    targets: tuple[Target, ...] = ()
    # The unit's own lines plus those of the private module-level helpers it calls.
    ranges: tuple[tuple[int, int], ...] = ()

    def contains(self, line: int) -> bool:
        return any(start <= line <= end for start, end in self.ranges)

    @property
    def private(self) -> bool:
        """``_name``: tested only when the user names it (``file.py::_name``)."""
        return self.name.startswith("_")


@dataclass(frozen=True, slots=True)
class ConstantPool:
    ints: tuple[int, ...] = ()
    floats: tuple[float, ...] = ()
    strings: tuple[str, ...] = ()
    bytes_: tuple[bytes, ...] = ()
    # The module's regular expressions, (pattern, flags) (analysis.regexes): match objects
    # for parameters that take one are made by matching them.
    patterns: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Completion:
    """What calling the module's code takes: signatures with inferred types, constants."""

    classes: dict[str, ClassModel]
    functions: dict[str, Signature]
    constants: ConstantPool


@dataclass
class ModuleModel:
    """A module's units and targets, and (computed on first use) its completed signatures.

    The language server needs only the units, their targets and lines; the inference of
    untyped parameters that the engine needs is most of an analysis' time, so ``classes``,
    ``functions`` and ``constants`` are computed when first read, by ``complete`` from the
    source text. A pickled model that was not completed stays so (the receiver completes it
    if it asks).
    """

    path: str
    module_name: str
    source: str
    units: list[Unit]
    complete: Callable[[ModuleModel], Completion] = field(repr=False, compare=False)
    literals: ConstantPool = field(default_factory=ConstantPool)  # the source's own constants
    lines_of_code: dict[str, set[int]] = field(default_factory=dict)  # unit -> statement lines
    # Module-level state that code may change (global statements, module-level containers):
    # tests then need a fresh module state each, in the worker and in the emitted file.
    has_module_state: bool = False
    # Private top-level classes and functions (``_name``): units only when named explicitly.
    private_units: list[Unit] = field(default_factory=list)
    _completion: Completion | None = field(default=None, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def classes(self) -> dict[str, ClassModel]:
        return self.completion().classes

    @property
    def functions(self) -> dict[str, Signature]:
        return self.completion().functions

    @property
    def constants(self) -> ConstantPool:
        return self.completion().constants

    @property
    def completed(self) -> bool:
        """Whether the signatures were computed (read anything of them and they are)."""
        return self._completion is not None

    def completion(self) -> Completion:
        with self._lock:  # the server's threads may share one model
            if self._completion is None:
                self._completion = self.complete(self)
            return self._completion

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def unit(self, name: str) -> Unit:
        """The unit called ``name``, public or private; else UnknownUnitError listing them."""
        for unit in (*self.units, *self.private_units):
            if unit.name == name:
                return unit
        from miogen.common.errors import UnknownUnitError

        raise UnknownUnitError(name, [u.name for u in self.units], self._private_names())

    def select(self, names: list[str] | None) -> list[Unit]:
        """The named units, or the default ones (``default_units``); a module without any unit
        says so instead of reporting on nothing."""
        if names:
            return [self.unit(name) for name in names]
        if not self.default_units:
            from miogen.common.errors import NoPublicUnitError

            raise NoPublicUnitError(self.path, self._private_names())
        return self.default_units

    @property
    def default_units(self) -> list[Unit]:
        """Every public unit; a module without any: its private ones (``only_private``)."""
        return list(self.units or self.private_units)

    @property
    def only_private(self) -> bool:
        """The module has units, all private: a whole-module run tests those (and says so)."""
        return not self.units and bool(self.private_units)

    @property
    def unreached_private_units(self) -> list[Unit]:
        """The private units whose code no public unit reaches (``Unit.ranges``: a unit's own
        lines and those of the private helpers it calls by name), less those another of them
        reaches: a private class or function that only other modules (or module-level code)
        call. No public unit's targets hold its branches, so a run over the public units never
        searches them; taken where the project's suite leaves some of them open
        (``run.shares.unreached_private``). Two that call each other are both kept."""
        found = [p for p in self.private_units if not any(u.contains(p.line) for u in self.units)]
        return [
            p
            for p in found
            if not any(q is not p and q.contains(p.line) and not p.contains(q.line) for q in found)
        ]

    def _private_names(self) -> list[str]:
        return [u.name for u in self.private_units]
