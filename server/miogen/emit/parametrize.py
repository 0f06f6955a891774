"""Tests that differ only in their literals become one ``@pytest.mark.parametrize`` test.

Three or more generated tests with the same short body (the same calls on the same names, the
same assertions) but other numbers or strings read better as one test and a table of cases:

    @pytest.mark.parametrize(
        ("a", "b", "c", "expected"),
        [
            (3, 4, 5, 1),
            (2, 2, 2, 3),
        ],
    )
    def test_classify(a, b, c, expected):
        assert classify(a=a, b=b, c=c) == expected

The literals that differ become parameters, named after the keyword they are passed as
(``expected`` for what an assertion compares with); those all cases share stay in the body.
Only immutable literals become parameters (a list passed in would be one object shared by
every run of its case). The ids are pytest's own (``3-4-5-1``) when pytest derives them from
the values alone; otherwise they are given. Each case remembers the test it came from, so a
failing case maps back to that one test (``original_names``).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from miogen.common.syntax import parse
from miogen.emit.placement import GeneratedTest

MIN_CASES = 3  # fewer tests read as well one by one
MAX_STATEMENTS = 3  # longer bodies read better written out
MAX_PARAMETERS = 6
MAX_ID_TEXT = 24  # characters of a string that pytest's own id shows well
MAX_SLUG = 16  # characters of a string in an id of ours
SIMPLE_ID = re.compile(r"[A-Za-z0-9 _.,:;=+*/<>!?'\"#%&@~^|-]+")
MUTABLE = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)


@dataclass(frozen=True)
class _Literal:
    """A literal in a test body: where it is, its text, and what it is passed as."""

    start: int  # offsets in the source
    end: int
    text: str
    role: str  # the keyword it is passed as, "expected", or "value"
    in_mutable: bool  # inside a list, set or dict literal


@dataclass(frozen=True)
class _Shaped:
    test: GeneratedTest
    function: ast.FunctionDef
    literals: list[_Literal]


def parametrize(tests: Sequence[GeneratedTest]) -> list[GeneratedTest]:
    """``tests`` with each group of same-shaped tests replaced by one parametrized test (at the
    place of the group's first test); the others as they are."""
    groups: dict[str, list[tuple[int, _Shaped]]] = {}
    for index, test in enumerate(tests):
        shaped = _shape(test)
        if shaped is not None:
            groups.setdefault(_shape_key(shaped), []).append((index, shaped))
    replaced: dict[int, GeneratedTest | None] = {}  # by position: names may repeat across units
    for members in groups.values():
        group = _group([m for _, m in members]) if len(members) >= MIN_CASES else None
        if group is not None:
            for number, (index, _) in enumerate(members):
                replaced[index] = group if number == 0 else None
    result = []
    for index, test in enumerate(tests):
        table = replaced[index] if index in replaced else test
        if table is not None:
            result.append(table)
    return _unique_tables(result)


def _unique_tables(tests: list[GeneratedTest]) -> list[GeneratedTest]:
    """``tests`` with a table whose name another test or an earlier table has renamed
    (``_2``, ``_3``...) here: two groups of a unit may share their words ("test_urljoin"), and
    the names must be the written file's, by which each case's coverage maps back to its own
    tests (``original_names``), not to the other table's."""
    taken = {test.name for test in tests if not test.cases}
    unique = []
    for test in tests:
        if test.cases:
            name, number = test.name, 1
            while name in taken:
                number += 1
                name = f"{test.name}_{number}"
            if name != test.name:
                header = re.compile(rf"^def {re.escape(test.name)}\(", re.MULTILINE)
                source = header.sub(f"def {name}(", test.source, count=1)
                test = GeneratedTest(name, source, test.cases)
            taken.add(name)
        unique.append(test)
    return unique


def original_names(failures: Iterable[str], tests: Sequence[GeneratedTest]) -> set[str]:
    """The generated tests behind failing pytest names: ``test_x[3-4-5-1]`` is the case's
    test; a case that cannot be told (an id a plugin changed) stands for its whole group."""
    groups = {test.name: test for test in tests if test.cases}
    names = set()
    for failure in failures:
        function, bracket, rest = failure.partition("[")
        group = groups.get(function)
        if not bracket or group is None:
            names.add(failure)
            continue
        case_id = rest.removesuffix("]")
        matched = [original for id_, original in group.cases if id_ == case_id]
        names.update(matched or (original for _, original in group.cases))
    return names


# --- the shape of a test -----------------------------------------------------------------


def _shape(test: GeneratedTest) -> _Shaped | None:
    """The test's function and literals, if it is simple enough to join a table."""
    try:
        body = parse(test.source).body
    except SyntaxError:
        return None
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef):
        return None
    function = body[0]
    if function.decorator_list or function.args.args or len(function.body) > MAX_STATEMENTS:
        return None
    return _Shaped(test, function, _literals(test.source, function))


def _shape_key(item: _Shaped) -> str:
    """The body with every literal blanked out: equal keys, same calls and checks."""
    source, cursor, pieces = item.test.source, 0, []
    for literal in item.literals:
        pieces += [source[cursor : literal.start], "_"]
        cursor = literal.end
    pieces.append(source[cursor:])
    body = "".join(pieces)
    return body[body.index(":") :]  # without ``def name()``


def _literals(source: str, function: ast.FunctionDef) -> list[_Literal]:
    offsets = _line_offsets(source)
    found: list[_Literal] = []
    _collect(function, "value", False, offsets, source, found)
    return sorted(found, key=lambda literal: literal.start)


def _collect(
    node: ast.AST,
    role: str,
    in_mutable: bool,
    offsets: list[int],
    source: str,
    found: list[_Literal],
) -> None:
    if isinstance(node, ast.JoinedStr):
        return  # an f-string's pieces are not literals of their own
    if isinstance(node, ast.expr) and _is_literal(node):
        start = _offset(source, offsets, node.lineno, node.col_offset)
        end = _offset(source, offsets, node.end_lineno or node.lineno, node.end_col_offset or 0)
        found.append(_Literal(start, end, source[start:end], role, in_mutable))
        return
    for field, value in ast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, ast.AST):
                inner = _role(node, field, child, role)
                _collect(
                    child, inner, in_mutable or isinstance(node, MUTABLE), offsets, source, found
                )


def _role(parent: ast.AST, field: str, child: ast.AST, role: str) -> str:
    if isinstance(parent, ast.keyword) and parent.arg:
        return parent.arg
    if isinstance(parent, ast.Compare) and field == "comparators":
        return "expected"
    return role


def _is_literal(node: ast.AST) -> bool:
    """A number, string, bytes, bool or None; a negative number; a tuple of such."""
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant) and isinstance(
            node.operand.value, int | float | complex
        )
    if isinstance(node, ast.Tuple):
        return all(_is_literal(element) for element in node.elts)
    return False


def _line_offsets(source: str) -> list[int]:
    offsets, total = [0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        offsets.append(total)
    return offsets


def _offset(source: str, offsets: list[int], line: int, column: int) -> int:
    """A str offset from the AST's line and UTF-8 byte column."""
    start = offsets[line - 1]
    text = source[start : offsets[line] if line < len(offsets) else len(source)]
    return start + len(text.encode("utf-8")[:column].decode("utf-8", "replace"))


# --- the parametrized test ---------------------------------------------------------------


def _group(members: list[_Shaped]) -> GeneratedTest | None:
    columns = list(zip(*(m.literals for m in members), strict=True))
    varying = [i for i, column in enumerate(columns) if len({lit.text for lit in column}) > 1]
    if not varying or len(varying) > MAX_PARAMETERS:
        return None
    if any(columns[i][0].in_mutable for i in varying):
        return None
    first = members[0]
    names = _parameter_names([columns[i][0].role for i in varying], first.function)
    rows = [[columns[i][row].text for i in varying] for row in range(len(members))]
    predicted = _pytest_ids(rows)
    explicit = predicted is None
    ids = predicted or _value_ids(rows) or _given_ids([m.test.name for m in members])
    name = _group_name([m.test.name for m in members])
    body = _body(first, {columns[i][0].start: names[k] for k, i in enumerate(varying)})
    source = (
        _decorator(names, rows, ids if explicit else None)
        + f"def {name}({', '.join(names)}):"
        + body
    )
    cases = tuple(zip(ids, (m.test.name for m in members), strict=True))
    return GeneratedTest(name, source, cases)


def _parameter_names(roles: list[str], function: ast.FunctionDef) -> list[str]:
    used = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    names: list[str] = []
    for role in roles:
        base = role if role.isidentifier() else "value"
        if keyword.iskeyword(base) or hasattr(builtins, base) or base in used:
            base += "_"
        candidate, counter = base, 2
        while candidate in names or candidate in used:
            candidate, counter = f"{base}_{counter}", counter + 1
        names.append(candidate)
    return names


def _body(first: _Shaped, parameters: dict[int, str]) -> str:
    """The first test's body with its varying literals replaced by parameter names."""
    source = first.test.source
    pieces, cursor = [], source.index(":") + 1  # after ``def name():``
    for literal in first.literals:
        if literal.start in parameters:
            pieces += [source[cursor : literal.start], parameters[literal.start]]
            cursor = literal.end
    pieces.append(source[cursor:])
    return "".join(pieces).rstrip("\n") + "\n"


def _decorator(names: list[str], rows: list[list[str]], ids: list[str] | None) -> str:
    if len(names) == 1:
        argnames = f'"{names[0]}"'
        cases = [row[0] for row in rows]
    else:
        argnames = "(" + ", ".join(f'"{n}"' for n in names) + ")"
        cases = ["(" + ", ".join(row) + ")" for row in rows]
    lines = ["@pytest.mark.parametrize(", f"    {argnames},", "    ["]
    lines += [f"        {case}," for case in cases]
    lines.append("    ],")
    if ids is not None:
        lines += ["    ids=[", *(f'        "{case_id}",' for case_id in ids), "    ],"]
    lines.append(")")
    return "\n".join(lines) + "\n"


def _pytest_ids(rows: list[list[str]]) -> list[str] | None:
    """The ids pytest makes from these values, when it makes them from the values alone and they
    read well and differ; else None."""
    ids = []
    for row in rows:
        parts = [_value_id(text) for text in row]
        if any(part is None for part in parts):
            return None
        ids.append("-".join(part for part in parts if part is not None))
    return ids if len(set(ids)) == len(ids) else None


def _value_id(text: str) -> str | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return str(value)
    if isinstance(value, str) and 0 < len(value) <= MAX_ID_TEXT:
        escaped = value.encode("unicode_escape").decode("ascii")  # as pytest's ascii_escaped
        return escaped if SIMPLE_ID.fullmatch(escaped.replace("\\", "")) else None
    return None


def _value_ids(rows: list[list[str]]) -> list[str] | None:
    """Ids of our own from the values where pytest's would not do (``minus_1_5-text-tuple2``):
    short, ASCII, one per case; None when two cases would share one."""
    ids = ["-".join(_value_slug(text) for text in row) for row in rows]
    return ids if len(set(ids)) == len(ids) else None


def _value_slug(text: str) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        last = text.rpartition(".")[2]  # Color.RED: RED; anything else: what it makes
        return last if last.isidentifier() and last.isascii() else "value"
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**12 else "big_int"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str | bytes):
        plain = value if isinstance(value, str) else value.decode("latin-1")
        words = re.sub(r"[^A-Za-z0-9]+", "_", plain).strip("_")[:MAX_SLUG]
        prefix = "b_" if isinstance(value, bytes) else ""
        return prefix + (words or ("empty" if not value else "text"))
    if isinstance(value, tuple | list | set | frozenset | dict):
        kind = type(value).__name__
        return f"{kind}{len(value)}" if value else f"empty_{kind}"
    return type(value).__name__


def _given_ids(names: list[str]) -> list[str]:
    """What tells the tests' names apart (``returns_2``, ``returns_2_2``), else case numbers."""
    prefix = _common_words(names)
    ids = [name[len(prefix) :].strip("_") for name in names]
    if all(ids) and len(set(ids)) == len(ids) and all(SIMPLE_ID.fullmatch(i) for i in ids):
        return ids
    return [f"case{index}" for index in range(1, len(names) + 1)]


def _group_name(names: list[str]) -> str:
    """The words the tests' names share, without a dangling ``returns``/``raises``."""
    words = _common_words(names).strip("_").split("_")
    while len(words) > 2 and words[-1] in ("returns", "raises"):
        words.pop()
    return "_".join(words) if len(words) > 1 else f"{names[0]}_cases"


def _common_words(names: list[str]) -> str:
    split = [name.split("_") for name in names]
    common = []
    for words in zip(*split, strict=False):
        if len(set(words)) != 1:
            break
        common.append(words[0])
    return "_".join(common) + "_" if common else ""
