"""Move server/miogen's modules to the process layout, and every reference to them with them.

    python scripts/relayout.py                  # move (git mv) what is still at its old place, then rewrite
    python scripts/relayout.py --rewrite-only   # rewrite references to old names only (no moves)
    python scripts/relayout.py --check          # exit 1 if anything is left to move or rewrite

The layout (ARCHITECTURE.md) puts each module in the folder of the process that runs it:
``worker/`` (the worker process), ``host/`` (the front end's process: supervisor, spares,
verification), ``plugins/`` (pytest processes), ``common/`` (small modules every process
shares); the front ends (``cli``, ``ctg``, ``lsp``) and the pipeline-stage libraries stay on top.

Both steps are idempotent: a module already at its new place is not moved again, and a name
already new is not rewritten again (``miogen.worker`` was a module and is now a package: a dotted
name is rewritten only when its longest old prefix is not shorter than its longest new one). So
the script can run again after other branches are merged, to move modules they added at an old
place (add a line to MODULES or TESTS) and to fix the references they added.

References are rewritten in every tracked text file (EXCLUDED aside): dotted names
(``miogen.execution.spare``: imports, ``-p miogen.verify.guard``, ``python -m miogen.worker``,
mock targets, logger names), ``from miogen.execution import executor, supervisor`` (split when its
names go to different places), file paths (``server/miogen/execution/spare.py``,
``miogen/verify/guard.py``, ``execution/spare.py``, ``tests/execution/test_spare.py``), short
dotted names in backticks (```verify.baseline```) and the tests' own helper imports
(``from execution.helpers import ...``). Python files it changed get ruff's import sorting and
format. The script does not import miogen.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "server"  # the folder that holds the package miogen

# old dotted name -> new dotted name; a package moves with everything in it. To move another
# package later (the pipeline's run/, say), add a line: "miogen.run": "miogen.host.run".
MODULES: dict[str, str] = {
    # the worker process: reads a job spec, runs the search, answers JSON lines
    "miogen.worker": "miogen.worker.main",
    "miogen.engine": "miogen.worker.engine",
    "miogen.phases": "miogen.worker.phases",
    "miogen.problem": "miogen.worker.problem",
    "miogen.objectives": "miogen.worker.objectives",
    "miogen.execution.executor": "miogen.worker.executor",
    "miogen.execution.sandbox": "miogen.worker.sandbox",
    "miogen.execution.world": "miogen.worker.world",
    "miogen.execution.entropy": "miogen.worker.entropy",
    "miogen.execution.tracer": "miogen.worker.tracer",
    "miogen.execution.special": "miogen.worker.special",
    "miogen.search": "miogen.worker.search",
    # the host: the front end's process, which starts and watches workers and pytest runs
    "miogen.execution.supervisor": "miogen.host.supervisor",
    "miogen.execution.spare": "miogen.host.spare",
    "miogen.execution.early": "miogen.host.early",
    "miogen.execution.interpreter": "miogen.host.interpreter",
    "miogen.verify.measure": "miogen.host.measure",
    "miogen.verify.baseline": "miogen.host.baseline",
    "miogen.verify.adds": "miogen.host.adds",
    "miogen.verify.clock": "miogen.host.clock",
    "miogen.verify.runs": "miogen.host.runs",
    "miogen.config": "miogen.host.config",
    # pytest plugins and launchers: run in the pytest processes that verify tests
    "miogen.verify.guard": "miogen.plugins.guard",
    "miogen.verify.shuffle": "miogen.plugins.shuffle",
    "miogen.verify.ahead": "miogen.plugins.ahead",
    "miogen.verify.limited": "miogen.plugins.limited",
    "miogen.verify.contexts": "miogen.plugins.contexts",
    # small modules shared by every process, below the front ends
    "miogen.errors": "miogen.common.errors",
    "miogen.atomic": "miogen.common.atomic",
    "miogen.confine": "miogen.common.confine",
    "miogen.records": "miogen.common.records",
    "miogen.project": "miogen.common.project",
    "miogen.platform_support": "miogen.common.platform_support",
    "miogen.sharing": "miogen.common.sharing",
    "miogen.execution.heartbeat": "miogen.common.heartbeat",
    "miogen.ctg.history": "miogen.common.history",
}
# packages emptied by the moves: their __init__.py goes once nothing else is left in them
DISSOLVED = ["miogen.execution", "miogen.verify"]

# tests mirror the package: old path -> new path (a folder moves with everything in it)
TESTS: dict[str, str] = {
    "tests/execution/helpers.py": "tests/worker/helpers.py",
    "tests/execution/test_ahead.py": "tests/host/test_spare_ahead.py",
    "tests/execution/test_early.py": "tests/host/test_early.py",
    "tests/execution/test_executor_alarm.py": "tests/worker/test_executor_alarm.py",
    "tests/execution/test_executor_state.py": "tests/worker/test_executor_state.py",
    "tests/execution/test_interpreter.py": "tests/host/test_interpreter.py",
    "tests/execution/test_package_modules.py": "tests/worker/test_package_modules.py",
    "tests/execution/test_probes_match_coverage.py": "tests/worker/test_probes_match_coverage.py",
    "tests/execution/test_sandbox.py": "tests/worker/test_sandbox.py",
    "tests/execution/test_spare.py": "tests/host/test_spare.py",
    "tests/execution/test_supervisor.py": "tests/host/test_supervisor.py",
    "tests/execution/test_world.py": "tests/worker/test_world.py",
    "tests/verify/test_baseline.py": "tests/host/test_baseline.py",
    "tests/verify/test_clock.py": "tests/host/test_clock.py",
    "tests/verify/test_measure.py": "tests/host/test_measure.py",
    "tests/verify/test_shuffle.py": "tests/plugins/test_shuffle.py",
    "tests/test_config.py": "tests/host/test_config.py",
    "tests/test_engine.py": "tests/worker/test_engine.py",
    "tests/test_engine_criteria.py": "tests/worker/test_engine_criteria.py",
    "tests/test_objectives.py": "tests/worker/test_objectives.py",
    "tests/test_phases.py": "tests/worker/test_phases.py",
    "tests/search": "tests/worker/search",
    "tests/test_atomic.py": "tests/common/test_atomic.py",
    "tests/test_confine.py": "tests/common/test_confine.py",
    "tests/test_platform_support.py": "tests/common/test_platform_support.py",
    "tests/test_project.py": "tests/common/test_project.py",
    "tests/test_sharing.py": "tests/common/test_sharing.py",
    "tests/ctg/test_history.py": "tests/common/test_history.py",
}
DISSOLVED_TESTS = ["tests/execution", "tests/verify"]

# files whose text is history or is edited by hand only
EXCLUDED = (
    "README.md",
    "bench/results/",
    "package-lock.json",
    "scripts/relayout.py",
    "tests/test_relayout.py",  # old names on purpose
)

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
DOTTED = re.compile(rf"(?<![\w.])miogen(?:\.{NAME})+")
FROM_IMPORT = re.compile(
    rf"^(?P<indent>[ \t]*)from[ \t]+(?P<module>miogen(?:\.{NAME})*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n#]*?)(?P<tail>[ \t]*(?:#[^\n]*)?)$",
    re.MULTILINE,
)
ALIASED = rf"{NAME}(?:[ \t]+as[ \t]+{NAME})?"
INLINE_IMPORT = re.compile(  # in prose and in strings: `from miogen.records import JobSpec`
    rf"(?<![\w.])from[ \t]+(?P<module>miogen(?:\.{NAME})*)[ \t]+import[ \t]+"
    rf"(?P<names>{ALIASED}(?:,[ \t]*{ALIASED})*)"
)
BACKTICKED = re.compile(rf"(?<=`)({NAME}(?:\.{NAME})+)(?=`)")
PATH = re.compile(r"(?<![\w./-])[\w.-]+(?:/[\w.-]+)+/?")
TEST_IMPORT = re.compile(
    rf"^(?P<head>[ \t]*(?:from|import)[ \t]+)(?P<module>{NAME}(?:\.{NAME})+)\b", re.M
)


def _parents(name: str) -> Iterable[str]:
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        yield ".".join(parts[:end])


OLD = set(MODULES)
NEW = {parent for new in MODULES.values() for parent in _parents(new)}
# short names in backticks (``execution.spare``) are rewritten under these packages only: a
# ``config.KEYS`` or ``problem.evaluate`` in prose may name a variable
SHORT_PARTS = {"execution", "verify", "search"}


def resolve(name: str) -> str:
    """The new dotted name for ``name`` (a module, or something in one); ``name`` if not moved."""
    parts = name.split(".")
    old = max((end for end in range(1, len(parts) + 1) if ".".join(parts[:end]) in OLD), default=0)
    if not old:
        return name
    new = max((end for end in range(1, len(parts) + 1) if ".".join(parts[:end]) in NEW), default=0)
    if new > old:
        return name  # already at its new place (miogen.worker.engine, not miogen.worker + .engine)
    return ".".join([MODULES[".".join(parts[:old])], *parts[old:]])


def _path_of(name: str) -> str:
    return f"{SOURCE}/{name.replace('.', '/')}"


def _old_paths() -> dict[str, str]:
    """Old path -> new path, relative to the repository: files, and folders with a trailing /."""
    paths: dict[str, str] = {}
    for old, new in MODULES.items():
        old_path, new_path = ROOT / _path_of(old), ROOT / _path_of(new)
        if new_path.is_dir() or Path(f"{new_path}.py").exists():
            folder = new_path.is_dir()  # moved (miogen.worker is a folder now, worker/main.py)
        else:
            folder = old_path.is_dir() and not Path(f"{old_path}.py").exists()
        if folder:
            paths[f"{_path_of(old)}/"] = f"{_path_of(new)}/"
        else:
            paths[f"{_path_of(old)}.py"] = f"{_path_of(new)}.py"
    for old, new in TESTS.items():
        slash = "" if old.endswith(".py") else "/"
        paths[old + slash] = new + slash
    return paths


FORMS: list[tuple[str, str]] = []  # (old, new) path forms, longest first; filled after the moves


def path_forms(paths: dict[str, str]) -> list[tuple[str, str]]:
    """Each old path as it is written: from the repository root, from server/ (miogen/...), and
    from the package (execution/spare.py: with a folder in it, so never a bare file name)."""
    forms = []
    for old, new in paths.items():
        forms.append((old, new))
        if old.startswith(f"{SOURCE}/miogen/"):
            forms.append((old.removeprefix(f"{SOURCE}/"), new.removeprefix(f"{SOURCE}/")))
            inner = old.removeprefix(f"{SOURCE}/miogen/")
            if "/" in inner.rstrip("/"):
                forms.append((inner, new.removeprefix(f"{SOURCE}/miogen/")))
            elif inner.endswith("/"):  # a folder: only a path into it (search/mio.py)
                forms.append((inner + "?", new.removeprefix(f"{SOURCE}/miogen/")))
    return sorted(forms, key=lambda form: -len(form[0]))


def rewrite_path(token: str) -> str:
    """A path naming an old place, as it reads at the new one."""
    for old, new in FORMS:
        if old.endswith("/?"):  # a package-relative folder: only paths into it
            folder = old[:-1]
            if token.startswith(folder) and len(token) > len(folder):
                return new + token[len(folder) :]
            continue
        if token == old:
            return new
        if old.endswith("/"):
            if token == old[:-1]:
                return new[:-1]
            if token.startswith(old):
                return new + token[len(old) :]
    return token


def _split_names(text: str) -> list[tuple[str, str | None]]:
    text = re.sub(r"#[^\n]*", "", text).strip().strip("()")
    names = []
    for piece in text.replace("\\\n", " ").split(","):
        words = piece.split()
        if not words:
            continue
        names.append((words[0], words[2] if len(words) == 3 and words[1] == "as" else None))
    return names


def rewrite_from_import(match: re.Match[str], warnings: list[str], where: str) -> str:
    module, names = match["module"], _split_names(match["names"])
    if not names or any(not re.fullmatch(NAME, name) for name, _ in names):
        return match[0]
    new_module = resolve(module)
    groups: dict[str, list[str]] = {}
    for name, alias in names:
        full = resolve(f"{module}.{name}")
        if full == f"{new_module}.{name}":
            target, imported = new_module, name
        else:
            target, _, imported = full.rpartition(".")
        shown = imported if (alias or name) == imported else f"{imported} as {alias or name}"
        groups.setdefault(target, []).append(shown)
        if f"{module}.{name}" in DISSOLVED:
            warnings.append(f"{where}: imports the dissolved package {module}.{name}")
    if list(groups) == [module] and all(
        shown.split()[0] == name for shown, (name, _) in zip(groups[module], names, strict=True)
    ):
        return match[0]
    statements = [f"from {target} import {', '.join(shown)}" for target, shown in groups.items()]
    if "indent" not in match.groupdict():
        return "; ".join(statements)
    indent = match["indent"]
    return "\n".join(indent + statement for statement in statements) + match["tail"]


def rewrite_text(text: str, where: str, warnings: list[str]) -> str:
    text = FROM_IMPORT.sub(lambda match: rewrite_from_import(match, warnings, where), text)
    text = INLINE_IMPORT.sub(lambda match: rewrite_from_import(match, warnings, where), text)

    def dotted(match: re.Match[str]) -> str:
        following = text[match.end() : match.end() + 8]
        if re.match(r"[ \t]+import\b", following):
            return match[0]  # a from-import's module: rewritten above, with its names
        name = match[0]
        if name in DISSOLVED:
            warnings.append(f"{where}: names the dissolved package {name}")
        return resolve(name)

    text = DOTTED.sub(dotted, text)

    def short(match: re.Match[str]) -> str:
        name = match[1]
        if name.split(".")[0] not in SHORT_PARTS or name.endswith((".py", ".md", ".toml")):
            return name
        return resolve(f"miogen.{name}").removeprefix("miogen.")

    text = BACKTICKED.sub(short, text)
    text = PATH.sub(lambda match: rewrite_path(match[0]), text)
    if where.startswith("tests/") and where.endswith(".py"):
        text = TEST_IMPORT.sub(lambda match: match["head"] + _test_import(match["module"]), text)
    return text


def _test_module(path: str) -> str:
    return path.removeprefix("tests/").removesuffix(".py").replace("/", ".")


# tests import each other from tests/ (``from execution.helpers import spec_for``)
TEST_MODULES = {_test_module(old): _test_module(new) for old, new in TESTS.items()}


def _test_import(module: str) -> str:
    for old, new in TEST_MODULES.items():
        if module == old or module.startswith(f"{old}."):  # a module, or one in a moved folder
            return new + module[len(old) :]
    return module


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def tracked(folder: str) -> list[str]:
    return [line for line in git("ls-files", "--", folder).splitlines() if line]


def _ensure_packages(path: str, notes: list[str]) -> None:
    """Every folder from server/miogen down to ``path``'s has an __init__.py (tests/: none)."""
    if not path.startswith(f"{SOURCE}/miogen/"):
        return
    folder = (ROOT / path).parent
    while folder != ROOT / SOURCE / "miogen":
        init = folder / "__init__.py"
        if not init.exists():
            folder.mkdir(parents=True, exist_ok=True)
            init.write_text("", encoding="utf-8")
            git("add", str(init.relative_to(ROOT)))
            notes.append(f"created {init.relative_to(ROOT)}")
        folder = folder.parent


def move(old: str, new: str, notes: list[str], warnings: list[str]) -> None:
    source, target = ROOT / old, ROOT / new
    if source.is_dir():
        files = tracked(old)
        if not target.exists():
            _ensure_packages(new, notes)  # the folders above it (it brings its own)
            target.parent.mkdir(parents=True, exist_ok=True)
            git("mv", old, new)
            notes.append(f"moved {old}/ -> {new}/")
            return
        for file in files:  # the folder moved before: bring what was added at the old place since
            rest = file[len(old) + 1 :]
            if (target / rest).exists():
                warnings.append(f"{file} and {new}/{rest} both exist: merge them by hand")
                continue
            (target / rest).parent.mkdir(parents=True, exist_ok=True)
            git("mv", file, f"{new}/{rest}")
            notes.append(f"moved {file} -> {new}/{rest}")
        return
    if not source.exists():
        return
    if target.exists():
        warnings.append(f"{old} and {new} both exist: merge them by hand")
        return
    _ensure_packages(new, notes)
    target.parent.mkdir(parents=True, exist_ok=True)
    git("mv", old, new)
    notes.append(f"moved {old} -> {new}")


def move_all(notes: list[str], warnings: list[str]) -> None:
    for old, new in MODULES.items():
        old_path, new_path = _path_of(old), _path_of(new)
        if (ROOT / old_path).is_dir() and not new_path.startswith(f"{old_path}/"):
            move(old_path, new_path, notes, warnings)  # a package (miogen.worker: a module)
        else:
            move(f"{old_path}.py", f"{new_path}.py", notes, warnings)
    for old, new in TESTS.items():
        move(old, new, notes, warnings)
    for package in DISSOLVED:
        folder = _path_of(package)
        left = [file for file in tracked(folder) if file != f"{folder}/__init__.py"]
        if left:
            warnings.append(f"{folder}/ still holds {left}: add them to MODULES")
        elif (ROOT / folder / "__init__.py").exists():
            git("rm", "-q", f"{folder}/__init__.py")
            notes.append(f"removed {folder}/__init__.py")
    for folder in DISSOLVED_TESTS:
        if left := tracked(folder):
            warnings.append(f"{folder}/ still holds {left}: add them to TESTS")


def text_files() -> list[str]:
    files = []
    for file in git("ls-files", "-z").split("\0"):
        if not file or file.startswith(EXCLUDED) or file in EXCLUDED:
            continue
        if (ROOT / file).is_file():
            files.append(file)
    return files


def rewrite_all(write: bool, warnings: list[str]) -> list[str]:
    changed = []
    for file in text_files():
        try:
            text = (ROOT / file).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text:
            continue
        new = rewrite_text(text, file, warnings)
        if new != text:
            changed.append(file)
            if write:
                (ROOT / file).write_text(new, encoding="utf-8")
    for file in EXCLUDED:
        path = ROOT / file
        if path.is_file() and file.endswith(".md"):
            text = path.read_text(encoding="utf-8")
            if rewrite_text(text, file, []) != text:
                warnings.append(f"{file} (not rewritten: edited by hand) names old places")
    return changed


def tidy(files: list[str]) -> None:
    """ruff's import order and format for the Python files rewritten (imports moved places)."""
    python = [file for file in files if file.endswith(".py")]
    if not python:
        return
    try:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ruff",
                "check",
                "--quiet",
                "--force-exclude",
                "--select",
                "I",
                "--fix",
            ]
            + python,
            cwd=ROOT,
            check=False,
        )
        subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--quiet", "--force-exclude", *python],
            cwd=ROOT,
        )
    except OSError as error:
        print(
            f"ruff did not run ({error}): sort the imports of the rewritten files", file=sys.stderr
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--rewrite-only", action="store_true", help="rewrite references; no moves")
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if work is left")
    args = parser.parse_args(argv)
    notes: list[str] = []
    warnings: list[str] = []
    if not args.rewrite_only and not args.check:
        move_all(notes, warnings)
    FORMS[:] = path_forms(_old_paths())
    changed = rewrite_all(write=not args.check, warnings=warnings)
    if not args.check:
        tidy(changed)
    for note in notes:
        print(note)
    print(f"{'would rewrite' if args.check else 'rewrote'} {len(changed)} files")
    if args.check:
        for file in changed:
            print(f"  {file}")
        pending = [old for old in _old_paths() if (ROOT / old.rstrip("/")).exists()]
        for old in pending:
            print(f"  still at its old place: {old}")
    for warning in sorted(set(warnings)):
        print(f"warning: {warning}", file=sys.stderr)
    return 1 if args.check and (changed or pending) else 0


if __name__ == "__main__":
    sys.exit(main())
