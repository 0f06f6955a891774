"""A module's source text, decoded as Python decodes it when it imports the module.

PEP 263's coding cookie and a UTF-8 BOM decide the codec (``importlib.util.decode_source``, the
import system's own), so a latin-1 module that Python imports is read, not refused; a module
Python could not decode either is a SourceSyntaxError naming the file, as its import would be.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from miogen.common.errors import SourceSyntaxError


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
