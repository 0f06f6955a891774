"""Imports in isort's order: a new file's block, and new lines inserted into a sorted file."""

from __future__ import annotations

import ast
import random
import subprocess
from pathlib import Path

import pytest
from emit.test_merge import ruff
from miogen.emit import imports as imports_module
from miogen.emit.imports import plan_imports
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.source import parse_merge
from miogen.emit.style import Style

STYLE = Style(first_party=frozenset({"shapes", "tools"}))
POOL = [
    "from __future__ import annotations",
    "import os",
    "import os.path",
    "import sys",
    "from collections import OrderedDict as OD",
    "from math import inf, pi",
    "import pytest",
    "import numpy as np",
    "from hypothesis import given",
    "from hypothesis import strategies as st",
    "import shapes",
    "from shapes import Triangle",
    "from shapes import area, CONSTANT",
    "import tools.measure",
    "from tools import ruler",
    "from . import helpers",
    "from .helpers import make",
    "from .. import common",
]
TEST = GeneratedTest("test_area", "def test_area():\n    assert area(1) == 1\n")
RUFF_FIRST_PARTY = 'lint.isort.known-first-party=["shapes", "tools"]'


def isort_findings(folder: Path) -> str:
    check = subprocess.run(
        [ruff(), "check", "--isolated", "--select", "I", "--config", RUFF_FIRST_PARTY,
         "--output-format", "concise", str(folder)],
        capture_output=True, text=True,
    )  # fmt: skip
    return check.stdout if check.returncode else ""


def test_new_files_and_insertions_into_sorted_files_are_isort_clean(tmp_path: Path) -> None:
    rng = random.Random(7)
    for case in range(120):
        first = rng.sample(POOL, rng.randint(0, 6))
        existing = merge_tests(None, first, [TEST], style=STYLE).text
        (tmp_path / f"test_new_{case}.py").write_text(existing)
        # A name from a module the file already imports from would need the user's line
        # rewritten to be isort-clean: the merge only inserts, so those are left out here.
        more = [
            i
            for i in rng.sample(POOL, rng.randint(1, 6))
            if _from_module(i) not in {_from_module(line) for line in existing.splitlines()}
            or not i.startswith("from ")
        ]
        merged = merge_tests(existing, more, [], style=STYLE).text
        (tmp_path / f"test_merged_{case}.py").write_text(merged)
    assert isort_findings(tmp_path) == ""


def _from_module(line: str) -> str:
    return line.split(" import ")[0] if line.startswith("from ") else ""


def test_first_party_imports_get_their_own_section() -> None:
    imports = ["import pytest", "from shapes import area", "import os", "from .helpers import x"]
    text = merge_tests(None, imports, [], style=STYLE).text
    assert (
        text == "import os\n\nimport pytest\n\nfrom shapes import area\n\nfrom .helpers import x\n"
    )
    unknown = merge_tests(None, imports, []).text  # without the project, shapes is third party
    assert "import pytest\nfrom shapes import area\n" in unknown


def test_an_insertion_goes_where_isort_wants_it_and_keeps_every_line() -> None:
    existing = '"""Doc."""\n\nimport os\n\nimport pytest\n\nfrom shapes import area  # mine\n'
    merged = merge_tests(existing, ["import sys", "from shapes import Triangle", "import numpy"],
                         [], style=STYLE).text  # fmt: skip
    assert merged == (
        '"""Doc."""\n\nimport os\nimport sys\n\nimport numpy\nimport pytest\n\n'
        "from shapes import area  # mine\nfrom shapes import Triangle\n"
    )
    section = merge_tests("import pytest\n\n\ndef f():\n    pass\n", ["import os"], [])
    assert section.text == "import os\n\nimport pytest\n\n\ndef f():\n    pass\n"


def test_wide_from_imports_wrap_at_the_project_line_length() -> None:
    names = ", ".join(f"name{i}" for i in range(8))
    narrow = merge_tests(None, [f"from shapes import {names}"], [], style=Style(line_length=60))
    wide = merge_tests(None, [f"from shapes import {names}"], [], style=Style(line_length=100))
    assert narrow.text.startswith("from shapes import (\n    name0,\n")
    assert wide.text == f"from shapes import {names}\n"


def test_a_required_import_that_is_not_an_import_statement_is_left_out() -> None:
    """The project's required-imports arrive as configured (``emit.style`` does not parse
    them); they are parsed once, with the file and the tests' imports (``source.parse_merge``),
    and a line that is not an import statement is left out, as ruff's isort does not apply it
    either."""
    style = Style(required_imports=("from __future__ import annotations", "not python(", ""))
    parsed = parse_merge(None, ["import pytest"], style.required_imports)
    plan = plan_imports(parsed.imports, parsed.module, style)
    assert [added.item.statement() for added in plan.added] == [
        "from __future__ import annotations",
        "import pytest",
    ]


def test_a_tests_import_line_that_is_not_an_import_statement_is_refused() -> None:
    with pytest.raises(ValueError, match="not an import statement"):
        parse_merge(None, ["import pytest", "x = 1"])


def test_the_import_plan_works_from_the_parsed_statements_and_parses_nothing() -> None:
    """The import lines are parsed with the file, in one step (``emit.source``); the plan
    takes their trees (issue 25: the plan parsed the lines itself, going down to the parser
    and back into ``emit.imports`` for their items)."""
    tree = ast.parse(Path(imports_module.__file__ or "").read_text("utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "miogen.common.syntax" not in imported
    called = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    assert "parse" not in called
