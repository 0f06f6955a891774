"""``miogen generate`` goes down through its steps once (issue 25): ``generate_module`` calls
them in order, each in a module of its own, and no step calls back into the module it left."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server" / "miogen"
STEPS = ["locate", "confine", "by_suite", "run_and_verify", "write_module"]


def _flow() -> ast.FunctionDef:
    tree = ast.parse((SERVER / "run" / "generate.py").read_text("utf-8"))
    return next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "generate_module"
    )


def _called(node: ast.AST) -> list[str]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    return [
        call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
        for call in calls
    ]


def test_the_flow_calls_its_steps_in_order_and_nothing_of_its_own_module():
    tree = ast.parse((SERVER / "run" / "generate.py").read_text("utf-8"))
    own = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    called = _called(_flow())
    assert [name for name in called if name in STEPS] == STEPS
    assert own & set(called) == set()


def test_the_job_and_the_shares_know_nothing_of_the_flow_or_of_the_steps_after_them():
    def imports(name: str) -> set[str]:
        tree = ast.parse((SERVER / "run" / f"{name}.py").read_text("utf-8"))
        return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}

    assert {"miogen.run.generate", "miogen.run.write"}.isdisjoint(imports("job"))
    shares = imports("shares")
    assert {"miogen.run.generate", "miogen.run.job", "miogen.run.write"}.isdisjoint(shares)


def test_the_verification_steps_read_no_project_configuration_of_their_own():
    """The project's warning filters are read once per job (the job's spec) and handed down:
    ``run.verify`` and ``run.check`` take them as an argument rather than entering
    ``common.project`` again for them."""
    for name in ("verify", "check"):
        tree = ast.parse((SERVER / "run" / f"{name}.py").read_text("utf-8"))
        names = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "miogen.common.project"
            for alias in node.names
        }
        assert "pytest_warning_filters" not in names, name
        assert "pytest_ini_values" not in names, name


def test_where_the_tests_are_verified_is_found_once_by_the_job():
    """``common.project.project_folder`` (where the tests go is that module's answer) is asked
    by the job (``run_and_verify``) and handed down as ``folder``: neither the verification
    flow nor ``check.verify`` asks it again, and the job enters ``run.check`` only through
    the verification, once (it asked ``run.check`` for the folder first, then verified)."""

    def calls(path: Path, function: str | None = None) -> list[str]:
        tree: ast.AST = ast.parse(path.read_text("utf-8"))
        if function is not None:
            tree = next(
                n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function
            )
        return _called(tree)

    assert "project_folder" not in calls(SERVER / "run" / "verify.py")
    assert "project_folder" not in calls(SERVER / "run" / "check.py", "verify")
    assert calls(SERVER / "run" / "job.py", "run_and_verify").count("project_folder") == 1
    assert "project_folder" not in calls(SERVER / "run" / "job.py", "__call__")

    def imported(path: Path) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.setdefault(node.module, set()).update(a.name for a in node.names)
        return found

    for front in (SERVER / "run" / "job.py", SERVER / "ctg" / "runner.py"):
        assert "project_folder" in imported(front)["miogen.common.project"], front
        assert "project_folder" not in imported(front).get("miogen.run.check", set()), front
    check = imported(SERVER / "run" / "check.py")
    assert "miogen.host.baseline" not in check  # the verification's runs: no project question
    assert "project_folder" not in calls(SERVER / "run" / "check.py")


def test_the_verification_flow_starts_no_pytest_process_check_verify_does():
    """``run.verify`` orchestrates the steps and starts no pytest process: the kept tests'
    verification, its process started ahead while the first runs, is ``check.Verifier``'s own
    (``again``, asked for once keeping is done: the verifier is handed no step to call back),
    so the flow enters ``host.measure`` only through ``run.check``."""
    tree = ast.parse((SERVER / "run" / "verify.py").read_text("utf-8"))
    measured = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "miogen.host.measure"
        for alias in node.names
    }
    assert measured <= {"Ahead"}  # the type of the processes handed in, nothing to call
    assert "start_ahead" not in _called(tree)
    check = ast.parse((SERVER / "run" / "check.py").read_text("utf-8"))
    verifier = next(n for n in check.body if isinstance(n, ast.ClassDef) and n.name == "Verifier")
    init = next(n for n in verifier.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert "prepare" in _called(init)
    assert not any("keep" in a.arg for a in init.args.args + init.args.kwonlyargs)
    assert "RetryAhead" not in _called(tree)  # no process of check's made for it to take


def test_the_write_reads_the_style_then_writes_without_coming_back_to_its_module():
    """``write.write_module`` reads the project's style once and hands it to the writer and to
    the checks of the written file; after it left ``run.write`` for the style it does not come
    back into the module's own helpers (issue 25: it went style -> ``write_tests`` -> writer)."""
    tree = ast.parse((SERVER / "run" / "write.py").read_text("utf-8"))
    own = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    flow = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "write_module")
    called = _called(flow)
    assert called.count("project_style") == 1
    after_style = called[called.index("project_style") + 1 :]
    assert own & set(after_style) <= {"import_problem"}  # the import note: after the write
    assert after_style.index("write_merged") < after_style.index("check_notes")


def test_the_job_analyses_the_module_in_its_own_flow_after_finding_the_folder():
    """``run_and_verify`` finds the project's folder (``common.project``) and then analyses the
    module itself, through ``analysis``: no helper of ``run.job`` between them brings the job
    back into its module (issue 25: ``_analysed`` did, after ``project_folder``)."""
    tree = ast.parse((SERVER / "run" / "job.py").read_text("utf-8"))
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    flow = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run_and_verify"
    )
    called = _called(flow)
    after_folder = called[called.index("project_folder") + 1 :]
    assert "analyze_file" in after_folder
    # ``_run_spec`` runs on the job's thread (handed to the pool, not called here)
    assert functions & set(after_folder) == set()
