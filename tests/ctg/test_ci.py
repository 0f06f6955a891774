"""`miogen ctg` in CI: units changed since a git ref, distinct exit statuses, the Markdown
summary, and the JUnit and coverage XML of the written tests."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from ctg_projects import BANK, make_project
from miogen.cli import main
from miogen.common.errors import MiogenError
from miogen.ctg import report as reporting
from miogen.ctg.ci import changed_since, parse_diff
from miogen.ctg.runner import CtgConfig, run_ctg
from miogen.host.config import Options

CHANGED_CLASSIFY = BANK.replace('return "less"', 'return "smaller"')


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def repository(root: Path, files: dict[str, str]) -> Path:
    make_project(root, files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


def config() -> CtgConfig:
    """Deterministic jobs (an evaluation budget); both units of BANK get their share."""
    options = Options(evaluations=200, criteria="branch")
    return CtgConfig(budget=0.5, jobs=2, minimum=0.5, verify_runs=1, options=options)


def test_a_diff_gives_the_new_sides_lines_and_deletions_touch_both_neighbours():
    text = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,0 +4,2 @@\n+x\n+y\n"
        "@@ -9 +11,0 @@\n-z\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n"
    )
    assert parse_diff(text) == {"a.py": frozenset({4, 5, 11, 12})}


def test_only_the_changed_unit_runs_and_the_others_history_stays(tmp_path):
    root = repository(tmp_path / "p", {"bank.py": BANK})
    first = run_ctg([root], config())
    assert {s.unit.name for s in first.units} == {"Account", "classify"}
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tests")
    (root / "bank.py").write_text(CHANGED_CLASSIFY.lstrip("\n"), encoding="utf-8")  # uncommitted
    changes = changed_since(root, "HEAD")
    report = run_ctg([root], config(), changes=changes)
    assert [s.unit.name for s in report.units] == ["classify"]
    assert reporting.exit_code(report, None) == 0
    # Account was not part of the run, but its stored suite is still there for the next one.
    again = run_ctg([root], config())
    account = next(s for s in again.units if s.unit.name == "Account")
    assert account.stored is not None and account.seeds


def test_committed_changes_count_from_the_merge_base_and_new_files_whole(tmp_path):
    root = repository(tmp_path / "p", {"bank.py": BANK, "other.py": "def f(x):\n    return x\n"})
    git(root, "checkout", "-q", "-b", "feature")
    (root / "bank.py").write_text(CHANGED_CLASSIFY.lstrip("\n"), encoding="utf-8")
    git(root, "commit", "-q", "-am", "change classify")
    (root / "new.py").write_text("def g(y):\n    return y\n", encoding="utf-8")  # untracked
    changes = changed_since(root, "main")
    assert set(changes.files) == {(root / "bank.py").resolve(), (root / "new.py").resolve()}
    report = run_ctg([root], CtgConfig(budget=0.5, strategy="simple", verify_runs=1),
                     changes=changes)  # fmt: skip
    assert sorted(s.key for s in report.units) == ["bank.py::classify", "new.py::g"]


def test_nothing_changed_is_exit_3_with_a_summary_that_says_so(tmp_path):
    root = repository(tmp_path / "p", {"bank.py": BANK})
    (root / "notes.txt").write_text("not code\n", encoding="utf-8")
    summary = tmp_path / "out" / "summary.md"
    code = main(["ctg", str(root), "--budget", "0.5", "--changed-since", "HEAD", "-q",
                 "--summary-md", str(summary), "--junit-xml", str(tmp_path / "j.xml")])  # fmt: skip
    assert code == reporting.NOTHING_TO_DO == 3
    assert "No unit changed since `HEAD`" in summary.read_text(encoding="utf-8")
    assert not (tmp_path / "j.xml").exists()


def test_not_a_repository_or_an_unknown_ref_is_exit_2(tmp_path, capsys):
    root = make_project(tmp_path / "p", {"bank.py": BANK})
    with pytest.raises(MiogenError, match="needs a git repository"):
        changed_since(root, "HEAD")
    assert main(["ctg", str(root), "--budget", "0.5", "--changed-since", "HEAD"]) == 2
    repository(root, {})
    assert main(["ctg", str(root), "--budget", "0.5", "--changed-since", "nope"]) == 2
    assert "unknown git ref 'nope'" in capsys.readouterr().err


def test_tests_added_give_the_summary_junit_and_coverage_of_the_written_tests(tmp_path):
    root = repository(tmp_path / "p", {"bank.py": BANK})
    git(root, "checkout", "-q", "-b", "feature")
    (root / "bank.py").write_text(CHANGED_CLASSIFY.lstrip("\n"), encoding="utf-8")
    git(root, "commit", "-q", "-am", "change classify")
    out = tmp_path / "out"
    code = main([
        "ctg", str(root), "--budget", "0.5", "--evaluations", "200", "--verify-runs", "1", "-q",
        "--changed-since", "main",
        "--summary-md", str(out / "s.md"), "--junit-xml", str(out / "j.xml"),
        "--coverage-xml", str(out / "c.xml"),
    ])  # fmt: skip
    assert code == 0
    summary = (out / "s.md").read_text(encoding="utf-8")
    assert "| `bank.py` | `classify` |" in summary
    assert "+4 branches over your suite (0% → 100%)" in summary
    suite = ElementTree.parse(out / "j.xml").getroot().iter("testsuite")
    counts = [(int(s.get("tests", 0)), int(s.get("failures", 0))) for s in suite]
    assert counts[0][0] > 0 and counts[0][1] == 0
    classes = ElementTree.parse(out / "c.xml").getroot().iter("class")
    measured = {c.get("filename"): float(c.get("branch-rate", 0)) for c in classes}
    assert measured["bank.py"] > 0  # the written tests cover bank.py's classify


def test_dropped_tests_are_exit_4_and_listed_in_the_summary(tmp_path):
    root = repository(tmp_path / "p", {"bank.py": BANK})
    report = run_ctg([root], config())
    state = next(s for s in report.units if s.unit.name == "classify")
    assert reporting.exit_code(report, None) == 0 and not report.not_kept
    assert state.verified is not None
    state.verified.dropped = ["test_classify_1"]
    assert reporting.exit_code(report, None) == reporting.NOT_KEPT == 4
    assert reporting.exit_code(report, 100.0) == 1  # the gate still wins
    text = reporting.markdown(report)
    assert "### Could not keep" in text and "`bank.py::classify`: 1 generated tests" in text


def test_a_run_over_part_of_a_module_does_not_cache_its_coverage(tmp_path):
    root = repository(tmp_path / "p", {"bank.py": BANK})
    first = {s.unit.name: s for s in run_ctg([root], config()).units}
    assert first["classify"].status == first["Account"].status == "ran"
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tests")
    # A comment in Account: only Account takes part, and its unchanged code adds no test.
    source = (root / "bank.py").read_text(encoding="utf-8")
    (root / "bank.py").write_text(source.replace("        self._balance += amount\n",
                                  "        # a note\n        self._balance += amount\n"))  # fmt: skip
    part = run_ctg([root], config(), changes=changed_since(root, "HEAD"))
    assert [s.unit.name for s in part.units] == ["Account"] and not part.written
    # The next full run measures classify again: it is not taken as covering nothing. (Its
    # target ids name lines, and the note moved them: the same goals, other ids.)
    again = {s.unit.name: s for s in run_ctg([root], config()).units}
    assert len(again["classify"].before) == len(first["classify"].after) > 0


HASHED = """
def bucket(s: str) -> int:
    if len(s) > 3:
        return hash(s) % 1000
    return 0
"""


def test_a_test_the_verification_drops_is_exit_4_and_named_in_the_summary(tmp_path):
    # hash() of a str differs with the hash seed: the search's value fails in the verification.
    root = make_project(tmp_path / "p", {"hashed.py": HASHED})
    summary = tmp_path / "s.md"
    code = main(["ctg", str(root), "--budget", "1", "--evaluations", "200", "--verify-runs", "2", "-q",
                 "--summary-md", str(summary)])  # fmt: skip
    text = summary.read_text(encoding="utf-8")
    assert code == reporting.NOT_KEPT, text
    assert "### Could not keep" in text and "`hashed.py::bucket`: 1 generated tests dropped" in text
