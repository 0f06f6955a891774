"""Unannotated parameters get the types their use shows; classes get their real ways of being called."""

from __future__ import annotations

import textwrap

from miogen.analysis.docstrings import parameter_types
from miogen.analysis.model import ModuleModel
from miogen.analysis.module import analyze_file, analyze_source


def model_of(source: str) -> ModuleModel:
    return analyze_source(textwrap.dedent(source), "m.py", "m")


def types_of(model: ModuleModel, function: str) -> dict[str, set[str]]:
    """Parameter -> the type options inferred for it, as text."""
    signature = model.functions[function]
    return {p.name: _options(p.type) for p in signature.params}


def _options(spec) -> set[str]:
    return {str(a) for a in spec.args} if spec.kind == "union" else {str(spec)}


def test_the_body_shows_the_types_of_unannotated_parameters():
    model = model_of(
        """
        import re

        def f(record, name, count, callback, pattern_text, maybe=None, flag=False):
            for key, value in record.items():
                pass
            if name.startswith("x") and count > 3:
                callback(name)
            if re.match(r"\\d+", pattern_text) and maybe is None:
                return flag
        """
    )
    types = types_of(model, "f")
    assert types["record"] == {"dict"}
    assert types["name"] <= {"str", "bytes"} and "str" in types["name"]
    assert {"int", "float", "any"} == types["count"]  # a comparison is weak evidence: any stays
    assert types["callback"] == {"callable[any]"}
    assert types["pattern_text"] == {"str"}
    assert "none" in types["maybe"]
    assert types["flag"] == {"bool"}


def test_isinstance_checks_name_types_and_leave_the_others_open():
    model = model_of(
        """
        import numbers

        class Ratio(numbers.Rational):
            pass

        def f(value):
            if isinstance(value, (int, float)):
                return 1
            if isinstance(value, numbers.Rational):
                return 2
            return 0
        """
    )
    assert types_of(model, "f")["value"] == {"int", "float", "Ratio", "any"}


def test_an_attribute_table_finds_the_class_a_parameter_is_used_as():
    model = model_of(
        """
        class Config:
            def __init__(self, currency: str, vat: float) -> None:
                self.currency = currency
                self.vat = vat

        class Other:
            def __init__(self) -> None:
                self.vat = 0

        def price(net, config):
            return net * (1 + config.vat) if config.currency else 0
        """
    )
    assert types_of(model, "price")["config"] == {"Config"}


def test_docstrings_in_three_styles_give_types():
    model = model_of(
        '''
        def google(when, strict):
            """Args:
                when (datetime.date): the day.
                strict (bool, optional): refuse more.
            """

        def numpy(low, items):
            """
            Parameters
            ----------
            low : float
                the bound
            items : list of str
            """

        def sphinx(text):
            """:param text: what
            :type text: str
            """
        '''
    )
    assert types_of(model, "google") == {"when": {"datetime.date"}, "strict": {"bool", "none"}}
    assert types_of(model, "numpy") == {"low": {"float"}, "items": {"list[str]"}}
    assert types_of(model, "sphinx") == {"text": {"str"}}


def test_docstring_sections_end_where_the_next_begins():
    text = "Args:\n    a (int): x\n\nReturns:\n    b (str): y\n"
    assert parameter_types(text) == {"a": "int"}


def test_call_sites_in_the_module_pass_their_types():
    model = model_of(
        """
        import datetime

        def due(day, grace):
            return day + grace

        def caller(x: datetime.date):
            return due(x, datetime.timedelta(days=3))
        """
    )
    # `day + grace` hints at numbers too, far more weakly than the call site: left out.
    assert types_of(model, "due") == {"day": {"datetime.date"}, "grace": {"datetime.timedelta"}}


def test_a_parameter_handed_to_a_helper_takes_the_helpers_evidence():
    model = model_of(
        """
        def _check(other):
            if not isinstance(other, bytes):
                raise TypeError
            return other

        def f(data):
            return _check(data)
        """
    )
    assert types_of(model, "f")["data"] == {"bytes", "any"}


def test_new_operators_setters_factories_and_varargs():
    model = model_of(
        """
        class Amount:
            def __new__(cls, cents=0, *, _trusted=False):
                return super().__new__(cls)

            @classmethod
            def zero(cls):
                return cls(0)

            def __add__(self, other):
                return self

            __radd__ = __add__

            def __len__(self):
                return 1

            def __hash__(self):
                return 1

            @property
            def label(self):
                return ""

            @label.setter
            def label(self, value: str) -> None:
                pass

        class Bag:
            def __init__(self, name, *items):
                self.items = items
        """
    )
    amount = model.classes["Amount"]
    assert amount.constructor.name == "__new__"
    assert [(p.name, str(p.type)) for p in amount.constructor.params] == [("cents", "int")]
    assert str(next(m for m in amount.methods if m.name == "zero").returns) == "Amount"
    special = {(s.name, s.kind) for s in amount.special}
    assert {("__add__", "operator"), ("__radd__", "operator"), ("__len__", "operator")} <= special
    assert ("label", "setter") in special and ("__hash__", "operator") in special
    add = next(s for s in amount.special if s.name == "__add__")
    assert {"Amount", "int", "float", "any"} == _options(add.params[0].type)
    assert [p.name for p in model.classes["Bag"].constructor.params] == ["/name", "*items"]
    assert "Amount" in [u.name for u in model.units]


def test_classes_imported_from_the_package_are_known_with_their_module(tmp_path):
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text(
        "class Config:\n    def __init__(self, vat: float = 0.2) -> None:\n        self.vat = vat\n"
    )
    (package / "pricing.py").write_text(
        "from .config import Config\n\n\ndef price(net, config):\n    return net * config.vat\n"
        "\n\ndef default(base: Config) -> Config:\n    return base\n"
    )
    model = analyze_file(package / "pricing.py", "shop.pricing")
    assert model.classes["Config"].module == "shop.config"
    assert str(model.functions["price"].params[1].type) == "Config"
    default = model.functions["default"]
    assert (str(default.params[0].type), str(default.returns)) == ("Config", "Config")
    assert [u.name for u in model.units] == ["price", "default"]  # imported classes are not


def test_siblings_that_import_each_other_are_read_once(tmp_path):
    package = tmp_path / "ring"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from .b import B\n\n\nclass A:\n    def f(self):\n        pass\n"
    )
    (package / "b.py").write_text(
        "from .a import A\n\n\nclass B:\n    def g(self):\n        pass\n"
    )
    model = analyze_file(package / "a.py", "ring.a")
    assert model.classes["B"].module == "ring.b"


def test_regular_expressions_add_examples_to_the_constant_pool():
    model = model_of(
        """
        import re

        def f(code: str) -> bool:
            return bool(re.fullmatch(r"[A-Z]{2}-\\d{3}", code))
        """
    )
    examples = [s for s in model.constants.strings if s != r"[A-Z]{2}-\d{3}"]
    assert "AA-000" in examples


def test_namedtuple_bases_give_the_constructor_its_fields():
    model = model_of(
        """
        from collections import namedtuple

        class Section(namedtuple("SectionBase", "title key")):
            pass

        class Point(namedtuple("P", ["x", "y"])):
            def norm(self):
                return abs(self.x) + abs(self.y)
        """
    )
    assert [p.name for p in model.classes["Section"].constructor.params] == ["title", "key"]
    assert [p.name for p in model.classes["Point"].constructor.params] == ["x", "y"]
    assert [u.name for u in model.units] == ["Point"]  # no code of its own: not a unit


def test_generators_return_iterators_and_overload_stubs_do_not_count():
    model = model_of(
        """
        from typing import Iterator, overload

        def chunks(n: int, items: list) -> Iterator[list]:
            yield items[:n]

        class Range:
            @overload
            def __init__(self, stop: int): ...

            @overload
            def __init__(self, start: int, stop: int): ...

            def __init__(self, *args):
                self.args = args

            def size(self):
                return len(self.args)
        """
    )
    assert str(model.functions["chunks"].returns) == "iterator[list]"
    # The implementation's ``*args`` is read through the stubs (analysis.overloads), not
    # replaced by the first stub's ``stop``.
    assert [p.name for p in model.classes["Range"].constructor.params] == ["/start", "/stop"]


def test_keyword_options_become_the_keys_the_body_reads():
    """``**options`` alone gives no argument to pass: the keys read by subscript are required
    (without them the read raises KeyError), those read with ``get`` or tested with ``in`` are
    optional, a ``get`` default is the default, and each key's type comes from its use."""
    model = model_of(
        """
        def grid(**interface):
            if not interface["imports"]:
                return ""
            interface["statement"] += "("
            interface["seen"] = []
            width = interface.get("line_length", 80)
            if "prefix" in interface and interface["prefix"].startswith("#"):
                return width
            return interface["statement"] * interface["count"]

        def passed(name, **extra):
            return extra.get("name"), extra[name], extra.get("_private")
        """
    )
    params = {p.name: p for p in model.functions["grid"].params}
    assert list(params) == ["imports", "statement", "line_length", "prefix", "count"]
    assert {n for n, p in params.items() if not p.has_default} == {"imports", "statement", "count"}
    assert all(p.keyword_only for p in params.values())
    assert params["line_length"].default == 80 and str(params["line_length"].type) == "int"
    types = types_of(model, "grid")
    assert "str" in types["statement"] and "str" in types["prefix"]
    assert "int" in types["count"]
    # A key that is already a parameter, a key read through a variable, a private key: none.
    assert [p.name for p in model.functions["passed"].params] == ["name"]


def test_type_names_bound_by_imports_and_siblings_resolve_to_stdlib_types(tmp_path):
    """``from datetime import date as Date`` here or in a sibling module the annotation's name
    comes from, and ``Amount = Decimal`` there: the stdlib types, not ``any``."""
    package = tmp_path / "ledger"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kinds.py").write_text(
        "from datetime import date as Date\nfrom decimal import Decimal\n\nAmount = Decimal\n"
    )
    (package / "book.py").write_text(
        "from datetime import timedelta as Span\n\nfrom .kinds import Amount, Date\n\n\n"
        "def due(start: Date, amount: Amount, grace: Span) -> Date:\n    return start + grace\n"
    )
    model = analyze_file(package / "book.py", "ledger.book")
    due = model.functions["due"]
    assert [str(p.type) for p in due.params] == [
        "datetime.date",
        "decimal.Decimal",
        "datetime.timedelta",
    ]
    assert str(due.returns) == "datetime.date"


def test_sibling_type_names_resolve_inside_optional_and_in_imported_classes(tmp_path):
    """``Optional[Date]`` with ``Date`` from a sibling (pypara's ``interest(..., end:
    Optional[Date] = None)``), and the same in a class imported from another sibling
    (``Money.of(..., dov: Optional[Date])``): a date or None, not ``union[any, none]``."""
    package = tmp_path / "ledger"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kinds.py").write_text("from datetime import date as Date\n")
    (package / "money.py").write_text(
        "from typing import Optional\n\nfrom .kinds import Date\n\n\n"
        "class Money:\n    @classmethod\n"
        "    def of(cls, dov: Optional[Date]) -> 'Money':\n        return cls()\n"
    )
    (package / "book.py").write_text(
        "from typing import Optional\n\nfrom .kinds import Date\nfrom .money import Money\n\n\n"
        "def due(principal: Money, start: Date, end: Optional[Date] = None) -> Date:\n"
        "    return end or start\n"
    )
    model = analyze_file(package / "book.py", "ledger.book")
    due = model.functions["due"]
    assert [str(p.type) for p in due.params] == [
        "Money",
        "datetime.date",
        "union[datetime.date, none]",
    ]
    of = next(m for m in model.classes["Money"].methods if m.name == "of")
    assert [str(p.type) for p in of.params] == ["union[datetime.date, none]"]


def test_keyword_options_handed_on_take_the_helpers_parameters_and_keys():
    model = model_of(
        """
        def vertical(**options):
            return _common(True, **options)

        def _common(trailing, width=3, **options):
            return options["items"] * width if trailing else ""
        """
    )
    params = {p.name: p for p in model.functions["vertical"].params}
    assert list(params) == ["width", "items"]  # trailing is given by position
    assert params["width"].has_default and params["width"].default == 3
    assert not params["items"].has_default


def test_a_function_that_defines_a_generator_inside_is_not_one():
    model = model_of(
        """
        class Box:
            pass

        def lines(text):
            def numbered():
                for number, line in enumerate(text.splitlines()):
                    yield f"{number}: {line}"
            return "\\n".join(numbered())

        def wrapper(function):
            def call(*args):
                return Box()
            return call
        """
    )
    assert model.functions["lines"].returns.kind != "iterator"
    assert model.functions["wrapper"].returns.kind == "any"  # it returns ``call``, not a Box


def test_uses_after_the_parameter_is_converted_tell_nothing_about_it():
    # ``key = groups[key]``: from there on ``key`` is a group's text, not the parameter (an
    # index); its string methods afterwards must not make the parameter a string.
    model = model_of(
        """
        def pick(groups, key=None, data=None, text=""):
            if key is not None:
                key = groups[key]
                key = key.strip()
                if key.isupper():
                    return key.lower()
            data = data or {}
            for name, value in data.items():
                pass
            text = text if text else "-"
            return text.upper()
        """
    )
    types = types_of(model, "pick")
    assert not {"str", "bytes", "list", "tuple"} & types["key"]
    assert "int" in types["key"] or "any" in types["key"]
    assert "dict" in types["data"]  # ``data or {}`` may be the parameter: its uses still tell
    assert "str" in types["text"]


def test_uses_after_a_builtin_conversion_of_the_parameter_still_type_it():
    # ``data = list(data)`` (statistics' ``median``, argparse's ``args = list(args)``): a list
    # comes out of ``list`` as an equal list, so the uses after it tell a type the parameter
    # may have; reading none of them left ``data`` ``any``.
    model = model_of(
        """
        def middle(data, count):
            data = sorted(data)
            count = int(count)
            if count > len(data):
                return None
            return data[count] + data[0]
        """
    )
    types = types_of(model, "middle")
    assert "list" in types["data"]
    assert "int" in types["count"]


def test_a_local_that_only_copies_the_parameter_types_it_by_its_uses():
    # dateutil's easter(year): ``y = year``, then only ``y`` is used (``y % 19``, ``y // 100``):
    # the parameter was ``any``, so five of six values sampled for it were not numbers.
    model = model_of(
        """
        def easter(year, method=3):
            y = year
            g = y % 19
            return y // 100 + g

        def direct(year, method=3):
            g = year % 19
            return year // 100 + g

        def shifted(year):
            y = year
            y = str(y)
            return y.upper()
        """
    )
    assert types_of(model, "easter")["year"] == types_of(model, "direct")["year"]
    assert {"int", "float"} <= types_of(model, "easter")["year"]
    # ``y`` holds something else than the parameter after ``y = str(y)``: it tells nothing.
    assert types_of(model, "shifted")["year"] == {"any"}
