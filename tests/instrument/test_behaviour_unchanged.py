"""Instrumented code behaves exactly like plain code: results, exceptions and evaluation order."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from miogen.instrument import runtime
from miogen.instrument.loader import compile_instrumented

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

VALUES = st.one_of(
    st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3),
    st.none(), st.lists(st.integers(-3, 3), max_size=3), st.booleans(),
    st.dictionaries(st.sampled_from(["", "a", "x", "ab"]), st.integers(0, 2), max_size=2),
    st.sampled_from(["12", "AB-1234", "ab", "A b", "x.txt", "\u00e9\u00c9"]),
)  # fmt: skip
OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"]


def atoms() -> st.SearchStrategy[str]:
    tagged = st.builds(
        lambda tag, name: f"f({tag}, {name})", st.integers(0, 9), st.sampled_from("ab")
    )
    literal = st.sampled_from(
        ["0", "1", "'x'", "[1, 2]", "None", "2.5", "''", "()", "{'a': 1}", "('A', 'x')"]
    )
    return st.one_of(st.sampled_from(["a", "b"]), tagged, literal)


PATTERNS = ["r'\\d+'", "r'[A-Z]{2}-\\d'", "'a|b$'", "r'(x)\\1'", "1", "a"]
METHODS = ["startswith", "endswith", "isdigit", "isupper", "islower", "isspace", "match"]


def calls() -> st.SearchStrategy[str]:
    """The calls that get string distances, on anything (they may raise, as in plain code)."""
    method = st.builds(
        lambda owner, name, argument: f"({owner}).{name}({argument if name[0] != 'i' else ''})",
        atoms(), st.sampled_from(METHODS), atoms(),
    )  # fmt: skip
    regex = st.builds(
        lambda function, pattern, subject: f"re.{function}({pattern}, {subject})",
        st.sampled_from(["match", "fullmatch", "search"]), st.sampled_from(PATTERNS), atoms(),
    )  # fmt: skip
    keyword = st.builds(lambda owner: f"({owner}).startswith(prefix='x')", atoms())
    return st.one_of(method, regex, keyword)


def comparisons() -> st.SearchStrategy[str]:
    return st.builds(
        lambda first, rest: first + "".join(f" {op} {atom}" for op, atom in rest),
        atoms(),
        st.lists(st.tuples(st.sampled_from(OPERATORS), atoms()), min_size=1, max_size=3),
    )


expressions = st.recursive(
    st.one_of(atoms(), comparisons(), calls(), st.builds(lambda a: f"isinstance({a}, int)", atoms())),
    lambda inner: st.one_of(
        st.builds(lambda x: f"not ({x})", inner),
        st.builds(lambda xs, op: f" {op} ".join(f"({x})" for x in xs), st.lists(inner, min_size=2, max_size=3), st.sampled_from(["and", "or"])),
    ),
    max_leaves=6,
)  # fmt: skip

TEMPLATE = """
import re

def target(a, b, log):
    def f(tag, value):
        log.append(tag)
        return value
    out = []
    if {e1}:
        out.append(1)
    elif {e2}:
        out.append(2)
    out.append(3 if {e2} else 4)
    out.extend(x for x in range(3) if {e3})
    n = 0
    while n < 3 and ({e1}):
        n += 1
    for item in [a, b]:
        if {e3}:
            break
    else:
        out.append(5)
    assert {e1} or True
    return out, n
"""


def run(code, a, b):
    namespace = {"__miogen_probe__": runtime}
    exec(code, namespace)
    log: list[int] = []
    try:
        result = ("ok", namespace["target"](a, b, log))
    except Exception as error:  # noqa: BLE001 - the exception type is part of the behaviour
        result = ("raised", type(error).__name__)
    return result, log


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, expressions, expressions, VALUES, VALUES)
def test_instrumented_code_behaves_like_plain_code(e1, e2, e3, a, b):
    source = textwrap.dedent(TEMPLATE).format(e1=e1, e2=e2, e3=e3)
    plain = compile(source, "<plain>", "exec")
    instrumented = compile_instrumented(source, "<instrumented>")
    assert run(instrumented, a, b) == run(plain, a, b)


def test_walrus_and_super_are_left_to_plain_evaluation():
    source = textwrap.dedent(
        """
        class Base:
            def ok(self):
                return True

        class Child(Base):
            def check(self, xs):
                if (n := len(xs)) > 1 and n < 5:
                    return n
                if xs and super().ok():
                    return -1
                return 0
        """
    )
    namespace = {"__miogen_probe__": runtime}
    exec(compile_instrumented(source, "<walrus>"), namespace)
    child = namespace["Child"]()
    assert (child.check([1, 2]), child.check([1]), child.check([])) == (2, -1, 0)


def test_distances_guide_towards_the_branch():
    source = "def f(x):\n    if x == 10:\n        return 1\n    return 0\n"
    namespace = {"__miogen_probe__": runtime}
    exec(compile_instrumented(source, "<d>"), namespace)
    distances = []
    for x in (0, 5, 9, 10):
        runtime.reset()
        namespace["f"](x)
        distances.append(runtime.DISTANCES[2][0])
    assert distances == sorted(distances, reverse=True) and distances[-1] == 0
