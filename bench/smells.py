"""`python -m bench smells`: what a reviewer would not merge in the emitted tests of the real corpus.

For each module (``--modules``, default the dev set of bench/realcorpus.py) miogen generates its
tests as `bench real` does (5 s, seed 0) into ``<out>/runs/<module>/miogen/test_miogen.py``
(``--reuse`` keeps files already there), or with ``--evaluations N`` (and ``--seed S``) under a
budget of fitness evaluations: the same tests whatever the machine's load, as a comparison of
two commits needs. Then per 100 tests:

- static counts from the file's syntax tree (simple rules, see each ``_count_*``):
  interpreter-message matches, exact float equality, fuzz-like literals, default-valued
  keywords, unchecked query calls, multi-behaviour tests, unrelated state asserts;
- mypy errors and ruff findings in the file under a strict configuration (``MYPY_STRICT``,
  ``RUFF_IGNORED``), the module under test read from its source;
- failing tests when the file runs with the clock five years ahead (libfaketime: "n/a" where it
  is not installed), in another locale, time zone, home and user (``clock.elsewhere``) and on
  the other CPythons 3.10, 3.12, 3.13 (each in a venv with pytest, cached in .miogen/pythons/;
  "n/a" where not installed, "-" where the module does not import).

Writes ``bench/results/smells.md`` (or ``--report``).
"""

from __future__ import annotations

import argparse
import ast
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miogen.host import clock
from miogen.host.measure import read_junit

from bench import real, realcorpus

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
PYTHONS = ("3.10", "3.12", "3.13")
PYTHON_CACHE = REPO / ".miogen" / "pythons"
# The subjects' project says they support the oldest Python their tests are run on here, as a
# user's project would (``requires-python``): without it miogen writes for the Python it runs
# on (3.11's ``datetime.UTC``, emit/versions.py) and 3.10 fails what 3.10 was never promised.
RUFF_TARGET = "py" + PYTHONS[0].replace(".", "")
SUBJECT_PROJECT = f'[project]\nname = "subject"\nrequires-python = ">={PYTHONS[0]}"\n'
CHECKS = ("mypy", "ruff")
STATIC = (
    "interpreter_messages", "float_equality", "fuzz_literals", "default_keywords",
    "unchecked_queries", "multi_behaviour", "unrelated_state",
)  # fmt: skip


@dataclass
class Smells:
    """One test file's counts."""

    module: str
    tests: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATIC, 0))
    clock_failures: int | None = None  # None: not run (no libfaketime)
    elsewhere_failures: int | None = None  # another locale, time zone, home, user
    checks: dict[str, int | None] = field(default_factory=dict)  # "mypy"/"ruff" -> findings
    python_failures: dict[str, int | None | str] = field(default_factory=dict)


# --- the static rules ------------------------------------------------------------------------


@dataclass
class Subject:
    """What the rules need to know of the module under test."""

    source: str
    classes: set[str]
    functions: set[str]  # module functions and methods, by name
    defaults: dict[str, dict[str, object]]  # callable name -> keyword -> default value
    queries: set[str]  # callables that return a value and store nothing
    string_words: set[str] = field(default_factory=set)  # word pairs (and words) in its strings
    init_parameters: dict[str, list[str]] = field(default_factory=dict)  # class -> __init__'s


def read_subject(source: str, package: Sequence[str] = ()) -> Subject:
    """``package``: the sources of the module's package, where its messages may be made."""
    tree = ast.parse(source)
    classes, functions, queries = set(), set(), set()
    defaults: dict[str, dict[str, object]] = {}
    parameters: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            classes.add(node.name)
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and item.name == "__init__"
                ):
                    defaults[node.name] = _defaults(item)
                    given = [*item.args.posonlyargs, *item.args.args][1:]
                    parameters[node.name] = [a.arg for a in given]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("__"):
                continue
            functions.add(node.name)
            defaults.setdefault(node.name, _defaults(node))
            if _is_query(node):
                queries.add(node.name)
    words = _string_words([source, *package])
    return Subject(source, classes, functions, defaults, queries, words, parameters)


def _string_words(sources: list[str]) -> set[str]:
    """Each word and each pair of consecutive words of the sources' string literals."""
    found: set[str] = set()
    for text in sources:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words = _WORD.findall(node.value)
                found.update(words)
                found.update(" ".join(words[i : i + 2]) for i in range(len(words) - 1))
    return found


def _defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, object]:
    arguments = function.args
    found: dict[str, object] = {}
    positional = [*arguments.posonlyargs, *arguments.args]
    given = positional[len(positional) - len(arguments.defaults) :]
    pairs = list(zip(given, arguments.defaults, strict=True))
    keywords = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    pairs += [(a, d) for a, d in keywords if d is not None]
    for argument, default in pairs:
        try:
            found[argument.arg] = ast.literal_eval(default)
        except ValueError:
            continue
    return found


def _is_query(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Returns a value and stores nothing: no attribute or item assignment, no ``global``."""
    returns = any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(function))
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Global | ast.Nonlocal | ast.Delete | ast.Yield):
            return False
        if any(isinstance(t, ast.Attribute | ast.Subscript) for t in targets):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _MUTATORS:
                return False
    return returns


_MUTATORS = frozenset(
    "append extend insert pop popitem remove clear update add discard setdefault sort reverse "
    "write writelines send close".split()
)
_WORD = re.compile(r"[A-Za-z]+")


def count_file(module: str, test_source: str, subject: Subject) -> Smells:
    """The static counts of one emitted file."""
    tree = ast.parse(test_source)
    smells = Smells(module)
    for function in tree.body:
        if not (isinstance(function, ast.FunctionDef) and function.name.startswith("test")):
            continue
        cases = _cases(function)
        smells.tests += cases
        counts = smells.counts
        counts["interpreter_messages"] += cases * _count_interpreter_messages(function, subject)
        counts["float_equality"] += cases * _count_float_equality(function)
        counts["fuzz_literals"] += _count_fuzz_literals(function, subject)
        counts["default_keywords"] += cases * _count_default_keywords(function, subject)
        counts["unchecked_queries"] += cases * _count_unchecked_queries(function, subject)
        counts["multi_behaviour"] += cases * _is_multi_behaviour(function, subject)
        counts["unrelated_state"] += cases * _count_unrelated_state(function, subject)
    return smells


def _cases(function: ast.FunctionDef) -> int:
    for decorator in function.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "parametrize"
            and len(decorator.args) > 1
            and isinstance(decorator.args[1], ast.List | ast.Tuple)
        ):
            return max(1, len(decorator.args[1].elts))
    return 1


def _count_interpreter_messages(function: ast.FunctionDef, subject: Subject) -> int:
    """``pytest.raises(X, match=m)`` where no two consecutive words of ``m`` occur together in
    a string of the package's source: the words are CPython's (or another library's), not the
    project's. ``Unknown method: 'x'`` from ``f"Unknown method: {m!r}"`` is the project's."""
    found = 0
    strings = subject.string_words
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and _name(node.func) == "raises"):
            continue
        for keyword in node.keywords:
            if keyword.arg != "match" or not isinstance(keyword.value, ast.Constant):
                continue
            words = _WORD.findall(re.sub(r"\\(.)", r"\1", str(keyword.value.value)))
            size = min(2, len(words))
            runs = {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}
            if runs and not runs & strings:
                found += 1
    return found


def _count_float_equality(function: ast.FunctionDef) -> int:
    """``==`` / ``!=`` against a literal holding a float that is not 0.0/1.0-like (outside
    ``pytest.approx``)."""
    found = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and any(
            isinstance(o, ast.Eq | ast.NotEq) for o in node.ops
        ):
            sides = [node.left, *node.comparators]
            if any(_inexact_float(side) for side in sides):
                found += 1
    return found


def _inexact_float(node: ast.expr) -> bool:
    """A float literal with more than three decimals in ``node``, outside any call: the
    arguments of ``pstdev([-1274, 607.46359375]) == pytest.approx(784.1)`` are inputs, not
    what is compared."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float) and node.value != round(node.value, 3)
    if isinstance(node, ast.Call):
        return False
    return any(
        _inexact_float(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
    )


def _count_fuzz_literals(function: ast.FunctionDef, subject: Subject) -> int:
    """Literal arguments of calls that read as random: strings mixing letters with punctuation
    or odd case (``"sxdIywkc#"``), ints of three digits and more and floats of more than three
    decimals that the module's source does not contain; a number written as a string
    (``Decimal("-60329")``) is that number. A parametrized test's inputs count too (its columns
    but ``expected...``, the outputs), but not what an assertion compares with
    (``assert result == Decimal("-40.7555")``, ``== re.compile("^((Args)|...)$")``: the
    code's output, written as it is), nor the year of a date (``datetime.date(2008, 2, 28)``:
    a year of four digits is how a date is written, not a made-up number; its month and day
    are small). Each literal counts once, however deeply its call is nested in others
    (``f(Decimal(-60329))``)."""
    expected = {
        id(inner)
        for node in ast.walk(function)
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)
        for comparator in node.test.comparators
        for inner in ast.walk(comparator)
    }
    inputs: list[ast.expr] = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or _name(node.func) in ("raises", "approx"):
            continue
        if id(node) in expected:
            continue
        if _name(node.func) == "parametrize":
            inputs += _parametrized_inputs(node)
        else:
            inputs += [*node.args, *(k.value for k in node.keywords)]
    years = {
        id(node.args[0])
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and _name(node.func) in ("date", "datetime") and node.args
        and isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is int
        and YEARS[0] <= node.args[0].value <= YEARS[1]
    }  # fmt: skip
    literals = {  # once each: ``isinstance(f(1805), C)`` holds 1805 in both calls' arguments
        id(inner): inner
        for value in inputs
        for inner in ast.walk(value)
        if isinstance(inner, ast.Constant) and id(inner) not in years
    }
    return sum(1 for inner in literals.values() if _fuzz_like(inner.value, subject.source))


YEARS = (1900, 2100)  # a date's year in this range reads as a year


def _parametrized_inputs(decorator: ast.Call) -> list[ast.expr]:
    """The input cells of ``pytest.mark.parametrize(names, rows)``: the rows' values under
    names that do not start with ``expected``."""
    if len(decorator.args) < 2 or not isinstance(decorator.args[1], ast.List | ast.Tuple):
        return []
    names_node = decorator.args[0]
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",")]
    elif isinstance(names_node, ast.List | ast.Tuple):
        names = [str(n.value) for n in names_node.elts if isinstance(n, ast.Constant)]
    else:
        return []
    cells: list[ast.expr] = []
    for row in decorator.args[1].elts:
        if isinstance(row, ast.Call) and _name(row.func) == "param":
            values = list(row.args)
        elif len(names) > 1 and isinstance(row, ast.Tuple | ast.List):
            values = list(row.elts)
        else:
            values = [row]
        cells += [v for n, v in zip(names, values, strict=False) if not n.startswith("expected")]
    return cells


_PLAIN = re.compile(r"[A-Za-z0-9 _\-./:,@]*")
_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")
_ODD_CASE = re.compile(r"[a-z][A-Z][a-z]|[A-Z]{2}[a-z]{2}")


def _fuzz_like(value: object, source: str) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        number = float(value) if "." in value else int(value)
        return _fuzz_like(number, source) and value not in source
    if isinstance(value, str):
        if len(value) < 3 or repr(value) in source or f'"{value}"' in source:
            return False
        return not _PLAIN.fullmatch(value) or bool(_ODD_CASE.search(value))
    if isinstance(value, int):
        return abs(value) >= 100 and str(value) not in source
    if isinstance(value, float):
        return value != round(value, 3) and repr(value) not in source
    return False


def _count_default_keywords(function: ast.FunctionDef, subject: Subject) -> int:
    found = 0
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        defaults = subject.defaults.get(_name(node.func), {})
        for keyword in node.keywords:
            if keyword.arg in defaults:
                try:
                    value = ast.literal_eval(keyword.value)
                except ValueError:
                    continue
                default = defaults[keyword.arg]
                if type(value) is type(default) and value == default:
                    found += 1
    return found


def _count_unchecked_queries(function: ast.FunctionDef, subject: Subject) -> int:
    """A call of a query of the module as a statement of its own (its result dropped), outside
    ``pytest.raises``."""
    found = 0
    for node in ast.walk(function):
        if isinstance(node, ast.With) and any(
            _name(_call(i.context_expr)) == "raises" for i in node.items
        ):
            continue
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and _name(statement.value.func) in subject.queries
            ):
                found += 1
    return found


def _is_multi_behaviour(function: ast.FunctionDef, subject: Subject) -> int:
    """More than one function or method of the module under test: the test's last call and
    every call whose outcome it checks (in an ``assert`` or a ``pytest.raises`` block). Other
    calls are setup when a later statement uses what they made, or what they acted on unless
    they are queries (``timer.start()`` before ``timer.stop()``, ``Fraction.from_decimal(d)``
    before its ``limit_denominator()``), as constructors are; a dropped query, or a call on
    what nothing later uses, is a behaviour of its own."""
    steps = _steps(function.body, checked=False)
    calls = [
        (position, node, checked)
        for position, (statement, checked) in enumerate(steps)
        for node in ast.walk(statement)
        if isinstance(node, ast.Call) and _name(node.func) in subject.functions
    ]
    if not calls:
        return 0
    behaviours = {_name(node.func) for _, node, checked in calls if checked}
    behaviours.add(_name(calls[-1][1].func))
    for position, node, checked in calls[:-1]:
        if checked:
            continue
        step = steps[position][0]
        acted_on = set()
        if _name(node.func) not in subject.queries:  # a query changes nothing a later call sees
            acted_on = {n.id for n in ast.walk(node.func) if isinstance(n, ast.Name)}
        if isinstance(step, ast.Assign):
            acted_on |= {n.id for t in step.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        later = {
            n.id for s, _ in steps[position + 1 :] for n in ast.walk(s) if isinstance(n, ast.Name)
        }
        if not acted_on & later:
            behaviours.add(_name(node.func))
    return int(len(behaviours) > 1)


def _steps(body: list[ast.stmt], checked: bool) -> list[tuple[ast.stmt, bool]]:
    """The statements in order, ``with`` blocks opened (their items a step of their own), each
    with whether it is checked: an ``assert``, or inside ``pytest.raises``."""
    found: list[tuple[ast.stmt, bool]] = []
    for statement in body:
        if isinstance(statement, ast.With):
            raises = any(_name(_call(i.context_expr)) == "raises" for i in statement.items)
            items = [ast.Expr(i.context_expr) for i in statement.items]
            found += [(item, checked) for item in items]
            found += _steps(statement.body, checked or raises)
        else:
            found.append((statement, checked or isinstance(statement, ast.Assert)))
    return found


def _count_unrelated_state(function: ast.FunctionDef, subject: Subject) -> int:
    """``assert stack.capacity == 3`` after ``stack = Stack(capacity=3)`` (or the default of
    ``capacity`` when it is not passed) in a test that calls something after the constructor:
    the state the setup gave, restated, not what the call under test did (repeated in every
    test of the class)."""
    built: dict[str, dict[str, ast.expr | object]] = {}  # variable -> attribute -> given
    last_built: dict[str, int] = {}  # variable -> index of its construction among the calls
    calls = 0
    found = 0
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and (
                _name(node.func) in subject.functions or _name(node.func) in subject.classes
            ):
                calls += 1
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Call)
            and _name(statement.value.func) in subject.classes
        ):
            cls = _name(statement.value.func)
            given: dict[str, ast.expr | object] = dict(subject.defaults.get(cls, {}))
            names = subject.init_parameters.get(cls, [])
            given.update(zip(names, statement.value.args, strict=False))
            given.update({k.arg: k.value for k in statement.value.keywords if k.arg})
            built[statement.targets[0].id] = given
            last_built[statement.targets[0].id] = calls
        if not isinstance(statement, ast.Assert):
            continue
        test = statement.test
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq | ast.Is)
            and isinstance(test.left, ast.Attribute)
            and isinstance(test.left.value, ast.Name)
        ):
            continue
        variable, attribute = test.left.value.id, test.left.attr
        if variable not in built or attribute not in built[variable]:
            continue
        if calls <= last_built[variable]:
            continue  # the construction is the call under test
        given_value = built[variable][attribute]
        try:
            expected = ast.literal_eval(test.comparators[0])
            value = (
                ast.literal_eval(given_value) if isinstance(given_value, ast.expr) else given_value
            )
        except ValueError:
            continue
        if type(value) is type(expected) and value == expected:
            found += 1
    return found


def _call(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


# --- mypy and ruff under a strict configuration -----------------------------------------------

# mypy --strict (every test body checked), but for the annotations of test functions (as
# RUFF_IGNORED's ANN; projects' strict settings commonly leave them out for tests) and for calls
# into the project's own unannotated code (the tests cannot type it).
MYPY_STRICT = (
    "--strict", "--allow-untyped-defs", "--allow-incomplete-defs", "--allow-untyped-calls",
    "--no-error-summary", "--show-error-codes",
)  # fmt: skip
# Every ruff rule but those that no project applies to its tests (asserts, docstrings and
# annotations of test functions, magic values in assertions, folders without __init__) and
# the two that conflict with the formatter.
RUFF_IGNORED = ("S101", "D", "ANN", "INP001", "PLR2004", "CPY001", "COM812", "ISC001")
# ``--project-checks``: the same configuration as the subject project's own (``mypy_path``: where
# the module under test is read from), so that miogen's gate (server/miogen/run/gate.py) applies
# it while the tests are generated; the counts above are taken as without it.
MYPY_PROJECT = """
[tool.mypy]
warn_unused_configs = true
disallow_any_generics = true
disallow_subclassing_any = true
check_untyped_defs = true
disallow_untyped_decorators = true
warn_redundant_casts = true
warn_unused_ignores = true
warn_return_any = true
implicit_reexport = false
strict_equality = true
extra_checks = true
mypy_path = "{search}"
"""
RUFF_PROJECT = """
[tool.ruff]
target-version = "{target}"

[tool.ruff.lint]
select = ["ALL"]
ignore = [{ignored}]
"""
_FINDING = re.compile(r"^(?P<path>[^:]+):\d+:(?:\d+:)? error:", re.MULTILINE)


def mypy_errors(test_file: Path, import_root: Path, package: str | None) -> int | None:
    """Errors mypy finds in ``test_file`` (not in the code it imports) under ``MYPY_STRICT``.

    The module under test is analysed from source: a stdlib copy from ``import_root``, an
    installed package (``package``: its top folder there) through a link in a scratch folder,
    so that a package without ``py.typed`` is read rather than taken as ``Any``."""
    with tempfile.TemporaryDirectory(prefix="bench-smells-mypy-") as scratch:
        search = import_root
        if package is not None:
            search = Path(scratch) / "path"
            search.mkdir()
            (search / package).symlink_to(import_root / package)
        completed = subprocess.run(
            [sys.executable, "-m", "mypy", *MYPY_STRICT, "--cache-dir",
             os.path.join(scratch, "cache"), test_file.name],
            cwd=test_file.parent, env={**os.environ, "MYPYPATH": str(search)},
            capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if completed.returncode not in (0, 1):
        return None
    return sum(1 for m in _FINDING.finditer(completed.stdout) if m["path"] == test_file.name)


def project_checks(folder: Path, import_root: Path, package: str | None) -> str:
    """The strict configuration (``MYPY_STRICT``, ``RUFF_IGNORED``) as the subject project's
    own, for ``--project-checks``: the module under test read from source as ``mypy_errors``
    reads it (a package through a link in ``folder``/mypypath)."""
    search = import_root
    if package is not None:
        search = folder / "mypypath"
        search.mkdir(exist_ok=True)
        if not (search / package).exists():
            (search / package).symlink_to(import_root / package)
    ignored = ", ".join(f'"{code}"' for code in RUFF_IGNORED)
    return MYPY_PROJECT.format(search=search) + RUFF_PROJECT.format(
        target=RUFF_TARGET, ignored=ignored
    )


def ruff_findings(test_file: Path) -> int | None:
    """Findings of ``ruff check --select ALL`` (but ``RUFF_IGNORED``) in ``test_file``, with no
    fix applied and no project configuration read but the Python the subject's project promises
    (``SUBJECT_PROJECT``; ruff would read it from ``requires-python``): ruff's own default
    would ask 3.10's tests for 3.11's ``datetime.UTC`` (UP017)."""
    completed = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-fix", "--select", "ALL",
         "--ignore", ",".join(RUFF_IGNORED), "--output-format", "concise", "--quiet",
         "--target-version", RUFF_TARGET, test_file.name],
        cwd=test_file.parent, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    if completed.returncode not in (0, 1):
        return None
    return sum(1 for line in completed.stdout.splitlines() if line.startswith(test_file.name))


# --- the runs --------------------------------------------------------------------------------


def failures(
    python: str, test_file: Path, import_root: Path, environment: dict[str, str] | None = None
) -> int | str:
    """Failing tests of ``test_file`` under ``python`` (pytest's JUnit count), or why not run."""
    with tempfile.TemporaryDirectory(prefix="bench-smells-") as scratch:
        junit = os.path.join(scratch, "junit.xml")
        base = {"PYTHONPATH": str(import_root), "PATH": "/usr/bin:/bin",
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
        completed = subprocess.run(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--confcutdir",
             str(test_file.parent), f"--junit-xml={junit}", str(test_file)],
            cwd=scratch, env={**base, **(environment or {})}, capture_output=True, text=True,
            timeout=600, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if not os.path.exists(junit):
            return f"no run ({completed.returncode})"
        verdict = read_junit(junit)
        if completed.returncode not in (0, 1) or verdict.passed + verdict.failed == 0:
            if "ModuleNotFoundError" in completed.stdout or "ImportError" in completed.stdout:
                return "-"  # the module does not import on this Python
        return verdict.failed + verdict.errors


def interpreter(version: str) -> str | None:
    home = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(glob.glob(str(home / "versions" / f"{version}.*" / "bin" / "python")))
    return found[-1] if found else shutil.which(f"python{version}")


def python_with_pytest(version: str) -> str | None:
    """A venv of that CPython with pytest (cached), None where the CPython is not installed."""
    python = interpreter(version)
    if python is None:
        return None
    venv = PYTHON_CACHE / version
    if not (venv / "ready").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pytest"],
                       check=True, stdin=subprocess.DEVNULL)  # fmt: skip
        (venv / "ready").write_text("")
    return str(venv / "bin" / "python")


# --- the command -----------------------------------------------------------------------------


def run(
    modules: list[realcorpus.RealModule],
    out: Path,
    reuse: bool,
    log=print,
    generator: Path | None = None,
    evaluations: int | None = None,
    seed: int = 0,
    checks: bool = False,
) -> list[Smells]:
    """``generator``: a folder holding another ``miogen`` package (an older commit's
    ``server/``, exported) to generate the tests with, for numbers before a change;
    ``evaluations``: a budget in fitness evaluations per module instead of seconds;
    ``checks``: the subject project configures the strict mypy and ruff (``project_checks``)."""
    site = realcorpus.ensure_venv(log=log)
    pythons = {version: python_with_pytest(version) for version in PYTHONS}
    found = []
    for module in modules:
        folder = real.job_folder(out, module, real.OURS, seed)
        test_file = folder / "test_miogen.py"
        path, root = module.locate(site, folder / "proj")
        if not (reuse and test_file.exists()):
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            # The subject's project, not the repository the results folder is in: the file is
            # written as in a project without configuration (miogen's own line length is 100).
            path, root = module.locate(site, folder / "proj")
            package = None if module.copy else module.module.split(".")[0]
            configured = project_checks(folder, root, package) if checks else ""
            (folder / "pyproject.toml").write_text(SUBJECT_PROJECT + configured)
            budget = f"{evaluations} evaluations" if evaluations else f"{real.BUDGETS[real.OURS]} s"
            log(f"{module.name}: generating ({budget}, seed {seed})")
            _generate(path, root, folder, generator, evaluations, seed)
        if not test_file.exists():
            log(f"{module.name}: no test file")
            continue
        subject = read_subject(path.read_text(encoding="utf-8"), _package_sources(module, root))
        smells = count_file(module.name, test_file.read_text(encoding="utf-8"), subject)
        package = None if module.copy else module.module.split(".")[0]
        smells.checks = {"mypy": mypy_errors(test_file, root, package),
                         "ruff": ruff_findings(test_file)}  # fmt: skip
        if clock.libfaketime() is not None:
            ahead = clock.ahead_environment({})
            counted = failures(sys.executable, test_file, root, ahead)
            smells.clock_failures = counted if isinstance(counted, int) else None
        counted = failures(sys.executable, test_file, root, clock.elsewhere().environment())
        smells.elsewhere_failures = counted if isinstance(counted, int) else None
        for version, python in pythons.items():
            smells.python_failures[version] = (
                None if python is None else failures(python, test_file, root)
            )
        log(f"{module.name}: {smells.tests} tests, {smells.counts}, clock ahead: "
            f"{smells.clock_failures}, locale/TZ: {smells.elsewhere_failures}, "
            f"other Pythons: {smells.python_failures}, strict checks: {smells.checks}")  # fmt: skip
        found.append(smells)
    return found


def _generate(
    path: Path,
    root: Path,
    folder: Path,
    generator: Path | None,
    evaluations: int | None = None,
    seed: int = 0,
) -> None:
    saved = os.environ.get("PYTHONPATH")
    if generator is not None:
        os.environ["PYTHONPATH"] = str(generator.resolve())
    try:
        real.run_ours(
            path, root, folder, real.BUDGETS[real.OURS], seed=seed, evaluations=evaluations
        )
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def _package_sources(module: realcorpus.RealModule, root: Path) -> list[str]:
    """The sources of the module's top package (none for a stdlib copy: it is one file)."""
    if module.copy:
        return []
    top = root / module.module.split(".")[0]
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(top.rglob("*.py"))]


def per_100(count: int, tests: int) -> str:
    return f"{100 * count / tests:.1f}" if tests else "-"


def report(found: list[Smells], command: str, load: tuple[float, ...] | None = None) -> str:
    """The table; ``load``: the load average when the run started (tests are generated under a
    time budget, so the load changes them)."""
    heads = ["module", "tests", *STATIC, *(f"{c} errors" for c in CHECKS), "clock +5y failing",
             "locale/TZ failing", *(f"py{v} failing" for v in PYTHONS)]  # fmt: skip
    lines = [
        "# Smells of the emitted tests (issue 24)",
        "",
        f"Generated by `{command}`. Static counts are per 100 tests (simple syntax-tree rules, "
        "bench/smells.py); mypy and ruff errors are counts in the file under a strict "
        f"configuration (`mypy {' '.join(MYPY_STRICT[:4])}`; `ruff check --select ALL` but "
        f"{', '.join(RUFF_IGNORED)}); the last columns are failing tests (n/a: libfaketime or "
        "that Python is not installed; -: the module does not import there).",
        "",
        *(
            [
                f"Load average at start: {', '.join(f'{x:.2f}' for x in load)} "
                f"({os.cpu_count()} cores).",
                "",
            ]
            if load
            else []
        ),
        "| " + " | ".join(heads) + " |",
        "|" + "---|" * len(heads),
    ]
    total = Smells("all")
    for smells in found:
        total.tests += smells.tests
        for key in STATIC:
            total.counts[key] += smells.counts[key]
        cells = [smells.module, str(smells.tests),
                 *(per_100(smells.counts[k], smells.tests) for k in STATIC),
                 *(_cell(smells.checks.get(c)) for c in CHECKS),
                 _cell(smells.clock_failures), _cell(smells.elsewhere_failures),
                 *(_cell(smells.python_failures.get(v)) for v in PYTHONS)]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    summed = [_sum([s.checks.get(c) for s in found]) for c in CHECKS]
    summed += [_sum([s.clock_failures for s in found])]
    summed += [_sum([s.elsewhere_failures for s in found])]
    summed += [_sum([s.python_failures.get(v) for s in found]) for v in PYTHONS]
    lines.append(
        "| **all** | "
        + str(total.tests)
        + " | "
        + " | ".join(per_100(total.counts[k], total.tests) for k in STATIC)
        + " | "
        + " | ".join(summed)
        + " |"
    )
    return "\n".join(lines) + "\n"


def _cell(value: int | str | None) -> str:
    return "n/a" if value is None else str(value)


def _sum(values: list) -> str:
    numbers = [v for v in values if isinstance(v, int)]
    return str(sum(numbers)) if numbers else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench smells", description=__doc__)
    add_arguments(parser)
    return run_command(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--modules", nargs="+", help="these modules only (names as listed)")
    parser.add_argument("--set", choices=("dev", "held-out", "all"), default="dev")
    parser.add_argument("--out", type=Path, default=RESULTS / "smells", help="where tests go")
    parser.add_argument("--reuse", action="store_true", help="keep test files already there")
    parser.add_argument("--report", type=Path, default=RESULTS / "smells.md")
    parser.add_argument(
        "--generator", type=Path, help="folder with another miogen package to generate with"
    )
    parser.add_argument(
        "--evaluations",
        type=int,
        help="a budget of fitness evaluations per module instead of 5 s (load-independent)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the search's seed (default 0)")
    parser.add_argument(
        "--project-checks",
        action="store_true",
        help="the subject project configures the strict mypy and ruff while miogen generates",
    )


def run_command(args: argparse.Namespace) -> int:
    modules = realcorpus.select(args.modules, args.set)
    load = os.getloadavg()
    found = run(
        modules,
        args.out.resolve(),
        args.reuse,
        generator=args.generator,
        evaluations=args.evaluations,
        seed=args.seed,
        **({"checks": True} if args.project_checks else {}),
    )
    command = "python -m bench smells" + (
        f" --modules {' '.join(args.modules)}" if args.modules else ""
    )
    if args.evaluations:
        command += f" --evaluations {args.evaluations}"
    if args.seed:
        command += f" --seed {args.seed}"
    if args.project_checks:
        command += " --project-checks"
    args.report.write_text(report(found, command, load), encoding="utf-8")
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
