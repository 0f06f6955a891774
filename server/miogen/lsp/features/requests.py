"""Custom requests: ``miogen/units`` lists the classes and functions of a file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from miogen.lsp.protocol import UNITS, UnitInfo
from miogen.lsp.settings import plain

if TYPE_CHECKING:
    from miogen.lsp.server import MiogenServer


def register(server: MiogenServer) -> None:
    @server.feature(UNITS)
    async def units(ls: MiogenServer, params: Any) -> list[UnitInfo]:
        uri = (plain(params) or {}).get("uri")
        return await ls.session.units(uri) if isinstance(uri, str) else []
