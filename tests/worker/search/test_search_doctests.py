"""The examples in the search package's docstrings run."""

import doctest
import importlib

import pytest

MODULES = ["archive", "budget", "config", "problem"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"miogen.worker.search.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
