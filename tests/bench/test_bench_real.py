"""The real-code benchmark's corpus, its reading of miogen's summary, and its table."""

from __future__ import annotations

import doctest
from pathlib import Path

from bench import real, realcorpus, realreport
from bench.measure import SuiteMeasure
from bench.realcorpus import CORPUS, QUICK, REQUIREMENTS, SUBJECTS


def test_doctests():
    assert doctest.testmod(realcorpus).failed == 0


def test_corpus_is_large_pinned_and_keeps_its_held_out_packages_apart():
    development = [m for m in CORPUS if not m.held_out]
    held_out = [m for m in CORPUS if m.held_out]
    assert len(development) >= 15 and len(held_out) >= 3
    assert sum(m.package_imports_it for m in development) >= 5
    assert not {m.project for m in held_out} & {m.project for m in development}
    pins = realcorpus.requirement_pins(REQUIREMENTS.read_text())
    for module in CORPUS:
        if module.copy:
            assert (SUBJECTS / module.copy).is_file(), module.copy
        else:
            name, _, version = module.distribution.partition("==")
            assert pins.get(name.lower().replace("_", "-")) == version, module.distribution
    assert [m.name for m in realcorpus.select(None, quick=True)] == list(QUICK)
    assert {m.name for m in realcorpus.select(None, "all")} == {m.name for m in CORPUS}


def test_locate_measures_packages_in_place_and_copies_stdlib_modules(tmp_path: Path):
    site = tmp_path / "site"
    (site / "flutes").mkdir(parents=True)
    (site / "flutes" / "iterator.py").write_text("")
    package = next(m for m in CORPUS if m.module == "flutes.iterator")
    assert package.locate(site, tmp_path / "proj") == (site / "flutes" / "iterator.py", site)
    calendar = next(m for m in CORPUS if m.name == "stdlib_calendar")
    path, root = calendar.locate(site, tmp_path / "proj")
    assert (path, root) == (tmp_path / "proj" / "stdlib_calendar.py", tmp_path / "proj")
    assert path.read_bytes() == (SUBJECTS / "stdlib_calendar.py").read_bytes()


def summary(**changes) -> dict:
    base = {
        "exit_code": 0,
        "units": [
            {"name": "f", "status": "ok", "search_seconds": 1.0, "refusals": {"write": 2}},
            {"name": "g", "status": "ok", "search_seconds": 2.0, "refusals": {}},
        ],
        "dropped_failing_tests": ["test_a"],
        "dropped_unstable_tests": [],
        "dropped_without_assertion": 3,
    }
    base.update(changes)
    return base


def test_ours_run_reads_status_and_drops_per_cause(tmp_path: Path):
    run = real.ours_run(summary(), 6.5, tmp_path / "t.py")
    assert run.status == "ok" and run.search_seconds == 3.0
    assert run.counts == {"units": 2, "units_failed": 0, "dropped_failing": 1,
                          "dropped_unstable": 0, "dropped_no_assertion": 3, "refused_runs": 2}  # fmt: skip
    broken = summary(exit_code=2, units=[
        {"name": "f", "status": "error", "message": "importing m raised ImportError: x\nmore"}
    ])  # fmt: skip
    failed = real.ours_run(broken, 1.0, None)
    assert (
        failed.status == "load-failed" and failed.message == "f: importing m raised ImportError: x"
    )
    assert real.ours_run(summary(), 1.0, None).status == "no-tests"


def rows(tmp_path: Path) -> list[dict]:
    module = next(m for m in CORPUS if m.name == "codetiming._timer")
    measured = SuiteMeasure(branches_total=10, branches_covered=8, tests=4, tests_failed=1)
    ours = real.ours_run(summary(), 6.0, tmp_path / "t.py")
    peer = real.ToolRun(wall_seconds=40.0)
    return [
        real.make_row(module, real.OURS, ours, measured, tmp_path, 1.0),
        real.make_row(module, real.PEER, peer, SuiteMeasure(branches_total=10), tmp_path, 1.0),
    ]


def test_rows_fill_every_column_and_the_table_puts_tools_side_by_side(tmp_path: Path):
    made = rows(tmp_path)
    assert all(list(row) == real.COLUMNS for row in made)
    text = realreport.module_table([{k: str(v) for k, v in row.items()} for row in made])
    assert "| `codetiming._timer` | 0 | yes | 80.0 | 0.0 | 4 (1) | 0 (0) | 6.0 | 40.0 |" in text
    aims = realreport.aims([{k: str(v) for k, v in row.items()} for row in made])
    assert "Failing emitted tests (miogen): 1 in 1 modules" in aims
    assert "Median wall time, miogen at 5 s: 6.0 s (aim ≤ 7 s: met)" in aims
    assert "miogen at 5 s ≥ Pynguin at 30 s on 1/1 modules (100%, aim ≥ 80%); mean" in aims
    assert "+80.0 points" in aims and "miogen at 30 s" not in aims


def test_the_longer_miogen_run_gets_a_column_and_its_aim(tmp_path: Path):
    made = rows(tmp_path)
    module = next(m for m in CORPUS if m.name == "codetiming._timer")
    measured = SuiteMeasure(branches_total=10, branches_covered=9, tests=5)
    longer = real.ours_run(summary(), 31.0, tmp_path / "t.py")
    made.append(real.make_row(module, real.LONGER, longer, measured, tmp_path, 1.0))
    as_text = [{k: str(v) for k, v in row.items()} for row in made]
    assert "| miogen 30 s branch % |" in realreport.module_table(as_text)
    assert "| 80.0 | 0.0 | 90.0 | 4 (1) |" in realreport.module_table(as_text)
    aims = realreport.aims(as_text)
    assert "miogen at 30 s above miogen at 5 s on 1/1 modules not complete at 5 s" in aims
    assert "mean gain +10.0 points" in aims


def test_report_builds_from_a_runs_file(tmp_path: Path):
    real.write_rows(tmp_path / "runs.csv", rows(tmp_path))
    text = realreport.build(tmp_path, "./")
    assert "## Development corpus" in text and "## Held-out modules" not in text
    assert "Modules failing to load: 0/1" in text


def test_the_dynamosa_run_gets_a_column_and_says_which_algorithm_wins(tmp_path: Path):
    made = rows(tmp_path)
    module = next(m for m in CORPUS if m.name == "codetiming._timer")
    measured = SuiteMeasure(branches_total=10, branches_covered=7, tests=5)
    other = real.ours_run(summary(), 6.0, tmp_path / "t.py")
    made.append(real.make_row(module, real.DYNAMOSA, other, measured, tmp_path, 1.0))
    as_text = [{k: str(v) for k, v in row.items()} for row in made]
    assert "| miogen DynaMOSA branch % |" in realreport.module_table(as_text)
    assert "| 80.0 | 0.0 | 70.0 | 4 (1) |" in realreport.module_table(as_text)
    aims = realreport.aims(as_text)
    assert "MIO ahead on 1, behind on 0, equal on 0 of 1 modules; mean difference +10.0" in aims


def test_seeds_run_both_algorithms_back_to_back_per_module_in_alternating_order():
    modules = [m for m in CORPUS if m.name in ("codetiming._timer", "sty.primitive")]
    jobs = real.plan_jobs(modules, [real.OURS, real.DYNAMOSA], 2, done=set())
    assert [(seed, m.name, tool) for seed, m, tool in jobs] == [
        (0, modules[0].name, real.OURS), (0, modules[0].name, real.DYNAMOSA),
        (0, modules[1].name, real.DYNAMOSA), (0, modules[1].name, real.OURS),
        (1, modules[0].name, real.DYNAMOSA), (1, modules[0].name, real.OURS),
        (1, modules[1].name, real.OURS), (1, modules[1].name, real.DYNAMOSA),
    ]  # fmt: skip
    finished = {(modules[0].name, real.OURS, 1)}
    assert len(real.plan_jobs(modules, [real.OURS, real.DYNAMOSA], 2, finished)) == 7
    assert real.job_folder(Path("o"), modules[0], real.OURS, 0) == Path(
        "o/runs/codetiming._timer/miogen"
    )
    assert real.job_folder(Path("o"), modules[0], real.OURS, 2).name == "miogen-seed2"


def test_several_seeds_are_compared_per_module_by_medians_and_a_signed_rank_test(tmp_path: Path):
    module = next(m for m in CORPUS if m.name == "codetiming._timer")
    made = []
    for seed, (ours, theirs) in enumerate([(8, 7), (9, 7), (6, 7)]):
        for tool, covered in ((real.OURS, ours), (real.DYNAMOSA, theirs)):
            measured = SuiteMeasure(branches_total=10, branches_covered=covered, tests=5)
            run = real.ours_run(summary(), 6.0, tmp_path / "t.py")
            made.append(real.make_row(module, tool, run, measured, tmp_path, 1.0, seed))
    real.write_rows(tmp_path / "runs.csv", made)
    text = realreport.build(tmp_path, "./")
    assert "## MIO against DynaMOSA over 3 seeds" in text
    assert "| `codetiming._timer` | 80.0 | 60.0–90.0 | 70.0 | 70.0–70.0 | +10.0 | 0.67 |" in text
    assert "MIO ahead on 1, behind on 0, equal on 0 of 1 modules" in text
    assert "Wilcoxon signed-rank over the 1 modules whose medians differ: p = 1.000" in text
    assert text.count("| `codetiming._timer` | 0 | yes |") == 1  # the module table: seed 0 only
