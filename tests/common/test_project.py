"""Where generated test files go: the project's test folder, mirroring the package path."""

from __future__ import annotations

from pathlib import Path

import pytest
from miogen.common.project import (
    default_test_path,
    is_project,
    locate,
    package_files,
    project_folder,
    project_tests_folder,
    pytest_ini_values,
    pytest_sys_path,
    time_freezer,
)


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in {"pyproject.toml": "[project]\nname = 'p'\n", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def target(root: Path, module: str) -> str:
    return default_test_path(locate(root / module, root)).relative_to(root).as_posix()


def test_two_modules_of_one_name_get_files_of_their_own(tmp_path: Path) -> None:
    root = project(tmp_path, {"pkg/__init__.py": "", "pkg/a/util.py": "", "pkg/b/util.py": ""})
    first, second = target(root, "pkg/a/util.py"), target(root, "pkg/b/util.py")
    assert first == "tests/pkg/a/test_pkg_a_util_miogen.py"
    assert second == "tests/pkg/b/test_pkg_b_util_miogen.py"
    assert Path(first).name != Path(second).name  # pytest's prepend mode imports by basename


def test_a_packaged_test_folder_gets_short_names(tmp_path: Path) -> None:
    root = project(tmp_path, {"pkg/__init__.py": "", "pkg/util.py": "", "tests/__init__.py": ""})
    assert target(root, "pkg/util.py") == "tests/pkg/test_util_miogen.py"
    test_file = root / "tests/pkg/test_util_miogen.py"
    assert package_files(root / "tests", test_file) == [root / "tests/pkg/__init__.py"]


def test_an_existing_folder_that_is_no_package_keeps_basenames_unique(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/util.py": "", "tests/__init__.py": "", "tests/pkg/x.txt": ""},
    )
    assert target(root, "pkg/util.py") == "tests/pkg/test_pkg_util_miogen.py"
    assert package_files(root / "tests", root / "tests/pkg/test_pkg_util_miogen.py") == []


def test_a_src_layout_mirrors_the_import_path(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/mod.py": ""})
    assert target(root, "src/pkg/mod.py") == "tests/pkg/test_pkg_mod_miogen.py"
    assert target(root, "src/pkg/__init__.py") == "tests/test_pkg_miogen.py"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, "tests"),
        ({"test/test_x.py": ""}, "test"),
        ({"test/test_x.py": "", "tests/test_y.py": ""}, "tests"),
        ({"pytest.ini": "[pytest]\ntestpaths = checks docs\n"}, "checks"),
        ({"tox.ini": "[pytest]\ntestpaths =\n    unit\n"}, "unit"),
        ({"setup.cfg": "[tool:pytest]\ntestpaths = spec\n"}, "spec"),
        ({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['qa/unit']\n"}, "qa/unit"),
        # the root itself, a glob, or the package's own folder: not a place for test files
        ({"pytest.ini": "[pytest]\ntestpaths = . pkg t*\n", "test/a.py": ""}, "test"),
    ],
)
def test_the_tests_folder_is_where_pytest_looks(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    root = project(tmp_path, {"pkg/mod.py": "", **files})
    assert project_tests_folder(root, root / "pkg/mod.py") == root / expected


def test_only_the_first_pytest_configuration_counts(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"pytest.ini": "[pytest]\naddopts = -q\n", "setup.cfg": "[tool:pytest]\ntestpaths = x\n"},
    )
    assert pytest_ini_values(root, "testpaths") is None
    assert pytest_ini_values(root, "addopts") == ("-q",)


def test_pytest_sys_path_follows_the_import_mode(tmp_path: Path) -> None:
    root = project(tmp_path, {"conftest.py": "", "tests/unit/test_x.py": ""})
    test_file = root / "tests/unit/test_x.py"
    assert pytest_sys_path(root, test_file) == [root, root / "tests/unit"]
    (root / "tests/__init__.py").write_text("")
    (root / "tests/unit/__init__.py").write_text("")
    assert pytest_sys_path(root, test_file) == [root], "a package's base is the root"
    (root / "pytest.ini").write_text(
        "[pytest]\naddopts = -q --import-mode=importlib\npythonpath = src\n"
    )
    assert pytest_sys_path(root, test_file) == [root / "src"]


@pytest.mark.parametrize(
    ("files", "freezer"),
    [
        (
            {"pyproject.toml": '[project.optional-dependencies]\ntest = ["freezegun>=1.2"]\n'},
            "freezegun",
        ),
        ({"pyproject.toml": '[dependency-groups]\ndev = ["time-machine"]\n'}, "time-machine"),
        ({"requirements-dev.txt": "pytest\ntime_machine==2.14\n"}, "time-machine"),
        ({"setup.cfg": "[options.extras_require]\ntests =\n    freezegun\n"}, "freezegun"),
        ({"tests/conftest.py": "from freezegun import freeze_time\n"}, "freezegun"),
        ({"tests/test_clock.py": "import time_machine\n"}, "time-machine"),
        (
            {"pyproject.toml": '[project]\ndependencies = ["pytest-freezegunx", "freezeguns"]\n'},
            None,
        ),
        ({"tests/test_clock.py": "# we could import freezegun here\n"}, None),
        ({"pyproject.toml": '[project]\nname = "plain"\n'}, None),
    ],
)
def test_the_projects_time_freezer_is_found(
    tmp_path: Path, files: dict[str, str], freezer: str | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert time_freezer(tmp_path) == freezer


def test_the_tests_are_verified_in_the_nearest_existing_folder_of_their_file(
    tmp_path: Path,
) -> None:
    """Where a module's tests are verified is this module's answer, beside where they go: the
    test file's folder, else the nearest one above it that exists; None outside a project or
    for a file outside its root."""
    root = project(tmp_path / "p", {"pkg/mod.py": "x = 1\n", "tests/__init__.py": ""})
    location = locate(root / "pkg" / "mod.py", root)
    assert is_project(root) and not is_project(tmp_path)
    assert project_folder(location, root / "tests" / "pkg" / "test_mod.py") == root / "tests"
    assert project_folder(location, None) is None
    assert project_folder(location, tmp_path / "elsewhere" / "test_mod.py") is None
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "mod.py").write_text("x = 1\n")
    bare = locate(tmp_path / "bare" / "mod.py", tmp_path / "bare")
    assert project_folder(bare, tmp_path / "bare" / "test_mod.py") is None
