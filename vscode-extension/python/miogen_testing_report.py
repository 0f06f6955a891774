"""pytest plugin of the miogen VS Code extension: one JSON line per test outcome.

Loaded with ``-p miogen_testing_report`` (the extension puts this folder on PYTHONPATH). It writes
to the file named by ``MIOGEN_TESTING_REPORT``: for every test its path, the names under the file
(class, function with parameters), the outcome, the duration and, on failure, the text and the
line that failed; collection errors come with the file that did not collect. Standard library only.
"""

from __future__ import annotations

import json
import os
from typing import Any

_REPORT_ENV = "MIOGEN_TESTING_REPORT"
_paths: dict[str, str] = {}  # node id -> absolute path of the test's file
_root: list[str] = []  # pytest's rootdir, which node ids are relative to


def _write(entry: dict[str, Any]) -> None:
    target = os.environ.get(_REPORT_ENV)
    if not target:
        return
    with open(target, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(entry) + "\n")


def _crash(report: Any, test_file: str | None) -> dict[str, Any] | None:
    """Where it failed: the deepest traceback line in the test's own file, and the message."""
    longrepr = getattr(report, "longrepr", None)
    crash = getattr(longrepr, "reprcrash", None)
    if crash is None:
        return None
    found = {"path": str(crash.path), "line": crash.lineno, "message": crash.message}
    entries = getattr(getattr(longrepr, "reprtraceback", None), "reprentries", [])
    for entry in reversed(entries):
        location = getattr(entry, "reprfileloc", None)
        if location is not None and test_file and os.path.abspath(location.path) == test_file:
            found.update(path=test_file, line=location.lineno)
            break
    return found


def _text(report: Any) -> str:
    if report.passed:
        return ""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return report.longreprtext


def pytest_configure(config: Any) -> None:
    _root[:] = [str(config.rootpath)]


def _file_of(nodeid: str) -> str | None:
    path = nodeid.split("::")[0]
    return os.path.abspath(os.path.join(_root[0], path)) if _root and path else None


def pytest_itemcollected(item: Any) -> None:
    _paths[item.nodeid] = os.path.abspath(str(item.path))


def _names(nodeid: str) -> list[str]:
    return nodeid.split("::")[1:]


def pytest_runtest_logreport(report: Any) -> None:
    """One line per test: the call's outcome, or setup's or teardown's when that went wrong."""
    if (
        report.when == "call"
        or (report.when == "setup" and not report.passed)
        or (report.when == "teardown" and report.failed)
    ):
        outcome = report.outcome
        if report.when != "call" and report.failed:
            outcome = "error"
        if hasattr(report, "wasxfail"):
            outcome = "skipped" if report.skipped else "failed"
        test_file = _paths.get(report.nodeid) or _file_of(report.nodeid)
        _write(
            {
                "kind": "test",
                "nodeid": report.nodeid,
                "file": test_file,
                "names": _names(report.nodeid),
                "when": report.when,
                "outcome": outcome,
                "duration": report.duration,
                "text": _text(report),
                "crash": _crash(report, test_file),
            }
        )


def pytest_collectreport(report: Any) -> None:
    """A file that does not collect (a syntax or import error) fails all its tests."""
    if report.failed:
        _write(
            {
                "kind": "collect",
                "nodeid": report.nodeid,
                "file": _file_of(report.nodeid),
                "outcome": "error",
                "text": report.longreprtext,
            }
        )
