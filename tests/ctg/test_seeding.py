"""Seeding: stored tests re-validated after changes, the object pool, dependency order."""

from __future__ import annotations

import dataclasses
import random
import textwrap

from ctg_projects import BANK, construct, make_project, method, stored, value
from miogen.analysis.module import analyze_file, analyze_source
from miogen.common.records import JobSpec, UnitJob
from miogen.ctg.seeding import dependencies, pool_objects, pool_seeds, still_valid_seeds
from miogen.host.supervisor import run_job
from miogen.testcase.model import from_json

V1 = """
import enum

class Color(enum.Enum):
    RED = 1
    GREEN = 2

class Lamp:
    def __init__(self, color: Color, watts: int = 40):
        self.color = color
        self.watts = watts

    def brighter(self, by: int) -> int:
        return self.watts + by

    def dim(self) -> int:
        return self.watts // 2
"""

# Lamp.dim is renamed, brighter() takes a required `limit`, Color.GREEN is gone.
V2 = """
import enum

class Color(enum.Enum):
    RED = 1

class Lamp:
    def __init__(self, color: Color, watts: int = 40):
        self.color = color
        self.watts = watts

    def brighter(self, by: int, limit: int) -> int:
        return min(self.watts + by, limit)

    def halve(self) -> int:
        return self.watts // 2
"""


def lamp_tests() -> dict[str, list]:
    red = ("enum", "Color.RED", [], None, -1)
    green = ("enum", "Color.GREEN", [], None, -1)
    base = [list(red), ["construct", "Lamp", [["color", 0]], None, -1]]
    return {
        "dim": base + [["method", "dim", [], None, 1]],
        "brighter": base + [["value", "", [], 5, -1], ["method", "brighter", [["by", 2]], None, 1]],
        "green": [list(green), ["construct", "Lamp", [["color", 0]], None, -1]],
        "watts": base[:1] + [["value", "", [], 60, -1]]
        + [["construct", "Lamp", [["color", 0], ["watts", 1]], None, -1]],
    }  # fmt: skip


def model_of(source: str):
    return analyze_source(textwrap.dedent(source), "lamp.py", "lamp")


def test_stored_tests_that_still_fit_are_kept():
    model = model_of(V1)
    tests = lamp_tests()
    kept, dropped = still_valid_seeds(model, model.unit("Lamp"), tests.values())
    assert kept == list(tests.values()) and dropped == 0


def test_after_a_signature_change_tests_that_no_longer_run_are_dropped_on_load():
    model = model_of(V2)
    tests = lamp_tests()
    kept, dropped = still_valid_seeds(model, model.unit("Lamp"), tests.values())
    # dim() renamed, brighter() now needs limit, Color.GREEN removed: only `watts` survives.
    assert kept == [tests["watts"]] and dropped == 3


def test_malformed_and_duplicate_stored_tests_are_dropped():
    model = model_of(V1)
    good = lamp_tests()["watts"]
    broken = [
        "not a test",
        [["method", "dim", [], None, 5]],  # a receiver that does not exist
        [["construct", "Gone", [], None, -1]],  # a class that does not exist
        [["value"]],
    ]
    kept, dropped = still_valid_seeds(model, model.unit("Lamp"), [good, *broken, good])
    assert kept == [good] and dropped == 4


def test_the_worker_replays_only_what_survived(tmp_path):
    """End to end: tests made for v1 seed a job on v2; the dropped ones are not replayed."""
    root = make_project(tmp_path, {"lamp.py": V1})
    spec = JobSpec(
        str(root / "lamp.py"), "lamp", str(root), (UnitJob("Lamp"),), budget_seconds=1.0,
        evaluations=200,
    )  # fmt: skip
    first = run_job(spec).units[0].result
    seeds = [t.test for t in first.tests]
    assert any(s.kind == "method" and s.name == "dim" for t in seeds for s in from_json(t))
    (root / "lamp.py").write_text(textwrap.dedent(V2), encoding="utf-8")
    model = analyze_file(root / "lamp.py", "lamp")
    kept, dropped = still_valid_seeds(model, model.unit("Lamp"), seeds)
    assert dropped >= 1
    again = dataclasses.replace(spec, units=(UnitJob("Lamp", seeds=tuple(seeds)),), evaluations=1)
    second = run_job(again).units[0].result
    assert second.replayed == len(kept)  # the worker's own check agrees with the load check


BANKING = """
class Account:
    def __init__(self, owner: str, limit: int = 100):
        self.owner = owner
        self.limit = limit

class Transfer:
    def __init__(self, source: Account, target: "Account", amount: int):
        self.source = source

    def fits(self) -> bool:
        return self.amount <= self.source.limit

def audit(transfers: list[Transfer]) -> int:
    return len(transfers)
"""


def test_dependencies_come_from_parameter_types():
    model = model_of(BANKING)
    assert dependencies(model) == {"Account": set(), "Transfer": {"Account"}, "audit": {"Transfer"}}


def test_pool_objects_are_the_constructions_in_other_units_tests():
    model = model_of(BANKING)
    account_test = stored(
        value("ann"), value(5000), construct("Account", ("owner", 0), ("limit", 1)),
        method("deposit", 2, ("amount", 1)),
    )  # fmt: skip
    objects = pool_objects(model, "Account", [account_test])
    assert objects == [from_json(account_test)[:3]]  # the call on it is not part of the object


def test_pool_seeds_put_pooled_objects_into_new_tests_and_they_pass_the_check():
    model = model_of(BANKING)
    pooled = from_json(stored(value("ann"), value(5000), construct("Account", ("owner", 0), ("limit", 1))))  # fmt: skip
    unit = model.unit("Transfer")
    seeds = pool_seeds(model, unit, {"Account": [pooled]}, random.Random(1), probability=0.5)
    assert seeds, "with p = 0.5 some Account arguments come from the pool"
    assert all(any(s.value == 5000 for s in from_json(seed)) for seed in seeds)
    kept, dropped = still_valid_seeds(model, unit, seeds)
    assert dropped == 0
    assert pool_seeds(model, unit, {"Account": [pooled]}, random.Random(1), probability=0) == []


def test_input_seeding_probability_is_capped_at_one_half():
    model = model_of(BANKING)
    pooled = from_json(stored(value("ann"), construct("Account", ("owner", 0))))
    unit = model.unit("Transfer")
    seeds = pool_seeds(model, unit, {"Account": [pooled]}, random.Random(3), 1.0, count=50)
    tests = [from_json(s) for s in seeds]
    accounts = sum(1 for t in tests for s in t if s.kind == "construct" and s.name == "Account")
    from_pool = sum(1 for t in tests for s in t if s.kind == "value" and s.value == "ann")
    assert 0 < from_pool < accounts  # p = 1 would replace every Account


def test_bank_subject_has_no_dependencies(tmp_path):
    root = make_project(tmp_path, {"bank.py": BANK})
    assert dependencies(analyze_file(root / "bank.py", "bank")) == {
        "Account": set(),
        "classify": set(),
    }


def test_nested_constructions_take_pooled_objects_too():
    model = model_of(BANKING)
    account = from_json(stored(value("ann"), construct("Account", ("owner", 0))))
    seeds = pool_seeds(model, model.unit("audit"), {"Account": [account]}, random.Random(0), 0.5)
    assert seeds  # audit takes Transfers, whose Accounts come from the pool
    assert all(any(s.value == "ann" for s in from_json(seed)) for seed in seeds)
    assert still_valid_seeds(model, model.unit("audit"), seeds)[1] == 0
