"""The server's commands: ``miogen.generateTests``, ``miogen.insertTests``, ``miogen.cancel``.

Arguments are structured from camelCase JSON by type annotation (pygls 2), hence the attrs class.
"""

from __future__ import annotations

import attrs

from miogen.lsp.protocol import CANCEL, GENERATE, INSERT, CancelResult, GenerateResult
from miogen.lsp.server import MiogenServer  # resolved at run time: pygls reads the annotations


@attrs.define
class UnitRef:
    """``{"uri": ..., "unit": "Stack"}``"""

    uri: str
    unit: str


def register(server: MiogenServer) -> None:
    @server.command(GENERATE)
    async def generate_tests(ls: MiogenServer, ref: UnitRef) -> GenerateResult:
        return await ls.session.commands.generate(ref.uri, ref.unit)

    @server.command(INSERT)
    async def insert_tests(ls: MiogenServer, ref: UnitRef) -> GenerateResult:
        return await ls.session.commands.insert(ref.uri, ref.unit)

    @server.command(CANCEL)
    def cancel(ls: MiogenServer, ref: UnitRef) -> CancelResult:
        return {"cancelled": ls.session.commands.cancel(ref.uri, ref.unit)}
