"""pytest processes started ahead of the tests they will run, to take their start-up off the clock.

``python -m miogen.plugins.ahead MEMORY_MB SECONDS`` lowers its limits as ``miogen.plugins.limited``
does, imports pytest and coverage.py while the search still runs, then waits for one JSON line on
stdin: ``{"args": [...], "cwd": ..., "data_file": ... or null, "include": ...}``. It runs pytest
with those arguments (under coverage.py when a data file is named) and exits with pytest's code.
Its environment (hash seed, shuffle seed, temporary folder, the sandbox's free folder) is set at
launch, as for a run started afterwards: the run is the same, only earlier on its way.
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

    line = sys.stdin.readline()
    if not line:
        os._exit(70)  # the parent went away, or chose another way: nothing to run
    order = json.loads(line)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # the tests see the stdin a fresh run has
    os.close(null)
    os.chdir(order["cwd"])
    sys.argv = ["pytest", *order["args"]]
    measured = None
    if order["data_file"]:
        measured = coverage.Coverage(
            data_file=order["data_file"], branch=True, include=[order["include"]]
        )
        measured.start()
    code = pytest.main(order["args"])
    if measured is not None:
        measured.stop()
        measured.save()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


if __name__ == "__main__":
    main(sys.argv[1:])
