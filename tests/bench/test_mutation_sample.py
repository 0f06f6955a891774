"""bench.mutation.keep_sample: a sample of a cosmic-ray session's mutants, the same whatever
the job ids."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench.mutation import count_mutants, keep_sample


def session(path: Path, jobs: list[tuple[str, int, str]]) -> Path:
    """A session database with cosmic-ray's two tables: (job id, row, operator) per mutant."""
    with sqlite3.connect(path) as database:
        database.execute("CREATE TABLE work_items (job_id VARCHAR PRIMARY KEY)")
        database.execute(
            "CREATE TABLE mutation_specs (module_path VARCHAR, operator_name VARCHAR, "
            "occurrence INTEGER, start_pos_row INTEGER, start_pos_col INTEGER, "
            "job_id VARCHAR PRIMARY KEY)"
        )
        for job, row, operator in jobs:
            database.execute("INSERT INTO work_items VALUES (?)", (job,))
            database.execute(
                "INSERT INTO mutation_specs VALUES ('m.py', ?, 0, ?, 0, ?)", (operator, row, job)
            )
    return path


def kept(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as database:
        items = {job for (job,) in database.execute("SELECT job_id FROM work_items")}
        specs = database.execute(
            "SELECT start_pos_row, operator_name, job_id FROM mutation_specs ORDER BY 1, 2"
        ).fetchall()
    assert items == {job for _, _, job in specs}  # both tables lose the same mutants
    return [(row, operator) for row, operator, _ in specs]


def test_every_kth_mutant_in_source_order_is_kept_whatever_the_job_ids(tmp_path):
    mutants = [(row, operator) for row in range(1, 6) for operator in ("Add_Sub", "Lt_LtE")]
    first = session(tmp_path / "a.sqlite", [(f"a{n}", r, o) for n, (r, o) in enumerate(mutants)])
    second = session(
        tmp_path / "b.sqlite",
        [(f"b{9 - n}", r, o) for n, (r, o) in enumerate(reversed(mutants))],
    )
    assert keep_sample(first, 5) == 5 and keep_sample(second, 5) == 5
    assert kept(first) == kept(second) == [(row, "Add_Sub") for row in range(1, 6)]
    assert keep_sample(first, 100) == 5  # fewer than asked: all stay


def test_the_mutants_are_counted_before_the_sample(tmp_path):
    first = session(tmp_path / "a.sqlite", [(f"a{n}", n, "Add_Sub") for n in range(7)])
    assert count_mutants(first) == 7
    keep_sample(first, 3)
    assert count_mutants(first) == 3
