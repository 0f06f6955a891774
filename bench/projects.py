"""`python -m bench projects`: miogen in real projects that have suites of their own.

Each project is a source distribution from PyPI, pinned by version and sha256 (fetched with
``pip download --no-deps --no-binary :all:`` into bench/results/tmp/projects-cache/, a folder
git ignores), unpacked into a fresh folder. There, per module, ``miogen generate`` writes a file
of its own beside the project's tests (marked as generated). Then the project's plain
``pytest`` runs twice from its root under coverage.py (branch): without the generated files
(the human suite) and with them (combined). Per project it reports the human suite's branch %,
the combined %, the branches added, the human files modified (by content hash), the generated
tests failing in the project's own run, and the wall time.

Every figure is coverage.py's (``coverage json``'s covered_branches / num_branches of the
modules generated for), measured by the project's own pytest run, not miogen's report.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / "results" / "tmp" / "projects-cache"
RESULTS = BENCH / "results" / "projects"


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    sha256: str  # of the sdist
    modules: tuple[str, ...]  # relative to the unpacked root
    tests: str  # folder (relative) where the generated files go, beside the project's tests

    @property
    def archive(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"


PROJECTS = (
    Project(
        "inflection", "0.5.1",
        "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
        ("inflection/__init__.py",), ".",
    ),
    Project(
        "toolz", "0.12.1",
        "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
        ("toolz/dicttoolz.py", "toolz/recipes.py"), "toolz/tests",
    ),
)  # fmt: skip


@dataclass
class ProjectResult:
    project: str
    modules: list[str]
    human_branches: int = 0
    human_covered: int = 0
    combined_covered: int = 0
    human_files_modified: int = 0
    generated_tests: int = 0
    generated_failing: list[str] = field(default_factory=list)
    human_failing: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    miogen_lines: list[str] = field(default_factory=list)  # what miogen said per module

    @property
    def human_percent(self) -> float:
        return 100.0 * self.human_covered / self.human_branches if self.human_branches else 100.0

    @property
    def combined_percent(self) -> float:
        total = self.human_branches
        return 100.0 * self.combined_covered / total if total else 100.0

    @property
    def added(self) -> int:
        return self.combined_covered - self.human_covered


def fetch(project: Project) -> Path:
    """The sdist, downloaded once and checked against its pinned sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / project.archive
    if not path.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"{project.name}=={project.version}", "-d", str(CACHE)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != project.sha256:
        raise SystemExit(f"{path}: sha256 {digest}, pinned {project.sha256}")
    return path


def unpack(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    [root] = [p for p in into.iterdir() if p.is_dir()]
    return root


def hashes(root: Path) -> dict[str, str]:
    found = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if path.is_file() and not {".miogen", "__pycache__"} & set(relative.parts):
            found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def generated_path(project: Project, root: Path, module: str) -> Path:
    stem = Path(module).stem if Path(module).stem != "__init__" else Path(module).parent.name
    return root / project.tests / f"test_{stem}_miogen.py"


def generate(project: Project, root: Path, module: str, budget: float, seed: int) -> list[str]:
    output = generated_path(project, root, module)
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", str(root / module), "--budget", str(budget),
         "--seed", str(seed), "--output", str(output)],
        cwd=root, capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    said = [line for line in done.stdout.splitlines() if "your suite" in line]
    return said + (
        [f"exit {done.returncode}: {done.stderr.strip()[-300:]}"] if done.returncode else []
    )


def measure(root: Path, modules: tuple[str, ...], leave_out: list[Path]) -> dict[str, object]:
    """The project's pytest from its root under coverage.py: branches per module, failures."""
    with tempfile.TemporaryDirectory(prefix="bench-projects-") as scratch:
        data, junit, report = (os.path.join(scratch, n) for n in ("cov", "junit.xml", "c.json"))
        environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        subprocess.run(
            [sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data}",
             f"--include={','.join(str(root / m) for m in modules)}", "-m", "pytest", "-q",
             "-p", "no:cacheprovider", f"--junit-xml={junit}",
             *(f"--ignore={path}" for path in leave_out)],
            cwd=root, env=environment, capture_output=True, text=True, timeout=3600,
        )  # fmt: skip
        subprocess.run(
            [sys.executable, "-m", "coverage", "json", f"--data-file={data}", "-o", report],
            cwd=root, capture_output=True, text=True, check=False,
        )  # fmt: skip
        files = json.loads(Path(report).read_text())["files"] if os.path.exists(report) else {}
        failing = []
        if os.path.exists(junit):
            for case in ElementTree.parse(junit).getroot().iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    failing.append(f"{case.get('classname', '')}::{case.get('name', '')}")
    summary = {"branches": 0, "covered": 0, "failing": failing}
    for module in modules:
        entry = files.get(module) or files.get(str(root / module)) or {}
        found = entry.get("summary", {})
        summary["branches"] += found.get("num_branches", 0)  # type: ignore[operator]
        summary["covered"] += found.get("covered_branches", 0)  # type: ignore[operator]
    return summary


def run_project(project: Project, budget: float, seed: int) -> ProjectResult:
    started = time.monotonic()
    result = ProjectResult(project.name, list(project.modules))
    with tempfile.TemporaryDirectory(prefix=f"bench-{project.name}-") as work:
        root = unpack(fetch(project), Path(work))
        before = hashes(root)
        for module in project.modules:
            result.miogen_lines += generate(project, root, module, budget, seed)
        after = hashes(root)
        outputs = [generated_path(project, root, m) for m in project.modules]
        result.human_files_modified = sum(1 for k, v in before.items() if after.get(k) != v)
        human = measure(root, project.modules, outputs)
        combined = measure(root, project.modules, [])
        result.human_branches = int(human["branches"])  # type: ignore[call-overload]
        result.human_covered = int(human["covered"])  # type: ignore[call-overload]
        result.combined_covered = int(combined["covered"])  # type: ignore[call-overload]
        names = {p.name for p in outputs}
        result.generated_failing = [
            f
            for f in combined["failing"]
            if any(n.removesuffix(".py") in f for n in names)  # type: ignore[attr-defined]
        ]
        result.human_failing = list(human["failing"])  # type: ignore[call-overload]
        result.generated_tests = sum(
            p.read_text().count("\ndef test_") for p in outputs if p.exists()
        )
    result.wall_seconds = time.monotonic() - started
    return result


def table(results: list[ProjectResult]) -> list[str]:
    lines = [
        "| project | human suite branch % | combined % | branches added | human files modified "
        "| generated tests (failing) | human tests failing | wall s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.project} ({', '.join(r.modules)}) | {r.human_covered}/{r.human_branches} "
            f"{r.human_percent:.1f}% | {r.combined_covered}/{r.human_branches} "
            f"{r.combined_percent:.1f}% | {r.added} | {r.human_files_modified} | "
            f"{r.generated_tests} ({len(r.generated_failing)}) | {len(r.human_failing)} | "
            f"{r.wall_seconds:.0f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench projects")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per unit")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--projects", nargs="*", help="names (default: all)")
    args = parser.parse_args(argv)
    chosen = [p for p in PROJECTS if not args.projects or p.name in args.projects]
    results = [run_project(p, args.budget, args.seed) for p in chosen]
    RESULTS.mkdir(parents=True, exist_ok=True)
    rows = [dict(asdict(r), added=r.added, human_percent=r.human_percent,
                 combined_percent=r.combined_percent) for r in results]  # fmt: skip
    (RESULTS / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("\n".join(table(results)))
    for r in results:
        for line in r.miogen_lines:
            print(f"{r.project}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
