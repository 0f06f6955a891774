"""pytest processes started ahead of the tests they will run, to take their start-up off the clock.

``python -m miogen.plugins.ahead MEMORY_MB SECONDS [PROJECT_ROOT IMPORT_ROOT]`` lowers its limits as
``miogen.plugins.limited`` does, imports pytest and coverage.py while the search still runs (for a
run of the project's, given its root: the installed pytest plugins too), then waits for one JSON line on
stdin: ``{"args": [...], "cwd": ..., "data_file": ... or null, "include": ...}``. It runs pytest
with those arguments (under coverage.py when a data file is named) and exits with pytest's code.
Its environment (hash seed, shuffle seed, temporary folder, the sandbox's free folder) is set at
launch, as for a run started afterwards: the run is the same, only earlier on its way.

An order with ``"project": {"drop": ..., "pythonpath": ...}`` is a run of the project's own
(``host.measure``, ``in_project``): the import root it was started with leaves ``sys.path`` and
PYTHONPATH is as it was, the run's folder is the script folder (as for ``python -m pytest``
there), and the installed pytest plugins load. Nothing of the project was imported before.
The plugins imported early cannot have their asserts rewritten, and pytest says so with a
``PytestAssertRewriteWarning``: a project whose ``filterwarnings`` makes warnings errors would
see its pytest stop on a warning only this early import causes, so that one warning is ignored.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> None:
    from miogen.worker.sandbox import limit_resources

    limit_resources(int(argv[0]), float(argv[1]))
    import coverage
    import pytest

    preloaded = len(argv) > 3
    if preloaded:
        _import_plugins(argv[2], argv[3])
    line = sys.stdin.readline()
    if not line:
        os._exit(70)  # the parent went away, or chose another way: nothing to run
    order = json.loads(line)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # the tests see the stdin a fresh run has
    os.close(null)
    os.chdir(order["cwd"])
    if order.get("project"):
        _as_project(order["project"], order["cwd"])
    args = order["args"]
    if preloaded:  # pytest warns that it cannot rewrite the plugins imported early: ours to hide
        args = ["-W", "ignore::pytest.PytestAssertRewriteWarning", *args]
    sys.argv = ["pytest", *args]
    measured = None
    if order["data_file"]:
        measured = coverage.Coverage(
            data_file=order["data_file"], branch=True, include=[order["include"]]
        )
        measured.start()
    code = pytest.main(args)
    if measured is not None:
        measured.stop()
        measured.save()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


def _import_plugins(cwd: str, drop: str) -> None:
    """Import the installed pytest plugins (entry points ``pytest11``) now, with ``sys.path``
    as the project's run has it (``_as_project``): their import can be most of a project's
    pytest start-up (hypothesis: a second). The run registers them as pytest always does (one
    it blocks is imported, not registered); one that fails to import here is imported again
    there, and its error is pytest's to report."""
    from importlib import import_module
    from importlib.metadata import entry_points

    saved = sys.path[:]
    if drop in sys.path[1:]:
        del sys.path[sys.path.index(drop, 1)]
    sys.path[0] = cwd
    try:
        for entry in entry_points(group="pytest11"):
            try:
                import_module(entry.module)
            except Exception:  # noqa: BLE001, S112 - the run imports it again and says why
                continue
    finally:
        sys.path[:] = saved


def _as_project(project: dict[str, str | None], cwd: str) -> None:
    """The process as ``python -m pytest`` run in ``cwd`` would be (see the module's text)."""
    os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    original = project["pythonpath"]
    if original is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = original
    drop = project["drop"]
    if drop is not None and _droppable(
        drop
    ):  # the first entry after the script folder's: PYTHONPATH's first
        del sys.path[sys.path.index(drop, 1)]
    sys.path[0] = cwd


def _droppable(path: str) -> bool:
    """Whether ``path``, put on PYTHONPATH at launch, leaves ``sys.path``: not when the
    environment's own path files name it too (an editable install of a ``src`` layout, whose
    entry ``site`` skipped as already there): the project's run has it from them."""
    if path not in sys.path[1:]:
        return False
    wanted = os.path.normcase(os.path.abspath(path))
    return wanted not in _site_path_entries()


def _site_path_entries() -> set[str]:
    """The folders the site-packages' ``.pth`` files add (their lines that are not imports)."""
    import site

    found: set[str] = set()
    for folder in site.getsitepackages():
        try:
            names = [n for n in os.listdir(folder) if n.endswith(".pth")]
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    lines = handle.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                entry = line.strip()
                if entry and not entry.startswith(("#", "import ", "import\t")):
                    joined = os.path.abspath(os.path.join(folder, entry))
                    found.add(os.path.normcase(joined))
    return found


if __name__ == "__main__":
    main(sys.argv[1:])
