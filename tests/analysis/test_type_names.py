"""Module-level names of builtin types (analysis.type_names) and None kept for ``is None``."""

from __future__ import annotations

import ast
import textwrap

from miogen.analysis.module import analyze_source
from miogen.analysis.type_names import type_aliases


def aliases_of(source: str) -> dict[str, str]:
    tree = ast.parse(textwrap.dedent(source))
    return {name: ast.unparse(value) for name, value in type_aliases(tree).items()}


def options(source: str, function: str, parameter: str) -> set[str]:
    model = analyze_source(textwrap.dedent(source), "m.py", "m")
    spec = next(p.type for p in model.functions[function].params if p.name == parameter)
    return {str(a) for a in spec.args} if spec.kind == "union" else {str(spec)}


def test_names_bound_to_builtin_types_on_every_side_of_a_check_are_their_union():
    found = aliases_of(
        """
        import builtins, sys
        if sys.version_info[0] == 3:
            binary_type = bytes
            string_types = str,
            integer_types = (int, builtins.bool)
            class_types = type,
        else:
            binary_type = str
            string_types = basestring,
        try:
            long_type = long
        except NameError:
            long_type = int
        number = int
        number = compute()

        def f():
            local_type = bytes
        """
    )
    assert found == {
        "binary_type": "bytes | str",
        "string_types": "str",
        "integer_types": "int | builtins.bool",
        "long_type": "int",
    }


def test_isinstance_against_such_names_gives_the_types():
    source = """
        import sys
        if sys.version_info >= (3,):
            binary_type = bytes
        else:
            binary_type = str

        def kind(s):
            if isinstance(s, binary_type):
                return 1
            return 0
        """
    assert {"bytes", "str"} <= options(source, "kind", "s")


def test_a_parameter_compared_with_none_keeps_none_whatever_the_calls_pass():
    source = """
        def resolve(name, target):
            if target is None:
                return name
            return target

        MOVES = [resolve("a", "b"), resolve("c", "d"), resolve("e", "f"), resolve("g", "h")]
        """
    assert options(source, "resolve", "target") == {"str", "none"}
    assert options(source, "resolve", "name") == {"str"}
