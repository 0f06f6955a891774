"""A worker launched as a command starts, before the command's own imports and analysis.

``miogen generate`` spends most of a second importing the engine's front end and analysing the
module before its job's worker would start, and the worker then spends as long importing the
engine: launched first, the worker's start runs beside the command's. It is a spare
(``host.spare``): nothing of the user's runs in it before its job spec arrives, and it exits
when the command does, with or without a job. This module imports only the standard library and
``host.spare`` (with ``host.interpreter`` and ``errors``), so that the launch comes first.
"""

from __future__ import annotations

from collections.abc import Sequence

from miogen.host.spare import Spare, Spares

COMMANDS = ("generate",)  # the commands that run one job at once


class EarlyWorker:
    """One spare for one job (a ``SpareSource``): taken once, never refilled."""

    KEY = "early"

    def __init__(self) -> None:
        self.spares = Spares()
        self.spares.refill(self.KEY)

    @property
    def pid(self) -> int | None:
        spare = self.spares.current
        return spare.pid if spare is not None else None

    def take(self) -> Spare | None:
        return self.spares.take(self.KEY)

    def refill(self) -> None:
        """Nothing: the command runs one job (a restarted attempt starts its own worker)."""

    def close(self) -> None:
        """Stop the worker if no job took it (the command failed before its job, or had none)."""
        self.spares.close()


def early_worker(argv: Sequence[str]) -> EarlyWorker | None:
    """A worker for the command in ``argv`` when it will run a job, else None."""
    wants_help = any(arg in ("-h", "--help") for arg in argv)
    if not argv or argv[0] not in COMMANDS or wants_help:
        return None
    return EarlyWorker()
