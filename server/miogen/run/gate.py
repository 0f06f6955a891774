"""The checkers' gate of every front end (``miogen generate``, ``miogen ctg``, the language
server's jobs): the project's mypy and ruff on the tests before they are verified, so that what
is written passes them and every figure shown is of what is written. It runs on the host, in
the job's thread (never the editor's event loop), and runs only the project's checker tools.

    the output's path -> the project's style and tools (``emit.style``, ``emit.tools``), read
    once: nothing more where the project configures neither checker
    -> the verification's tests (names made apart) as a new file's text in that style
       (``emit.module``, ``emit.writer.prepare``, ``emit.merge.merged``)
    -> checked as the output's text (``emit.gate.candidate_findings``: nothing is written
       beside it); where mypy wants the tests annotated, once more with every test annotated
       (``emit.gate.annotate``: annotated, their bodies are checked too)
    -> the decisions (``emit.gate.gated``): the tests left out are not verified, and the fixes
       are made at the write (``run.write``), which takes the gate's last text as it is when
       it is of the tests written (``emit.gate.Rendered``: rendered once)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from miogen.common.records import TestRecord
from miogen.emit import files
from miogen.emit.gate import Gated, Rendered, annotate, candidate_findings, gated
from miogen.emit.merge import merged
from miogen.emit.module import module_text
from miogen.emit.placement import GeneratedTest
from miogen.emit.style import Style, project_style
from miogen.emit.tools import Tools, project_tools
from miogen.emit.writer import prepare

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
        source = (tuple(imports), tuple(generated))
        text, first_rendered = _rendered(path, source, generated, style, tools)
        findings = candidate_findings(text, path, root, style, tools)
        if findings is None:
            return Gated()
        first = dataclasses.replace(gated(text, generated, findings), rendered=first_rendered)
        if not first.annotations:
            return first
        # annotated, the tests' bodies are checked too: once more, every test annotated
        annotated = [annotate(test) for test in generated]
        again, again_rendered = _rendered(path, source, annotated, style, tools)
        findings = candidate_findings(again, path, root, style, tools)
        if findings is None:
            return first
        return dataclasses.replace(
            gated(again, annotated, findings, True), annotations=True, rendered=again_rendered
        )

    return gate


def _rendered(
    path: Path,
    source: tuple[tuple[str, ...], tuple[GeneratedTest, ...]],
    tests: Sequence[GeneratedTest],
    style: Style,
    tools: Tools,
) -> tuple[str, Rendered]:
    """The new file's text of ``tests`` (``source``'s, or annotated) at ``path``, made in the
    project's style, and that making, for the write to take as it is (``emit.gate.Rendered``)."""
    imports, prepared = prepare(source[0], tests, path, style, tools)
    text = merged(None, imports, prepared, files.HEADER, style).text
    return text, Rendered(path, source, (tuple(imports), tuple(prepared)))
