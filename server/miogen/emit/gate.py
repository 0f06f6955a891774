"""The project's checkers as a gate on generated tests, before the file the user sees is written.

Where the project configures mypy or ruff (``emit.style``) and the checker is there (``emit.tools``,
the project's environment first), the tests are made as they would be written (a new file's text,
in the project's style) and the checkers read that text as the file their tests go in, with no
fix applied: ruff from its input (``--stdin-filename``), mypy from a scratch file outside the
project (``--shadow-file`` of that file, or the same module's name): the project's
configuration, its per-file settings and its imports apply, and nothing appears beside the
output that a pytest run meanwhile could collect. Each checker's run is stopped after
``GATE_TIMEOUT`` seconds (it then finds nothing: the tests go on). Then, for each finding on a
test's lines:

- a test that calls the project's code in ``pytest.raises`` to see it raise for a wrong call
  keeps that call, with a narrow ``# type: ignore[<code>]`` (the code mypy printed) on the line
  mypy names: the wrong call is the test's purpose;
- where mypy wants the tests annotated (``no-untyped-def``: a project that checks untyped
  definitions), every test is annotated (``annotate``: ``-> None``, its parameters the type
  of their cases) and checked again, its body now too;
- any other test is left out, with a note naming the checker and the codes.

Findings outside the tests (the imports, the header) are not the tests' and stay reported
(``emit.checks``). Nothing here runs where the project configures neither tool.

    >>> with_ignore("    f(1)", ["arg-type", "call-arg", "arg-type"])
    '    f(1)  # type: ignore[arg-type, call-arg]'
"""

from __future__ import annotations

import ast
import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from miogen.common.confine import is_inside, resolved
from miogen.common.syntax import parse
from miogen.emit.checks import run_checker
from miogen.emit.placement import GeneratedTest
from miogen.emit.style import Style
from miogen.emit.tools import Tools

# mypy's codes for a call that does not fit the signature: where ``pytest.raises`` surrounds
# it, the wrong call is what the test checks the project's code raising on
WRONG_CALL = frozenset({
    "arg-type", "call-arg", "call-overload", "type-var", "operator", "index", "list-item",
    "dict-item",
})  # fmt: skip
GATE_TIMEOUT = 120.0  # seconds for one checker's run on the candidate (mypy's first builds a cache)
_MYPY_LINE = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?:\d+:)? error: .*?(?:\s+\[(?P<code>[\w-]+)\])?$"
)


@dataclass(frozen=True)
class Finding:
    """One checker's finding in the candidate file: its line and its code."""

    checker: str  # "mypy" or "ruff"
    line: int
    code: str


@dataclass(frozen=True)
class Rendered:
    """The gate's last text of the tests, for the file at ``path``: the module text's parts as
    made (``emit.module``: ``source``) and as made in the project's style (``emit.writer.
    prepare``: ``prepared``, annotated where the gate annotates, before its rewrites). The
    write takes ``prepared`` when its own parts equal ``source``: nothing changed in between,
    and the file written is the text the gate checked (with its rewrites)."""

    path: Path
    source: tuple[tuple[str, ...], tuple[GeneratedTest, ...]]
    prepared: tuple[tuple[str, ...], tuple[GeneratedTest, ...]]

    def reusable(self, path: Path, imports: Sequence[str], tests: Sequence[GeneratedTest]) -> bool:
        """Whether this is the text of ``imports`` and ``tests`` at ``path``."""
        return resolved(path) == resolved(self.path) and self.source == (
            tuple(imports),
            tuple(tests),
        )


@dataclass(frozen=True)
class Gated:
    """What the gate decided for a module's tests (by their names as generated)."""

    # test name -> the findings that left it out ("mypy arg-type", "ruff PT011"...)
    left_out: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # test name -> (line as formatted, line as written), for the tests kept with a fix: the
    # line of a deliberate wrong call with its ``# type: ignore[code]``
    rewrites: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # the project's mypy wants the tests annotated (``no-untyped-def``): each test is, as it is
    # written (``annotate``), before it is formatted
    annotations: bool = False
    # the text the gate checked last (``Rendered``): the write reuses it when nothing changed
    rendered: Rendered | None = field(default=None, compare=False, repr=False)

    def notes(self) -> list[str]:
        """The summary's notes: how many tests were left out, how many kept with a fix."""
        notes = []
        for checker in ("mypy", "ruff"):
            names = [
                n for n, why in self.left_out.items() if any(w.startswith(checker) for w in why)
            ]
            if names:
                codes = sorted({w.split(" ", 1)[1] for n in names for w in self.left_out[n]
                                if w.startswith(checker)})  # fmt: skip
                what = "errors" if checker == "mypy" else "findings"
                notes.append(
                    f"{len(names)} test{'s' if len(names) != 1 else ''} left out: {checker} "
                    f"{what} under your configuration ({', '.join(codes)})"
                )
        ignored = [
            n for n, lines in self.rewrites.items() if any("type: ignore" in b for _, b in lines)
        ]
        if ignored:
            notes.append(
                f"{len(ignored)} test{'s' if len(ignored) != 1 else ''} kept with a "
                "# type: ignore on a wrong call the project's code raises on"
            )
        return notes


def with_ignore(line: str, codes: Sequence[str]) -> str:
    """``line`` with mypy told to ignore ``codes`` on it (each once, in order)."""
    return f"{line}  # type: ignore[{', '.join(dict.fromkeys(codes))}]"


def candidate_findings(
    text: str, path: Path, root: Path, style: Style, tools: Tools
) -> list[Finding] | None:
    """What the project's mypy and ruff (``tools``, its configuration: ``style``) find in
    ``text``, the file at ``path`` (the file the tests go in) as it would be written; ``path``
    must resolve inside ``root`` (the project: else None, nothing run). None also where
    neither checker applies. Nothing is written in the project: ruff reads the text from its
    input as the file at ``path`` (``--stdin-filename``: its per-file rules apply); mypy reads
    it from a scratch file in a temporary folder, as the file at ``path`` where that exists
    (``--shadow-file``), else as a module of the same name (its packages mirrored there: the
    project's per-module settings apply). A pytest the user runs meanwhile collects nothing
    of it."""
    mypy = tools.mypy if style.mypy else None
    ruff = tools.ruff if style.lints else None
    if style.root is None or (mypy is None and ruff is None):
        return None
    path = Path(path)
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    if not (is_inside(root, folder) or resolved(folder) == resolved(root)):
        return None
    found = []
    if mypy is not None:
        found += _mypy(mypy, text, path, style.root)
    if ruff is not None:
        found += _ruff(ruff, text, path, style.root)
    return found


def _mypy(mypy: str, text: str, path: Path, cwd: Path) -> list[Finding]:
    """mypy's findings in ``text`` as the file at ``path``, run at ``cwd`` (the project's
    configuration is found there, as a plain ``mypy`` run there finds it)."""
    with tempfile.TemporaryDirectory(prefix="miogen-gate-") as scratch_folder:
        base = Path(scratch_folder)
        if path.is_file():  # the file itself, its text replaced (mypy needs it to exist)
            scratch = base / "shadow.py"
            scratch.write_text(text, encoding="utf-8")
            names = {resolved(path)}
            target = ["--shadow-file", str(path), str(scratch), str(path)]
        else:  # the same module: the file's packages (``__init__.py`` folders) mirrored here
            packages: list[str] = []
            folder = path.parent
            while (folder / "__init__.py").is_file() and folder != folder.parent:
                packages.insert(0, folder.name)
                folder = folder.parent
            place = base.joinpath(*packages)
            place.mkdir(parents=True, exist_ok=True)
            for depth in range(1, len(packages) + 1):
                base.joinpath(*packages[:depth], "__init__.py").touch()
            scratch = place / path.name
            scratch.write_text(text, encoding="utf-8")
            names = {resolved(scratch), resolved(cwd / Path(*packages, path.name))}
            target = [str(scratch)]
        command = [mypy, "--no-error-summary", "--no-color-output", "--no-pretty",
                   "--show-error-codes", "--hide-error-context", *target]  # fmt: skip
        output = run_checker(command, cwd, timeout=GATE_TIMEOUT)
    found = []
    for line in (output or "").splitlines():
        match = _MYPY_LINE.match(line)
        if match and resolved(cwd / match["file"]) in names:
            found.append(Finding("mypy", int(match["line"]), match["code"] or "error"))
    return found


def _ruff(ruff: str, text: str, path: Path, cwd: Path) -> list[Finding]:
    """ruff's findings in ``text`` read from its input as the file at ``path`` (its per-file
    rules and exclusions apply), no fix applied."""
    command = [ruff, "check", "--no-fix", "--force-exclude", "--output-format", "json",
               "--exit-zero", "--stdin-filename", str(path), "-"]  # fmt: skip
    output = run_checker(command, cwd, text, GATE_TIMEOUT)
    try:
        items = json.loads(output) if output else []
    except json.JSONDecodeError:
        return []
    return [
        Finding("ruff", int(item.get("location", {}).get("row", 0)), item.get("code") or "error")
        for item in items
        if isinstance(item, dict)
    ]


def gated(
    text: str,
    tests: Sequence[GeneratedTest],
    findings: Sequence[Finding],
    annotated: bool = False,
) -> Gated:
    """The gate's decisions for ``tests`` (as made into ``text``, the candidate file), by the
    ``findings`` of the project's checkers on it. ``annotated``: the tests are annotated
    already (``annotate``): a ``no-untyped-def`` left is one the annotations could not fix."""
    lines = text.splitlines()
    functions = {
        node.name: node
        for node in parse(text).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    left_out: dict[str, tuple[str, ...]] = {}
    rewrites: dict[str, tuple[tuple[str, str], ...]] = {}
    wants_annotations = False
    for test in tests:
        function = functions.get(test.name)
        if function is None:
            continue
        first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
        last = function.end_lineno or function.lineno
        here = [f for f in findings if first <= f.line <= last]
        if not here:
            continue
        raising = _raising_lines(function)
        ignores: dict[int, list[str]] = {}
        refused: list[str] = []
        for finding in here:
            if finding.checker == "mypy" and finding.code == "unused-ignore":
                continue
            if finding.checker == "mypy" and finding.code == "no-untyped-def" and not annotated:
                wants_annotations = True  # the tests are annotated, and checked again
            elif (
                finding.checker == "mypy" and finding.code in WRONG_CALL
                and finding.line in raising and not test.cases
            ):  # fmt: skip
                ignores.setdefault(finding.line, []).append(finding.code)
            else:
                refused.append(f"{finding.checker} {finding.code}")
        if refused:
            for original in [original for _, original in test.cases] or [test.name]:
                left_out[original] = tuple(dict.fromkeys(refused))
        elif ignores:
            rewrites[test.name] = tuple(
                (lines[number - 1], with_ignore(lines[number - 1], codes))
                for number, codes in sorted(ignores.items())
            )
    return Gated(left_out, rewrites, wants_annotations)


def annotate(test: GeneratedTest) -> GeneratedTest:
    r"""``test`` annotated as a project that checks untyped definitions wants it: ``-> None``,
    and each parameter of a parametrized test the type its cases' values share (``object``
    for an expected value of mixed types); a parameter whose type is not plain stays as it is
    (mypy still refuses the test, and the gate leaves it out).

        >>> print(annotate(GeneratedTest("test_x", "def test_x():\n    assert f()\n")).source)
        def test_x() -> None:
            assert f()
        <BLANKLINE>
    """
    try:
        function = parse(test.source).body[0]
    except (SyntaxError, IndexError):
        return test
    if not isinstance(function, ast.FunctionDef) or not function.body:
        return test
    arguments = function.args
    if arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg:
        return test
    types = _case_types(function)
    parameters = []
    for argument in arguments.args:
        if argument.annotation is not None:
            parameters.append(ast.unparse(argument))
        elif argument.arg in types:
            parameters.append(f"{argument.arg}: {types[argument.arg]}")
        else:
            parameters.append(argument.arg)
    returns = ast.unparse(function.returns) if function.returns is not None else "None"
    header = f"def {function.name}({', '.join(parameters)}) -> {returns}:"
    lines = test.source.split("\n")
    start, body = function.lineno - 1, function.body[0].lineno - 1
    if any(arguments.defaults) or body <= start:
        return test
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    return replace(test, source="\n".join([*lines[:start], indent + header, *lines[body:]]))


_PLAIN = {bool: "bool", int: "int", float: "float", str: "str", bytes: "bytes"}


def _case_types(function: ast.FunctionDef) -> dict[str, str]:
    """Parameter -> the type its cases' values share, from ``@pytest.mark.parametrize``."""
    found: dict[str, str] = {}
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and _attribute(decorator.func) == "parametrize"):
            continue
        if len(decorator.args) < 2:  # noqa: PLR2004 (names, values)
            continue
        try:
            names = ast.literal_eval(decorator.args[0])
            values = ast.literal_eval(decorator.args[1])
        except ValueError:
            continue
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = [row if len(names) > 1 else (row,) for row in values]
        for index, name in enumerate(names):
            kinds = {type(row[index]) for row in rows if len(row) == len(names)}
            if kinds and kinds <= set(_PLAIN) and len(kinds) == 1:
                found[name] = _PLAIN[kinds.pop()]
            elif kinds and kinds <= {int, float}:
                found[name] = "float"
            elif kinds and name.startswith("expected"):
                found[name] = "object"  # compared only
    return found


def _attribute(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else ""


def rewritten(
    tests: Sequence[GeneratedTest], rewrites: Mapping[str, Sequence[tuple[str, str]]]
) -> list[GeneratedTest]:
    """``tests`` with the gate's fixes (``Gated.rewrites``) made on their lines: each line as
    generated becomes the line as written (the first of the test's lines that reads so)."""
    if not rewrites:
        return list(tests)
    done = []
    for test in tests:
        changes = rewrites.get(test.name, ()) if not test.cases else ()
        source = test.source
        for before, after in changes:
            lines = source.split("\n")
            for index, line in enumerate(lines):
                if line.strip() == before.strip():
                    indent = line[: len(line) - len(line.lstrip())]
                    lines[index] = indent + after.strip()
                    break
            source = "\n".join(lines)
        done.append(replace(test, source=source) if source != test.source else test)
    return done


def _raising_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The lines of the statements inside the test's ``with pytest.raises(...)`` blocks."""
    found: set[int] = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.With | ast.AsyncWith):
            continue
        if not any(_is_raises(item.context_expr) for item in node.items):
            continue
        for statement in node.body:
            found.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return found


def _is_raises(node: ast.expr) -> bool:
    call = node.func if isinstance(node, ast.Call) else node
    return (isinstance(call, ast.Attribute) and call.attr == "raises") or (
        isinstance(call, ast.Name) and call.id == "raises"
    )
