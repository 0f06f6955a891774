"""The server's commands: ``miogen.generateTests``, ``miogen.insertTests``, ``miogen.cancel``,
and ``miogen.generateTestsForPaths``.

Each of the first three takes one argument, ``{"uri": ..., "unit": "Stack"}``; the last one
``{"uris": [...]}`` (files and folders). The handlers take what the client
sent as it is and check it here: a missing or malformed argument is answered with InvalidParams
and a message that shows the expected shape (pygls would call the handler without it, and answer
with a Python traceback).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from miogen.lsp.protocol import (
    CANCEL,
    GENERATE,
    GENERATE_PATHS,
    INSERT,
    CancelResult,
    GenerateResult,
    PathsResult,
)
from miogen.lsp.session import Session
from miogen.lsp.settings import plain

SHAPE = '{"uri": "file:///path/to/module.py", "unit": "ClassOrFunction"}'


def unit_ref(command: str, arguments: tuple[Any, ...]) -> tuple[str, str]:
    """(uri, unit) of the command's one argument, or InvalidParams saying what was expected."""
    values = [plain(argument) for argument in arguments]
    if len(values) != 1:
        raise JsonRpcInvalidParams(
            f"{command} takes one argument, {SHAPE}; got {len(values)} arguments"
        )
    if not isinstance(values[0], dict):
        raise JsonRpcInvalidParams(
            f"{command} takes one argument, {SHAPE}; got {_shown(values[0])}"
        )
    uri, unit = values[0].get("uri"), values[0].get("unit")
    if not isinstance(uri, str) or not isinstance(unit, str) or not uri or not unit:
        raise JsonRpcInvalidParams(
            f"{command} takes one argument, {SHAPE}; got {_shown(values[0])}"
        )
    return uri, unit


PATHS_SHAPE = '{"uris": ["file:///path/to/module.py", "file:///path/to/package"]}'


def path_refs(command: str, arguments: tuple[Any, ...]) -> list[str]:
    """The uris of the command's one argument, or InvalidParams saying what was expected."""
    values = [plain(argument) for argument in arguments]
    uris = values[0].get("uris") if len(values) == 1 and isinstance(values[0], dict) else None
    if (
        not isinstance(uris, list)
        or not uris
        or not all(isinstance(uri, str) and uri for uri in uris)
    ):
        shown = _shown(values[0] if len(values) == 1 else values)
        raise JsonRpcInvalidParams(f"{command} takes one argument, {PATHS_SHAPE}; got {shown}")
    return uris


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def register(server: LanguageServer, session: Session) -> None:
    @server.command(GENERATE)
    async def generate_tests(*arguments: Any) -> GenerateResult:
        return await session.commands.generate(*unit_ref(GENERATE, arguments))

    @server.command(INSERT)
    async def insert_tests(*arguments: Any) -> GenerateResult:
        return await session.commands.insert(*unit_ref(INSERT, arguments))

    @server.command(CANCEL)
    def cancel(*arguments: Any) -> CancelResult:
        return {"cancelled": session.commands.cancel(*unit_ref(CANCEL, arguments))}

    @server.command(GENERATE_PATHS)
    async def generate_for_paths(*arguments: Any) -> PathsResult:
        return await session.paths.generate(path_refs(GENERATE_PATHS, arguments))
