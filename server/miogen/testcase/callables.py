"""Functions passed as arguments: builtins, small lambdas and the module's own functions.

A statement of kind ``callable`` holds the function as the text the emitted test writes
(``len``, ``str.upper``, ``lambda x: x * 2``, ``slugify``); ``value`` says where it comes from:
"builtin", "lambda" or "module". Only texts from this catalogue (or the module's functions) are
ever evaluated.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

# Texts by number of parameters; each makes some code paths differ (truthy or not, raises on
# some inputs, changes types).
CATALOGUE: dict[int, tuple[str, ...]] = {
    0: ("lambda: None", "lambda: 0", "list", "dict"),
    1: (
        "len",
        "str",
        "bool",
        "abs",
        "str.upper",
        "lambda x: x",
        "lambda x: not x",
        "lambda x: x * 2",
        "lambda x: x is None",
        "lambda x: x > 0",
    ),
    2: ("lambda a, b: a + b", "lambda a, b: a", "lambda a, b: a * b", "max", "min"),
}
ANY_ARITY = ("lambda *args, **kwargs: None", "lambda *args: args")

_LAMBDAS: dict[str, Callable[..., Any]] = {
    text: eval(text, {"__builtins__": builtins})  # noqa: S307 - texts of this catalogue only
    for texts in (*CATALOGUE.values(), ANY_ARITY)
    for text in texts
    if text.startswith("lambda")
}


def choices(arity: int | None) -> tuple[str, ...]:
    """Catalogue texts for a callable of ``arity`` parameters (None: unknown)."""
    if arity is None:
        return CATALOGUE[1] + CATALOGUE[2] + ANY_ARITY
    return CATALOGUE.get(arity, ANY_ARITY)


def origin(text: str) -> str:
    return "lambda" if text.startswith("lambda") else "builtin"


def resolve(text: str, source: str, module_lookup: Callable[[str], object]) -> object:
    """The function a ``callable`` statement stands for."""
    if source == "lambda":
        return _LAMBDAS[text]
    if source == "module":
        return module_lookup(text)
    value: object = builtins
    for part in text.split("."):
        value = getattr(value, part)
    return value
