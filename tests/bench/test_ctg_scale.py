"""`python -m bench ctg --scale` (bench/ctg/scale.py): the subject's selection, and the whole
machinery (copy, full run, one-line change, report) on a three-module copy at evaluation budgets."""

from __future__ import annotations

import doctest
import os
import sys
from pathlib import Path

from bench.ctg import scale
from bench.ctg.scale import CHANGE, ONE, TITLES, Settings


def test_doctests():
    assert doctest.testmod(scale).failed == 0


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


BRANCHY = "def sign(x):\n    if x > 0:\n        return 1\n    return -1\n"


def test_candidates_are_public_safe_small_modules_with_units_and_whole_packages(tmp_path: Path):
    write(tmp_path / "zeta.py", BRANCHY)
    write(tmp_path / "alpha.py", BRANCHY)
    write(tmp_path / "_private.py", BRANCHY)
    write(tmp_path / "shutil.py", BRANCHY)  # unsafe: touches the file system
    write(tmp_path / "huge.py", BRANCHY + "#" * scale.MAX_BYTES)
    write(tmp_path / "constants.py", "A = 1\n")  # nothing to cover
    write(tmp_path / "json" / "__init__.py", "")
    write(tmp_path / "html" / "__init__.py", "")
    assert scale.candidates(tmp_path) == ["alpha", "html/", "json/", "zeta"]


def test_a_copy_keeps_the_modules_that_import_and_stops_at_the_count(tmp_path: Path):
    stdlib = tmp_path / "lib"
    write(stdlib / "alpha.py", BRANCHY)
    write(stdlib / "broken.py", "import no_such_module_anywhere\n" + BRANCHY)
    write(stdlib / "json" / "__init__.py", "from .inner import sign\n")
    write(stdlib / "json" / "inner.py", BRANCHY)
    write(stdlib / "zeta.py", BRANCHY)
    names = scale.make_project(tmp_path / "p", Settings(modules=3), stdlib)
    assert names == ["alpha", "json", "json.inner"]  # broken left out, zeta past the count
    package = tmp_path / "p" / scale.PACKAGE
    assert sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py")) == [
        "__init__.py", "alpha.py", "json/__init__.py", "json/inner.py",
    ]  # fmt: skip
    assert scale.count_units(tmp_path / "p") == 2


def test_the_edit_changes_one_function_after_its_docstring(tmp_path: Path):
    source = 'def f(x):\n    """Doc."""\n    if x:\n        return 1\n    return 2\n'
    write(tmp_path / scale.PACKAGE / "m.py", source)
    assert scale.edit_one_module(tmp_path) == f"{scale.PACKAGE}/m.py::f"
    lines = (tmp_path / scale.PACKAGE / "m.py").read_text().splitlines()
    assert lines[2].strip().startswith("_bench_edit = 1") and lines[1].strip() == '"""Doc."""'


def test_makespan_and_the_64_worker_projection():
    row = scale.Row(
        "full, 1 worker", "local", 1, 3, 9, 9, 0, 5, 10, 20, 50.0, 100.0, 60.0, 60.0, 3.0,
        1.0, 1.0, job_seconds={"a.py": 30.0, "b.py": 20.0, "c.py": 10.0},
    )  # fmt: skip
    found = scale.projection(row, None, workers=64)
    assert found["jobs_makespan"] == 30.0 and found["client_1"] == 40.0
    assert found["estimate"] == 70.0  # the part outside jobs, plus the longest job
    assert scale.projection(row, None, workers=2)["jobs_makespan"] == 30.0


def test_the_machinery_on_three_modules_with_one_worker(tmp_path: Path):
    """Copy, a full run, a one-line change run with --changed-since, the report: the change run
    takes part with the edited unit only, the full one with every unit of the three modules."""
    settings = Settings(modules=3, evaluations=20, names=("bisect", "colorsys", "fnmatch"))
    rows, machine = scale.execute(settings, tmp_path, (ONE, CHANGE), log=lambda _: None)
    full, change = rows
    assert machine["names"] == ["bisect", "colorsys", "fnmatch"]
    assert full.name == TITLES[ONE] and full.modules == 3 and full.units == machine["units"]
    assert full.ran == full.units and full.failed == 0
    assert full.tests_written > 0 and 0 < full.covered <= full.targets
    assert sorted(full.job_seconds) == [f"{scale.PACKAGE}/{n}.py" for n in machine["names"]]
    assert change.name == TITLES[CHANGE] and change.units == change.ran == 1
    assert change.note.startswith(f"edited {scale.PACKAGE}/bisect.py::")
    out = tmp_path / "ctg_scale.md"
    scale.save_data(rows, machine, out.with_suffix(".json"))
    text = scale.write(*scale.load_data(out.with_suffix(".json")), out)
    assert out.read_text() == text and scale.HEADER in text and "64 workers" in text
    page = scale.splice("# Benchmarks\n", scale.section(out))
    assert scale.HEADER in page and page.startswith("# Benchmarks\n")


def test_external_workers_run_in_folders_of_their_own(tmp_path: Path):
    from distributed import Client

    with scale.external_cluster(1, tmp_path / "cluster") as address, Client(address) as client:
        seen = client.run(lambda: (os.getcwd(), list(sys.path), os.environ.get("PYTHONPATH")))
    ((cwd, path, pythonpath),) = seen.values()
    assert Path(cwd) == tmp_path / "cluster" / "worker-0"
    home = tmp_path / "cluster" / "worker-0"
    ours = [Path(p) for p in path if p and Path(p).is_relative_to(tmp_path)]
    assert pythonpath is None and all(p.is_relative_to(home) for p in ours)
