"""String mutation at token level: a parser's inputs changed by its own pieces.

Code that parses text (dates, times, versions, addresses) reads it as tokens: runs of digits,
runs of letters, the punctuation between them, and the separators it splits on. Its branches
want tokens of a kind in an order ("10:36" then ":28" then " PM"; "Jan" between two numbers), and
one-character edits of a seed rarely get there: from "10:36" to "10:36:28 pm" is six edits, each
of which the fitness does not reward. These steps change whole tokens of a string (replace one
by another of its kind, insert one, delete, duplicate or swap them, or join the head of the
string to the tail of another), taking tokens from the module's constant pool: its literals
(a parser's word lists), the values of the project's tests (examples.project_pool) and the
module's integer constants as digits.

The tokens: runs of letters, of digits, of white space, and each other character alone; a
separator the module splits or partitions on, or joins with (``s.split("::")``, ``"--".join``),
stays one token.
"""

from __future__ import annotations

import ast
import functools
import random
import re
from dataclasses import dataclass

from miogen.common.syntax import parse

MAX_TOKEN = 24  # longest pool token (a longer run is a blob, not a word of the format)
MAX_TOKENS = 2000  # tokens kept per kind (the pool of a big suite's strings)
MAX_TEXT = 512  # no token step makes a string longer
SPLITTING = {"split", "rsplit", "partition", "rpartition"}
KINDS = ("alpha", "digit", "space", "other")


@dataclass(frozen=True)
class TokenPool:
    """The pool's tokens by kind, its multi-token strings (heads and tails to join), and the
    module's separators."""

    by_kind: dict[str, tuple[str, ...]]
    phrases: tuple[str, ...] = ()
    separators: tuple[str, ...] = ()
    every: tuple[str, ...] = ()  # the tokens of every kind but white space

    def __bool__(self) -> bool:
        return bool(self.every)


def tokenize(text: str, separators: tuple[str, ...] = ()) -> list[str]:
    """``text`` as tokens (see the module docstring); joined, they give ``text`` back."""
    return [t for t in _splitter(separators).findall(text) if t]


def kind_of(token: str) -> str:
    if token.isalpha():
        return "alpha"
    if token.isdigit():
        return "digit"
    if token.isspace():
        return "space"
    return "other"


@functools.lru_cache(maxsize=16)
def _splitter(separators: tuple[str, ...]) -> re.Pattern[str]:
    longest = sorted((s for s in separators if len(s) > 1), key=len, reverse=True)
    atoms = [re.escape(s) for s in longest]
    return re.compile("|".join([*atoms, r"[^\W\d_]+", r"\d+", r"\s+", r"."]), re.DOTALL)


@functools.lru_cache(maxsize=8)
def token_pool(
    strings: tuple[str, ...], ints: tuple[int, ...] = (), separators: tuple[str, ...] = ()
) -> TokenPool:
    """The tokens of ``strings`` by kind, the non-negative ``ints`` as digit tokens, and the
    strings of more than one token (once per pool: the units of a module share it)."""
    found: dict[str, dict[str, None]] = {kind: {} for kind in KINDS}
    phrases: dict[str, None] = {}
    for text in strings:
        parts = tokenize(text, separators)
        if len(parts) > 1 and len(text) <= MAX_TEXT:
            phrases[text] = None
        for token in parts:
            if len(token) <= MAX_TOKEN:
                found[kind_of(token)][token] = None
    for number in ints:
        if 0 <= number < 10**6:
            found["digit"][str(number)] = None
    for separator in separators:
        found["other"][separator] = None
    by_kind = {kind: tuple(tokens)[:MAX_TOKENS] for kind, tokens in found.items()}
    every = tuple(t for kind in KINDS if kind != "space" for t in by_kind[kind])
    return TokenPool(by_kind, tuple(phrases)[:MAX_TOKENS], separators, every)


def mutate_tokens(text: str, rng: random.Random, pool: TokenPool) -> str:
    """One token step on ``text`` (see the module docstring); ``text`` itself where none
    applies."""
    parts = tokenize(text, pool.separators)
    roll = rng.random()
    if parts and roll < 0.35:
        changed = _replace(parts, rng, pool)
    elif roll < 0.6:
        changed = _insert(parts, rng, pool)
    elif parts and roll < 0.72:
        del parts[rng.randrange(len(parts))]
        changed = parts
    elif parts and roll < 0.84:
        start = rng.randrange(len(parts))
        end = min(len(parts), start + rng.randint(1, 3))
        changed = _glued(rng, parts, parts[:end], parts[start:end], parts[end:])
    elif len(parts) > 1 and roll < 0.92:
        i, j = rng.sample(range(len(parts)), 2)
        parts[i], parts[j] = parts[j], parts[i]
        changed = parts
    else:
        changed = _join(parts, rng, pool)
    result = "".join(changed)
    return result if len(result) <= MAX_TEXT else text


def _replace(parts: list[str], rng: random.Random, pool: TokenPool) -> list[str]:
    """A token replaced by one of its kind (now and then of any kind)."""
    words = [i for i, t in enumerate(parts) if kind_of(t) != "space"] or range(len(parts))
    index = rng.choice(words)
    kind = kind_of(parts[index])
    options = pool.by_kind.get(kind, ())
    if not options or rng.random() < 0.15:
        options = pool.every
    if options:
        parts[index] = rng.choice(options)
    return parts


def _insert(parts: list[str], rng: random.Random, pool: TokenPool) -> list[str]:
    """A pool token put between two tokens, now and then with a space before it."""
    if not pool.every:
        return parts
    token = rng.choice(pool.every)
    at = rng.randint(0, len(parts))
    added = [" ", token] if at and rng.random() < 0.3 else [token]
    return _glued(rng, parts, parts[:at], added, parts[at:])


def _join(parts: list[str], rng: random.Random, pool: TokenPool) -> list[str]:
    """The head of ``parts`` and the tail of one of the pool's phrases."""
    if not pool.phrases:
        return parts
    other = tokenize(rng.choice(pool.phrases), pool.separators)
    head, tail = parts[: rng.randint(0, len(parts))], other[rng.randint(0, len(other)) :]
    return _glued(rng, parts + other, head, tail)


def _glued(rng: random.Random, source: list[str], *pieces: list[str]) -> list[str]:
    """``pieces`` joined, with a separator of ``source`` (or a space) where two letter or two
    digit tokens would meet and run together ("36" and "28" into "3628", not "36:28")."""
    separators = [t for t in source if kind_of(t) in ("other", "space")] or [" "]
    joined: list[str] = []
    for piece in pieces:
        if joined and piece and _runs_on(joined[-1], piece[0]):
            joined.append(rng.choice(separators))
        joined.extend(piece)
    return joined


def _runs_on(left: str, right: str) -> bool:
    kind = kind_of(left[-1])
    return kind in ("alpha", "digit") and kind == kind_of(right[0])


@functools.lru_cache(maxsize=16)
def separators_of(source: str) -> tuple[str, ...]:
    """The strings ``source`` splits or partitions on, or joins with: literals, or names bound
    to one literal only (``COMMASPACE.join``). ``re.split``'s first argument is a pattern, not
    a separator."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return ()
    nodes = list(ast.walk(tree))
    named = _named_strings(nodes)
    found: set[str] = set()
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attribute = node.func
        if attribute.attr in SPLITTING and node.args and not _is_module(attribute.value):
            literal = node.args[0]
        elif attribute.attr == "join":
            literal = attribute.value
        else:
            continue
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
            text = literal.value
        elif isinstance(literal, ast.Name) and literal.id in named:
            text = named[literal.id]
        else:
            continue
        if 0 < len(text) <= MAX_TOKEN:
            found.add(text)
    return tuple(sorted(found))


def _is_module(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("re", "regex")


def _named_strings(nodes: list[ast.AST]) -> dict[str, str]:
    """Names assigned a string literal, and only that one, anywhere in the module."""
    values: dict[str, set[object]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    value = node.value
                    literal = value.value if isinstance(value, ast.Constant) else object()
                    values.setdefault(target.id, set()).add(literal)
    return {
        name: text
        for name, found in values.items()
        if len(found) == 1 and isinstance(text := next(iter(found)), str)
    }
