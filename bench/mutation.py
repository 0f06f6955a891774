"""Mutation score of a test file by a third-party tool: cosmic-ray, in its own virtual environment.

cosmic-ray mutates the subject module (relational, arithmetic, boolean, constant and more
operators), runs the test file once per mutant under pytest (``-x``), and records killed or
survived. Score = (killed, timeouts included) / (killed + survived); mutants that cannot even
be imported ("incompetent") are left out. Scores are given for the whole module and for the
mutants inside the module's units (functions and classes a generator is asked to test).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

VENV = Path(__file__).resolve().parent / ".venv-mutation"
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
) -> str:
    """Mutate ``module`` (a path under ``workdir``, where the tests run), run ``tests`` against
    each mutant with ``python``, and return ``cosmic-ray dump``'s output. The config and the
    session database go to ``scratch``, which may be ``workdir`` itself for a throwaway copy."""
    scratch.mkdir(parents=True, exist_ok=True)
    config, session = scratch / "cosmic-ray.toml", scratch / "session.sqlite"
    config.write_text(
        CONFIG.format(module=module, python=python, tests=tests, options=options),
        encoding="utf-8",
    )
    tool = str(venv / "bin" / "cosmic-ray")
    for step in ("init", "exec"):
        subprocess.run(
            [tool, step, str(config), str(session)], cwd=workdir, env=env, check=True,
            capture_output=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    return subprocess.run(
        [tool, "dump", str(session)], cwd=workdir, check=True, capture_output=True, text=True
    ).stdout


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
    module_path: Path, test_file: Path, unit_names: set[str], workdir: Path, venv: Path = VENV
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
        workdir, workdir, module_path.name, "test_suite.py", python, " -p no:randomly", venv=venv
    )
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
