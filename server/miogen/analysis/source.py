"""A module's source text, decoded as Python decodes it when it imports the module.

PEP 263's coding cookie and a UTF-8 BOM decide the codec (``importlib.util.decode_source``, the
import system's own), so a latin-1 module that Python imports is read, not refused; a module
Python could not decode either is a SourceSyntaxError naming the file, as its import would be.

``parsed`` is the one syntax tree of a text that the analysis readers share (regexes,
unicodeprops, indexes, formats, bisects, together, measures, numeric_uses): each used to parse the module again.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from collections.abc import Iterator
from pathlib import Path

from miogen.common.errors import SourceSyntaxError
from miogen.common.syntax import parse


def read_source(path: str | Path) -> str:
    """The text of the module at ``path`` (OSError when it cannot be read)."""
    return decode_source(Path(path).read_bytes(), str(path))


def decode_source(data: bytes, path: str = "<string>") -> str:
    """``data`` decoded as the import system does, or SourceSyntaxError (line 1 or the cookie's)."""
    try:
        return importlib.util.decode_source(data)
    except SyntaxError as error:  # a cookie naming no codec, or a cookie beside a BOM
        raise SourceSyntaxError(path, error.lineno or 1, error.msg) from None
    except (UnicodeDecodeError, LookupError) as error:
        line = data[: getattr(error, "start", 0)].count(b"\n") + 1
        raise SourceSyntaxError(path, line, f"cannot decode the file: {error}") from None


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@functools.lru_cache(maxsize=16)
def parsed(source: str) -> ast.Module | None:
    """The syntax tree of ``source``, shared by every reader of the same text (so read-only:
    no reader may change it); None when it does not parse."""
    try:
        return parse(source)
    except (SyntaxError, ValueError):
        return None


def functions_in(source: str) -> Iterator[FunctionNode]:
    """Every function and method of ``source`` (nested ones too), in ``ast.walk``'s order."""
    tree = parsed(source)
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, FunctionNode):
                yield node


def parameter_names(function: FunctionNode) -> list[str]:
    """The parameters a caller passes (positional-only, ordinary and keyword-only; not
    ``*args``/``**kwargs``), without ``self`` and ``cls``, in order."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return [a.arg for a in every if a.arg not in ("self", "cls")]
