"""Special methods a test calls through Python's syntax: ``a + b``, ``x[i]``, ``len(x)``, ``with``.

Each entry says how a statement of kind ``operator`` runs (through the same protocol the emitted
syntax uses, so ``NotImplemented`` falls back to the reflected method exactly as in the test) and
how it reads in the emitted test. ``{0}`` is the receiver, ``{1}``, ``{2}`` the other operands.
"""

from __future__ import annotations

import copy
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Special:
    """How one special method is called and written."""

    run: Callable[..., Any]
    template: str
    operands: int  # operands besides the receiver, when the method is not defined by a ``def``
    has_value: bool = True  # False for statements such as ``x[i] = v``
    imports: str = ""  # a module the template needs
    takes_parameters: bool = True  # False: the syntax passes none (``copy.deepcopy(x)``'s memo)


def _binary(function: Callable[[Any, Any], Any], symbol: str) -> Special:
    return Special(function, "{0} " + symbol + " {1}", 1)


def _reflected(function: Callable[[Any, Any], Any], symbol: str) -> Special:
    return Special(lambda a, b: function(b, a), "{1} " + symbol + " {0}", 1)


def _enter_and_exit(context: Any) -> Any:
    with context as entered:
        return entered


def _set_item(container: Any, key: Any, value: Any) -> None:
    container[key] = value


def _delete_item(container: Any, key: Any) -> None:
    del container[key]


_SYMBOLS: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "add": (operator.add, "+"),
    "sub": (operator.sub, "-"),
    "mul": (operator.mul, "*"),
    "matmul": (operator.matmul, "@"),
    "truediv": (operator.truediv, "/"),
    "floordiv": (operator.floordiv, "//"),
    "mod": (operator.mod, "%"),
    "pow": (operator.pow, "**"),
    "lshift": (operator.lshift, "<<"),
    "rshift": (operator.rshift, ">>"),
    "and": (operator.and_, "&"),
    "or": (operator.or_, "|"),
    "xor": (operator.xor, "^"),
}
_COMPARISONS = {
    "eq": (operator.eq, "=="),
    "ne": (operator.ne, "!="),
    "lt": (operator.lt, "<"),
    "le": (operator.le, "<="),
    "gt": (operator.gt, ">"),
    "ge": (operator.ge, ">="),
}

SPECIAL_METHODS: dict[str, Special] = {
    **{f"__{name}__": _binary(function, symbol) for name, (function, symbol) in _SYMBOLS.items()},
    **{f"__r{name}__": _reflected(fn, symbol) for name, (fn, symbol) in _SYMBOLS.items()},
    **{f"__{name}__": _binary(fn, symbol) for name, (fn, symbol) in _COMPARISONS.items()},
    "__divmod__": Special(divmod, "divmod({0}, {1})", 1),
    "__rdivmod__": Special(lambda a, b: divmod(b, a), "divmod({1}, {0})", 1),
    "__neg__": Special(operator.neg, "-{0}", 0),
    "__pos__": Special(operator.pos, "+{0}", 0),
    "__invert__": Special(operator.invert, "~{0}", 0),
    "__abs__": Special(abs, "abs({0})", 0),
    "__bool__": Special(bool, "bool({0})", 0),
    # Hashes of strings differ between processes (PYTHONHASHSEED): only their type is checked.
    "__hash__": Special(lambda x: isinstance(hash(x), int), "isinstance(hash({0}), int)", 0),
    "__len__": Special(len, "len({0})", 0),
    "__str__": Special(str, "str({0})", 0),
    "__repr__": Special(repr, "repr({0})", 0),
    "__int__": Special(int, "int({0})", 0),
    "__float__": Special(float, "float({0})", 0),
    "__complex__": Special(complex, "complex({0})", 0),
    "__index__": Special(operator.index, "operator.index({0})", 0, imports="operator"),
    "__trunc__": Special(math.trunc, "math.trunc({0})", 0, imports="math"),
    "__floor__": Special(math.floor, "math.floor({0})", 0, imports="math"),
    "__ceil__": Special(math.ceil, "math.ceil({0})", 0, imports="math"),
    "__round__": Special(round, "round({0}, {1})", 0),
    "__format__": Special(format, "format({0}, {1})", 1),
    "__iter__": Special(list, "list({0})", 0),
    "__reversed__": Special(lambda x: list(reversed(x)), "list(reversed({0}))", 0),
    "__getitem__": Special(operator.getitem, "{0}[{1}]", 1),
    "__setitem__": Special(_set_item, "{0}[{1}] = {2}", 2, has_value=False),
    "__delitem__": Special(_delete_item, "del {0}[{1}]", 1, has_value=False),
    "__contains__": Special(lambda x, item: item in x, "{1} in {0}", 1),
    "__call__": Special(lambda x, *args, **kwargs: x(*args, **kwargs), "{0}({arguments})", 0),
    "__enter__": Special(_enter_and_exit, "with {0} as {name}:\n    pass", 0),
    "__copy__": Special(copy.copy, "copy.copy({0})", 0, takes_parameters=False),
    "__deepcopy__": Special(copy.deepcopy, "copy.deepcopy({0})", 0, takes_parameters=False),
}


def template_for(name: str, operands: int) -> str:
    """The template, without the optional operand of ``round`` when it is not given."""
    if name == "__round__" and operands == 0:
        return "round({0})"
    return SPECIAL_METHODS[name].template
