"""The gate of ``miogen generate``: the project's mypy and ruff on the tests before they are
verified, so that what is written passes them and every figure shown is of what is written.

    the output's path -> the project's style and tools (``emit.style``, ``emit.tools``), read
    once: nothing more where the project configures neither checker
    -> the verification's tests (names made apart) as a new file's text in that style
       (``emit.module``, ``emit.writer.merge_text``)
    -> checked in a scratch file beside the output (``emit.gate.candidate_findings``); where
       mypy wants the tests annotated, once more with every test annotated (``emit.gate.
       annotate``: annotated, their bodies are checked too)
    -> the decisions (``emit.gate.gated``): the tests left out are not verified, and the fixes
       are made at the write (``run.write``)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from miogen.common.records import TestRecord
from miogen.emit import files
from miogen.emit.gate import Gated, annotate, candidate_findings, gated
from miogen.emit.module import module_text
from miogen.emit.style import project_style
from miogen.emit.tools import project_tools
from miogen.emit.writer import merge_text

Gate = Callable[[Sequence[TestRecord], bool], Gated]


def project_gate(path: Path, root: Path, module_name: str) -> Gate | None:
    """The gate for tests of ``module_name`` to be written at ``path`` (inside ``root``, the
    project), None where the project configures neither mypy nor ruff, or has neither."""
    style = project_style(path)
    if not (style.mypy or style.lints):
        return None
    tools = project_tools(style)
    if (tools.mypy is None or not style.mypy) and (tools.ruff is None or not style.lints):
        return None

    def gate(tests: Sequence[TestRecord], module_state: bool) -> Gated:
        imports, generated = module_text(tests, module_name, module_state)
        text = merge_text(None, imports, generated, files.HEADER, (style, tools), path).text
        findings = candidate_findings(text, path, root, style, tools)
        if findings is None:
            return Gated()
        first = gated(text, generated, findings)
        if not first.annotations:
            return first
        # annotated, the tests' bodies are checked too: once more, every test annotated
        annotated = [annotate(test) for test in generated]
        again = merge_text(None, imports, annotated, files.HEADER, (style, tools), path).text
        findings = candidate_findings(again, path, root, style, tools)
        if findings is None:
            return first
        return dataclasses.replace(gated(again, annotated, findings, True), annotations=True)

    return gate
