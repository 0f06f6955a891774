"""Statement counters and weak-mutation probes: unchanged behaviour, exact lines, distances."""

from __future__ import annotations

import ast
import math
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from miogen.analysis.model import Unit
from miogen.criteria import probe_finder
from miogen.instrument import runtime, tally
from miogen.instrument.counting import TALLY, Counting
from miogen.instrument.loader import compile_instrumented
from miogen.instrument.rewrite import PROBE
from miogen.worker.tracer import ArcTracer

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")
WHOLE_FILE = Unit("all", "function", 1, 10**6, "", ranges=((1, 10**6),))


def counted(source: str, filename: str = "<counted>"):
    """Compile ``source`` counted and fully probed; returns (namespace, counter map)."""
    counting = Counting(probe_finder([WHOLE_FILE]))
    code = compile_instrumented(textwrap.dedent(source), filename, [counting])
    namespace = {PROBE: runtime, TALLY: tally}
    exec(code, namespace)
    return namespace, counting.map


def run(function, *args):
    runtime.reset()
    tally.reset()
    try:
        return ("ok", function(*args))
    except Exception as error:  # noqa: BLE001 - the type is part of the behaviour
        return ("raised", type(error).__name__)


# ---------------------------------------------------------------- behaviour unchanged

NUMBERS = st.one_of(st.integers(-4, 4), st.floats(-3, 3), st.just(0), st.booleans())
VALUES = st.one_of(NUMBERS, st.text(max_size=2), st.none(), st.lists(st.integers(0, 2), max_size=2))
ATOMS = st.sampled_from(["a", "b", "f(1, a)", "f(2, b)", "0", "1", "2.5", "'x'"])
ARITHMETIC = ["+", "-", "*", "/", "//", "%", "&", "|", "^"]
COMPARISONS = ["==", "!=", "<", "<=", ">", ">="]


def expressions():
    binary = st.builds(
        lambda x, op, y: f"({x} {op} {y})", ATOMS, st.sampled_from(ARITHMETIC), ATOMS
    )
    compare = st.builds(
        lambda x, ops: x + "".join(f" {op} {y}" for op, y in ops),
        st.one_of(ATOMS, binary),
        st.lists(st.tuples(st.sampled_from(COMPARISONS), st.one_of(ATOMS, binary)), min_size=1, max_size=3),
    )  # fmt: skip
    boolean = st.builds(
        lambda xs, op: f" {op} ".join(f"({x})" for x in xs),
        st.lists(st.one_of(compare, binary, ATOMS), min_size=2, max_size=3),
        st.sampled_from(["and", "or"]),
    )
    return st.one_of(binary, compare, boolean)


TEMPLATE = """
def f(tag, value):
    LOG.append(tag)
    return value

def target(a, b):
    out = []
    if {e1}:
        out.append({e2})
    x = {e2}
    while len(out) < 3 and ({e1}):
        out.append(x)
    for item in (a, b):
        try:
            out.append({e3})
        except ZeroDivisionError:
            out.append("zero")
            break
    return out, [v for v in (a, b) if {e1}]
"""


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), expressions(), expressions(), VALUES, VALUES)
def test_counted_and_probed_code_behaves_like_plain_code(e1, e2, e3, a, b):
    source = TEMPLATE.format(e1=e1, e2=e2, e3=e3)
    plain: dict = {"LOG": []}
    exec(compile(source, "<plain>", "exec"), plain)
    instrumented, _ = counted(source)
    instrumented["LOG"] = []
    assert run(instrumented["target"], a, b) == run(plain["target"], a, b)
    assert instrumented["LOG"] == plain["LOG"]  # same evaluation order, nothing evaluated twice


# ---------------------------------------------------------------- counters


BLOCKS = """\
def g(n, items):
    total = 0
    for item in items:
        if item < 0:
            raise ValueError(item)
        total += item
    helper(n)
    k = 0
    while k < n:
        k += 1
    try:
        ratio = total / n
    except ZeroDivisionError:
        ratio = 0.0
    parts = [total, ratio]
    return parts

def helper(n):
    return {"n": n}
"""


def test_counted_lines_are_the_lines_coverage_would_see(tmp_path):
    path = tmp_path / "blocks.py"
    path.write_text(BLOCKS)
    namespace, counters = counted(BLOCKS, str(path))
    tracer = ArcTracer(str(path))
    for args in [(0, []), (3, [1, 2]), (2, [1, -1, 3]), (1, [])]:
        runtime.reset()
        tally.reset()
        tracer.start()
        try:
            namespace["g"](*args)
        except ValueError:
            pass
        finally:
            arcs = tracer.stop()
        traced = {line for arc in arcs for line in arc if line > 0}
        # the def lines ran at import; an except line runs when tried, it is no statement
        assert counters.executed_lines(tally.COUNTS) == traced - {1, 13, 18}, args


def test_counters_count_calls_iterations_and_objects():
    namespace, counters = counted(BLOCKS)
    tally.reset()
    namespace["g"](4, [1, 2, 3])
    own = counters.of(tally.COUNTS)
    assert sorted(own[site] for site in counters.entries) == [1, 1]  # g and helper, once each
    assert sorted(own[site] for site in counters.loop_bodies) == [3, 4]  # for: 3, while: 4
    made = {counters.lines[site]: counters.allocations[site] for site in range(len(own))}
    assert made[15] == 1 and made[19] == 1 and made[2] == 0  # the list and the dict displays
    ran = {2: 1, 3: 1, 4: 3, 6: 3, 7: 1, 8: 1, 9: 1, 10: 4, 11: 1, 12: 1, 15: 1, 16: 1, 19: 1}
    assert {counters.lines[site]: count for site, count in enumerate(own) if count} == ran


def test_a_raise_part_way_through_a_block_leaves_the_rest_uncounted():
    namespace, counters = counted(BLOCKS)
    tally.reset()
    with pytest.raises(ValueError):
        namespace["g"](1, [-5])
    assert counters.executed_lines(tally.COUNTS) == {2, 3, 4, 5}


# ---------------------------------------------------------------- infection distances


def infections(source: str, function: str, *args) -> dict[str, float]:
    """Mutant description -> infection distance after one call."""
    namespace, _ = counted(source)
    tally.reset()
    try:
        namespace[function](*args)
    except Exception:  # noqa: BLE001, S110 - a raising call still infects what ran before
        pass
    tree = ast.parse(textwrap.dedent(source))
    from miogen.assertions.mutants import mutation_points

    described = {p.mutant.index: p.mutant.description for p in mutation_points(tree, WHOLE_FILE)}
    return {described[index]: d for index, d in tally.INFECTIONS.items()}


def test_relational_mutants_are_infected_on_their_boundary_and_guided_towards_it():
    source = "def lt(a, b):\n    return a < b\n"
    assert infections(source, "lt", 3, 5) == {"Lt -> LtE": 2.0, "Lt -> NotEq": 3.0}
    assert infections(source, "lt", 5, 5)["Lt -> LtE"] == 0.0  # 5 < 5 != 5 <= 5
    assert infections(source, "lt", 6, 5)["Lt -> NotEq"] == 0.0  # 6 < 5 != 6 != 5


def test_chained_comparisons_judge_each_operator_on_its_own_operands():
    source = "def chain(a, b, c):\n    return a < b <= c\n"
    found = infections(source, "chain", 1, 2, 2)
    assert found["Lt -> LtE"] == 1.0  # |1 - 2|
    assert found["LtE -> Lt"] == 0.0  # 2 <= 2 but not 2 < 2


def test_arithmetic_and_bitwise_mutants_are_infected_when_the_value_changes():
    source = "def arith(a, b):\n    return (a + b) | (a - b)\n"
    assert infections(source, "arith", 4, 0)["Add -> Sub"] == tally.K  # 4 + 0 == 4 - 0: reached
    found = infections(source, "arith", 4, 1)
    assert found["Add -> Sub"] == 0.0 and found["BitOr -> BitAnd"] == 0.0


def test_a_mutant_that_would_raise_is_infected():
    source = "def div(a, b):\n    return a * b\n"
    assert infections(source, "div", 3, 0)["Mult -> Div"] == 0.0  # 3 / 0 raises


def test_logical_mutants_are_judged_only_when_every_operand_ran():
    source = "def both(a, b):\n    return a and b\n"
    assert infections(source, "both", 1, 0)["And -> Or"] == 0.0  # 1 and 0 -> 0; 1 or 0 -> 1
    assert infections(source, "both", 0, 1)["And -> Or"] == math.inf  # b never ran: reached only


def test_recursion_through_the_same_site_keeps_operands_apart():
    source = "def depth(n):\n    return n + (depth(n - 1) if n else 0)\n"
    # n + depth(n - 1): every level's left operand waits while the right one recurses
    assert infections(source, "depth", 3)["Add -> Sub"] == 0.0


def test_user_objects_are_never_compared_again():
    source = "def eq(a, b):\n    return a == b\n"

    class Loud:
        calls = 0

        def __eq__(self, other):
            Loud.calls += 1
            return True

        __hash__ = object.__hash__

    found = infections(source, "eq", Loud(), Loud())
    assert Loud.calls == 1 and set(found.values()) == {math.inf}  # reached, not recomputed


def test_huge_integers_are_not_recomputed():
    source = "def mul(a, b):\n    return a * b\n"
    assert infections(source, "mul", 1 << 10000, 3)["Mult -> Add"] == math.inf
    assert sys.getrecursionlimit()  # the call above returned promptly
