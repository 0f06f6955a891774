"""The project's own suite as the baseline: run once from its root, cached by content."""

from __future__ import annotations

import os
import time
from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.host import baseline as baseline_module
from miogen.host.baseline import BASELINE_PATH, GENERATED_MARKER, exception_line, project_baseline
from subjects import SIGN


def project(write_project, tests: dict[str, str], **options: str) -> Path:
    """A package ``pkg.subject`` (``SIGN``) and ``tests`` (path -> text) under the root."""
    return write_project({"pkg/__init__.py": "", "pkg/subject.py": SIGN, **tests}, **options)


POSITIVE = """
from pkg.subject import sign

def test_positive():
    assert sign(3) == 1
"""


def covered(root: Path, baseline) -> list[str]:
    model = analyze_file(root / "pkg" / "subject.py", "pkg.subject")
    ids = baseline.covered(root / "pkg" / "subject.py", model.source, model.units)["sign"]
    return sorted(t.short for t in model.units[0].targets if t.id in ids)


def test_the_suite_is_measured_per_test_with_the_projects_configuration(write_project):
    # testpaths names "checks": pytest run from the root finds the test only through it
    options = "testpaths = ['checks']\npythonpath = ['.']"
    root = project(write_project, {"checks/test_sign.py": POSITIVE}, pytest_options=options)
    baseline = project_baseline(root)
    assert baseline.ran and not baseline.error and baseline.passed == 1
    entry = baseline.coverage_of(root / "pkg" / "subject.py")
    assert entry.arcs
    assert any("test_positive" in t for tests in entry.tests.values() for t in tests)
    # sign(3): the first condition true, its return; nothing of x < 0
    assert covered(root, baseline) == ["`x > 0` never true"]


def test_the_result_is_cached_until_a_file_changes(write_project):
    root = project(write_project, {"tests/test_sign.py": POSITIVE})
    first = project_baseline(root)
    assert not first.cached and (root / BASELINE_PATH).exists()
    generated = f"# {GENERATED_MARKER.capitalize()}\n" + POSITIVE.replace("sign(3)", "sign(7)")
    (root / "tests" / "test_sign_miogen.py").write_text(generated, encoding="utf-8")
    again = project_baseline(root)  # a file miogen wrote changes nothing of the baseline
    assert again.cached and again.files.keys() == first.files.keys()
    assert (
        again.coverage_of(root / "pkg" / "subject.py").arcs
        == first.coverage_of(root / "pkg" / "subject.py").arcs
    )
    (root / "tests" / "test_sign.py").write_text(
        POSITIVE.lstrip() + "\ndef test_negative():\n    assert sign(-3) == -1\n", encoding="utf-8"
    )
    changed = project_baseline(root)
    assert not changed.cached and changed.passed == 2
    assert len(covered(root, changed)) > len(covered(root, first))


def test_generated_files_are_left_out(write_project):
    generated = f'"""Tests {GENERATED_MARKER}."""\n' + POSITIVE.replace("3) == 1", "-3) == -1")
    root = project(
        write_project,
        {"tests/test_sign.py": POSITIVE, "tests/test_sign_miogen.py": generated},
    )
    baseline = project_baseline(root)
    assert baseline.passed == 1  # only the human test ran
    tests = {t for e in baseline.files.values() for ts in e.tests.values() for t in ts}
    assert not any("miogen" in t for t in tests)


def test_a_failing_human_test_is_reported_with_its_error(write_project):
    failing = POSITIVE + "\ndef test_broken():\n    import no_such_module_here\n"
    root = project(write_project, {"tests/test_sign.py": failing})
    baseline = project_baseline(root)
    assert baseline.passed == 1
    [(test, line)] = baseline.failures.items()
    assert test.endswith("test_broken")
    assert "ModuleNotFoundError" in line and "no_such_module_here" in line
    assert baseline.covered(root / "pkg" / "subject.py", SIGN.lstrip(), []) == {}


def test_no_human_tests_is_an_empty_baseline(write_project):
    root = project(write_project, {})
    baseline = project_baseline(root)
    assert not baseline.ran and not baseline.files and not baseline.failures


def test_the_exception_line_is_the_error_pytest_printed():
    text = "    def test_x():\n>       f()\nE       KeyError: 'a'\n\nx.py:3: KeyError"
    assert exception_line("KeyError: 'a'", text) == "KeyError: 'a'"
    assert exception_line("assert 1 == 2", "E   assert 1 == 2") == "assert 1 == 2"


def test_the_key_is_hashed_again_only_when_a_files_stat_changed(write_project, monkeypatch):
    root = project(write_project, {"tests/test_sign.py": POSITIVE})
    hour_ago = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (hour_ago, hour_ago))
    hashed: list[int] = []
    real_key = baseline_module.content_key
    monkeypatch.setattr(baseline_module, "content_key", lambda *a: hashed.append(1) or real_key(*a))
    first = project_baseline(root)
    assert project_baseline(root).cached and project_baseline(root).key == first.key
    assert len(hashed) == 1  # settled files, unchanged stat: the key from memory
    test_file = root / "tests" / "test_sign.py"
    test_file.write_text(POSITIVE + "\n\ndef test_zero():\n    assert sign(0) == 0\n")
    changed = project_baseline(root)  # just written: hashed, and hashed again next time
    project_baseline(root)
    assert len(hashed) == 3 and changed.key != first.key and changed.passed == 2
