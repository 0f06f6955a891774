"""``decimal.Decimal`` in an annotation is the standard library's class even where the module
defines a class of its own named ``Decimal`` (typesystem.fields): the bare name is the
module's."""

from __future__ import annotations

from miogen.analysis.module import analyze_source

SUBJECT = """
import datetime
import decimal


class Decimal:
    pass


def bound(limit: decimal.Decimal, field: Decimal, day: datetime.date) -> None:
    pass
"""


def test_a_qualified_stdlib_name_is_not_the_module_s_class_of_that_name():
    params = analyze_source(SUBJECT).functions["bound"].params
    assert [(p.type.kind, p.type.name) for p in params] == [
        ("stdlib", "decimal.Decimal"),
        ("class", "Decimal"),
        ("stdlib", "datetime.date"),
    ]
