"""The shared configuration: [tool.miogen] read and checked, flags, and the one precedence rule."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest
from miogen.common.project import locate
from miogen.common.records import Algorithm, JobSpec
from miogen.host import config
from miogen.host.config import (
    CTG_KEYS,
    KEYS,
    ConfigError,
    Options,
    command_line,
    flag,
    load_project,
    merge,
    read_project,
)
from miogen.run.job import job_spec


def project(tmp_path: Path, text: str) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n\n' + text, "utf-8")
    return tmp_path


# --- reading the file ----------------------------------------------------------------------


def test_every_key_is_read_in_kebab_snake_or_camel_case(tmp_path):
    found = load_project(
        project(
            tmp_path,
            "[tool.miogen]\n"
            "budget-seconds = 2\n"
            'tests_directory = "checks"\n'
            'testFilePattern = "{module}_checks.py"\n'
            "seed = 7\n"
            'algorithm = "WTS"\n'
            "test-timeout = 0.5\n"
            "mutation-share = 0\n"
            'diagnostic-severity = "warning"\n'
            "\n[tool.miogen.ctg]\n"
            "budget = 3\njobs = 2\nfail-under = 80\nverify-runs = 1\n",
        )
    )
    assert found.values == {
        "budget_seconds": 2.0,
        "tests_directory": "checks",
        "test_file_pattern": "{module}_checks.py",
        "seed": 7,
        "algorithm": Algorithm.WTS,
        "test_timeout": 0.5,
        "mutation_share": 0.0,
        "diagnostic_severity": "warning",
    }
    assert found.ctg == {"budget": 3.0, "jobs": 2, "fail_under": 80.0, "verify_runs": 1}
    assert found.problems == ()


def test_no_file_or_no_table_is_an_empty_configuration(tmp_path):
    assert load_project(tmp_path).values == {}
    assert load_project(project(tmp_path, "[tool.ruff]\nline-length = 100\n")).values == {}


def test_an_unknown_key_is_named_with_the_file_and_a_likely_meaning(tmp_path):
    root = project(tmp_path, "[tool.miogen]\nbudget-second = 2\nseed = 3\n")
    found = read_project(root)
    assert found.values == {"seed": 3}, "the rest of the table still applies"
    [problem] = found.problems
    assert str(root / "pyproject.toml") in problem
    assert "budget-second" in problem and "did you mean 'budget-seconds'?" in problem
    with pytest.raises(ConfigError, match="budget-second"):
        load_project(root)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('budget-seconds = "5"', "expected a number of seconds"),
        ("budget-seconds = 0", "more than 0"),
        ("seed = 1.5", "whole number"),
        ("seed = true", "whole number"),
        ('tests-directory = "/abs"', "relative to the project root"),
        ('tests-directory = "../outside"', "inside the project root"),
        ('tests-directory = "a/../../x"', "inside the project root"),
        ('test-file-pattern = "tests.py"', "{module}"),
        ('algorithm = "genetic"', "expected one of mio"),
        ("mutation-share = 1", "not included"),
        ("on-save = 1", "true or false"),
    ],
)
def test_a_wrong_value_is_named_with_its_key_value_and_file(tmp_path, line, reason):
    root = project(tmp_path, f"[tool.miogen]\n{line}\n")
    [problem] = read_project(root).problems
    key, _, value = line.partition(" = ")
    assert f"[tool.miogen] {key} = {value}" in problem
    assert reason in problem and str(root / "pyproject.toml") in problem
    with pytest.raises(ConfigError):
        load_project(root)


def test_the_ctg_table_has_its_own_keys(tmp_path):
    root = project(tmp_path, "[tool.miogen.ctg]\nbudget = -1\nworkers = 2\n")
    problems = read_project(root).problems
    assert len(problems) == 2
    assert "[tool.miogen.ctg] budget = -1: expected more than 0" in problems[0]
    assert "[tool.miogen.ctg] workers: no such setting" in problems[1]
    not_a_table = read_project(project(tmp_path, "[tool.miogen]\nctg = 3\n")).problems
    assert "expected a table" in not_a_table[0]


def test_the_editor_preference_cannot_be_set_in_the_file_it_is_about(tmp_path):
    root = project(tmp_path, '[tool.miogen]\nconfiguration-preference = "editorOnly"\n')
    found = read_project(root)
    assert found.values == {}
    assert "configuration-preference: an editor setting" in found.problems[0]


def test_a_file_that_does_not_parse_is_one_problem_with_its_position(tmp_path):
    root = project(tmp_path, "[tool.miogen\nseed = 1\n")
    [problem] = read_project(root).problems
    assert str(root / "pyproject.toml") in problem and "line" in problem


# --- precedence -----------------------------------------------------------------------------

PROJECT = {"budget_seconds": 2.0, "seed": 7}
FIRST = {"budget_seconds": 3.0}
SECOND = {"tests_directory": "checks", "budget_seconds": 4.0}


def test_editor_first_explicit_settings_win_key_by_key_over_the_file():
    assert merge(PROJECT, FIRST) == {"budget_seconds": 3.0, "seed": 7}
    assert merge(PROJECT, FIRST, SECOND) == {
        "budget_seconds": 4.0,
        "seed": 7,
        "tests_directory": "checks",
    }


def test_filesystem_first_the_file_wins_and_editor_only_ignores_it():
    assert merge(PROJECT, FIRST, SECOND, preference="filesystemFirst") == {
        "budget_seconds": 2.0,
        "seed": 7,
        "tests_directory": "checks",
    }
    assert merge(PROJECT, FIRST, preference="editorOnly") == {"budget_seconds": 3.0}


def test_the_command_line_wins_over_the_file_which_wins_over_the_defaults(tmp_path):
    root = project(tmp_path, "[tool.miogen]\nbudget-seconds = 2\nseed = 7\n")
    args = argparse.Namespace(budget_seconds=9.0, seed=None, json=True, evaluations=None)
    values = command_line(root, args)
    assert values == {"budget_seconds": 9.0, "seed": 7}
    assert config.options(values) == Options(budget_seconds=9.0, seed=7)


def test_a_project_file_cannot_raise_what_runs_above_the_explicit_value_or_a_ceiling():
    widened = {"max_parallel_jobs": 64, "budget_seconds": 3600.0, "test_timeout": 0.5}
    assert merge(widened) == {"max_parallel_jobs": 4, "budget_seconds": 60.0, "test_timeout": 0.5}
    # The editor's own value is the cap, whatever the preference says.
    editor = {"max_parallel_jobs": 2, "budget_seconds": 5.0}
    for preference in ("editorFirst", "filesystemFirst"):
        merged = merge(widened, editor, preference=preference)
        assert merged["max_parallel_jobs"] == 2 and merged["budget_seconds"] == 5.0
    assert (
        merge({"max_parallel_jobs": 1}, editor, preference="filesystemFirst")["max_parallel_jobs"]
        == 1
    )  # lowering is fine
    [note, _] = config.capped(widened, editor)[1]
    assert "max-parallel-jobs = 64 in pyproject.toml is capped at 2" in note


def test_the_command_line_says_what_it_capped(tmp_path, capsys):
    root = project(tmp_path, "[tool.miogen.ctg]\njobs = 64\nbudget = 5\n")
    values = command_line(root, argparse.Namespace(jobs=None, budget=None))
    assert values["jobs"] == 4 and values["budget"] == 5.0
    assert "jobs = 64 in pyproject.toml is capped at 4" in capsys.readouterr().err


def test_the_command_line_stops_at_a_bad_file(tmp_path):
    root = project(tmp_path, "[tool.miogen]\nbudget = 2\n")
    with pytest.raises(ConfigError, match=r"budget: no such setting"):
        command_line(root, argparse.Namespace(budget_seconds=None))


# --- flags and records ----------------------------------------------------------------------


def test_flags_are_checked_as_the_file_is():
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--budget", type=flag("budgetSeconds"))
    parser.add_argument("--jobs", type=flag("jobs", CTG_KEYS))
    assert parser.parse_args(["--budget", "2.5", "--jobs", "3"]).budget == 2.5
    for bad in (["--budget", "0"], ["--budget", "soon"], ["--jobs", "1.5"], ["--jobs", "0"]):
        with pytest.raises(argparse.ArgumentError):
            parser.parse_args(bad)


def test_the_options_are_job_spec_fields_and_name_the_test_file(tmp_path):
    chosen = Options(seed=3, algorithm=Algorithm.RANDOM, test_timeout=0.5, mutation_share=0.0)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "shapes.py").write_text("def f(): pass\n")
    location = locate(tmp_path / "shapes.py")
    spec = job_spec(location, ["f"], chosen, 1.0)
    engine = {"seed", "evaluations", "algorithm", "criteria", "performance", "join_tests",
              "test_timeout", "mutation_share"}  # fmt: skip
    for name in engine:
        assert getattr(spec, name) == getattr(chosen, name)
    assert engine <= {f.name for f in dataclasses.fields(JobSpec)}
    assert spec.budget_seconds == 1.0 and job_spec(location, ["f"], chosen).budget_seconds == 5.0
    renamed = dataclasses.replace(
        chosen, tests_directory="checks", test_file_pattern="{module}_t.py"
    )
    assert renamed.test_path(location) == tmp_path / "checks" / "shapes_t.py"


def test_every_key_of_the_file_is_a_field_of_a_record():
    engine = {f.name for f in dataclasses.fields(Options)}
    assert {key.field for key in KEYS.values() if key.scope == "engine"} == engine
    assert all(config.kebab(name) == name for name in CTG_KEYS if name.islower())
    assert config.kebab("budgetSeconds") == "budget-seconds"
