"""The static analysis of a module grows with its size, not with the square of its functions.

Counted, not timed (the machine is shared): the Python function calls of analysing a module of
4n functions are about 4 times those of n functions. Each unit's lines and functions used to be
found by scanning the whole module (16 times the calls at 4 times the functions).
"""

from __future__ import annotations

import cProfile
import pstats

from miogen.analysis.module import analyze_source

from bench.big_file import module_text


def calls(function, *arguments) -> int:
    """The number of function calls ``function(*arguments)`` makes."""
    profile = cProfile.Profile()
    profile.runcall(function, *arguments)
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined]


def test_the_analysis_is_linear_in_the_number_of_functions():
    small, big = 100, 400
    analyze_source(module_text(5), "warm.py", "warm")  # caches filled once (node fields...)
    few = calls(analyze_source, module_text(small), "few.py", "few")
    many = calls(analyze_source, module_text(big), "many.py", "many")
    assert many / few < 4.5, (few, many)
