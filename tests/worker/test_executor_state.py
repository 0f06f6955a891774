"""Module-level containers a test changes are put back before the next test runs: each call
of ``note`` grows ``SEEN`` by one, so a second test that saw the first one's entry returns 2."""

from __future__ import annotations

import types

import pytest
from miogen.testcase.model import Statement
from miogen.worker.executor import Executor

SOURCE = """
import collections

SEEN = {kind}

def note(word):
    {change}
    return len(SEEN)
"""

KINDS = {
    "list": ("[]", "SEEN.append(word)"),
    "dict": ("{}", "SEEN[word + str(len(SEEN))] = 1"),
    "set": ("set()", "SEEN.add(word + str(len(SEEN)))"),
    "Counter": ("collections.Counter()", "SEEN[word + str(len(SEEN))] += 1"),
    "defaultdict": ("collections.defaultdict(int)", "SEEN[word + str(len(SEEN))] += 1"),
    "deque": ("collections.deque()", "SEEN.append(word)"),
    "OrderedDict": ("collections.OrderedDict()", "SEEN[word + str(len(SEEN))] = 1"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_test_starts_from_the_modules_containers_as_imported(kind: str) -> None:
    initial, change = KINDS[kind]
    module = types.ModuleType("noted")
    exec(SOURCE.format(kind=initial, change=change), module.__dict__)
    executor = Executor(module, None, timeout=1.0, fresh_containers=True)
    test = (Statement("value", "", (), "a"), Statement("call", "note", (("word", 0),)))
    first = executor.run(test, trace=False)
    second = executor.run(test, trace=False)
    assert first.values[-1] == second.values[-1] == 1
    assert type(module.SEEN).__name__ == kind
