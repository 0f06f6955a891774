"""A module's text for a spare worker to analyse while it waits for its job: one stdin line.

The host (``host.spare``) writes it; the worker (``worker.main``) reads it. Kept apart from
both, as ``records`` is, so that neither process imports the other's code.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

PREPARE = b"prepare "  # a line on a spare's stdin naming a text to analyse (JSON follows)


@dataclass(frozen=True)
class Preparation:
    """A module's text for a spare to analyse ahead of its job."""

    path: str  # the module file, as the job spec will name it
    module_name: str
    text_file: str  # a file holding the text (the editor's text may not be saved yet)

    def line(self) -> bytes:
        return PREPARE + json.dumps(asdict(self)).encode() + b"\n"

    @classmethod
    def parse(cls, line: bytes) -> Preparation | None:
        """The preparation a line asks for; None for any other line (the job spec)."""
        if not line.startswith(PREPARE):
            return None
        try:
            return cls(**json.loads(line[len(PREPARE) :]))
        except (TypeError, ValueError):
            return None
