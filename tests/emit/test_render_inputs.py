"""Operators read as operators, functions as their names, stdlib values as their constructors."""

from __future__ import annotations

import datetime
import decimal
import fractions
import pathlib
import re
import sys
import uuid

import pytest
from emit.strict_checks import strict_ruff
from miogen.assertions.observation import Observation, literal
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.render import module_imports, render_test
from miogen.emit.style import Style
from miogen.testcase.model import Statement

MODULE = """
class Box:
    def __init__(self, size=1):
        self.size = size

    def __add__(self, other):
        return Box(self.size + other.size)

    def __eq__(self, other):
        return isinstance(other, Box) and self.size == other.size

    def __getitem__(self, index):
        return index * self.size

    def __setitem__(self, index, value):
        self.size = value

    def __contains__(self, item):
        return item == self.size

    def __enter__(self):
        return self.size

    def __exit__(self, *details):
        return False

    def __rmod__(self, other):
        return other * self.size

    @property
    def label(self):
        return str(self.size)

    @label.setter
    def label(self, value):
        self.size = int(value)

    def apply(self, function):
        return function(self.size)


def twice(x):
    return 2 * x
"""


def run(rendered, module: str) -> None:
    """Execute the rendered test function with its imports, as pytest would."""
    names = ", ".join(sorted(rendered.imports))
    header = "\n".join(sorted(rendered.extra_imports))
    if names:
        header += f"\nfrom {module} import {names}"
    namespace: dict = {}
    exec(header + "\n" + rendered.source, namespace)
    namespace[rendered.name]()


@pytest.fixture
def box_module(write_module, monkeypatch):
    path = write_module("boxes", MODULE)
    monkeypatch.syspath_prepend(str(path.parent))
    yield "boxes"
    sys.modules.pop("boxes", None)


def S(kind, name="", args=(), value=None, receiver=-1):  # noqa: N802 - reads like the record
    return Statement(kind, name, tuple(args), value, receiver)


def test_operators_setters_contexts_and_functions_read_like_hand_written_code(box_module):
    test = (
        S("value", value=2),
        S("construct", "Box", [("size", 0)]),
        S("construct", "Box"),
        S("operator", "__add__", [("other", 2)], receiver=1),
        S("operator", "__eq__", [("other", 2)], receiver=3),
        S("value", value=3),
        S("operator", "__getitem__", [("index", 5)], receiver=1),
        S("value", value=0),
        S("value", value=3),
        S("operator", "__setitem__", [("index", 7), ("value", 8)], receiver=2),
        S("value", value=3),
        S("operator", "__contains__", [("item", 10)], receiver=2),
        S("value", value="7"),
        S("assign", "label", [("value", 12)], receiver=2),
        S("operator", "__enter__", receiver=2),
        S("callable", "twice", value="module"),
        S("method", "apply", [("function", 15)], receiver=1),
        S("callable", "lambda x: x * 2", value="lambda"),
        S("method", "apply", [("function", 17)], receiver=1),
    )
    observations = [
        Observation(4, "equals", "False"),
        Observation(6, "equals", "6"),
        Observation(11, "equals", "True"),
        Observation(14, "equals", "7"),
        Observation(16, "equals", "4"),
    ]
    rendered = render_test(test, observations, "test_box", {"Box"})
    lines = [line.strip() for line in rendered.source.splitlines()]
    assert "result = box + box_2" in lines
    assert "assert (result == box_2) is False" in lines
    assert "assert box[3] == 6" in lines
    assert "box_2[0] = 3" in lines
    assert "assert (3 in box_2) is True" in lines
    assert 'box_2.label = "7"' in lines
    assert "with box_2 as result_2:" in lines and "assert result_2 == 7" in lines
    assert "assert box.apply(function=twice) == 4" in lines
    assert "box.apply(function=lambda x: x * 2)" in lines
    assert rendered.imports == {"Box", "twice"}
    run(rendered, box_module)


@pytest.mark.parametrize(("name", "function"), [("__eq__", "eq"), ("__ne__", "ne")])
@pytest.mark.parametrize("singleton", [None, False, True])
def test_equality_with_a_singleton_is_meant_and_says_so(box_module, name, function, singleton):
    """``box == None`` calls ``Box.__eq__`` (``is None`` would not); linters flag it (E711/E712),
    so the test calls ``operator.eq`` instead, and the import follows from the text."""
    test = (
        S("construct", "Box"),
        S("value", value=singleton),
        S("operator", name, [("other", 1)], receiver=0),
    )
    rendered = render_test(
        test, [Observation(2, "equals", str(name == "__ne__"))], "test_box", {"Box"}
    )
    lines = [line.strip() for line in rendered.source.splitlines()]
    expected = str(name == "__ne__")
    noqa = "" if singleton is None else "  # noqa: FBT003"  # a bool on purpose
    assert f"assert operator.{function}(box, {singleton}) is {expected}{noqa}" in lines
    assert "import operator" in module_imports(rendered.source)
    rendered.extra_imports |= module_imports(rendered.source)
    run(rendered, box_module)


def test_a_string_formatted_with_percent_is_written_as_operator_mod(box_module):
    """``"%s" % box`` is str's formatting (the reflected ``__rmod__`` never runs): linters want
    format specifiers there (UP031, F507), so the test says ``operator.mod``."""
    test = (
        S("construct", "Box"),
        S("value", value="<%s>"),
        S("operator", "__rmod__", [("other", 1)], receiver=0),
    )
    rendered = render_test(test, [Observation(2, "equals", "'<Box>'")], "test_box", {"Box"})
    lines = [line.strip() for line in rendered.source.splitlines()]
    assert "assert operator.mod(\"<%s>\", box) == '<Box>'" in lines
    numbers = (
        S("construct", "Box"),
        S("value", value=7),
        S("operator", "__rmod__", [("other", 1)], receiver=0),
    )
    assert "7 % box" in render_test(numbers, [], "test_box", {"Box"}).source


def test_a_raising_context_and_its_with_are_one_statement(box_module):
    test = (S("construct", "Box"), S("operator", "__enter__", receiver=0))
    raises = Observation(1, "raises", "ValueError", detail="builtins:ValueError", message=None)
    rendered = render_test(test, [raises], "test_box", {"Box"})
    assert "    with pytest.raises(ValueError), box:\n        pass" in rendered.source


def test_no_variable_is_named_like_a_module_the_tests_import():
    """An object of a class ``Decimal`` is not called ``decimal``: that would hide
    ``import decimal`` where a stdlib value is written ``decimal.Decimal("1.5")`` (F811)."""
    test = (S("construct", "Decimal"), S("method", "apply", [("function", 0)], receiver=0))
    source = render_test(test, [Observation(1, "equals", "1")], "test_decimal", {"Decimal"}).source
    assert "decimal_2 = Decimal()" in source and "decimal =" not in source


def test_no_variable_is_named_like_the_lowercase_class_it_is_made_from():
    """``shlex = shlex()`` makes ``shlex`` local to the test: the call raises UnboundLocalError."""
    test = (S("construct", "shlex"), S("method", "get_token", receiver=0))
    source = render_test(test, [Observation(1, "equals", "'a'")], "test_shlex", {"shlex"}).source
    assert "shlex_2 = shlex()" in source and "shlex =" not in source


def test_a_set_literal_names_each_value_once():
    test = (
        S("value", value=None),
        S("value", value=None),
        S("value", value=3),
        S("set", args=[("", 0), ("", 1), ("", 2)]),
        S("call", "twice", [("x", 3)]),
    )
    assert "twice(x={None, 3})" in render_test(test, [], "test_set", {"twice"}).source


def test_stdlib_values_are_written_as_their_constructors():
    values = [
        datetime.date(2024, 2, 29),
        datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        datetime.timedelta(days=-1, seconds=30),
        decimal.Decimal("1.10"),
        fractions.Fraction(-3, 4),
        pathlib.PurePosixPath("/data/file.txt"),
        re.compile(r"\d+", re.IGNORECASE),
        uuid.UUID(int=7),
    ]
    for value in values:
        text = literal(value)
        assert text is not None
        namespace: dict = {}
        exec("\n".join(sorted(module_imports(text))), namespace)
        assert eval(text, namespace) == value, text
    assert literal(decimal.Decimal("NaN")) is None  # never equal to itself
    assert literal(datetime.date(2024, 2, 29)) == "datetime.date(2024, 2, 29)"
    # datetime.UTC is 3.11's: the spelling every Python has
    utc = literal(datetime.datetime(2024, 1, 2, tzinfo=datetime.UTC))
    assert utc == "datetime.datetime(2024, 1, 2, 0, 0, tzinfo=datetime.timezone.utc)"


def test_module_imports_come_from_code_not_from_strings():
    source = 'def test_x():\n    assert f("datetime.date") == decimal.Decimal("1")\n    x.re.y\n'
    assert module_imports(source) == {"import decimal"}


def test_classes_of_other_package_modules_are_imported_from_there():
    test = (
        S("construct", "Config", value="shop.config"),
        S("call", "Config.default", value="shop.config"),
        S("call", "price", [("config", 0), ("other", 1)]),
    )
    rendered = render_test(test, [Observation(2, "equals", "1")], "test_price", set())
    assert rendered.imports == {"price"}
    assert rendered.extra_imports == {"from shop.config import Config"}


def test_positional_arguments_are_written_by_position():
    test = (
        S("value", value=1),
        S("value", value=2),
        S("construct", "Bag", [("/name", 0), ("*items", 1)]),
    )
    rendered = render_test(test, [], "test_bag", {"Bag"})
    assert "Bag(1, 2)" in rendered.source


def test_unchecked_operator_expressions_do_not_read_as_pointless_comparisons():
    test = (
        S("construct", "Box"),
        S("operator", "__lt__", [("other", 0)], receiver=0),
        S("operator", "__neg__", receiver=0),
        S("operator", "__len__", receiver=0),
        S("operator", "__getitem__", [("index", 0)], receiver=0),
    )
    rendered = render_test(test, [Observation(4, "raises", "KeyError")], "test_box", {"Box"})
    lines = [line.strip() for line in rendered.source.splitlines()]
    assert lines[2:5] == ["operator.lt(box, box)", "_ = -box", "len(box)"]
    assert lines[-1] == "_ = box[box]"


def test_huge_numbers_have_no_literal_and_do_not_raise():
    """repr() refuses ints past 4300 digits: such results (x ** y) are simply not asserted."""
    import fractions

    huge = 7**6000
    assert literal(huge) is None and literal([1, huge]) is None and literal({huge}) is None
    assert literal(fractions.Fraction(huge, 3)) is None
    assert literal(2**600) == repr(2**600)


@pytest.mark.parametrize("text", ["NaN", "-NaN", "sNaN"])
def test_a_nan_decimal_input_is_written_as_its_constructor_and_imported(text):
    """An assertion cannot compare a NaN Decimal, but a call can take one: the input is
    ``decimal.Decimal("NaN")`` with its import, not a bare ``Decimal('NaN')`` (NameError)."""
    value = decimal.Decimal(text)
    test = (S("value", value=value), S("call", "twice", [("x", 0)]))
    rendered = render_test(test, [], "test_nan", {"twice"})
    assert f'decimal.Decimal("{text}")' in rendered.source
    assert "import decimal" in rendered.extra_imports
    namespace: dict = {}
    exec("import decimal", namespace)
    rebuilt = eval(f'decimal.Decimal("{text}")', namespace)
    assert str(rebuilt) == str(value)


def test_a_string_too_long_for_a_literal_is_never_quoted():
    """A huge string (calendar's with ``w=10**8``) was quoted before its length was checked:
    the copy ran the worker out of memory and failed every unit after it."""

    class Huge(str):
        def __repr__(self) -> str:
            raise AssertionError("quoted a string too long to be a literal")

    assert literal(Huge("x" * 201)) is None
    assert literal(b"y" * 201) is None
    assert literal("x" * 190) == '"' + "x" * 190 + '"'


@pytest.mark.parametrize(
    ("name", "function"), [("__eq__", "eq"), ("__lt__", "lt"), ("__ge__", "ge")]
)
def test_an_object_compared_with_itself_says_it_is_meant(box_module, name, function):
    """``box < box`` reads as a slip (ruff PLR0124): ``operator.lt(box, box)`` runs the same."""
    test = (S("construct", "Box"), S("operator", name, [("other", 0)], receiver=0))
    rendered = render_test(test, [], "test_box", {"Box"})
    assert f"    operator.{function}(box, box)\n" in rendered.source
    assert "import operator" in rendered.extra_imports
    if name == "__eq__":
        run(rendered, box_module)


def test_a_whole_decimal_is_written_without_a_string():
    """``Decimal(-4321)``, not ``Decimal("-4321")`` (ruff FURB157); a signed zero, a fraction
    and a string that holds such a call stay as they are."""
    values = [decimal.Decimal("-4321"), decimal.Decimal("0"), decimal.Decimal("-0")]
    values += [decimal.Decimal("1.50")]
    test = (*(S("value", value=v) for v in values), S("list", args=[("", i) for i in range(4)]))
    test = (*test, S("value", value='Decimal("7")'), S("call", "twice", [("x", 4), ("y", 5)]))
    source = render_test(test, [], "test_x", {"twice"}).source
    assert (
        '[decimal.Decimal(-4321), decimal.Decimal(0), decimal.Decimal("-0"), '
        'decimal.Decimal("1.50")]' in source
    ), source
    assert "y='Decimal(\"7\")'" in source


def test_a_boolean_ndigits_of_round_goes_by_keyword():
    """``round(box, False)`` is the boolean trap to linters (FBT003); round takes ``ndigits=``."""
    test = (S("construct", "Box"), S("value", value=False))
    test = (*test, S("operator", "__round__", [("ndigits", 1)], receiver=0))
    assert "round(box, ndigits=False)" in render_test(test, [], "test_box", {"Box"}).source
    test = (*test[:2], S("value", value=2), S("operator", "__round__", [("n", 2)], receiver=0))
    assert "round(box, 2)" in render_test(test, [], "test_box", {"Box"}).source


BAGS = """
class Bag:
    def __add__(self, other: list[int] | tuple[int, ...]) -> int:
        return len(other) + 1

    def __radd__(self, other: list[int] | tuple[int, ...]) -> int:
        return len(other) + 2
"""


def test_a_list_or_tuple_added_is_written_as_operator_add(write_module, monkeypatch, tmp_path):
    """``[] + bag`` runs ``Bag.__radd__``; ruff reads a ``+`` with a list or tuple display as
    building a collection (RUF005: "consider ``[*bag]``", which runs no ``__radd__``), so the
    test calls ``operator.add`` with the operands in the same order."""
    monkeypatch.syspath_prepend(str(write_module("bags", BAGS).parent))
    test = (
        S("construct", "Bag"),
        S("list"),
        S("operator", "__radd__", [("other", 1)], receiver=0),
        S("value", value=1),
        S("tuple", args=(("", 3),)),
        S("operator", "__add__", [("other", 4)], receiver=0),
    )
    observations = [Observation(2, "equals", "2"), Observation(5, "equals", "2")]
    rendered = render_test(test, observations, "test_bag", {"Bag"})
    lines = [line.strip() for line in rendered.source.splitlines()]
    assert "assert operator.add([], bag) == 2" in lines, rendered.source
    assert "assert operator.add(bag, (1,)) == 2" in lines, rendered.source
    rendered.extra_imports |= module_imports(rendered.source)
    run(rendered, "bags")
    (tmp_path / "bags.py").write_text(BAGS)
    imports = [*sorted(rendered.extra_imports), "from bags import Bag"]
    merged = merge_tests(None, imports, [GeneratedTest("test_bag", rendered.source)], style=Style())
    path = tmp_path / "test_bags.py"
    path.write_text(merged.text)
    assert strict_ruff(path) == []
