"""Mutation score of a test file by a third-party tool: cosmic-ray, in its own virtual environment.

cosmic-ray mutates the subject module (relational, arithmetic, boolean, constant and more
operators), runs the test file once per mutant under pytest (``-x``), and records killed or
survived. Score = (killed, timeouts included) / (killed + survived); mutants that cannot even
be imported ("incompetent") are left out. Scores are given for the whole module and for the
mutants inside the module's units (functions and classes a generator is asked to test).

``python -m bench.mutation --modules string_utils.validation gammq ... --evaluations 2000``
scores classic subjects (corpus/classic) and modules of the real corpus (bench/realcorpus.py):
miogen generates each one's tests under an
evaluation budget with a fixed seed, so the same miogen makes the same file whatever the load
(under a time budget the search and the reduction depend on the machine, and scores moved by
points between runs of the same code); ``--generator`` takes another miogen (an older commit's
``server/``, exported) for the numbers before a change. The module's top package is copied
next to the test file and the module mutated there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

VENV = Path(__file__).resolve().parent / ".venv-mutation"
CLASSIC = Path(__file__).resolve().parent.parent / "corpus" / "classic"
REQUIREMENTS = ["cosmic-ray==8.7.0", "pytest>=8"]

CONFIG = """[cosmic-ray]
module-path = "{module}"
timeout = 20.0
excluded-modules = []
test-command = "{python} -m pytest -x -q -p no:cacheprovider{options} {tests}"

[cosmic-ray.distributor]
name = "local"
"""


def run_session(
    workdir: Path,
    scratch: Path,
    module: str,
    tests: str,
    python: str,
    options: str = "",
    env: dict[str, str] | None = None,
    venv: Path = VENV,
    sample: int | None = None,
    totals: list[int] | None = None,
) -> str:
    """Mutate ``module`` (a path under ``workdir``, where the tests run), run ``tests`` against
    each mutant with ``python``, and return ``cosmic-ray dump``'s output. The config and the
    session database go to ``scratch``, which may be ``workdir`` itself for a throwaway copy.
    ``sample``: run about that many mutants only (``keep_sample``); ``totals``: gets how many
    mutants the module has, the sample's left out included."""
    session = init_session(workdir, scratch, module, tests, python, options, env, venv, sample,
                           totals)  # fmt: skip
    tool = str(venv / "bin" / "cosmic-ray")
    subprocess.run(
        [tool, "exec", str(scratch / "cosmic-ray.toml"), str(session)], cwd=workdir, env=env,
        check=True, capture_output=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return subprocess.run(
        [tool, "dump", str(session)], cwd=workdir, check=True, capture_output=True, text=True
    ).stdout


def init_session(
    workdir: Path,
    scratch: Path,
    module: str,
    tests: str,
    python: str,
    options: str = "",
    env: dict[str, str] | None = None,
    venv: Path = VENV,
    sample: int | None = None,
    totals: list[int] | None = None,
) -> Path:
    """cosmic-ray's ``init`` alone (``run_session``'s first step): the session database of
    ``module``'s mutants (``sample``d), none of them run yet (``session_mutants`` lists them)."""
    scratch.mkdir(parents=True, exist_ok=True)
    config, session = scratch / "cosmic-ray.toml", scratch / "session.sqlite"
    config.write_text(
        CONFIG.format(module=module, python=python, tests=tests, options=options),
        encoding="utf-8",
    )
    subprocess.run(
        [str(venv / "bin" / "cosmic-ray"), "init", str(config), str(session)], cwd=workdir,
        env=env, check=True, capture_output=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    if totals is not None:
        totals.append(count_mutants(session))
    if sample is not None:
        keep_sample(session, sample)
    return session


def session_mutants(session: Path) -> list[tuple[str, int, int, int]]:
    """The session's mutants in source order: (operator, occurrence, first line, last line)."""
    with sqlite3.connect(session) as database:
        rows = database.execute(
            "SELECT operator_name, occurrence, start_pos_row, end_pos_row FROM mutation_specs "
            "ORDER BY module_path, start_pos_row, start_pos_col, operator_name, occurrence"
        ).fetchall()
    return [(str(o), int(n), int(first), int(last)) for o, n, first, last in rows]


def count_mutants(session: Path) -> int:
    with sqlite3.connect(session) as database:
        return int(database.execute("SELECT COUNT(*) FROM work_items").fetchone()[0])


def keep_sample(session: Path, size: int) -> int:
    """Leave about ``size`` of the session's mutants: every k-th in source order (where, then
    which operator), the same ones for every test file of the same module, whatever the job
    ids (random). cosmic-ray runs each mutant's test file in a new process (a second or more
    on a loaded machine): gammq's 546 mutants took over 20 minutes. Returns how many are left."""
    with sqlite3.connect(session) as database:
        rows = database.execute(
            "SELECT job_id FROM mutation_specs ORDER BY module_path, start_pos_row, "
            "start_pos_col, operator_name, occurrence"
        ).fetchall()
        step = max(1, math.ceil(len(rows) / size))
        dropped = [(job,) for position, (job,) in enumerate(rows) if position % step]
        database.executemany("DELETE FROM mutation_specs WHERE job_id = ?", dropped)
        database.executemany("DELETE FROM work_items WHERE job_id = ?", dropped)
    return len(rows) - len(dropped)


def ensure_cosmic_ray(venv: Path = VENV, log=print) -> str:
    """Install cosmic-ray into its own venv unless it is there; return its version."""
    python = venv / "bin" / "python"
    if not (venv / "bin" / "cosmic-ray").exists():
        log(f"installing {' '.join(REQUIREMENTS)} into {venv} (once; under a minute)")
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *REQUIREMENTS],
            check=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    completed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('cosmic-ray'))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return completed.stdout.strip()


@dataclass
class MutationScore:
    killed: int
    survived: int
    incompetent: int
    unit_killed: int
    unit_survived: int
    seconds: float

    @property
    def score(self) -> float:
        return _ratio(self.killed, self.killed + self.survived)

    @property
    def unit_score(self) -> float:
        return _ratio(self.unit_killed, self.unit_killed + self.unit_survived)

    @property
    def total(self) -> int:
        return self.killed + self.survived + self.incompetent


def _ratio(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def mutation_score(
    module_path: Path,
    test_file: Path,
    unit_names: set[str],
    workdir: Path,
    venv: Path = VENV,
    sample: int | None = None,
) -> MutationScore:
    """Run cosmic-ray over a fresh copy of the module with ``test_file`` as the test suite."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    shutil.copyfile(module_path, workdir / module_path.name)
    shutil.copyfile(test_file, workdir / "test_suite.py")
    python = str(venv / "bin" / "python")
    start = time.monotonic()
    dump = run_session(
        workdir, workdir, module_path.name, "test_suite.py", python, " -p no:randomly", venv=venv,
        sample=sample,
    )  # fmt: skip
    return tally(dump, unit_names, time.monotonic() - start)


def tally(dump: str, unit_names: set[str], seconds: float = 0.0) -> MutationScore:
    """Count outcomes in ``cosmic-ray dump`` output (one JSON [job, result] per line).

    >>> line = lambda name, outcome: json.dumps([{"mutations": [{"definition_name": name}]},
    ...                                          {"test_outcome": outcome}])
    >>> s = tally("\\n".join([line("f", "killed"), line("f", "survived"), line(None, "killed")]),
    ...           {"f"})
    >>> (s.killed, s.survived, s.unit_killed, s.unit_survived, round(s.score, 1), s.unit_score)
    (2, 1, 1, 1, 66.7, 50.0)
    """
    outcomes: Counter = Counter()
    for line in dump.splitlines():
        if not line.strip():
            continue
        job, result = json.loads(line)
        outcome = (result or {}).get("test_outcome", "pending")
        names = {m.get("definition_name") for m in job.get("mutations", [])}
        in_unit = any(_in_units(name, unit_names) for name in names)
        outcomes[outcome, in_unit] += 1
    return MutationScore(
        killed=outcomes["killed", True] + outcomes["killed", False],
        survived=outcomes["survived", True] + outcomes["survived", False],
        incompetent=outcomes["incompetent", True] + outcomes["incompetent", False],
        unit_killed=outcomes["killed", True],
        unit_survived=outcomes["survived", True],
        seconds=seconds,
    )


def _in_units(definition: str | None, unit_names: set[str]) -> bool:
    """cosmic-ray names the innermost definition ("Class.method" or "function")."""
    if not definition:
        return False
    return definition.split(".")[0] in unit_names


# --- real modules ------------------------------------------------------------------------------


def real_module_score(
    name: str,
    out: Path,
    evaluations: int,
    seed: int = 0,
    generator: Path | None = None,
    venv: Path = VENV,
    log=print,
    sample: int | None = None,
    scored: bool = True,
) -> tuple[MutationScore | None, int]:
    """Generate ``name``'s tests (``bench.ours`` under ``evaluations``, ``seed``; with the miogen
    package in ``generator`` if given) into ``out``, then score them; (score, tests). ``name``
    is a classic subject (corpus/classic) or a module of bench/realcorpus.py; ``sample``: score
    about that many mutants (``keep_sample``); not ``scored``: only the tests (None, tests)."""
    from bench import realcorpus  # the corpus' venv is only needed here

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "pyproject.toml").write_text('[project]\nname = "subject"\n')
    copy = None
    classic = CLASSIC / f"{name}.py"
    if classic.exists():
        (out / "proj").mkdir()
        path, root = out / "proj" / classic.name, out / "proj"
        shutil.copyfile(classic, path)
        copy = classic.name
    else:
        [module] = realcorpus.select([name], "all")
        path, root = module.locate(realcorpus.ensure_venv(log=log), out / "proj")
        copy = module.copy
    test_file = out / "test_miogen.py"
    command = [
        sys.executable, "-m", "bench.ours", str(path), "--evaluations", str(evaluations),
        "--seed", str(seed), "--project-root", str(root), "--output", str(test_file),
        "--summary", str(out / "summary.json"),
    ]  # fmt: skip
    env = dict(os.environ)
    if generator is not None:
        env["PYTHONPATH"] = str(generator.resolve())
    with (out / "miogen.log").open("w") as sink:
        subprocess.run(
            command, cwd=Path(__file__).resolve().parent.parent, env=env, stdout=sink,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=True,
        )  # fmt: skip
    tests = sum(1 for line in test_file.read_text().splitlines() if line.startswith("def test"))
    if not scored:
        return None, tests
    work = out / "work"
    relative = path.relative_to(root)
    if copy:
        work.mkdir()
        shutil.copyfile(path, work / relative)
    else:
        top = relative.parts[0]
        shutil.copytree(root / top, work / top, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(test_file, work / "test_suite.py")
    units = {u.get("name") for u in json.loads((out / "summary.json").read_text())["units"]}
    started = time.monotonic()
    dump = run_session(
        work, out / "session", str(relative), "test_suite.py", str(venv / "bin" / "python"),
        " -p no:randomly", venv=venv, sample=sample,
    )  # fmt: skip
    return tally(dump, {u for u in units if u}, time.monotonic() - started), tests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mutation", description=__doc__)
    parser.add_argument("--modules", nargs="+", required=True, help="names in bench/realcorpus")
    parser.add_argument("--evaluations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generator", type=Path, help="folder with another miogen package")
    parser.add_argument("--out", type=Path, required=True, help="where tests and sessions go")
    parser.add_argument("--sample", type=int, help="score about this many mutants of each")
    parser.add_argument("--tests-only", action="store_true", help="generate, do not score")
    args = parser.parse_args(argv)
    print(f"cosmic-ray {ensure_cosmic_ray()}; load average {os.getloadavg()}")
    for name in args.modules:
        score, tests = real_module_score(
            name, args.out / name, args.evaluations, args.seed, args.generator,
            sample=args.sample, scored=not args.tests_only,
        )  # fmt: skip
        if score is None:
            print(f"{name}: {tests} test functions", flush=True)
            continue
        print(
            f"{name}: {tests} test functions, {score.killed} killed / {score.survived} survived "
            f"/ {score.incompetent} incompetent, {score.score:.1f} % (in units "
            f"{score.unit_score:.1f} %), {score.seconds:.0f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
