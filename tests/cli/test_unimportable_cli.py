"""A test file that cannot be imported at verification keeps none of its tests, and says why."""

from __future__ import annotations

from miogen.cli import _print_summary, summarize
from miogen.common.records import Progress
from miogen.host.config import Options
from miogen.run.generate import generate_module

SIGN = """\
def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0
"""


def test_a_module_deleted_mid_run_gets_no_tests_and_a_non_zero_exit(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    module = tmp_path / "vanishing.py"
    module.write_text(SIGN)
    output = tmp_path / "tests" / "test_vanishing.py"

    def delete_once_searching(event: object) -> None:
        if isinstance(event, Progress) and module.exists():
            module.unlink()  # the worker has it; the verification's pytest will not

    report = generate_module(
        module, None, output, Options(0, evaluations=300, seed=1), on_event=delete_once_searching
    )
    summary = summarize(report)
    assert summary["exit_code"] == 1
    assert "No module named 'vanishing'" in summary["test_file_error"], summary["test_file_error"]
    assert summary["dropped_failing_tests"] == [] and summary["added"] == []
    assert not output.exists()
    _print_summary(summary)
    printed = capsys.readouterr().out
    assert "the test file could not be imported: " in printed
    assert "dropped failing tests" not in printed and "wrote" not in printed
