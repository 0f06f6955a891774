"""The CLI and [tool.miogen]: flags > project file > defaults, clear errors, --version, ctg --json."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from running import miogen

SIGN = """\
def sign(x: int) -> int:
    if x < 0:
        return -1
    return 1
"""


def project(root: Path, table: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "signs"\n\n{table}', "utf-8")
    (root / "signs.py").write_text(SIGN, "utf-8")
    return root


def test_version_is_the_installed_distributions():
    done = miogen("--version", cwd=Path.cwd())
    assert done.returncode == 0
    assert done.stdout.strip() == f"miogen {metadata.version('miogen')}"


def test_generate_takes_the_project_file_and_flags_win_over_it(tmp_path):
    root = project(
        tmp_path / "p",
        "[tool.miogen]\n"
        "budget-seconds = 2\n"
        'tests-directory = "checks"\n'
        'test-file-pattern = "test_{module}_generated.py"\n'
        "seed = 5\n"
        "evaluations = 400\n"
        "mutation-share = 0\n",
    )
    first = miogen("generate", "signs.py", "--json", cwd=root)
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    written = root / "checks" / "test_signs_generated.py"
    assert summary["output"] == str(written) and written.is_file()
    settings = summary["settings"]
    assert (settings["budget_seconds"], settings["seed"], settings["evaluations"]) == (2.0, 5, 400)
    assert (settings["mutation_share"], settings["algorithm"]) == (0.0, "mio"), "file, default"

    second = miogen("generate", "signs.py", "--json", "--seed", "9", "--budget", "3", cwd=root)
    assert second.returncode == 0, second.stderr
    settings = json.loads(second.stdout)["settings"]
    assert (settings["budget_seconds"], settings["seed"], settings["evaluations"]) == (3.0, 9, 400)


def test_a_bad_project_file_stops_with_the_key_and_the_file_and_writes_nothing(tmp_path):
    root = project(tmp_path / "p", '[tool.miogen]\nbudget-second = 2\nseed = "five"\n')
    for command in (["generate", "signs.py"], ["ctg", "--budget", "1"]):
        done = miogen(*command, cwd=root)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        file = str(root / "pyproject.toml")
        assert f"{file}: [tool.miogen] budget-second: no such setting" in done.stderr
        assert "did you mean 'budget-seconds'?" in done.stderr
        assert f'{file}: [tool.miogen] seed = "five": expected a whole number' in done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["pyproject.toml", "signs.py"]


def test_a_bad_flag_is_refused_as_the_file_value_would_be(tmp_path):
    root = project(tmp_path / "p", "")
    done = miogen("generate", "signs.py", "--budget", "0", cwd=root)
    assert done.returncode == 2
    assert "argument --budget: '0': expected more than 0" in done.stderr


def test_ctg_json_is_its_report_on_stdout_with_the_project_files_settings(tmp_path):
    root = project(
        tmp_path / "p",
        '[tool.miogen]\ntests-directory = "checks"\n\n[tool.miogen.ctg]\nbudget = 1\n',
    )
    done = miogen("ctg", "--json", "--quiet", cwd=root)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # nothing but the JSON on stdout
    assert report["budget_per_job_slot"] == 1.0 and report["jobs"] == 1
    assert report["written"] == [str(root / "checks" / "test_signs_miogen.py")]
    assert [unit["key"] for unit in report["units"]] == ["signs.py::sign"]
    assert report["coverage"]["total"] == 2 and report["exit_code"] == 0


def test_ctg_needs_a_budget_from_the_flag_or_the_file(tmp_path):
    root = project(tmp_path / "p", "")
    done = miogen("ctg", cwd=root)
    assert done.returncode == 2
    assert "a budget is needed: --budget SECONDS, or budget in [tool.miogen.ctg]" in done.stderr
