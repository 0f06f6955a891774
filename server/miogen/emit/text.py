"""Lines and positions as Python and LSP both count them, and LSP-style insert edits."""

from __future__ import annotations

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
