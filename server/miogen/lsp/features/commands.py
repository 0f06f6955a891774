"""The server's commands: ``miogen.generateTests``, ``miogen.insertTests``, ``miogen.cancel``.

Each takes one argument, ``{"uri": ..., "unit": "Stack"}``. The handlers take what the client
sent as it is and check it here: a missing or malformed argument is answered with InvalidParams
and a message that shows the expected shape (pygls would call the handler without it, and answer
with a Python traceback).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from miogen.lsp.protocol import CANCEL, GENERATE, INSERT, CancelResult, GenerateResult
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
