"""A very big module stalls nothing: its analysis is linear in its size, a module past the size
limit is not analysed (the server says why), and the server ends promptly while it analyses."""

from __future__ import annotations

import cProfile
import pstats

from miogen.lsp.snapshot import take

from bench.big_file import module_text


def calls(function, *arguments) -> int:
    """The number of function calls ``function(*arguments)`` makes (counted: the machine's
    timings are too noisy to compare)."""
    profile = cProfile.Profile()
    profile.runcall(function, *arguments)
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined]


def test_the_servers_analysis_is_linear_in_the_number_of_functions():
    """Each unit's statement lines were found by testing every statement of the module."""
    take(module_text(5), "warm.py", "warm")
    few = calls(take, module_text(100), "few.py", "few")
    many = calls(take, module_text(400), "many.py", "many")
    assert many / few < 4.5, (few, many)
