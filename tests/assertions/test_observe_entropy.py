"""Values from unseeded sources are never asserted, however often the observation runs agree."""

from __future__ import annotations

import datetime
import os
import pickle
import random
import subprocess
import sys
import textwrap
import time

import pytest
from miogen.assertions.observe import EXTRA_RUNS, drawn_from_sources, observe
from miogen.host.config import Options
from miogen.run.generate import generate_module
from miogen.testcase.model import Statement
from miogen.worker import entropy
from worker.helpers import problem_for

SUBJECT = """
import datetime
import os
import random
import secrets
import time
import uuid
from datetime import datetime as Moment


class Coin:
    def __init__(self, seed: int | None = None) -> None:
        self.rnd = random.Random(seed)
        self.label = "coin"
        self.last = ""

    def flip(self) -> str:
        self.last = self.rnd.choice("HT")
        return self.last

    def faces(self) -> int:
        return 2


def global_flip() -> str:
    return random.choice("HT")


def seeded_flip(seed: int) -> str:
    random.seed(seed)
    return random.choice("HT")


def token() -> str:
    return uuid.uuid4().hex[:1]


def secret_bit() -> int:
    return secrets.randbelow(2)


def this_year() -> int:
    return datetime.date.today().year


def years_since(year: int) -> int:
    return datetime.datetime.now().year - year


def utc_years_since(year: int) -> int:
    return Moment.utcnow().year - year


def hour() -> int:
    return int(time.time()) // 3600


def pid_parity() -> int:
    return os.getpid() % 2


def reject(text: str) -> str:
    if random.random() < 0.5:
        raise ValueError("unlucky")
    return text
"""

# Without the watch the two runs agree by chance (half the time for a coin): over this many
# observations some would agree; the clock and the pid agree every time.
TRIES = 24


def call(name: str, *args: Statement) -> tuple[Statement, ...]:
    named = tuple((f"/{i}", i) for i in range(len(args)))
    return (*args, Statement("call", name, named))


def asserted(write_module, test: tuple[Statement, ...], unit: str, tries: int = TRIES) -> set:
    """The (index, kind) of every value observation that any of ``tries`` observations kept."""
    problem = problem_for(write_module("chance", SUBJECT), unit)
    found = set()
    for _ in range(tries):
        observed = observe(problem.executor, test, "chance")
        found |= {(o.index, o.kind) for o in observed.observations if o.kind != "isinstance"}
    return found


@pytest.mark.parametrize(
    "unit",
    [
        "global_flip", "token", "secret_bit", "this_year", "years_since", "utc_years_since",
        "hour", "pid_parity",
    ],
)  # fmt: skip
def test_a_value_from_an_unseeded_source_is_not_asserted(write_module, unit):
    tries = TRIES if unit in ("global_flip", "token", "secret_bit") else 1
    test = call(unit, Statement("value", value=1979)) if "years" in unit else call(unit)
    assert asserted(write_module, test, unit, tries) == set()


def test_a_value_from_a_seeded_module_generator_is_asserted(write_module):
    test = call("seeded_flip", Statement("value", value=4))
    assert asserted(write_module, test, "seeded_flip", 2) == {(1, "equals")}


def test_an_object_holding_an_unseeded_generator_keeps_what_it_did_not_draw(write_module):
    test = (
        Statement("construct", "Coin"),
        Statement("method", "faces", receiver=0),
        Statement("method", "flip", receiver=0),
        Statement("method", "faces", receiver=0),
    )
    # faces() before the flip is asserted; the flip, the coin's state after it (its last
    # face) and whatever the coin answers after it are not.
    assert asserted(write_module, test, "Coin") == {(1, "equals")}


def test_an_object_holding_a_seeded_generator_is_asserted(write_module):
    test = (
        Statement("value", value=7),
        Statement("construct", "Coin", (("seed", 0),)),
        Statement("method", "flip", receiver=1),
    )
    found = asserted(write_module, test, "Coin", 2)
    assert (2, "equals") in found and (1, "attribute") in found


def test_a_test_that_drew_must_end_alike_in_more_runs(write_module):
    problem = problem_for(write_module("chance", SUBJECT), "reject")
    executor = problem.executor
    drawing = call("reject", Statement("value", value="x"))
    plain = call("seeded_flip", Statement("value", value=1))
    counts = []
    for test in (drawing, plain):
        before = executor.executions
        observe(executor, test, "chance")
        counts.append(executor.executions - before)
    assert counts == [2 + EXTRA_RUNS, 2]
    # Even odds of raising: six runs all end alike for 1 test in 32 (2 runs: 1 in 2).
    runs = [observe(executor, drawing, "chance") for _ in range(TRIES)]
    assert sum(run.stable for run in runs) <= 6
    assert all(not o.message for run in runs for o in run.observations if o.kind == "raises")


def test_what_a_drawing_statement_uses_and_changes_is_drawn_too():
    test = (
        Statement("construct", "Coin"),  # changed by the flip: its state is drawn
        Statement("value", value=3),  # an int: not changed by anything
        Statement("method", "flip", (("/0", 1),), receiver=0),
        Statement("method", "faces", receiver=0),  # reads the coin after the flip
        Statement("call", "other", (("n", 1),)),
    )
    values: list[object] = [object(), 3, "H", 2, None]
    assert drawn_from_sources(test, frozenset({2}), values) == {0, 2, 3}


def test_seeding_is_tracked_per_generator():
    entropy.install()
    seeded, unseeded = random.Random(3), random.Random()
    assert entropy.is_seeded(seeded) and not entropy.is_seeded(unseeded)
    seeded.seed()
    unseeded.seed(5)
    assert not entropy.is_seeded(seeded) and entropy.is_seeded(unseeded)
    assert random.Random(3).random() == random.Random(3).random()  # seeding still works


def test_emitted_tests_of_random_code_pass_under_pytest_every_time(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    module = tmp_path / "chance.py"
    module.write_text(textwrap.dedent(SUBJECT).lstrip())
    output = tmp_path / "tests" / "test_chance.py"
    generate_module(module, None, output, Options(0, evaluations=600, seed=1))
    emitted = output.read_text()
    assert "def test_" in emitted
    for _ in range(4):  # each run draws other values
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
            env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin",
                 "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        )  # fmt: skip
        assert completed.returncode == 0, completed.stdout + emitted


def _seeded_later() -> random.Random:
    generator = random.Random()
    generator.seed(9)
    return generator


@pytest.mark.parametrize(
    ("call", "draws"),
    [
        (lambda: time.strftime("%Y"), True),
        (lambda: time.strftime("%Y", (2020, 1, 2, 3, 4, 5, 0, 2, 0)), False),
        (lambda: time.gmtime(), True),
        (lambda: time.gmtime(0), False),
        (lambda: os.urandom(2), True),
        (lambda: random.Random(4).random(), False),
        (lambda: random.Random().random(), True),  # dropped before it can be compared
        (lambda: _seeded_later().random(), False),
        (lambda: len("no source"), False),
        (lambda: datetime.datetime.now(), True),
        (lambda: datetime.datetime.now(datetime.UTC), True),
        (lambda: datetime.datetime.today(), True),
        (lambda: datetime.date.today(), True),
        (lambda: datetime.datetime(2020, 1, 2).isoformat(), False),
        (lambda: datetime.datetime.fromtimestamp(0), False),
    ],
)
def test_a_watch_sees_draws_and_only_draws(call, draws):
    with entropy.Watch() as watch:
        watch.take()
        call()
        assert watch.take() is draws


def test_the_watched_datetime_class_makes_real_datetimes():
    entropy.install()
    real = type(datetime.datetime(2020, 1, 2))
    assert real is not datetime.datetime  # the watching subclass is what the module offers
    for moment in (datetime.datetime(2020, 1, 2), datetime.datetime.now(), real(2021, 3, 4)):
        assert type(moment) is real and isinstance(moment, datetime.datetime)
        assert pickle.loads(pickle.dumps(moment)) == moment

    class Own(datetime.datetime):
        pass

    assert type(Own.now()) is Own and not isinstance(datetime.datetime(2020, 1, 2), Own)
