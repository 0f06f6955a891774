"""Custom requests: ``miogen/units`` lists the classes and functions of a file."""

from __future__ import annotations

from typing import Any

from pygls.lsp.server import LanguageServer

from miogen.lsp.answering import answer_malformed_requests
from miogen.lsp.protocol import UNITS, UnitInfo
from miogen.lsp.session import Session
from miogen.lsp.settings import plain


def register(server: LanguageServer, session: Session) -> None:
    answer_malformed_requests(server.protocol)  # a request of the wrong types gets an error

    @server.feature(UNITS)
    async def units(params: Any) -> list[UnitInfo]:
        uri = (plain(params) or {}).get("uri")
        return await session.units(uri) if isinstance(uri, str) else []
