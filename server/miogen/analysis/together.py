"""Parameters a function's body uses together: compares with each other or passes to one call.

``if old == new:``, ``a < b`` and ``datetime.strptime(text, fmt)`` (which succeeds on a ``fmt``
without directives only where ``text == fmt``) read two parameters as one question; equal
arguments take a path there that two random values never take. ``pairs_of`` finds, per
function (by the line of its ``def``), the parameters its body compares with each other
(``a == b``, ``a in b``, ``a < b``) or passes side by side to one call (``f(a, b)``,
``f(a, key=b)``), not a call of the object's own methods (``self._check(section, option)``:
a class passes its parameters on to itself all the time, and that says nothing of them). The
sampler (testcase.reuse) gives a parameter the value of its partner only in such a function:
elsewhere the draw would be a value spent on a shape the code does not have.
"""

from __future__ import annotations

import ast
import functools

from miogen.analysis.source import FunctionNode, functions_in, parameter_names
from miogen.analysis.survey import walk

Partners = dict[str, frozenset[str]]  # parameter -> the parameters it is used together with


@functools.lru_cache(maxsize=16)
def pairs_of(source: str) -> dict[int, Partners]:
    """Each parameter's partners per function's ``def`` line; functions without any are left
    out."""
    found: dict[int, Partners] = {}
    for node in functions_in(source):
        partners = _partners(node)
        if partners:
            found[node.lineno] = partners
    return found


def _partners(function: FunctionNode) -> Partners:
    names = set(parameter_names(function))
    partners: dict[str, set[str]] = {}
    for node in walk(function):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and not _own_method(node.func):
            operands = [*node.args, *(k.value for k in node.keywords)]
        else:
            continue
        used = {o.id for o in operands if isinstance(o, ast.Name) and o.id in names}
        for name in used if len(used) > 1 else ():
            partners.setdefault(name, set()).update(used - {name})
    return {name: frozenset(others) for name, others in partners.items()}


def _own_method(func: ast.expr) -> bool:
    """``self.f``, ``self.a.f``, ``cls.f``: a call the object makes of itself."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in {"self", "cls"}
