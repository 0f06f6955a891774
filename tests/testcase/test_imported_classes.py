"""A class imported from another module of the package whose constructor asks for a class of
that module the importing module does not import (pypara's ``Currency(..., type:
CurrencyType)``): sampling builds it with None there instead of failing the whole unit."""

from __future__ import annotations

import random

from miogen.analysis.module import analyze_file
from miogen.testcase.sampling import TestFactory


def test_a_class_that_needs_a_class_its_importer_lacks_is_still_sampled(tmp_path):
    package = tmp_path / "ledger"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "money.py").write_text(
        "class Kind:\n    def __init__(self, code: str) -> None:\n        self.code = code\n\n\n"
        "class Currency:\n    def __init__(self, kind: Kind) -> None:\n        self.kind = kind\n"
    )
    (package / "book.py").write_text(
        "from typing import Optional, Set\n\nfrom .money import Currency\n\n\n"
        "def count(currencies: Optional[Set[Currency]] = None) -> int:\n"
        "    return len(currencies or ())\n"
    )
    model = analyze_file(package / "book.py", "ledger.book")
    assert "Kind" not in model.classes
    factory = TestFactory(model, model.unit("count"))
    rng = random.Random(0)
    built = [s for _ in range(40) for s in factory.sample(rng) if s.kind == "construct"]
    assert built and {s.name for s in built} == {"Currency"}
