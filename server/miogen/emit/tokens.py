"""Token rewrites of generated source: tokenize once, replace chosen tokens, keep every other
character (comments, strings, spacing) as it was."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable, Iterable

# a token of the source and the text that takes its place
Replacement = tuple[tokenize.TokenInfo, str]


def source_tokens(source: str) -> list[tokenize.TokenInfo]:
    """``source``'s tokens; none for a source that does not tokenize (left as it is)."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def replaced_tokens(source: str, replacements: Iterable[Replacement]) -> str:
    """``source`` with each token of ``replacements`` (tokens of ``source_tokens(source)``, in
    any order, none overlapping another) written as its text.

    >>> tokens = source_tokens("x = old + 'old'  # old\\n")
    >>> replaced_tokens("x = old + 'old'  # old\\n", [(tokens[2], "new")])
    "x = new + 'old'  # old\\n"
    """
    # Rows and columns as tokenize counts them: lines end at "\n" only (str.splitlines would
    # also end one at a form feed or a line separator inside a comment or a string).
    starts = [0]
    for line in io.StringIO(source).readlines():
        starts.append(starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        row, column = position
        return starts[row - 1] + column

    pieces: list[str] = []
    done = 0
    for token, text in sorted(replacements, key=lambda replacement: replacement[0].start):
        begin = offset(token.start)
        if begin < done:
            raise ValueError(f"overlapping replacements at {token.start}")
        pieces += [source[done:begin], text]
        done = offset(token.end)
    pieces.append(source[done:])
    return "".join(pieces)


def renamed(source: str, aliases: dict[str, str], where: Callable[[str, str], bool]) -> str:
    """``source`` with each name token of ``aliases`` written as its alias where
    ``where(previous token's text, next token's text)`` holds.

    >>> renamed("a = b.a(a=1)\\n", {"a": "z"}, lambda before, after: before != ".")
    'z = b.a(z=1)\\n'
    """
    tokens = source_tokens(source)
    replacements = []
    previous = ""
    for token, following in zip(tokens, tokens[1:], strict=False):
        if (
            token.type == tokenize.NAME
            and token.string in aliases
            and where(previous, following.string)
        ):
            replacements.append((token, aliases[token.string]))
        previous = token.string
    return replaced_tokens(source, replacements)
