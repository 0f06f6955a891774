"""The verification goes down through its steps once (issue 25): ``verify_outcomes`` calls them
in order, each in a module of its own, and hands each the records of the ones before; no step
calls another, nor comes back into the module that orchestrates them, nor is handed a step to
call back (the pytest runs do not call keeping: the flow keeps, then has what is kept run
again)."""

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
    ("miogen.run.check", "first"),
    ("miogen.host.suite_kills", "kills_over_suite"),
    ("miogen.run.keep", "keep_adds"),
    ("miogen.run.check", "again"),
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


def _callee(call: ast.Call) -> str | None:
    """The function a call names: ``verify(...)`` and ``check.verify(...)`` both call verify."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        return call.func.attr
    return None


def called_steps(source: str) -> list[str]:
    """The steps the flow calls, in the order they are written (a step called twice, twice)."""
    steps = {name for _, name in STEPS}
    calls = [node for node in ast.walk(_flow(ast.parse(source))) if isinstance(node, ast.Call)]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    return [name for call in calls if (name := _callee(call)) in steps]


@functools.cache
def imported(path: Path) -> set[str]:
    """The modules ``path`` imports, and their names it uses (``module.name``: imported from
    the module, or read as an attribute of it, ``check.verify``)."""
    found: set[str] = set()
    tree = ast.parse(path.read_text("utf-8"))
    bound: dict[str, str] = {}  # a name the file binds to a module -> the module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            bound |= {alias.asname: alias.name for alias in node.names if alias.asname}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
            bound |= {
                alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names
            }
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in bound:
                found.add(f"{bound[node.value.id]}.{node.attr}")
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
    # verified, the mutants (what decides the keeping read once, from the verification),
    # keeping, what is kept verified again: each step called once, in the order it runs
    assert called == [name for _, name in STEPS]


def test_no_step_is_handed_a_function_to_call_back():
    """The flow hands its steps records, not callables of its own (a step that calls back
    brings the data up into the flow again: ``check.verify`` used to call the keep step)."""
    tree = ast.parse((RUN / "verify.py").read_text("utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    nested = [
        f"line {node.lineno}"
        for statement in _flow(tree).body
        for node in ast.walk(statement)
        if isinstance(node, kinds)
    ]
    assert nested == []


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
    # ... and the verification: its first runs alone also on a dask worker, whose result is
    # the flow's ``verified``
    assert callers("Verifier", "miogen.run.check") == ["run/verify.py"]
    assert callers("verify", "miogen.run.check") == ["ctg/remote.py"]


def test_the_flow_names_the_verification_where_it_is_defined():
    """run/verify.py hands on no name of run/check.py's: its callers import them from there."""
    tree = ast.parse((RUN / "verify.py").read_text("utf-8"))
    exported = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    )
    assert isinstance(exported, ast.List)
    names = {e.value for e in exported.elts if isinstance(e, ast.Constant)}
    assert names.isdisjoint({"verify", "project_folder", "VERIFY_RUNS"})
    for path in [*SERVER.rglob("*.py"), *SERVER.parents[1].joinpath("tests").rglob("*.py")]:
        assert imported(path).isdisjoint(
            {"miogen.run.verify.verify", "miogen.run.verify.project_folder",
             "miogen.run.verify.VERIFY_RUNS"}
        ), path  # fmt: skip


def test_the_checks_find_a_step_back_into_the_module_and_steps_out_of_order():
    source = """
def _split(result):
    return result


def verify_outcomes(location, outcomes):
    found = unique_names(outcomes)
    kept = keep_adds(found)
    verification = verifier.first(found)
    return _split(module_run(found, verification, kept))
"""
    assert own_references(source) == ["line 10: _split"]
    assert called_steps(source) == ["unique_names", "keep_adds", "first", "module_run"]


def modules_entered(source: str) -> list[str]:
    """The modules whose functions and classes the flow calls by name (its steps, and the
    records it makes of theirs), in the order written, a module called again in a row once."""
    tree = ast.parse(source)
    owner = {
        alias.asname or alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    calls = [node for node in ast.walk(_flow(tree)) if isinstance(node, ast.Call)]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    entered: list[str] = []
    for call in calls:
        if isinstance(call.func, ast.Name) and (module := owner.get(call.func.id)):
            if not entered or entered[-1] != module:
                entered.append(module)
    return entered


def test_the_flow_enters_each_module_it_calls_once():
    """Keeping is one stretch of the flow: what decides it comes with the verification
    (``Verification.covers``), not from run/keep before the suite's runs against mutants and
    again after them (issue 25)."""
    entered = modules_entered((RUN / "verify.py").read_text("utf-8"))
    assert "miogen.run.keep" in entered and "miogen.host.suite_kills" in entered
    assert len(entered) == len(set(entered)), entered
