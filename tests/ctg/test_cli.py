"""`miogen ctg`'s search options reach every job it runs, as `miogen generate`'s do."""

from __future__ import annotations

import inspect

import pytest
from miogen.cli import _parser
from miogen.common.project import locate
from miogen.common.records import Algorithm
from miogen.ctg.cli import _config
from miogen.host.config import DEFAULTS, command_line
from miogen.run.check import VERIFY_RUNS
from miogen.run.job import job_spec
from miogen.run.verify import verify_outcomes


def config_for(tmp_path, *flags: str):
    args = _parser().parse_args(["ctg", "--budget", "2", *flags])
    return _config(args, command_line(tmp_path, args))


def test_the_search_options_go_to_every_job(tmp_path):
    options = config_for(
        tmp_path, "--algorithm", "adynamosa", "--criteria", "branch,output"
    ).options
    assert options.algorithm is Algorithm.ADYNAMOSA
    assert (options.criteria, options.performance) == ("branch,output", False)
    defaults = config_for(tmp_path, "--performance").options
    assert defaults.algorithm is Algorithm.MIO and defaults.criteria == "smart"
    assert defaults.performance is True


def test_the_project_file_sets_them_and_a_flag_wins(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.miogen]\nalgorithm = "dynamosa"\ncriteria = "all"\nperformance = true\n'
    )
    options = config_for(tmp_path, "--criteria", "branch").options
    assert options.algorithm is Algorithm.DYNAMOSA and options.performance is True
    assert options.criteria == "branch"


def test_unknown_criteria_are_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["ctg", "--budget", "2", "--criteria", "lines"])
    assert "unknown criteria lines" in capsys.readouterr().err


def test_the_test_files_place_and_the_mutation_share_can_be_flags(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.miogen]\ntests-directory = "checks"\nmutation-share = 0.5\n'
    )
    config = config_for(tmp_path)
    assert (config.tests_directory, config.options.mutation_share) == ("checks", 0.5)
    flags = ("--tests-directory", "spec", "--test-file-pattern", "test_{module}_gen.py")
    config = config_for(tmp_path, *flags, "--mutation-share", "0")
    assert (config.tests_directory, config.test_file_pattern) == ("spec", "test_{module}_gen.py")
    assert config.options.mutation_share == 0.0


def test_a_tests_directory_flag_outside_the_project_is_refused(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["ctg", "--budget", "2", "--tests-directory", "../elsewhere"])
    assert "inside the project root" in capsys.readouterr().err


def test_ctg_verifies_as_often_as_generate_and_the_editor(tmp_path):
    """One default for every front end (run.check.VERIFY_RUNS); a flag or the file sets it."""
    assert config_for(tmp_path).verify_runs == VERIFY_RUNS == 2
    assert inspect.signature(verify_outcomes).parameters["runs"].default == VERIFY_RUNS
    assert config_for(tmp_path, "--verify-runs", "3").verify_runs == 3


def test_the_project_files_evaluations_and_join_tests_reach_every_job(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.miogen]\nevaluations = 300\njoin-tests = true\n"
    )
    (tmp_path / "m.py").write_text("def f(x):\n    return x\n")
    config = config_for(tmp_path)
    assert (config.options.evaluations, config.options.join_tests) == (300, True)
    spec = job_spec(locate(tmp_path / "m.py", tmp_path), ["f"], config.options, budget=2.0)
    assert (spec.evaluations, spec.join_tests, spec.budget_seconds) == (300, True, 2.0)


def test_evaluations_and_join_tests_are_flags_as_in_generate(tmp_path):
    unset = config_for(tmp_path).options
    assert (unset.evaluations, unset.join_tests) == (None, False)
    options = config_for(tmp_path, "--evaluations", "40", "--join-tests").options
    assert (options.evaluations, options.join_tests) == (40, True)
    (tmp_path / "pyproject.toml").write_text("[tool.miogen]\nevaluations = 300\n")
    assert config_for(tmp_path, "--evaluations", "40").options.evaluations == 40  # a flag wins
    generate = _parser().parse_args(["generate", "m.py", "--evaluations", "40", "--join-tests"])
    assert (generate.evaluations, generate.join_tests) == (options.evaluations, True)


def test_evaluations_flag_is_checked_as_the_file_value(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["ctg", "--budget", "2", "--evaluations", "0"])
    assert "expected 1 to" in capsys.readouterr().err


def test_the_budget_stays_the_allocations(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.miogen]\nbudget-seconds = 30\n")
    assert config_for(tmp_path).options.budget_seconds == DEFAULTS.budget_seconds
