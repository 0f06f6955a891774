"""Lines and positions as Python and LSP both count them, and LSP-style insert edits."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what both Python and LSP count as a line end
BOM = "\ufeff"


@dataclass(frozen=True)
class TextEdit:
    """An LSP-style edit; lines and characters are 0-based, characters are Python str indices."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int
    new_text: str


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """Apply LSP-style edits to ``text``; inserts at one position keep their order in ``edits``."""
    lines = Lines.of(text)
    spans = sorted(
        (
            lines.offset(e.start_line, e.start_character),
            lines.offset(e.end_line, e.end_character),
            i,
        )
        for i, e in enumerate(edits)
    )
    pieces, cursor = [], 0
    for start, end, index in spans:
        if start < cursor or end < start:
            raise ValueError(f"edit {index} overlaps another edit or ends before it starts")
        pieces += [text[cursor:start], edits[index].new_text]
        cursor = end
    return "".join(pieces) + text[cursor:]


@dataclass(frozen=True)
class Lines:
    """Line starts and content ends of a text, split where Python and LSP both split lines."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> Lines:
        breaks = list(LINE_BREAK.finditer(text))
        starts = (0, *(m.end() for m in breaks))
        ends = (*(m.start() for m in breaks), len(text))
        return cls(text, starts, ends)

    @property
    def rows(self) -> int:
        """Number of 1-based rows that hold text or end in a line break."""
        return len(self.starts) - (self.starts[-1] == len(self.text))

    def content(self, row: int) -> str:
        return self.text[self.starts[row - 1] : self.ends[row - 1]]

    def offset(self, line: int, character: int) -> int:
        if not 0 <= line < len(self.starts):
            raise ValueError(f"line {line} is outside the text")
        if not 0 <= character <= self.ends[line] - self.starts[line]:
            raise ValueError(f"character {character} is outside line {line}")
        return self.starts[line] + character

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]


def line_ending(text: str, offset: int) -> str:
    """The line break for lines inserted at ``offset``: the one of the line above, else the
    file's first; never a lone CR right before an LF, which would fuse into one break."""
    above = text[max(0, offset - 2) : offset]
    if above == "\r\n":
        ending = above
    elif above[-1:] in ("\r", "\n"):
        ending = above[-1]
    else:
        first = LINE_BREAK.search(text)
        ending = first.group() if first else "\n"
    return "\r\n" if ending == "\r" and text[offset : offset + 1] == "\n" else ending


def trailing_blank_lines(text: str) -> int:
    """Blank lines at the end of ``text``, which ends with a line break."""
    count = 0
    for line in reversed(LINE_BREAK.split(text)[:-1]):
        if line.replace(BOM, "").strip():
            break
        count += 1
    return count
