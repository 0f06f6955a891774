"""The project's own virtual environment, found one way for all who need it: its Python
(``host.interpreter``) and its tools (``emit.tools``: ruff, black, mypy).

Kept apart from both (and free of miogen's other modules): ``host.interpreter`` is imported
before the worker is launched (``host.early``), where nothing of the engine or the emitter may
be loaded yet.
"""

from __future__ import annotations

from pathlib import Path

VENV_FOLDERS = (".venv", "venv", "env")  # the project's virtual environment, in this order


def project_environment(root: Path | None) -> Path | None:
    """The project's own virtual environment: the first of ``VENV_FOLDERS`` under ``root``
    with a ``bin`` folder; None where it has none."""
    if root is None:
        return None
    return next((root / n for n in VENV_FOLDERS if (root / n / "bin").is_dir()), None)
