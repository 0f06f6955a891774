"""The harness's plan and report: jobs, aggregation, the aims, tables and plots from rows."""

from __future__ import annotations

from pathlib import Path

from bench import report
from bench.run import COLUMNS, FULL, QUICK, Job, _row_key, write_rows


def row(subject, tool, budget, seed=0, kind="seconds", **values) -> dict:
    base = {column: 0 for column in COLUMNS}
    base.update(subject=subject, tool=tool, budget_kind=kind, budget=budget, seed=seed,
                status="ok", message="", test_file="", branches_total=10, statements_total=20)  # fmt: skip
    base.update(values)
    base["branch_percent"] = 100.0 * base["branches_covered"] / base["branches_total"]
    return {k: str(v) for k, v in base.items()}


ROWS = [
    row("triangle", "mio", 5, 0, branches_covered=10, wall_seconds=5.5, search_seconds=1,
        executions=4000),
    row("triangle", "mio", 5, 1, branches_covered=8, wall_seconds=7.0, search_seconds=1,
        executions=2000),
    row("triangle", "pynguin-mio", 30, 0, branches_covered=9, wall_seconds=50, search_seconds=30,
        executions=3000),
    row("triangle", "pynguin-dynamosa", 30, 0, branches_covered=7, wall_seconds=40,
        search_seconds=30, executions=3000),
    row("triangle", "mio", 5000, 0, kind="evaluations", branches_covered=10,
        statements_covered=20, raw_covered=30),
]  # fmt: skip


def test_plans_have_unique_jobs_and_quick_is_smaller():
    for plan in (QUICK, FULL):
        keys = [job.key for job in plan.jobs()]
        assert len(keys) == len(set(keys))
    assert len(QUICK.jobs()) < len(FULL.jobs())
    assert {job.tool for job in FULL.jobs()} == set(report.LABELS)


def test_job_key_round_trips_through_a_row():
    job = Job("gammq", "mio-nofds", "evaluations", 5000, 2)
    assert job.key == "gammq/mio-nofds-5000ev-seed2"
    assert _row_key({"subject": "gammq", "tool": "mio-nofds", "budget_kind": "evaluations",
                     "budget": "5000", "seed": "2"}) == job.key  # fmt: skip


def test_aggregate_means_and_spread_over_seeds():
    cells = report.aggregate(ROWS)
    cell = cells["triangle", "mio", "seconds", 5]
    assert cell["runs"] == 2
    assert cell["branch_percent"] == 90.0
    assert (cell["branch_min"], cell["branch_max"], cell["wall_max"]) == (80.0, 100.0, 7.0)
    assert report.rate(ROWS, "triangle", ["mio"]) == 3000.0
    assert report.peer_best(cells, "triangle", 30)[0] == "pynguin-mio"


def test_headline_states_the_missed_aims():
    text, missed = report.headline(ROWS, report.aggregate(ROWS))
    assert "| triangle | 90.0 (80–100) | 90.0 (MIO) | yes |" in text
    assert "| 3000 | 100 | 30x |" in text
    assert not any("executions per second" in m for m in missed)
    assert any("wall time at 5 s up to 7.0 s" in m for m in missed)


def test_table1_puts_ours_next_to_the_paper():
    text = report.table1(report.aggregate(ROWS))
    assert "| triangle | 30 | 30.0 (100 %) | – | – | – | 38.9 | 35.7 | 37.8 | 31.7 |" in text


def test_build_writes_plots_and_report(tmp_path: Path):
    write_rows(tmp_path / "runs.csv", ROWS)
    (tmp_path / "timelines.json").write_text('{"triangle/mio-5s-seed0": [[0.5, 50.0], [1, 100]]}')
    path = report.write(tmp_path)
    text = path.read_text()
    assert "## Where we are behind" in text and "![curve-triangle](curve-triangle.png)" in text
    assert (tmp_path / "curve-triangle.png").stat().st_size > 1000
    assert (tmp_path / "speed-and-wall.png").exists()


def test_rate_table_checks_issue_2_over_all_mio_runs():
    text, missed = report.rate_table(ROWS)
    assert text.splitlines()[2].startswith("| triangle | 3000 |")
    assert missed == []  # 6000 executions over 2 search seconds
    slow = [dict(ROWS[0], executions="100")]
    assert "issue #2 aim" in report.rate_table(slow)[1][0]


def test_mutation_table_compares_with_the_reference(tmp_path: Path):
    (tmp_path / "mutation.csv").write_text(
        "suite,test_file,tests,statements,branch_percent,mutants,killed,survived,incompetent,"
        "score,unit_score,seconds\n"
        "reference,r.py,7,7,100.0,,,,,,,\n"
        "miogen,m.py,8,16,100.0,186,140,46,0,75.3,75.3,120\n"
    )
    text, missed = report.mutation_table(tmp_path)
    assert "| miogen | 8 | 1.14 | 16 | 2.29 |" in text
    assert any("75.3 %" in m for m in missed) and any("2.29x" in m for m in missed)


def test_the_latency_report_is_copied_under_its_own_heading(tmp_path: Path):
    from bench.__main__ import latency_section

    assert latency_section(tmp_path / "lsp_latency.md") == ""
    latest = tmp_path / "lsp_latency.md"
    latest.write_text("# Latency (argparse)\n\nCommand: `x`\n\n## Saves\n\n| a | b |\n", "utf-8")
    section = latency_section(latest).splitlines()
    assert section[1] == "## Latency (argparse)"
    assert "### Saves" in section and "Command: `x`" in section and "| a | b |" in section
    assert section[3].endswith("lsp_latency.md))"), section[3]
    (tmp_path / "lsp_latency_notes.md").write_text("## Reading\n\nWhy.\n", "utf-8")
    assert latency_section(latest).splitlines()[-3:] == ["### Reading", "", "Why."]
