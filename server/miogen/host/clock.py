"""The clock moved years ahead for one verification rerun (libfaketime), where it is installed.

A test whose assertion holds only today (``"47 years ago"`` from a date read at import, a year
the worker could not see being read) fails in that rerun and is dropped with the unstable ones.
libfaketime is preloaded into the rerun's processes (``LD_PRELOAD``): Debian's ``faketime``
package installs it (scripts/setup.sh does where it is missing).
"""

from __future__ import annotations

import glob
import os

YEARS_AHEAD = 5
OFFSET = f"+{YEARS_AHEAD}y"
# The verification rerun that runs with the clock ahead (plugins/shuffle.py: the backwards one).
SEED = 1
_PLACES = (
    "/usr/lib/*/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
    "/usr/local/lib/faketime/libfaketime.so.1",
    "/usr/lib64/faketime/libfaketime.so.1",
)


def libfaketime() -> str | None:
    """The libfaketime library to preload, None where it is not installed (or not Linux)."""
    given = os.environ.get("MIOGEN_LIBFAKETIME")
    if given is not None:
        return given if given and os.path.isfile(given) else None
    for place in _PLACES:
        found = sorted(glob.glob(place))
        if found:
            return found[0]
    return None


def ahead_environment(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` with the wall clock ``YEARS_AHEAD`` years ahead; unchanged without
    libfaketime. Monotonic clocks and file times stay real (timeouts, pytest's own checks)."""
    library = libfaketime()
    if library is None:
        return environment
    preload = environment.get("LD_PRELOAD", os.environ.get("LD_PRELOAD"))
    return dict(
        environment,
        LD_PRELOAD=f"{library}:{preload}" if preload else library,
        FAKETIME=OFFSET,
        DONT_FAKE_MONOTONIC="1",
        NO_FAKE_STAT="1",
    )
