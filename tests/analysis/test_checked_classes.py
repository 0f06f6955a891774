"""Standard-library classes named in a parameter's type checks are built (analysis.checked_classes)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

from miogen.analysis.checked_classes import checked_classes
from miogen.analysis.module import analyze_source
from miogen.common.records import JobSpec, UnitJob
from miogen.emit.module import module_text
from miogen.host.supervisor import run_job
from worker.helpers import missed_by_mio

# marshmallow 3.21.1's utils.pprint, in short: an unannotated parameter an OrderedDict takes
# one way and anything else the other (the module named as the standard pprint names it).
PRINTS = """
    import collections as _collections
    import json


    def show(obj, indent=None):
        if isinstance(obj, _collections.OrderedDict):
            return json.dumps(obj, indent=indent)
        return repr(obj)
    """


def found(source: str) -> dict[str, tuple[str, str, str]]:
    nodes = list(ast.walk(ast.parse(textwrap.dedent(source))))
    return {
        text: (cls.name, cls.module, str(cls.constructor.params[0].type) if cls.constructor else "")
        for text, cls in checked_classes(nodes, {"Mine"}).items()
    }


def test_classes_of_standard_modules_a_check_names_are_found_with_the_builtin_they_take():
    source = """
        import collections
        import collections as _c
        import decimal
        import enum
        from collections import Counter, defaultdict
        from collections import OrderedDict as Ordered
        from mine import Mine

        def f(a, b, c, d, e, g):
            if isinstance(a, (collections.OrderedDict, Counter)):
                return 1
            if type(b) is _c.ChainMap or isinstance(c, defaultdict):
                return 2
            if isinstance(d, decimal.Decimal) or isinstance(e, enum.Enum):
                return 3
            return isinstance(g, (Ordered, Mine, Unknown)) or type(g) == _c.Counter
        """
    assert found(source) == {
        "collections.OrderedDict": ("collections.OrderedDict", "collections", "dict"),
        "Counter": ("collections.Counter", "collections", "dict"),
        "Ordered": ("collections.OrderedDict", "collections", "dict"),
        "_c.Counter": ("collections.Counter", "collections", "dict"),
    }
    # ChainMap derives from no builtin, defaultdict is not built from a dict alone, Decimal is
    # the reader's own, Enum is not a builtin's kind, Mine is known, Unknown is not imported.


def test_a_parameter_checked_against_an_ordered_dict_may_be_one():
    model = analyze_source(textwrap.dedent(PRINTS), "m.py", "m")
    spec = model.functions["show"].params[0].type
    options = {str(a) for a in spec.args} if spec.kind == "union" else {str(spec)}
    assert "collections.OrderedDict" in options
    assert "any" in options  # the check leaves the other types open
    assert model.classes["collections.OrderedDict"].module == "collections"


def test_the_search_takes_the_branch_only_an_ordered_dict_takes(write_module):
    path = write_module("prints", PRINTS)
    assert missed_by_mio(path, "show", evaluations=300, seed=1) == []


def test_the_emitted_test_builds_the_ordered_dict_and_imports_its_module(write_module):
    path = write_module("prints", PRINTS)
    spec = JobSpec(
        path=str(path), module_name="prints", import_root=str(path.parent),
        units=(UnitJob("show"),), evaluations=300, seed=1, test_timeout=30.0, post_seconds=120,
    )  # fmt: skip
    outcome = run_job(spec)
    assert outcome.status == "ok", outcome.message
    result = outcome.unit("show").result
    assert result is not None and len(result.covered) == result.total
    sources = [t.source for t in result.tests]
    built = [s for s in sources if "collections.OrderedDict(" in s]
    assert built, sources
    assert not any("_collections" in s for s in sources)  # written as the class is defined
    lines, functions = module_text(result.tests, "prints", module_state=False)
    assert "import collections" in lines
    test_file = path.parent / "test_prints.py"
    text = "\n".join(lines) + "\n\n\n" + "\n\n".join(f.source for f in functions)
    test_file.write_text(text, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=path.parent, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
