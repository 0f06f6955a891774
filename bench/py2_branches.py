"""`python -m bench.py2_branches`: of the branches a project's own suite misses, those that only
Python 2 takes (by default six 1.16.0 of ``bench projects``).

The project is fetched and its suite measured as ``bench projects`` does (its own pytest from
its root under coverage.py, branch). Each ``if`` of the module whose condition reads nothing but
the Python version is a version guard: ``sys.version_info`` comparisons, and module-level names
bound to such a comparison (six's ``PY2 = sys.version_info[0] == 2``, ``PY3``, ``PY34``). Its
condition is evaluated twice, with Python 2.7's version info and with the running
interpreter's. Where only Python 2.7 takes a side, that side's lines are Python-2-only, and so is
the guard's own branch into it. A missed branch (coverage.py's arc from line A to line B) is
counted as Python-2-only when A is on a Python-2-only line, or A is a guard and B is the side
only Python 2.7 takes. Guards of other kinds (``sys.platform``, ``try: import ...``) are not
counted: the figure is a lower bound of what no test run on Python 3 can cover.

A second figure counts, the same way, the sides of feature checks for a builtin that the running
Python has: ``name = getattr(<module>, "print", None)`` at module level, then ``if name is
None:`` (six's print function for Python 2.4 and 2.5). Python 3 never takes those either, but
they are not counted as Python 2's.

Prints the count and each such branch; ``--json PATH`` writes them.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

from bench.projects import PROJECTS, coverage_files, fetch, unpack

PYTHON2 = (2, 7, 18, "final", 0)


@dataclass(frozen=True)
class Guard:
    line: int  # the ``if``'s
    python2_lines: frozenset[int]  # of the side only Python 2 takes
    python2_start: int | None  # the first line of that side (None: it falls through)
    python3_start: int | None  # the first line of the other side


def version_guards(source: str, running: tuple[object, ...]) -> list[Guard]:
    """The module's ``if`` statements on the Python version with a side only Python 2 takes."""
    tree = ast.parse(source)
    names = {True: _version_names(tree, PYTHON2), False: _version_names(tree, running)}
    guards = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or not _reads_only_version(node.test, names[True]):
            continue
        on_2 = _evaluate(node.test, PYTHON2, names[True])
        on_3 = _evaluate(node.test, running, names[False])
        if on_2 is None or on_3 is None or on_2 == on_3:
            continue
        side, other = (node.body, node.orelse) if on_2 else (node.orelse, node.body)
        guards.append(_dead_side(node, side, other))
    return guards


def _dead_side(node: ast.If, side: list[ast.stmt], other: list[ast.stmt]) -> Guard:
    """The guard ``node`` whose ``side`` (its body or its else) no test run here takes."""
    lines = frozenset(
        line
        for statement in side
        for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
    )
    starts = (side[0].lineno if side else None, other[0].lineno if other else None)
    return Guard(node.lineno, lines, *starts)


def builtin_checks(source: str) -> list[Guard]:
    """``if name is None:`` on a module-level ``name = getattr(x, "<builtin>", None)`` whose
    builtin the running Python has: the ``is None`` side is dead here."""
    import builtins

    tree = ast.parse(source)
    present = set()
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign) else None
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "getattr"
            and len(value.args) == 3
            and isinstance(value.args[1], ast.Constant)
            and isinstance(value.args[1].value, str)
            and hasattr(builtins, value.args[1].value)
        ):
            present.add(node.targets[0].id)
    guards = []
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if (
            isinstance(node, ast.If)
            and isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id in present
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Is)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            guards.append(_dead_side(node, node.body, node.orelse))
    return guards


def script_guards(source: str) -> list[Guard]:
    r"""Module-level ``if __name__ == "__main__":``: a test imports the module, so the body
    (a script's demo, run by ``python module.py`` only) is dead under any test run.

    >>> [(g.line, sorted(g.python2_lines)) for g in script_guards(
    ...     "x = 1\nif __name__ == '__main__':\n    print(x)\n    print(2)\n")]
    [(2, [3, 4])]
    """
    guards = []
    for node in ast.parse(source).body:
        test = node.test if isinstance(node, ast.If) else None
        if (
            isinstance(node, ast.If)
            and isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
            and {ast.dump(test.left), ast.dump(test.comparators[0])}
            == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}
        ):
            guards.append(_dead_side(node, node.body, node.orelse))
    return guards


def python2_only(missing: list[list[int]], guards: list[Guard]) -> list[tuple[int, int]]:
    """The missed arcs (from, to) that only Python 2 takes (see the module docstring)."""
    lines = frozenset().union(*(g.python2_lines for g in guards)) if guards else frozenset()
    by_line = {g.line: g for g in guards}
    found = []
    for start, end in missing:
        guard = by_line.get(start)
        if start in lines:
            found.append((start, end))
        elif guard is not None and _into_python2_side(guard, end):
            found.append((start, end))
    return found


def _into_python2_side(guard: Guard, end: int) -> bool:
    if guard.python2_start is not None:
        return end == guard.python2_start
    return end != guard.python3_start  # Python 2 falls through


def _version_names(tree: ast.Module, version: tuple[object, ...]) -> dict[str, object]:
    """Module-level names bound to a condition on the version, evaluated at ``version``."""
    names: dict[str, object] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _reads_only_version(node.value, names)
        ):
            value = _evaluate(node.value, version, names)
            if value is not None:
                names[node.targets[0].id] = value
    return names


def _reads_only_version(node: ast.expr, names: dict[str, object]) -> bool:
    """Whether ``node`` reads ``sys.version_info`` or such names, and nothing else."""
    reads_version = False
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute):
            if not (isinstance(child.value, ast.Name) and child.value.id == "sys"):
                return False
            if child.attr != "version_info":
                return False
            reads_version = True
        elif isinstance(child, ast.Name):
            if child.id in names:
                reads_version = True
            elif child.id != "sys":
                return False
        elif isinstance(child, ast.Call | ast.Lambda | ast.NamedExpr):
            return False
    return reads_version


def _evaluate(node: ast.expr, version: tuple[object, ...], names: dict[str, object]) -> object:
    """``node``'s value with ``sys.version_info`` at ``version`` (None if it cannot say)."""
    fake_sys = types.SimpleNamespace(version_info=version)
    code = compile(ast.Expression(node), "<guard>", "eval")
    try:
        return bool(eval(code, {"__builtins__": {}, "sys": fake_sys, **names}))  # noqa: S307
    except Exception:  # noqa: BLE001 - a condition that does not evaluate is no guard
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.py2_branches")
    parser.add_argument("--project", default="six", help="a name of bench projects' list")
    parser.add_argument("--json", help="write the branches to this file")
    args = parser.parse_args(argv)
    [project] = [p for p in PROJECTS if p.name == args.project]
    report: dict[str, object] = {"project": f"{project.name} {project.version}", "modules": {}}
    total_missed = total_python2 = total_builtin = 0
    with tempfile.TemporaryDirectory(prefix="bench-py2-") as work:
        root = unpack(fetch(project), Path(work))
        files, _ = coverage_files(root, project.modules, [])
        for module in project.modules:
            entry = files.get(module) or files.get(str(root / module)) or {}
            missing = entry.get("missing_branches", [])
            guards = version_guards((root / module).read_text(), tuple(sys.version_info))
            only = python2_only(missing, guards)
            rest = [arc for arc in missing if tuple(arc) not in set(only)]
            dead = python2_only(rest, builtin_checks((root / module).read_text()))
            total_missed += len(missing)
            total_python2 += len(only)
            total_builtin += len(dead)
            report["modules"][module] = {  # type: ignore[index]
                "missed": len(missing),
                "python2_only": len(only),
                "branches": [list(arc) for arc in only],
                "guards": [g.line for g in guards],
                "builtin_checks": [list(arc) for arc in dead],
            }
            for start, end in only:
                print(f"{module}: {start}->{end} only on Python 2")
            for start, end in dead:
                print(f"{module}: {start}->{end} only without a builtin this Python has")
    report["missed"], report["python2_only"] = total_missed, total_python2
    report["builtin_checks"] = total_builtin
    others = total_missed - total_python2 - total_builtin
    print(
        f"{project.name} {project.version}: the suite misses {total_missed} branches: "
        f"{total_python2} only Python 2 takes (version guards), {total_builtin} only a Python "
        f"without a builtin this one has (feature checks), {others} others"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
