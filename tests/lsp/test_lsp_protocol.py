"""lsp/protocol.py mirrors the extension's constants.ts and protocol.ts: names and payload keys."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from miogen.lsp import protocol

COMMON = Path(__file__).resolve().parents[2] / "vscode-extension" / "src" / "common"


def ts_object(name: str) -> dict[str, str]:
    """``export const Name = { key: "value", ... }`` of constants.ts."""
    text = (COMMON / "constants.ts").read_text(encoding="utf-8")
    body = re.search(rf"export const {name} = \{{(.*?)\}}", text, re.S)
    assert body, f"constants.ts has no {name}"
    return dict(re.findall(r'(\w+):\s*"([^"]+)"', body.group(1)))


def ts_interface(name: str) -> set[str]:
    """The keys of ``export interface Name`` in protocol.ts, inherited ones included."""
    text = (COMMON / "protocol.ts").read_text(encoding="utf-8")
    found = re.search(rf"export interface {name}(?: extends (\w+))? \{{(.*?)\n\}}", text, re.S)
    assert found, f"protocol.ts has no interface {name}"
    keys = set(re.findall(r"^\s*(\w+)\??:", found.group(2), re.M))
    return keys | (ts_interface(found.group(1)) if found.group(1) else set())


def test_method_and_command_names_are_the_extensions():
    assert ts_object("Methods") == {
        "units": protocol.UNITS,
        "coverage": protocol.COVERAGE,
        "jobStatus": protocol.JOB_STATUS,
    }
    assert ts_object("ServerCommands") == {
        "generateTests": protocol.GENERATE,
        "insertTests": protocol.INSERT,
        "cancel": protocol.CANCEL,
        "generateTestsForPaths": protocol.GENERATE_PATHS,
    }


def test_payload_keys_are_the_extensions():
    for name in ("UnitInfo", "CoverageUnit", "MissingBranch", "CoverageParams",
                 "JobStatusParams", "UnitRef", "GenerateResult", "PathsRef", "PathsResult"):  # fmt: skip
        ours = set(typing.get_type_hints(getattr(protocol, name)))
        assert ours == ts_interface(name), name


def test_state_names_are_the_extensions():
    text = (COMMON / "protocol.ts").read_text(encoding="utf-8")
    for name, literal in (("UnitState", protocol.UnitState), ("JobState", protocol.JobState),
                          ("UnitKind", protocol.UnitKind)):  # fmt: skip
        declared = re.search(rf"export type {name} = ([^;]+);", text)
        assert declared, name
        assert set(re.findall(r'"(\w+)"', declared.group(1))) == set(typing.get_args(literal))
