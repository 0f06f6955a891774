"""Version-dependent spellings follow the project's minimum Python."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from miogen.emit.style import lower_bound, project_style
from miogen.emit.versions import spelled

SOURCE = (
    "def test_x():\n"
    "    when = datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)\n"
    '    assert f(when) == "datetime.timezone.utc"\n'
)


@pytest.mark.parametrize(
    ("specifier", "bound"),
    [(">=3.8", (3, 8)), (">=3.10,<4", (3, 10)), ("~=3.11", (3, 11)), (">3.9", (3, 10)),
     ("", None), ("!=3.9.*", None)],
)  # fmt: skip
def test_the_lower_bound_of_requires_python(specifier, bound):
    assert lower_bound(specifier) == bound


def test_the_minimum_comes_from_pyproject_or_setup_cfg(tmp_path: Path):
    test_file = tmp_path / "tests" / "test_m.py"
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.8"\n')
    assert project_style(test_file).minimum_python == (3, 8)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    assert project_style(test_file).minimum_python is None
    (tmp_path / "setup.cfg").write_text("[options]\npython_requires = >=3.12\n")
    assert project_style(test_file).minimum_python == (3, 12)


def test_datetime_utc_only_where_every_supported_python_has_it():
    assert spelled(SOURCE, (3, 8)) == SOURCE  # 3.8-3.10 have no datetime.UTC
    newer = spelled(SOURCE, (3, 11))
    assert "tzinfo=datetime.UTC)" in newer
    assert '== "datetime.timezone.utc"' in newer  # a string stays
    undeclared = spelled(SOURCE, None)  # as the Python the tests are made with
    assert (undeclared == newer) == (sys.version_info >= (3, 11))
