"""pytest plugin (``-p miogen.plugins.contexts``): one coverage.py context per test, its node id.

coverage.py's own ``dynamic_context = test_function`` names a test by its function, so the
cases of a parametrized test would share one; keeping only the tests that add coverage needs
each case apart. Outside a coverage.py run the plugin does nothing.
"""

from __future__ import annotations

from collections.abc import Generator

import coverage
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    measuring = coverage.Coverage.current()
    _switch(measuring, item.nodeid)
    yield
    _switch(measuring, "")


def _switch(measuring: coverage.Coverage | None, context: str) -> None:
    if measuring is None:
        return
    try:
        measuring.switch_context(context)
    except coverage.CoverageException:
        pass  # not started (a run without measurement): nothing to name
