"""Whether a stored test still fits the unit's current code (seeds are a cache: re-validated)."""

from __future__ import annotations

from miogen.analysis.model import Signature
from miogen.testcase.model import Statement, TestCase
from miogen.testcase.sampling import TestFactory


def still_valid(factory: TestFactory, test: TestCase) -> bool:
    """A stored test still applies when every callable and parameter it uses still exists.

    Checked statically (from the module's analysis) by CTG before a job, and again by the
    worker against the version it imports.
    """
    for statement in test:
        if statement.kind == "callable" and statement.value == "module":
            if statement.name not in factory.model.functions:
                return False
        if statement.kind in ("construct", "call", "method", "property", "operator", "assign"):
            signature = _signature(factory, statement)
            if signature is None or not _arguments_fit(statement, signature):
                return False
        if statement.kind == "class" and statement.name not in factory.model.classes:
            return False
        if statement.kind == "enum":
            cls_name, _, member = statement.name.partition(".")
            cls = factory.model.classes.get(cls_name)
            if cls is None or member not in cls.enum_members:
                return False
    return True


def _signature(factory: TestFactory, statement: Statement) -> Signature | None:
    signature = factory.signature(statement)
    if signature is None and statement.kind == "call" and "." in statement.name:
        cls_name, _, method = statement.name.partition(".")
        cls = factory.model.classes.get(cls_name)
        signature = next((m for m in cls.methods if m.name == method), None) if cls else None
    return signature


def _arguments_fit(statement: Statement, signature: Signature) -> bool:
    """No argument the signature lacks, and every required parameter given (properties: none)."""
    names = {p.name for p in signature.params}
    if any(name not in names for name, _ in statement.args):
        return False
    required = {p.name for p in signature.params if not p.has_default}
    return statement.kind == "property" or required <= {n for n, _ in statement.args}
