"""The server's commands: ``miogen.generateTests``, ``miogen.insertTests``, ``miogen.cancel``.

Arguments are structured from camelCase JSON by type annotation (pygls 2), hence the attrs class.
"""

from __future__ import annotations

import attrs
from pygls.lsp.server import LanguageServer

from miogen.lsp.protocol import CANCEL, GENERATE, INSERT, CancelResult, GenerateResult
from miogen.lsp.session import Session


@attrs.define
class UnitRef:
    """``{"uri": ..., "unit": "Stack"}``"""

    uri: str
    unit: str


def register(server: LanguageServer, session: Session) -> None:
    @server.command(GENERATE)
    async def generate_tests(ref: UnitRef) -> GenerateResult:
        return await session.commands.generate(ref.uri, ref.unit)

    @server.command(INSERT)
    async def insert_tests(ref: UnitRef) -> GenerateResult:
        return await session.commands.insert(ref.uri, ref.unit)

    @server.command(CANCEL)
    def cancel(ref: UnitRef) -> CancelResult:
        return {"cancelled": session.commands.cancel(ref.uri, ref.unit)}
