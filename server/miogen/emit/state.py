"""The fixture that gives every test a fresh module-level state, with pytest's ``monkeypatch``.

Code that changes module-level data (``global`` statements, module-level lists, dicts and sets)
would make tests depend on each other's leftovers. The worker restores that state after every
test while it searches; the emitted file does the same with an autouse fixture: each test
gets deep copies of the module's containers, and ``monkeypatch`` puts every name back when the
test ends (also a name the code rebound).
"""

from __future__ import annotations

import textwrap

from miogen.emit.placement import GeneratedTest

FIXTURE_NAME = "_miogen_fresh_module_state"
MODULE_ALIAS = "_miogen_module"
DOCSTRING_WIDTH = 72  # characters a line: fits any line length a project sets (79 and up)

_FIXTURE = """@pytest.fixture(autouse=True)
def {name}(monkeypatch):
    {docstring}
    for name, value in list(vars({alias}).items()):
        if not name.startswith("__"):
            fresh = copy.deepcopy(value) if type(value) in (list, dict, set) else value
            monkeypatch.setattr({alias}, name, fresh)
"""


def state_fixture(module_name: str) -> tuple[list[str], GeneratedTest]:
    """The import lines and the autouse fixture for a module with module-level state.

    >>> imports, fixture = state_fixture("shop.cart")
    >>> imports
    ['import copy', 'import pytest', 'import shop.cart as _miogen_module']
    """
    text = f"{module_name} keeps state at module level: each test starts from a fresh copy."
    lines = textwrap.wrap(text, DOCSTRING_WIDTH)
    docstring = (
        f'"""{lines[0]}"""' if len(lines) == 1 else '"""' + "\n    ".join(lines) + '\n    """'
    )
    source = _FIXTURE.format(name=FIXTURE_NAME, alias=MODULE_ALIAS, docstring=docstring)
    imports = ["import copy", "import pytest", f"import {module_name} as {MODULE_ALIAS}"]
    return imports, GeneratedTest(FIXTURE_NAME, source)
