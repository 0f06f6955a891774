"""The whole pipeline in a worker: deterministic for a seed and an evaluation budget."""

from __future__ import annotations

from miogen.execution.job import JobSpec
from miogen.execution.supervisor import run_job


def test_same_seed_and_evaluation_budget_give_the_same_tests(classic):
    def generate(seed: int) -> list[str]:
        spec = JobSpec(
            path=str(classic / "expint.py"), module_name="expint", import_root=str(classic),
            unit="expint", evaluations=1500, seed=seed, post_seconds=30,
        )  # fmt: skip
        outcome = run_job(spec)
        assert outcome.status == "ok", outcome.message
        return [t["source"] for t in outcome.result["tests"]] + [str(outcome.result["covered"])]

    first = generate(11)
    assert generate(11) == first
    assert generate(12) != first


def test_seeds_are_replayed_and_stale_ones_dropped(write_module):
    path = write_module(
        "seeded", "def f(x: int) -> int:\n    if x == 4242:\n        return 1\n    return 0\n"
    )
    hit = [["value", "", [], 4242, -1], ["call", "f", [["x", 0]], None, -1]]
    stale = [["value", "", [], 1, -1], ["call", "f", [["y", 0]], None, -1]]
    spec = JobSpec(path=str(path), module_name="seeded", import_root=str(path.parent), unit="f",
                   evaluations=10, seeds=[hit, stale])  # fmt: skip
    outcome = run_job(spec)
    assert outcome.result["replayed"] == 1
    assert len(outcome.result["covered"]) == 2


def test_the_mutation_phase_kills_more_mutants_with_the_same_coverage(classic):
    # Branch goals only: smart selection's weak-mutation goals lead to boundaries too, which
    # would blur what the mutation phase adds.
    def generate(share: float) -> dict:
        spec = JobSpec(
            path=str(classic / "triangle.py"), module_name="triangle", import_root=str(classic),
            unit="classify", evaluations=3000, seed=3, post_seconds=30, mutation_share=share,
            criteria="branch",
        )  # fmt: skip
        outcome = run_job(spec)
        assert outcome.status == "ok", outcome.message
        return outcome.result

    coverage_only, with_mutants = generate(0.0), generate(0.2)
    assert with_mutants["covered"] == coverage_only["covered"]
    assert len(with_mutants["covered"]) == with_mutants["total"]
    assert coverage_only["mutation"]["killed_in_search"] == 0
    assert with_mutants["mutation"]["killed_in_search"] > 0
    killed = with_mutants["mutation"]["killed"]
    assert killed >= coverage_only["mutation"]["killed"] + 5, (coverage_only, with_mutants)
    # Every test is there for a branch or for at least two mutants.
    for test in with_mutants["tests"]:
        assert test["targets"] or test["kills"] >= 2, test
