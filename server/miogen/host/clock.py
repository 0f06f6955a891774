"""One verification rerun elsewhere: the clock years ahead (libfaketime, where it is installed),
another locale, time zone, home folder and user name.

A test whose assertion holds only today (``"47 years ago"`` from a date read at import, a year
the worker could not see being read) or only on this machine (``"C.UTF-8"`` from LANG, the time
zone's name) fails in that rerun and is dropped with the unstable ones. libfaketime is preloaded
into the rerun's processes (``LD_PRELOAD``): Debian's ``faketime`` package installs it
(scripts/setup.sh does where it is missing). The locale is one ``locale -a`` lists; where none
other than the run's own is installed, the rerun keeps it and the run's notes say so.
"""

from __future__ import annotations

import functools
import glob
import os
import site
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


# --- elsewhere: the same rerun also runs in another locale, time zone, home and user ----------
#
# A value read from the environment ("C.UTF-8" from LANG, ``time.strftime('%Z')``, a path under
# the home folder, the user's name) holds only on this machine. The rerun that has the clock
# ahead also has these changed: a test asserting such a value fails there and is dropped with
# the unstable ones. One rerun for all (the verification's second run, ``SEED``), no more runs.

# Time zones that no machine's own is likely to be: a quarter-hour offset, far from UTC, and
# daylight saving time in the southern summer. The first that differs from the run's is used.
TIME_ZONES = ("Pacific/Chatham", "America/St_Johns")
# Where no zone files are installed: a POSIX rule glibc reads without them (UTC+13:45).
TIME_ZONE_RULE = "<+1345>-13:45"
USER = "miogen-elsewhere"
# Locales preferred when installed (another language than English, a decimal comma).
PREFERRED_LOCALES = ("de_DE", "fr_FR", "tr_TR", "nl_NL")
_C = frozenset({"c", "posix"})


@dataclass(frozen=True)
class Elsewhere:
    """What the rerun changes besides the clock, and what it could not change."""

    locale: str | None  # LANG and LC_ALL; None: no other locale is installed
    own_locale: str  # the run's own (``LC_ALL``, else ``LC_CTYPE``, else ``LANG``; "C" unset)
    time_zone: str
    home: str
    user: str

    def environment(self) -> dict[str, str]:
        """The variables to set (besides the clock's)."""
        changed = {"TZ": self.time_zone, "HOME": self.home, "USER": self.user,
                   "LOGNAME": self.user}  # fmt: skip
        if self.locale is not None:
            changed.update(LANG=self.locale, LC_ALL=self.locale)
        return changed

    def notes(self) -> list[str]:
        """What the run's log should say: what the rerun could not change."""
        if self.locale is not None:
            return []
        return [
            f"not checked in another locale: only {self.own_locale} is installed "
            "(`locale -a`); locale-derived values may still be asserted"
        ]


def own_locale(environment: Mapping[str, str]) -> str:
    """The locale a process started with ``environment`` has for its text (LC_CTYPE)."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        if environment.get(name):
            return environment[name]
    return "C"


def _normal(name: str) -> str:
    """A locale's name as glibc compares it: ``C.UTF-8`` and ``C.utf8`` are one."""
    language, _, rest = name.partition(".")
    codeset, at, modifier = rest.partition("@")
    codeset = codeset.lower().replace("-", "")
    language = language.lower()
    return language + (f".{codeset}" if codeset else "") + (f"@{modifier}" if at else "")


def _language(name: str) -> str:
    return _normal(name).partition(".")[0].partition("_")[0]


def _utf8(name: str) -> bool:
    return _normal(name).partition(".")[2].startswith("utf8")


def _preference(name: str) -> tuple[int, str]:
    ranks = [i for i, prefix in enumerate(PREFERRED_LOCALES) if name.startswith(prefix)]
    return (ranks[0] if ranks else len(PREFERRED_LOCALES), name)


def other_locale(own: str, installed: Sequence[str]) -> str | None:
    """An installed locale that differs from ``own`` in what code reads of it, None when there
    is none: another language's UTF-8 locale (the preferred ones first); else C when the run's
    own is UTF-8; else a UTF-8 one (C.UTF-8) when it is not; else any other."""
    mine = _normal(own)
    others = [
        name for name in dict.fromkeys(installed)
        if _normal(name) != mine and not (mine in _C and _normal(name) in _C)
    ]  # fmt: skip
    languages = [n for n in others if _language(n) not in _C | {_language(own)} and _utf8(n)]
    if languages:
        return min(languages, key=_preference)
    plain_c = [n for n in others if _normal(n) in _C]
    if _utf8(own) and plain_c:
        return plain_c[0]
    wide = [n for n in others if _utf8(n)]
    if not _utf8(own) and wide:
        return wide[0]
    return others[0] if others else None


@functools.cache
def installed_locales() -> tuple[str, ...]:
    """``locale -a``'s list; C and POSIX, which every C library has, where it cannot run."""
    try:
        listed = subprocess.run(
            ["locale", "-a"], capture_output=True, text=True, timeout=10, check=False
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        listed = []
    return tuple(dict.fromkeys(["C", "POSIX", *listed]))


def other_time_zone(own: str | None) -> str:
    """A time zone other than the run's (``TZ``, else the machine's ``/etc/localtime``)."""
    folder = os.environ.get("TZDIR", "/usr/share/zoneinfo")
    machine = os.path.realpath("/etc/localtime")
    for zone in TIME_ZONES:
        if zone != own and not machine.endswith(f"/{zone}"):
            if os.path.isfile(os.path.join(folder, zone)):
                return zone
    return TIME_ZONE_RULE


def elsewhere(environment: Mapping[str, str] | None = None) -> Elsewhere:
    """The rerun's other place for a run started with ``environment`` (this process's)."""
    environment = os.environ if environment is None else environment
    own = own_locale(environment)
    home = os.path.join(tempfile.gettempdir(), f"{USER}-home")
    return Elsewhere(
        other_locale(own, installed_locales()), own, other_time_zone(environment.get("TZ")),
        home, USER,
    )  # fmt: skip


def elsewhere_environment(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` as the verification's rerun ``SEED`` has it: the clock ahead
    (``ahead_environment``), another locale, time zone, home folder and user name. The user's
    site-packages stay where they are (``PYTHONUSERBASE``): only ``~`` moves."""
    moved = dict(ahead_environment(environment), **elsewhere().environment())
    if "PYTHONUSERBASE" not in moved and "PYTHONUSERBASE" not in os.environ:
        moved["PYTHONUSERBASE"] = site.getuserbase()
    return moved
