"""A parameter that gets the value another parameter of the same call got.

Two random values are never equal, yet code compares its parameters with each other or needs
one to fit the other: ``datetime.strptime(text, fmt)`` succeeds on a ``fmt`` without directives
only where ``text == fmt`` (parse's ``strf_date_convert(x, _, type)``), ``if old == new:`` takes
its shortcut only on equal arguments. So now and then (``SIBLING_PROBABILITY``) a string, bytes
or int parameter is passed the same variable as an earlier argument of its call, when one of
those is a plain value of a type the parameter takes and the body uses the two parameters
together (analysis.together; the sampler passes only those arguments). Elsewhere the draw is
spent on a shape the code does not have, and changes every later draw of the call (issue 25).
Only arguments of the same call: a value shared with an element of a collection argument
(``lookup(table, key)`` with ``key`` one of ``table``'s keys) is reached as well through the
distances, and sharing it there ties mutation of the two together.
"""

from __future__ import annotations

import random

from miogen.analysis.typespec import TypeSpec
from miogen.testcase.model import Statement

SIBLING_PROBABILITY = 0.15
_PLAIN: dict[str, type] = {"str": str, "bytes": bytes, "int": int}


def sibling_value(
    statements: list[Statement],
    given: list[tuple[str, int]],
    spec: TypeSpec,
    rng: random.Random,
) -> int | None:
    """The index of an earlier argument of the call (``given``) to pass again for a parameter
    of type ``spec``, or None (most of the time, and where no argument fits). Draws from
    ``rng`` only where one fits, so that calls without such arguments sample as before."""
    kinds = _plain_kinds(spec)
    fitting = [
        index
        for _, index in given
        if statements[index].kind == "value" and type(statements[index].value) in kinds
    ]
    if not fitting or rng.random() >= SIBLING_PROBABILITY:
        return None
    return rng.choice(fitting)


def _plain_kinds(spec: TypeSpec) -> set[type]:
    """The plain types (str, bytes, int; not bool) a parameter of ``spec`` takes."""
    options = spec.args if spec.kind == "union" else (spec,)
    kinds: set[type] = set()
    for option in options:
        if option.kind == "any":
            kinds.update(_PLAIN.values())
        elif option.kind in _PLAIN:
            kinds.add(_PLAIN[option.kind])
    return kinds
