"""Which mutants the project's own suite kills: the tests of it that run the mutant's lines.

With mutation on, a generated test is also kept when it kills a mutant that the project's suite
leaves alive (``host.adds``). The worker says which of the unit's mutants each test kills; this
module says which of those the suite kills. Per mutant, only the project's tests that run one
of the mutant's lines (``assertions.mutants.MutantTexts``; the baseline's per-test contexts,
``host.baseline``) run against it, with pytest from the project's root in its interpreter: a
test that runs none of them cannot run the mutant. Where the lines cannot tell (the mutant runs
as its function is defined, or a line of it also ran outside any test, as the module was
imported), the tests that run the mutant's unit run. The mutated module is imported from its
text in place of the file (``plugins.mutant``): the file itself is never touched. The tests of
each unit's mutants are checked on the original once, together (``_Runner.vouch``).

A mutant on lines (in a unit) no test of the suite runs is alive without a run, whatever the
cap. Of the others, at most ``MAX_MUTANTS`` per module run (those the cache answers need no
run), first those whose verdict decides whether a test is kept (``_Judge.decide``: a mutant
killed only by tests kept for their coverage anyway decides nothing; of a test kept for no
target, its kills until one is alive, the cheapest first), then, with the runs left, a fixed
sample spread over the other kills of the kept tests (they count in "+M mutants killed"); the
rest are not judged, neither killed nor alive, and said so (no test is kept for one of them
alone: it may kill what the suite kills too; nor is one counted). Each run
is stopped after ``MUTANT_TIMEOUT`` seconds of CPU time (a mutant that loops uses them up; a
slow or busy machine does not), or after ``WALL_FACTOR`` times as long as the tests took on the
original, by the test clock (a mutant that waits; ``common.waits``: the time pytest's process
waited for a CPU does not count, up to a cap by the wall clock). A mutant whose run was stopped
so, or one whose tests could not be run as they pass on the original counts as killed by the
suite: no test is kept for a kill it may not add. The answers are cached by content
(``.miogen/suite-kills.json``): the baseline's key (every Python file of the project but the
generated ones, its pytest configuration, the interpreter), the tests chosen and the mutated
text.

One pytest process per mutant, and most of a run's CPU is that process's start (the interpreter,
pytest and its auto-loaded plugins, the collection), not its tests: on idna 1.6 of 1.8 s. Mutants
do not share a process: once a module is imported, the names other modules and the tests took
from it hold the original's objects, so a second mutant would need them all imported again. A
process forked per mutant from one that imported only pytest and its plugins would keep each
mutant's imports its own, but would run the plugins' import-time code once for every mutant,
before the mutant's environment is set: not done until that is shown to change no verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from miogen.analysis.model import Unit
from miogen.assertions.mutants import MutantTexts
from miogen.common.atomic import read_or_set_aside, write_atomically
from miogen.common.project import ModuleLocation, is_test_file
from miogen.common.records import TestRecord
from miogen.common.waits import process_waits
from miogen.host.baseline import BASELINE_TIMEOUT, FileCoverage, ModuleSuite, project_files
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.runs import cpu_limited, run_group

MAX_MUTANTS = 30  # runs per module: a sample of the mutants the tests kill that the suite runs
MUTANT_TIMEOUT = 60.0  # CPU seconds per mutant's run of the suite's tests
# A run's wall-clock bound: this many times the original's run of the same tests (at least
# MUTANT_TIMEOUT); the original's, the baseline's for the whole suite (it ran them all).
WALL_FACTOR = 10.0
ORIGINAL_WALL = BASELINE_TIMEOUT
KILLS_PATH = Path(".miogen") / "suite-kills.json"
CACHE_VERSION = 1
PLUGIN = "miogen.plugins.mutant"
MUTANT_VARIABLE = "MIOGEN_MUTANT"  # plugins.mutant's

MutantId = tuple[str, int]  # (unit, mutant index in the unit, as the worker numbers them)


@dataclass
class SuiteKills:
    """The suite's verdict on some mutants: each is killed (or counted so) or alive."""

    killed: set[MutantId] = field(default_factory=set)  # ... or counted killed (see ``note``)
    alive: set[MutantId] = field(default_factory=set)
    # Past the cap of runs: neither killed nor alive; no test is kept for one of them alone.
    unjudged: set[MutantId] = field(default_factory=set)
    runs: int = 0  # pytest runs made (not from the cache)
    notes: list[str] = field(default_factory=list)  # why some were counted killed
    # The verdict's wall seconds, and the CPU seconds of its pytest runs (``kills_over_suite``);
    # None: no verdict was asked for (mutation off, no kill to judge, no suite measured).
    seconds: float | None = None
    cpu_seconds: float = 0.0


def generated_kills(tests: Iterable[tuple[str, Iterable[TestRecord]]]) -> dict[str, set[MutantId]]:
    """Test name -> the mutants it kills, from the worker's word on each test (``killed``: set
    with mutation on) of each unit in ``tests`` ((unit, its tests) pairs)."""
    return {
        test.name: {(unit, index) for index in test.killed}
        for unit, found in tests
        for test in found
        if test.killed
    }


def kills_over_suite(
    baseline: ModuleSuite | None,
    location: ModuleLocation,
    source: str,
    units: Sequence[Unit],
    found: Sequence[Sequence[TestRecord]],
    kept: Collection[str],
    interpreter: Interpreter = OWN,
    keeping: Keeping | None = None,
) -> tuple[dict[str, set[MutantId]], SuiteKills]:
    """The mutants each test kills (``generated_kills`` of the tests named in ``kept`` among
    ``found``, each unit's in ``units``' order) and the suite's verdict on them
    (``suite_kills``); none of either without a measured suite to tell what it kills
    (coverage decides alone). ``keeping``: what else decides which tests are kept (its
    ``kills`` are set here), so that the runs go first to the verdicts that decide; None:
    every test is kept (no per-test measurement). The verdict's ``seconds`` and
    ``cpu_seconds`` are set."""
    kills = generated_kills(
        (unit.name, [test for test in tests if test.name in kept])
        for unit, tests in zip(units, found, strict=True)
    )
    if not kills or baseline is None or not baseline.ran:
        return {}, SuiteKills()
    killed = {m for each in kills.values() for m in each}
    path, module_name = location.path, location.module_name
    started, cpu = time.monotonic(), children_cpu()
    keeping = replace(keeping, kills=kills) if keeping is not None else None
    verdict = suite_kills(
        baseline, path, module_name, source, units, killed, interpreter, keeping=keeping
    )
    verdict.seconds, verdict.cpu_seconds = time.monotonic() - started, children_cpu() - cpu
    return kills, verdict


def children_cpu() -> float:
    """The CPU seconds of this process's children that ended so far (the suite's runs, while
    they run one after the other: other children ended meanwhile count too)."""
    try:
        import resource  # here, not at the top: not on every platform
    except ImportError:
        return 0.0
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def suite_kills(
    baseline: ModuleSuite,
    path: Path,
    module_name: str,
    source: str,
    units: Sequence[Unit],
    mutants: Iterable[MutantId],
    interpreter: Interpreter = OWN,
    timeout: float = MUTANT_TIMEOUT,
    limit: int = MAX_MUTANTS,
    keeping: Keeping | None = None,
) -> SuiteKills:
    """Which of ``mutants`` of the module at ``path`` the project's suite kills (``baseline``:
    its answer about the module, ``Baseline.of_module``, asked once by the caller).
    ``timeout``: the CPU seconds of one run; ``limit``: the runs against mutants. ``keeping``:
    which generated tests kill them and what else decides which are kept: the runs go first
    to the verdicts that decide (``_Judge.decide``), then to those that count; None: all
    count, a sample spread over them runs."""
    found = SuiteKills()
    by_name = {unit.name: unit for unit in units}
    chosen = _spread(m for m in set(mutants) if m[0] in by_name)
    root = baseline.root
    coverage = baseline.coverage  # the caller's answer: each unit's tests and each line's
    contexts = {name: baseline.tests[name] for name in by_name}
    found.alive.update(m for m in chosen if not contexts[m[0]])
    chosen = [m for m in chosen if contexts[m[0]]]
    if not chosen:
        return found
    runner = _Runner(root, module_name, path, interpreter, timeout)
    lines = _LineTests(coverage)
    cache = _Cache(root, baseline.key)
    plans = _planned(chosen, source, by_name, contexts, lines, runner, baseline.key, path, found)
    # No test runs its lines: alive with no run, whatever the cap (the cap is of runs).
    found.alive.update(p.mutant for p in plans if p.selection is None)
    plans = [p for p in plans if p.selection is not None]
    # The tests each unit's mutants may need, together: passing on the original, they vouch
    # for each mutant's (fewer) tests, without a run of the original for each.
    runner.vouch(
        [p.selection for p in plans if p.mutant[0] == unit and p.selection is not None]
        for unit in by_name
    )
    judge = _Judge(plans, cache, runner, found, limit)
    # First the verdicts that decide what is kept, then (the cap's runs left) those that count.
    counted = judge.decide(keeping) if keeping is not None else None
    judge.count(counted)
    found.runs = runner.runs
    cache.save()
    return found


class _Judge:
    """The suite's verdicts on the planned mutants, at most ``limit`` of them by a run (the
    cache's answers are free): ``decide`` spends the runs on the verdicts that decide which
    tests are kept, ``count`` what is left on those that count in what the kept tests add."""

    def __init__(
        self,
        plans: Sequence[_Planned],
        cache: _Cache,
        runner: _Runner,
        found: SuiteKills,
        limit: int,
    ) -> None:
        self.plans = {plan.mutant: plan for plan in plans}
        self.order = {mutant: rank for rank, mutant in enumerate(_spread(self.plans))}
        self.cache, self.runner, self.found = cache, runner, found
        self.limit = self.left = limit
        for plan in plans:  # the cache's answers first: they cost no run
            known = cache.get(plan.key)
            if known is not None:
                (found.killed if known else found.alive).add(plan.mutant)

    def known(self, mutant: MutantId) -> bool | None:
        """Killed (True) or alive (False) as far as known without a run; None: not yet."""
        if mutant in self.found.killed:
            return True
        if mutant in self.found.alive or mutant not in self.plans:
            return False  # (a mutant of no unit asked about is not the suite's to kill)
        return None

    def cost(self, mutant: MutantId) -> tuple[int, int, int]:
        """Known ones first, then the smaller selections (``_spread``'s order among equals)."""
        plan = self.plans.get(mutant)
        size = len(plan.selection or ()) if plan is not None else 0
        return (self.known(mutant) is None, size, self.order.get(mutant, -1))

    def killed(self, mutant: MutantId) -> bool | None:
        """The suite's verdict on ``mutant`` (True: killed, or counted so), by a run if need
        be; None: not judged, the cap's runs used up."""
        known = self.known(mutant)
        if known is not None:
            return known
        if self.left <= 0:
            return None
        self.left -= 1
        plan = self.plans[mutant]
        assert plan.selection is not None  # (those no test runs were left out: alive)
        outcome = self.runner.verdict(plan.selection, plan.text)
        found = self.found
        if outcome == "broken":
            note = f"{mutant[0]}: the suite's tests of it do not pass as they are; not run"
            found.notes += [note] if note not in found.notes else []
        elif outcome == "timeout":
            timeout = self.runner.timeout
            found.notes.append(
                f"{mutant[0]}: mutant {mutant[1]} ran past its time ({timeout:.0f} s)"
            )
        else:
            self.cache.put(plan.key, outcome != "passed")
        killed = outcome != "passed"
        (found.killed if killed else found.alive).add(mutant)
        return killed

    def decide(self, keeping: Keeping) -> set[MutantId]:
        """Judge what decides which tests ``host.adds.keep_what_adds`` keeps, as it takes them
        in order: a test that covers a target not covered before is kept, whatever its kills
        (they decide nothing); one that does not is kept when one of its kills that no test
        kept before it kills is alive, so those are judged, the cheapest first, until one is
        alive (or the cap's runs are used up: it is not kept). Returns the mutants the kept
        tests kill (those whose verdicts count in what they add)."""
        covered, taken = set(keeping.suite), set[MutantId]()
        for name in keeping.order:
            kills = set(keeping.kills.get(name, ()))
            covers = set(keeping.covers.get(name, ()))
            if not covers - covered:
                ahead = sorted(kills - taken, key=self.cost)
                if not any(self.killed(mutant) is False for mutant in ahead):
                    continue  # (``any`` stops at the first alive: the test is decided)
            covered |= covers
            taken |= kills
        return taken

    def count(self, counted: Collection[MutantId] | None) -> None:
        """With the runs left, judge the mutants in ``counted`` (None: every one) not judged
        yet, a fixed sample spread over them (``_sample``); the others are not judged
        (``found.unjudged``, with a note): neither killed nor alive."""
        unknown = [
            mutant for mutant in self.plans
            if self.known(mutant) is None and (counted is None or mutant in counted)
        ]  # fmt: skip
        for mutant in _sample(sorted(unknown, key=self.order.__getitem__), self.left):
            self.killed(mutant)
        left = {mutant for mutant in self.plans if self.known(mutant) is None}
        if not left:
            return
        self.found.unjudged.update(left)
        needless = len(left - set(counted)) if counted is not None else 0
        why = f"; {needless} of them killed by no test kept" if needless else ""
        self.found.notes.append(
            f"{len(left)} of the {len(self.plans)} mutants the suite runs not judged "
            f"(a cap of {self.limit} runs{why})"
        )


def _sample(mutants: Sequence[MutantId], limit: int) -> list[MutantId]:
    """At most ``limit`` of ``mutants``, a fixed sample spread over them (every k-th).

    >>> [i for _, i in _sample([("f", i) for i in range(10)], 4)]
    [0, 2, 5, 7]
    """
    if len(mutants) <= limit:
        return list(mutants)
    return [mutants[position * len(mutants) // limit] for position in range(max(limit, 0))]


@dataclass(frozen=True)
class Keeping:
    """What decides which generated tests are kept besides the suite's verdicts
    (``host.adds.keep_what_adds``): the tests in the file's order, the targets each covers
    (coverage.py's, per test), those the suite covers, and the mutants each test kills."""

    order: Sequence[str]
    covers: Mapping[str, Iterable[int]]
    suite: Iterable[int]
    kills: Mapping[str, Iterable[MutantId]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Planned:
    """One mutant's data, found before any run: its text, the suite's tests that run its lines
    (pytest node ids; None: no test runs them) and its key in the cache."""

    mutant: MutantId
    text: str
    selection: tuple[str, ...] | None
    key: str


def _planned(
    chosen: Sequence[MutantId],
    source: str,
    by_name: dict[str, Unit],
    contexts: dict[str, set[str]],
    lines: _LineTests,
    runner: _Runner,
    baseline_key: str,
    path: Path,
    found: SuiteKills,
) -> list[_Planned]:
    """Each mutant's data, in one pass over them; one whose text cannot be made counts as
    killed (in ``found``). Its tests: those that run one of its lines (``lines``), else, where
    the lines do not tell (``_LineTests.tests``), those that run its unit (``contexts``)."""
    planned: list[_Planned] = []
    selections: dict[frozenset[str], tuple[str, ...]] = {}
    try:
        texts = MutantTexts(source)  # the module parsed once, for every mutant
    except (SyntaxError, ValueError):
        found.killed.update(chosen)
        return planned
    for mutant in chosen:
        unit, index = mutant
        try:
            text = texts.text(by_name[unit], index)
            span = texts.lines(by_name[unit], index)
        except (IndexError, SyntaxError, ValueError):
            found.killed.add(mutant)
            continue
        told = lines.tests(span) if span is not None else None
        tests = frozenset(contexts[unit]) if told is None else told
        if not tests:
            planned.append(_Planned(mutant, text, None, ""))
            continue
        if tests not in selections:
            selections[tests] = runner.selection(tests)
        key = _key(baseline_key, path, selections[tests], text)
        planned.append(_Planned(mutant, text, selections[tests], key))
    return planned


class _LineTests:
    """The suite's tests (coverage.py contexts) that run each line of one module: those of
    the arcs from or to it."""

    def __init__(self, coverage: FileCoverage) -> None:
        self.by_line: dict[int, set[str]] = {}
        self.outside: set[int] = set()  # lines some run reached outside any test
        for arc in coverage.arcs:
            tests = coverage.tests.get(arc)
            for line in arc:
                if line > 0 and tests:
                    self.by_line.setdefault(line, set()).update(tests)
                elif line > 0:
                    self.outside.add(line)

    def tests(self, span: tuple[int, int]) -> frozenset[str] | None:
        """The tests that run a line of ``span`` (first, last); None when the lines cannot
        tell: one of them ran outside any test (as the module was imported, in a fixture
        before the first test), where a test may see what it did without running it."""
        lines = range(span[0], span[1] + 1)
        if any(line in self.outside for line in lines):
            return None
        return frozenset(t for line in lines for t in self.by_line.get(line, ()))


def _spread(mutants: Iterable[MutantId]) -> list[MutantId]:
    """The units' mutants taken in turn (each unit's in index order), so that a cap leaves
    every unit some.

    >>> _spread([("b", 4), ("a", 1), ("a", 0), ("b", 2), ("a", 5)])
    [('a', 0), ('b', 2), ('a', 1), ('b', 4), ('a', 5)]
    """
    rank: dict[MutantId, int] = {}
    seen: dict[str, int] = {}
    for mutant in sorted(set(mutants)):
        rank[mutant] = seen[mutant[0]] = seen.get(mutant[0], -1) + 1
    return sorted(rank, key=lambda m: (rank[m], m))


def _key(baseline_key: str, path: Path, selection: Sequence[str], text: str) -> str:
    digest = hashlib.sha256(f"{CACHE_VERSION}\0{baseline_key}\0{path.name}\0".encode())
    digest.update("\0".join(selection).encode())
    digest.update(b"\0" + text.encode("utf-8"))
    return digest.hexdigest()


class _Runner:
    """pytest on some of the project's tests, from its root, against a mutant (or the original)."""

    def __init__(
        self, root: Path, module_name: str, path: Path, interpreter: Interpreter, timeout: float
    ) -> None:
        self.root, self.module_name, self.path = root, module_name, path
        self.interpreter, self.timeout = interpreter, timeout
        self._files: dict[tuple[str, ...], list[Path]] | None = None
        self.original_seconds: dict[tuple[str, ...], float] = {}  # the selections' own runs
        self.passes: dict[tuple[str, ...], bool] = {}  # whether they pass on the original
        self.runs = 0  # pytest runs made
        self.wholes: dict[tuple[str, ...], tuple[str, ...]] = {}  # ``vouch``'s

    def selection(self, contexts: Iterable[str]) -> tuple[str, ...]:
        """pytest's node ids for coverage.py's ``test_function`` contexts (``module.func``,
        ``module.Class.method``): the test file whose dotted path ends with the context's module
        part; a context that names no single file runs the files it may name, whole."""
        chosen: set[str] = set()
        for context in contexts:
            parts = context.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                files = self.files().get(tuple(parts[:cut]), [])
                if len(files) == 1:
                    relative = files[0].relative_to(self.root).as_posix()
                    chosen.add("::".join([relative, *parts[cut:]]))
                    break
                if files:
                    chosen.update(f.relative_to(self.root).as_posix() for f in files)
                    break
        return tuple(sorted(chosen))

    def files(self) -> dict[tuple[str, ...], list[Path]]:
        """Each dotted suffix of a test file's path (``tests.test_x``, ``test_x``) -> the files."""
        if self._files is None:
            self._files = {}
            for file in project_files(self.root):
                if not is_test_file(file):
                    continue
                parts = file.relative_to(self.root).with_suffix("").parts
                for start in range(len(parts)):
                    self._files.setdefault(tuple(parts[start:]), []).append(file)
        return self._files

    def vouch(self, groups: Iterable[Iterable[tuple[str, ...]]]) -> None:
        """The selections of each group are checked on the original together, in one run of
        all their tests (``verdict``): as each unit's tests were, one run per unit, each
        mutant running only some of them."""
        for group in groups:
            selections = set(group)
            whole = tuple(sorted({test for selection in selections for test in selection}))
            for selection in selections - {whole}:
                self.wholes[selection] = whole

    def verdict(self, selection: tuple[str, ...], text: str) -> str:
        """passed | failed | timeout (``run``) of the ``selection`` against the mutated
        ``text``; broken, with no run, when the selection's tests do not pass on the original
        (run first, once per selection; or once for the group ``vouch`` put it in: when the
        group's tests all pass, so do its own, and its run's time bounds theirs)."""
        whole = self.wholes.get(selection)
        if selection not in self.passes and whole is not None:
            if whole not in self.passes:
                self.passes[whole] = self.run(whole, None) == "passed"
            if self.passes[whole]:
                self.passes[selection] = True
                self.original_seconds[selection] = self.original_seconds[whole]
        if selection not in self.passes:
            self.passes[selection] = self.run(selection, None) == "passed"
        return self.run(selection, text) if self.passes[selection] else "broken"

    def run(self, selection: Sequence[str], text: str | None) -> str:
        """passed | failed | timeout: the ``selection``'s run against the mutated ``text``
        (None: the original, run first). Any exit but 0 (a failure, an error collecting the
        tests when the mutant breaks an import) is a kill; timeout: the run used up its CPU
        seconds, or waited ``WALL_FACTOR`` times as long as the original's run (on the test
        clock: ``run_group``'s ``waits``; the original's by the wall clock, which a busy
        machine only lengthens)."""
        self.runs += 1  # (one asked for: an empty selection fails without pytest)
        if not selection:
            return "failed"
        original = self.original_seconds.get(tuple(selection))
        wall = ORIGINAL_WALL if original is None else max(self.timeout, WALL_FACTOR * original)
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="miogen-mutant-") as scratch:
            environment = self.interpreter.environment(
                dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
            )
            environment.pop("COVERAGE_PROCESS_START", None)
            plugin: list[str] = []
            if text is not None:
                named = Path(scratch) / "mutant.json"
                named.write_text(json.dumps(
                    {"module": self.module_name, "path": str(self.path), "source": text}
                ))  # fmt: skip
                environment[MUTANT_VARIABLE] = str(named)
                plugin = ["-p", PLUGIN]
            command = self.interpreter.command(
                "pytest", "-x", "-q", "-p", "no:cacheprovider", *plugin, *selection
            )
            try:
                completed = run_group(
                    command, self.root, environment, wall, self.timeout, process_waits
                )
            except subprocess.TimeoutExpired:
                return "timeout"
        if text is None:
            self.original_seconds[tuple(selection)] = time.monotonic() - started
        if cpu_limited(completed.returncode):
            return "timeout"
        return "passed" if completed.returncode == 0 else "failed"


class _Cache:
    """Verdicts by content key, of the baseline's key only (an older one's are dropped)."""

    def __init__(self, root: Path, baseline_key: str) -> None:
        self.path, self.baseline_key = root / KILLS_PATH, baseline_key
        stored = read_or_set_aside(self.path, json.loads) if baseline_key else None
        fits = (
            isinstance(stored, dict)
            and stored.get("version") == CACHE_VERSION
            and stored.get("baseline") == baseline_key
        )
        self.killed: dict[str, bool] = dict(stored["killed"]) if fits else {}  # type: ignore[index]
        self.changed = False

    def get(self, key: str) -> bool | None:
        return self.killed.get(key)

    def put(self, key: str, killed: bool) -> None:
        self.killed[key] = killed
        self.changed = True

    def save(self) -> None:
        if not self.changed or not self.baseline_key:
            return
        data = {"version": CACHE_VERSION, "baseline": self.baseline_key, "killed": self.killed}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, json.dumps(data))
        except OSError:
            pass  # a folder we may not write to: run again next time
