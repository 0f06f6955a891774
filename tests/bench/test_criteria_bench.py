"""bench.criteria's reading of a miogen summary and its Table III layout."""

from __future__ import annotations

import csv

from bench import suite_profile
from bench.criteria import COLUMNS, _criteria_columns, _pytest_run, summarize, verdict


def summary(*units: dict) -> dict:
    return {"units": list(units)}


def unit(**criteria: tuple[int, int]) -> dict:
    return {
        "criteria": {
            k.replace("_", "-"): {"covered": c, "total": t} for k, (c, t) in criteria.items()
        }
    }


def test_criteria_are_summed_over_the_units():
    columns = _criteria_columns(summary(unit(branch=(3, 4), output=(1, 2)), unit(branch=(5, 5))))
    assert (columns["branch_covered"], columns["branch_total"]) == (8, 9)
    assert (columns["output_covered"], columns["output_total"]) == (1, 2)
    assert (columns["weak-mutation_covered"], columns["weak-mutation_total"]) == (0, 0)


def test_the_summary_has_medians_per_algorithm_with_criteria_down():
    rows = []
    for seed, covered in enumerate((2, 3, 4)):
        row = dict.fromkeys(COLUMNS, "")
        row.update(subject="s", algorithm="mio", criteria="smart", seed=seed, status="ok",
                   branch_covered=covered, branch_total=4, exception_covered=seed,
                   exception_total=seed, tests=3, suite_seconds=0.5)  # fmt: skip
        rows.append(row)
    table = summarize(rows)
    assert "| criterion | mio (smart) |" in table
    assert "| branch | 75.0% (of 4) |" in table  # the median run covers 3 of 4
    assert "| exception | 1 found |" in table
    assert "| suite_seconds | 0.5 |" in table


def row(algorithm: str, seed: int, branch: int, lines: int) -> dict:
    data = dict.fromkeys(COLUMNS, "")
    data.update(subject="s", algorithm=algorithm, criteria="smart", seed=seed, status="ok",
                branch_covered=branch, branch_total=10, suite_lines=lines,
                suite_seconds=0.1, call_cpu_seconds=0.01)  # fmt: skip
    return data


def test_the_aim_counts_cheaper_suites_only_where_branch_coverage_is_equal():
    rows = [row("dynamosa", seed, 8, 100 + seed) for seed in range(5)]
    rows += [row("adynamosa", seed, 8, 50 + seed) for seed in range(5)]
    table = "\n".join(verdict(rows))
    assert "| adynamosa | s | +0.0 | 1.000 | yes |" in table
    assert "cheaper on the equal-branch subjects by suite_seconds 0/1" in table
    assert "suite_lines 1/1" in table
    losing = [row("dynamosa", seed, 9, 100) for seed in range(5)]
    losing += [row("adynamosa", seed, 6, 50) for seed in range(5)]
    table = "\n".join(verdict(losing))
    assert "| adynamosa | s | +30.0 |" in table and "| no |" in table
    assert "suite_lines 0/0" in table


def test_the_runtime_plugin_counts_the_lines_the_tests_run_in_the_module_under_test(tmp_path):
    (tmp_path / "loops.py").write_text(
        "def total(n):\n    result = 0\n    for i in range(n):\n        result += i\n    return result\n"
    )

    def lines_of(n: int) -> int:
        suite = tmp_path / f"test_loops_{n}.py"
        suite.write_text(f"from loops import total\n\n\ndef test_total():\n    total({n})\n")
        measured = _pytest_run(suite, tmp_path, count=tmp_path / "loops.py")
        assert measured is not None
        seconds, _, cpu, lines = measured
        assert seconds > 0 and cpu >= 0
        return lines

    # three more iterations: three more loop headers and three more bodies
    assert lines_of(6) - lines_of(3) == 6
    assert lines_of(0) == 3  # result = 0, the loop header once, return


def test_the_profile_takes_each_configurations_median_coverage_suite_and_runs_them_in_turns(
    tmp_path,
):
    rows = [row("dynamosa", seed, branch, 0) for seed, branch in enumerate((9, 7, 8))]
    rows += [row("adynamosa", seed, branch, 0) for seed, branch in enumerate((5, 5, 6, 9))]
    suites = tmp_path / "suites"
    for r in rows:
        folder = suite_profile.suite_folder(suites, "s", r["algorithm"], "smart", r["seed"])
        folder.mkdir(parents=True)
        (folder / "test_s.py").write_text("")
    order = []

    def run(suite, folder):
        order.append(folder.parent.name + "/" + folder.name)
        return (0.5, 1, 0.25, 0)

    suite_profile.profile(tmp_path, suites, rows, 2, run)
    assert order == ["dynamosa-smart/2", "adynamosa-smart/0"] * 2
    suite_profile.profile(tmp_path, suites, rows, 3, run)  # a rerun continues where it stopped
    assert order[4:] == ["dynamosa-smart/2", "adynamosa-smart/0"]
    report = "\n".join(
        suite_profile.report(tmp_path, ("adynamosa", "smart"), ("dynamosa", "smart"))
    )
    assert "| s | dynamosa (smart) | 2 | 3 | 0.5 | 0.25 |" in report


def test_separate_streams_combine_into_one_report(tmp_path):
    from bench.criteria import main

    for name, algorithm in (("one", "dynamosa"), ("two", "adynamosa")):
        folder = tmp_path / name
        folder.mkdir()
        with (folder / "runs.csv").open("w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows(row(algorithm, seed, 8, 10) for seed in range(3))
    out = tmp_path / "all"
    main(
        [
            "--report-only",
            "--out",
            str(out),
            "--combine",
            str(tmp_path / "one"),
            str(tmp_path / "two"),
        ]
    )
    assert "| adynamosa | s | +0.0 | 1.000 | yes |" in (out / "summary.md").read_text()


def test_the_stages_table_shows_where_goals_were_lost_after_the_search(tmp_path):
    import json

    from bench import criteria_stages

    def run(config: str, seed: int, archive: int, kept: int, measured: int, drops: int) -> None:
        folder = tmp_path / "fractions" / config / str(seed)
        folder.mkdir(parents=True)
        unit = {"coverage": {"total": 10}, "uncovered": [{}] * (10 - archive),
                "targets_covered": kept}  # fmt: skip
        data = {"units": [unit], "coverage": {"covered": measured}}
        data["dropped_failing_tests"] = ["test_x"] * drops
        (folder / "summary.json").write_text(json.dumps(data))

    run("adynamosa-smart", 0, 9, 7, 8, 1)
    run("adynamosa-smart", 1, 8, 8, 8, 0)
    run("dynamosa-smart", 0, 9, 9, 9, 0)
    (tmp_path / "fractions" / "dynamosa-smart" / "1").mkdir()  # a run that wrote nothing
    rows = criteria_stages.table(tmp_path)[2:]
    assert rows == [
        "| fractions | adynamosa-smart | 2 | 8.5 | 7.5 | 8 | 1 | 1 (1) |",
        "| fractions | dynamosa-smart | 1 | 9 | 9 | 9 | 0 | 0 (0) |",
    ]
