"""bench.criteria's reading of a miogen summary and its Table III layout."""

from __future__ import annotations

from bench.criteria import COLUMNS, _criteria_columns, summarize


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
