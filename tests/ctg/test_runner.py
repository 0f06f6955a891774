"""A CTG run end to end: jobs, coverage.py, the merge, the history, the CLI's table and exit code."""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from ctg_projects import BANK, make_project
from miogen.analysis.module import analyze_file
from miogen.cli import main
from miogen.common.history import HistoryStore, RunRow
from miogen.common.records import JobSpec, UnitJob
from miogen.ctg.runner import CtgConfig, pytest_problem, run_ctg
from miogen.host.config import Options
from miogen.host.measure import Measurement
from miogen.host.supervisor import run_job


def by_name(report) -> dict:
    return {state.unit.name: state for state in report.units}


def evaluations(count: int, criteria: str = "smart", **settings) -> CtgConfig:
    """Deterministic jobs: an evaluation budget (the seconds still decide the allocation)."""
    options = Options(evaluations=count, criteria=criteria)
    return CtgConfig(budget=1.0, jobs=2, verify_runs=1, options=options, **settings)


@pytest.mark.parametrize("criteria", ["branch", "smart"])
def test_second_run_on_an_unchanged_unit_starts_where_the_first_ended(tmp_path, criteria):
    root = make_project(tmp_path / "project", {"bank.py": BANK})
    first = by_name(run_ctg([root], evaluations(300, criteria=criteria)))
    account = first["Account"]
    assert account.status == "ran" and account.changed
    assert len(account.after) == account.total - 1  # all but the infeasible branch
    assert (root / "tests" / "test_bank_miogen.py").is_file() and account.added > 0
    assert first["classify"].after and len(first["classify"].after) == first["classify"].total

    # One evaluation: what the second run covers comes from the replayed suite.
    second = by_name(run_ctg([root], evaluations(1, criteria=criteria)))
    account2 = second["Account"]
    assert not account2.changed and account2.status == "ran"
    assert account2.before == account.after  # reused from the history: no pytest run needed
    result = account2.outcome.result
    assert result.replayed == len(account.tests)
    seeded = {target for test in account.tests for target in test.targets}
    assert set(result.covered) >= seeded
    assert account2.after == account.after
    assert account2.added == 0  # the same tests are already in the file
    assert second["classify"].status == "skipped"
    assert second["classify"].allocation.reason == "100% covered"

    # The same single evaluation without the history covers less.
    location = account.module.location
    fresh = (
        run_job(
            JobSpec(
                str(location.path),
                "bank",
                str(location.import_root),
                (UnitJob("Account"),),
                evaluations=1,
            )  # fmt: skip
        )
        .units[0]
        .result
    )
    assert len(fresh.covered) < len(result.covered)


def test_an_unchanged_unit_whose_tests_were_deleted_gets_them_back(tmp_path):
    root = make_project(tmp_path / "project", {"bank.py": BANK})
    first = by_name(run_ctg([root], evaluations(300)))
    test_file = root / "tests" / "test_bank_miogen.py"
    header = test_file.read_text(encoding="utf-8").split("\ndef ")[0]
    test_file.write_text(header, encoding="utf-8")  # the user deleted every test

    second = by_name(run_ctg([root], evaluations(300)))
    account = second["Account"]
    assert not account.changed and account.before == []
    assert account.added > 0 and account.after == first["Account"].after
    assert "def test_" in test_file.read_text(encoding="utf-8")


def test_a_unit_without_improvement_in_three_runs_is_skipped_until_it_changes(tmp_path):
    root = make_project(tmp_path / "project", {"bank.py": BANK})
    model = analyze_file(root / "bank.py", "bank")
    store = HistoryStore.open(root / ".miogen" / "history.sqlite")
    for unit in model.units:
        key = f"bank.py::{unit.name}"
        flat = RunRow(key, unit.ast_hash, 1.0, 1.0, "ok", len(unit.targets), 0, 0, 0)
        store.record([flat] * 3, {key: (unit.ast_hash, [], 0)}, {})
    store.close()
    report = by_name(run_ctg([root / "bank.py"], evaluations(50)))
    assert {name: (s.status, s.allocation.reason) for name, s in report.items()} == {
        "Account": ("skipped", "no improvement in its last 3 runs"),
        "classify": ("skipped", "no improvement in its last 3 runs"),
    }
    assert not (root / "tests").exists()  # nothing ran, nothing was written

    (root / "bank.py").write_text(BANK.replace("amount <= 0", "amount < 1"), encoding="utf-8")
    report = by_name(run_ctg([root / "bank.py"], evaluations(50)))
    assert report["Account"].changed and report["Account"].status == "ran"
    assert report["classify"].status == "skipped"


def test_cli_prints_the_table_writes_the_report_and_gates_on_coverage(tmp_path, capsys):
    root = make_project(
        tmp_path / "project",
        {
            "bank.py": BANK,
            "broken.py": "def oops(:\n",
            "tests/test_keep.py": "def test_x(): pass\n",
        },
    )
    report_path = tmp_path / "report.json"
    arguments = ["ctg", str(root), "--budget", "0.5", "--evaluations", "200", "--jobs", "2",
                 "--verify-runs", "1", "-q"]  # fmt: skip
    code = main([*arguments, "--report", str(report_path)])
    out = capsys.readouterr().out
    assert "bank.py::Account" in out and "pooled coverage mu(P)" in out
    assert re.search(r"broken\.py +not analysed: .*syntax error", out)
    data = json.loads(report_path.read_text())
    assert code == data["exit_code"] == 1  # broken.py failed to analyse
    units = {u["key"]: u for u in data["units"]}
    assert set(units) == {"bank.py::Account", "bank.py::classify"}  # tests/ is not searched
    assert data["coverage"]["total"] == sum(u["coverage"]["total"] for u in units.values())
    assert data["coverage"]["covered"] == sum(u["coverage"]["covered"] for u in units.values())
    assert 0 < data["budget_allocated_seconds"] <= 0.5 * 2 + 1e-6
    assert data["module_errors"].keys() == {"broken.py"}
    assert (root / "tests" / "test_keep.py").read_text() == "def test_x(): pass\n"

    (root / "broken.py").unlink()
    code = main([*arguments, "--fail-under", "100", "--report", str(report_path)])
    assert code == 1  # nothing failed, but Account's infeasible branch keeps mu(P) under 100%
    assert "under --fail-under 100%" in capsys.readouterr().err
    data = json.loads(report_path.read_text())
    assert exit_code_for(data, fail_under=10) == 0


def exit_code_for(data: dict, fail_under: float) -> int:
    """What the same run would exit with under another gate."""
    from miogen.ctg.report import exit_code

    class Ran:
        failed = False
        pooled = data["coverage"]["percent"]
        not_kept = sum(len(u["tests_not_kept"]) for u in data["units"]) + len(data["not_written"])
        nothing_to_do = False

    return exit_code(Ran, fail_under)


def test_a_damaged_history_is_reported_and_the_run_goes_on(tmp_path, capsys):
    # A module with no public unit: the run has nothing to generate, but it reads the history.
    root = make_project(tmp_path / "project", {"calc.py": "def _sign(x):\n    return x > 0\n"})
    (root / ".miogen").mkdir()
    (root / ".miogen" / "history.sqlite").write_bytes(b"\x00garbage" * 64)
    code = main(["ctg", str(root), "--budget", "0.5", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0
    assert "warning: the history" in captured.err and "damaged-" in captured.err
    assert len(list((root / ".miogen").glob("history.sqlite.damaged-*"))) == 1


TRANSFERS = """
class Account:
    def __init__(self, owner: str, limit: int = 100):
        self.owner = owner
        self.limit = limit

    def allows(self, amount: int) -> bool:
        return amount <= self.limit


class Transfer:
    def __init__(self, source: Account, amount: int):
        self.source = source
        self.amount = amount

    def check(self) -> str:
        if self.source.allows(self.amount):
            return "ok"
        return "refused"
"""


def test_input_seeding_runs_dependencies_first_and_replays_their_objects(tmp_path):
    root = make_project(tmp_path / "project", {"transfers.py": TRANSFERS})
    order: list[str] = []
    config = CtgConfig(
        budget=2.0, jobs=1, input_seeding=0.5, verify_runs=1, options=Options(evaluations=20)
    )
    report = run_ctg([root], config, log=order.append)
    assert [line.split(": ")[0] for line in order] == [
        "transfers.py::Account", "transfers.py::Transfer"
    ]  # fmt: skip
    transfer = by_name(report)["Transfer"]
    assert transfer.outcome.result.replayed > 0  # pooled Accounts, no history yet


def test_a_pytest_run_that_stops_is_reported_with_its_own_error():
    stopped = Measurement(
        exit_code=4,
        output="ImportError while loading conftest '/p/tests/conftest.py'.\n"
        "tests/conftest.py:1: in <module>\n    import pytest_mock_plugin\n"
        "E   ModuleNotFoundError: No module named 'pytest_mock_plugin'\n",
    )
    assert pytest_problem(stopped) == (
        "pytest stopped (exit status 4): ModuleNotFoundError: No module named 'pytest_mock_plugin'"
    )
    failing = Measurement(exit_code=1, failed=1, failures=["test_a"],
                          messages={"test_a": "TypeError: 'module' object is not callable\nmore"})  # fmt: skip
    assert (
        pytest_problem(failing)
        == "1 tests fail (test_a: TypeError: 'module' object is not callable)"
    )
    assert pytest_problem(Measurement(exit_code=5)) == ""
    assert "existing tests fail on the current version" not in pytest_problem(failing)


def test_a_module_the_projects_pytest_cannot_import_is_said_with_the_fix(tmp_path):
    # src/ layout, not installed: the project's plain pytest cannot import app (issue 23 part 5)
    source = textwrap.dedent(BANK)
    root = make_project(
        tmp_path / "project", {"src/app/__init__.py": "", "src/app/bank.py": source}
    )
    (root / "tests").mkdir()
    report = run_ctg([root], evaluations(300))
    said = [w for w in report.warnings if "no tests written" in w]
    assert said and "cannot import app.bank" in said[0], report.warnings
    assert 'pythonpath = ["src"]' in said[0]
    assert not report.written and not list((root / "tests").rglob("*.py"))

    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
    )
    report = run_ctg([root], evaluations(300))
    assert report.written and not [w for w in report.warnings if "import" in w], report.warnings
