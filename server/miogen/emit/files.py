"""Reading and writing test files: decoded as Python would, replaced atomically, bytes kept."""

from __future__ import annotations

import codecs
import io
import itertools
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from miogen.atomic import write_atomically
from miogen.emit.source import UnmergeableFile, parse_module
from miogen.emit.text import Lines, TextEdit


@dataclass(frozen=True)
class Decoded:
    """A file's text, the codec that round-trips it, and the BOM bytes kept aside."""

    text: str
    encoding: str
    prefix: bytes = b""


def decode(data: bytes) -> Decoded:
    """Decode as Python would (PEP 263 cookie, BOM); only byte-exact round trips are accepted."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        prefix = codecs.BOM_UTF8 if encoding == "utf-8-sig" else b""
        encoding = "utf-8" if prefix else encoding
        text = data[len(prefix) :].decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise UnmergeableFile(f"cannot decode the existing file: {error}") from error
    if text.encode(encoding) != data[len(prefix) :]:
        raise UnmergeableFile(f"the existing file does not round-trip through {encoding}")
    return Decoded(text, encoding, prefix)


def encode_inserts(
    original: bytes, decoded: Decoded, edits: Sequence[TextEdit], merged_text: str
) -> bytes:
    """The original bytes, untouched, with the inserted text encoded between them.

    ``merged_text`` is what the edits make of the decoded text: the bytes must decode to it.
    """
    lines = Lines.of(decoded.text)
    pieces, cursor, byte_cursor = [decoded.prefix], 0, len(decoded.prefix)
    try:
        for edit in edits:
            offset = lines.offset(edit.start_line, edit.start_character)
            byte_offset = byte_cursor + len(decoded.text[cursor:offset].encode(decoded.encoding))
            pieces += [original[byte_cursor:byte_offset], edit.new_text.encode(decoded.encoding)]
            cursor, byte_cursor = offset, byte_offset
    except UnicodeEncodeError as error:
        raise UnmergeableFile(f"the tests cannot be written in {decoded.encoding}") from error
    data = b"".join([*pieces, original[byte_cursor:]])
    if data[len(decoded.prefix) :].decode(decoded.encoding) != merged_text:
        raise UnmergeableFile(f"the merged text does not round-trip through {decoded.encoding}")
    return data


def read(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def replace_if_unchanged(path: Path, data: bytes, expected: bytes | None) -> bool:
    """Write ``data`` to ``path`` atomically (``miogen.atomic``), folders created as needed.

    Returns False, writing nothing, when ``path`` no longer holds ``expected`` (None: absent).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, data, only_if=lambda: read(path) == expected)


def fallback_candidates(test_path: Path) -> Iterator[Path]:
    """``test_x_miogen.py``, then ``test_x_miogen_2.py``, ``_3``... beside ``test_path``."""
    stem, suffix = test_path.stem, test_path.suffix
    yield test_path.with_name(f"{stem}_miogen{suffix}")
    for counter in itertools.count(2):
        yield test_path.with_name(f"{stem}_miogen_{counter}{suffix}")


def is_mergeable(path: Path) -> bool:
    """Whether ``path`` is absent, or decodes and parses."""
    data = read(path)
    if data is None:
        return True
    try:
        text = decode(data).text
        if text:
            parse_module(text)
    except UnmergeableFile:
        return False
    return True
