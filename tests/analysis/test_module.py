from __future__ import annotations

import pytest
from coverage.parser import PythonParser
from miogen.analysis.module import analyze_source
from miogen.common.errors import SourceSyntaxError, UnknownUnitError

SHAPES = '''
from dataclasses import dataclass
from enum import Enum
from typing import Optional, Union

Vector = list[float]


class Color(Enum):
    RED = 1
    BLUE = 2


@dataclass
class Point:
    x: int
    y: int = 0


class Shape:
    """A shape."""

    def __init__(self, name: str, sides: Optional[int] = None) -> None:
        self.name = name
        self.sides = sides

    def scale(self, factor: Union[int, float], origin: Point, color: Color = Color.RED) -> float:
        if factor > 10:
            return factor * 2
        return 0.0

    def tags(self, items: dict[str, set[int]], pair: tuple[int, str], path: Vector) -> int:
        total = 0
        for key in items:
            total += len(key)
        return total

    @property
    def label(self) -> str:
        return self.name

    def _private(self):
        return 1


def area(width: float, height: float = 2.0) -> float:
    """Area of a rectangle."""
    return width * height


def _helper(x):
    if x:
        return 1
    return 2


def uses_helper(x: int) -> int:
    return _helper(x)


class ShapeError(ValueError):
    pass
'''


def test_units_are_public_classes_and_functions_with_code():
    # Point (a dataclass with no code of its own), Color (an enum), ShapeError and _helper are not units.
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    assert [(u.name, u.kind) for u in model.units] == [
        ("Shape", "class"),
        ("area", "function"),
        ("uses_helper", "function"),
    ]


def test_signatures_read_type_hints_and_defaults():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    shape = model.classes["Shape"]
    assert [(p.name, str(p.type), p.has_default) for p in shape.constructor.params] == [
        ("name", "str", False),
        ("sides", "union[int, none]", True),
    ]
    scale = next(m for m in shape.methods if m.name == "scale")
    assert [str(p.type) for p in scale.params] == ["union[int, float]", "Point", "Color"]
    tags = next(m for m in shape.methods if m.name == "tags")
    assert [str(p.type) for p in tags.params] == [
        "dict[str, set[int]]",
        "tuple[int, str]",
        "list[float]",
    ]
    assert {m.name: m.kind for m in shape.methods} == {
        "scale": "method",
        "tags": "method",
        "label": "property",
    }


def test_dataclass_fields_and_enum_members():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    point = model.classes["Point"]
    assert [(p.name, p.has_default, p.default) for p in point.constructor.params] == [
        ("x", False, point.constructor.params[0].default),
        ("y", True, 0),
    ]
    assert model.classes["Color"].enum_members == ("RED", "BLUE")
    assert model.classes["Color"].constructor is None


def test_constant_pool_skips_docstrings():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    assert 10 in model.constants.ints and 9 in model.constants.ints
    assert 2.0 in model.constants.floats
    assert "Area of a rectangle." not in model.constants.strings


MASKS = """\
def decode(r: int) -> tuple[int, int]:
    return r >> 32, r & ((1 << 32) - 1)


def small(x: int) -> bool:
    return x < 2**31 and x != r >> 4
"""


def test_constant_pool_holds_what_the_module_computes_from_its_literals():
    """``(1 << 32) - 1`` is a mask no literal of the module writes: the pool holds it (and the
    values beside it), ``1 << 32`` and ``2**31``, but nothing of ``r >> 4`` (``r`` is no
    literal). Only 1, 32, 2 and 31 were there, so no input reached a range's end of 2**31."""
    ints = analyze_source(MASKS, "masks.py", "masks").constants.ints
    assert {2**32 - 1, 2**32 - 2, 2**32, 2**32 + 1, 2**31, 2**31 - 1} <= set(ints)
    assert 4 in ints and max(ints) == 2**32 + 1


def test_targets_are_exactly_coverage_branch_arcs_plus_lines_for_branchless_code():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    parser = PythonParser(text=SHAPES)
    parser.parse_source()
    exits = parser.exit_counts()
    branch_arcs = {a for a in parser.arcs() if exits.get(a[0], 0) > 1}
    ours = {t.arc for u in model.units for t in u.targets if t.kind == "branch"}
    assert ours == branch_arcs
    area = model.unit("area")
    assert [(t.kind, t.line) for t in area.targets] == [
        ("line", SHAPES.splitlines().index("    return width * height") + 1)
    ]


def test_private_helpers_belong_to_the_units_that_call_them():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    unit = model.unit("uses_helper")
    assert len(unit.ranges) == 2
    assert sum(t.kind == "branch" for t in unit.targets) == 2


PRIVATE_CHECKER = """
class _Checker:
    def __init__(self, text):
        self.text = text

    def valid(self):
        if len(self.text) == 13:
            return True
        return False


def is_code(text):
    return _Checker(text).valid()
"""


def test_private_classes_belong_to_the_units_that_build_them():
    model = analyze_source(PRIVATE_CHECKER, "checker.py", "checker")
    unit = model.unit("is_code")
    assert len(unit.ranges) == 2
    assert {t.arc for t in unit.targets if t.kind == "branch"} == {(7, 8), (7, 9)}


ALIASES = """
class Table(dict):
    def __getitem__(self, key, default=None, prefix=""):
        return dict.get(self, prefix + key, default)

    def _store(self, key, value):
        self[key] = value

    get = __getitem__
    put = _store


class Registry(Table):
    register = Table._store
    missing = Table.nowhere
"""


def test_names_a_class_body_binds_to_methods_are_methods_with_their_parameters():
    model = analyze_source(ALIASES, "aliases.py", "aliases")
    table = {m.name: m for m in model.classes["Table"].methods}
    assert [p.name.lstrip("/") for p in table["get"].params] == ["key", "default", "prefix"]
    assert [p.name for p in table["put"].params] == ["key", "value"]
    assert [m.name for m in model.classes["Registry"].methods] == ["register"]


def test_a_name_bound_to_a_special_method_takes_its_parameters_by_position():
    """mypy reads ``__getitem__``'s parameters as positional-only under any name
    (pytutils' ``tree.get([], namespace=-1)``: "Unexpected keyword argument"); the aliased
    method's own parameters are completed (types inferred) as a ``def`` of that name is."""
    model = analyze_source(ALIASES, "aliases.py", "aliases")
    table = {m.name: m for m in model.classes["Table"].methods}
    assert [p.name for p in table["get"].params] == ["/key", "/default", "/prefix"]
    assert str(table["get"].params[2].type) == "str"  # prefix + key, default ""
    registry = model.classes["Registry"].methods[0]
    assert [p.name for p in registry.params] == ["key", "value"]


def test_target_descriptions_name_the_condition():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    shorts = {t.short for t in model.unit("Shape").targets}
    assert "`factor > 10` never true" in shorts
    assert "`factor > 10` never false" in shorts
    assert "loop `for key in items` never entered" in shorts


def test_ast_hash_ignores_formatting_and_comments_but_not_code():
    base = analyze_source("def f(x):\n    return x + 1\n").unit("f").ast_hash
    reformatted = (
        analyze_source("def f( x ):\n    # comment\n    return (x+1)\n").unit("f").ast_hash
    )
    changed = analyze_source("def f(x):\n    return x + 2\n").unit("f").ast_hash
    assert base == reformatted != changed


def test_syntax_error_names_the_line():
    with pytest.raises(SourceSyntaxError) as info:
        analyze_source("def f(:\n    pass\n", "bad.py")
    assert info.value.line == 1 and "bad.py:1" in str(info.value)


def test_unknown_unit_lists_the_available_ones():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    with pytest.raises(UnknownUnitError, match="available units: Shape, area, uses_helper"):
        model.unit("Nope")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("NAMES = {1: 'a'}\n\ndef f(x):\n    return NAMES[x]\n", False),
        ("SEEN = []\n\ndef f(x):\n    SEEN.append(x)\n", True),
        ("CACHE = {}\n\ndef f(x):\n    CACHE[x] = 1\n", True),
        ("count = 0\n\ndef f():\n    global count\n    count += 1\n", True),
    ],
)
def test_module_state_is_code_that_changes_module_level_data(source, expected):
    assert analyze_source(source).has_module_state is expected


def test_the_hashed_text_is_that_of_ast_dump_on_miogen_and_the_tests():
    """Unit hashes are stored in the history: ``_dump`` must write exactly ``ast.dump``'s text
    (without field names), however it is made faster; the names it gathers on the way are
    those of every ``ast.Name`` in the node (what ``Survey.names`` has of a statement)."""
    import ast
    from pathlib import Path

    from miogen.analysis.module import _dump

    root = Path(__file__).resolve().parents[2]
    compared = 0
    for path in sorted(root.glob("server/miogen/**/*.py")) + sorted(root.glob("tests/**/*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in [tree, *tree.body]:
            parts: list[str] = []
            names: set[str] = set()
            _dump(node, parts, names)
            assert "".join(parts) == ast.dump(node, annotate_fields=False), (path, node)
            assert names == {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}, path
            compared += 1
    assert compared > 3000


HASHED = '''\
import functools


def keep(x):
    return x


@functools.cache
def scale(value: int, factor: int = 2) -> int:
    """Scale it."""
    if value > 10:
        return value * factor
    return value


class Box:
    size: int = 3

    def grow(self, by: int = 1) -> int:
        return self.size + by
'''


@pytest.mark.parametrize(
    ("edit", "changed"),
    [
        ((), set()),
        (("    return value\n", "    return value  # as it is\n\n"), set()),  # a comment
        (("value * factor", "(value*factor)"), set()),  # formatting
        (("import functools\n", "import functools\n\nLIMIT = 1\n\n"), set()),  # moved down
        (("@functools.cache\n", ""), {"scale"}),  # a decorator
        (("@functools.cache", "@functools.lru_cache"), {"scale"}),
        (("factor: int = 2", "factor: int = 3"), {"scale"}),  # a default value
        (("value: int,", "value: float,"), {"scale"}),  # an annotation
        (('"""Scale it."""', '"""Scale it up."""'), {"scale"}),  # the docstring
        (("by: int = 1", "by: int = 2"), {"Box"}),  # a method's default
        (("size: int = 3", "size: int = 4"), {"Box"}),  # a class attribute
        (("return x\n", "return -x\n"), {"keep"}),
    ],
)
def test_a_units_hash_changes_when_and_only_when_its_code_does(edit, changed):
    """In the whole analysis and in the outline of a long text (which hashes each unit while
    it gathers the names the unit loads), alike: what the server reruns and the history keys."""
    from miogen.analysis.module import outline_source

    edited = HASHED.replace(*edit) if edit else HASHED
    assert (edited != HASHED) == bool(edit)
    for analyse in (analyze_source, outline_source):
        before = {u.name: u.ast_hash for u in analyse(HASHED).units}
        after = {u.name: u.ast_hash for u in analyse(edited).units}
        assert set(before) == set(after) == {"keep", "scale", "Box"}
        assert {name for name in before if before[name] != after[name]} == changed, analyse
    whole = {u.name: u.ast_hash for u in analyze_source(edited).units}
    assert whole == {u.name: u.ast_hash for u in outline_source(edited).units}


def test_a_class_is_a_unit_exactly_when_its_read_model_has_code_of_its_own():
    """``unit_nodes`` reads no signature of a class with a public method (it has code of its
    own): the same units as reading every class, on miogen's modules, its tests and examples."""
    import ast
    from pathlib import Path

    from miogen.analysis import module
    from miogen.analysis.enrich import has_own_code
    from miogen.analysis.typespec import TypeReader

    root = Path(__file__).resolve().parents[2]
    paths = [*root.glob("server/miogen/**/*.py"), *root.glob("tests/**/*.py")]
    paths += [*root.glob("examples/**/*.py")]
    compared = 0
    for path in sorted(paths):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        reader = TypeReader(set(nodes), module._type_aliases(tree))
        expected = {
            name
            for name, node in nodes.items()
            if has_own_code(
                module._read_class(node, reader, nodes), node, nodes, reader, module._read_signature
            )
        }
        read = [n for n in module.definitions(tree.body) if module._is_unit(n, expected)]
        assert module.unit_nodes(tree) == read, path
        compared += len(nodes)
    assert compared > 300
