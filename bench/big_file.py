"""The language server on one very big module: how long its analysis takes, and how soon the
server is gone when told to stop (shutdown + exit, or end of input) while it analyses.

Run: ``.venv/bin/python -m bench.big_file [--functions 10000] [--runs 1]``. Writes
bench/results/big_file.md (or ``--out``). The module is generated (``module_text``): functions,
private helpers, dataclasses with methods and async functions with ``match``, in equal shares.
The machine's load average is recorded with the figures: the machine is shared.
"""

from __future__ import annotations


def module_text(functions: int) -> str:
    """A module of ``functions`` top-level definitions (every fifth a class with a method)."""
    parts = ['"""A generated module."""\n\nimport math\nfrom dataclasses import dataclass\n\n']
    parts.append("LIMIT = 10\n")
    for i in range(functions):
        parts.append(_DEFINITIONS[i % len(_DEFINITIONS)].format(i=i, previous=i - 1))
    return "".join(parts)


_DEFINITIONS = (
    """
def _helper_{i}(value: int) -> int:
    if value > {i}:
        return value - {i}
    return value
""",
    '''
def compute_{i}(value: int, scale: float = 1.5) -> float:
    """Scale value ({i})."""
    if value < 0:
        raise ValueError("negative")
    for step in range(value % 3):
        value += _helper_{previous}(step)
    return value * scale
''',
    """
def describe_{i}(name: str, items: list[int]) -> str:
    while items and items[-1] == 0:
        items = items[:-1]
    if name.startswith("x") and len(items) > LIMIT:
        return name.upper()
    return name + ": " + str(len(items))
""",
    """
@dataclass
class Point{i}:
    x: int
    y: int

    def norm(self) -> float:
        if self.x == 0 and self.y == 0:
            return 0.0
        return math.hypot(self.x, self.y)
""",
    """
async def fetch_{i}(key: str, table: dict[str, int]) -> int | None:
    match key:
        case "a":
            return table.get("a")
        case _:
            return None
""",
)
