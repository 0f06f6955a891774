"""The verification goes down through its steps once (issue 25): ``verify_outcomes`` calls them
in order, each in a module of its own, and hands each the records of the ones before; no step
calls another, nor comes back into the module that orchestrates them."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server" / "miogen"
RUN = SERVER / "run"
FLOW = "verify_outcomes"
# The steps, in their order in the flow: the module that does each, and its function.
STEPS = [
    ("miogen.emit.module", "unique_names"),
    ("miogen.run.check", "verify"),
    ("miogen.host.suite_kills", "kills_over_suite"),
    ("miogen.run.keep", "keep_adds"),
    ("miogen.run.result", "module_run"),
]


def _flow(tree: ast.Module) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == FLOW)


def own_references(source: str) -> list[str]:
    """The flow's uses of its own module's functions and classes (each would bring the flow
    back into run/verify.py after a step left it)."""
    tree = ast.parse(source)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    defined = {node.name for node in tree.body if isinstance(node, kinds)} - {FLOW}
    return [
        f"line {node.lineno}: {node.id}"
        for statement in _flow(tree).body  # (its annotations name types only)
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id in defined
    ]


def called_steps(source: str) -> list[str]:
    """The steps the flow calls, in the order they are written (a step called twice, twice)."""
    steps = {name for _, name in STEPS}
    calls = [
        node
        for node in ast.walk(_flow(ast.parse(source)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    return [
        call.func.id for call in calls if isinstance(call.func, ast.Name) and call.func.id in steps
    ]


@functools.cache
def imported(path: Path) -> set[str]:
    """The modules ``path`` imports, and their names imported (``module.name``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def callers(name: str, module: str) -> list[str]:
    """The files of the package that import ``name`` from ``module``."""
    return sorted(
        str(path.relative_to(SERVER))
        for path in SERVER.rglob("*.py")
        if f"{module}.{name}" in imported(path)
    )


def test_the_flow_never_comes_back_into_its_own_module():
    assert own_references((RUN / "verify.py").read_text("utf-8")) == []


def test_the_flow_calls_its_steps_in_order():
    called = called_steps((RUN / "verify.py").read_text("utf-8"))
    # the second verify: what is kept, alone, when keeping left some out
    assert called == [
        "unique_names", "verify", "kills_over_suite", "keep_adds", "verify", "module_run"
    ]  # fmt: skip


def test_no_step_calls_another_or_the_flow():
    step_modules = {module for module, _ in STEPS if module.startswith("miogen.run.")}
    for module in step_modules:
        path = SERVER / Path(*module.split(".")[1:]).with_suffix(".py")
        others = {m for m in step_modules if m != module and m != "miogen.run.result"}
        uses = imported(path)
        assert "miogen.run.verify" not in uses, path
        assert not others & uses, (path, others & uses)


def test_only_the_flow_calls_the_steps_that_follow_the_verification():
    assert callers("keep_adds", "miogen.run.keep") == ["run/verify.py"]
    assert callers("kills_over_suite", "miogen.host.suite_kills") == ["run/verify.py"]
    assert callers("module_run", "miogen.run.result") == ["run/verify.py"]
    # ... and the verification: also on a dask worker, whose result is the flow's ``verified``
    assert callers("verify", "miogen.run.check") == ["run/verify.py"]


def test_the_checks_find_a_step_back_into_the_module_and_steps_out_of_order():
    source = """
def _split(result):
    return result


def verify_outcomes(location, outcomes):
    found = unique_names(outcomes)
    kept = keep_adds(found)
    verification = verify(location, found)
    return _split(module_run(found, verification, kept))
"""
    assert own_references(source) == ["line 10: _split"]
    assert called_steps(source) == ["unique_names", "keep_adds", "verify", "module_run"]
