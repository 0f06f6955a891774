"""What real code's objects show: properties of slotted value types, classes one can import."""

from __future__ import annotations

import sys
import types
from collections import namedtuple

from miogen.assertions.observe import observations_of
from miogen.testcase.model import Statement
from miogen.worker.executor import Execution


class Slotted:
    __slots__ = ("_cents",)

    def __init__(self, cents: int) -> None:
        self._cents = cents

    @property
    def cents(self) -> int:
        return self._cents

    @property
    def broken(self) -> int:
        raise RuntimeError("no")


def observed(values: list, kinds: list[str], module: types.ModuleType) -> set[tuple[str, str, str]]:
    test = tuple(Statement(kind, "f") for kind in kinds)
    execution = Execution(test, set(), {}, set(), values=values)
    found = observations_of(execution, module.__name__)
    return {(o.kind, o.value, o.detail) for o in found}


def test_slotted_objects_show_their_public_properties(monkeypatch):
    module = types.ModuleType("slotted_module")
    monkeypatch.setitem(sys.modules, "slotted_module", module)
    assert observed([Slotted(5)], ["construct"], module) == {("attribute", "5", "cents")}


def test_classes_made_at_run_time_are_not_imported_but_package_classes_are(monkeypatch):
    module = types.ModuleType("pkg.mod")
    Row = namedtuple("Row", "a")  # noqa: PYI024 - made at run time, as the module would
    Row.__module__ = "pkg.mod"
    Imported = type("Imported", (), {"__module__": "pkg.other"})
    module.Imported = Imported
    monkeypatch.setitem(sys.modules, "pkg.mod", module)
    found = observed([Row(1), Imported()], ["call", "call"], module)
    assert ("isinstance", "Row", "Row") not in found
    assert ("isinstance", "Imported", "pkg.other:Imported") in found


def test_a_returned_function_is_asserted_callable_not_an_instance_of_a_nameless_type(
    monkeypatch,
):
    module = types.ModuleType("factories")
    monkeypatch.setitem(sys.modules, "factories", module)

    def decorate(function):
        return function

    generator = (n for n in ())
    found = observed([decorate, len, generator], ["call", "call", "call"], module)
    assert found == {("callable", "", "")}  # no `isinstance(x, function)`: a NameError


def test_flat_containers_of_floats_are_compared_with_approx(monkeypatch):
    module = types.ModuleType("floats_module")
    monkeypatch.setitem(sys.modules, "floats_module", module)
    values = [(482.31489999999997, -1015.778003), [1, 0.5], {"a": 0.1}, [1, 2], ["x", 0.5]]
    found = observed(values, ["call"] * 5, module)
    assert {
        ("approx", "(482.31489999999997, -1015.778003)", ""),
        ("approx", "[1, 0.5]", ""),
        ("approx", '{"a": 0.1}', ""),
        ("equals", "[1, 2]", ""),  # no float: exact
        ("equals", '["x", 0.5]', ""),  # not all numbers: pytest.approx would not take it
    } <= found
    assert not any(
        kind == "equals" and "." in value for kind, value, _ in found if "x" not in value
    )


def test_complex_numbers_are_compared_with_approx(monkeypatch):
    # ``(-377) ** Fraction(1, -4)``: a complex result whose parts are as inexact as floats.
    module = types.ModuleType("complex_module")
    monkeypatch.setitem(sys.modules, "complex_module", module)
    found = observed([0.16047214752482825 - 0.16047214752482822j], ["call"], module)
    assert ("approx", "(0.16047214752482825-0.16047214752482822j)", "") in found
    assert not any(kind == "equals" for kind, _, _ in found)
