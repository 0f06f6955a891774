"""Hover on a unit's first line: what miogen knows of it (coverage, tests, state)."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.lsp.session import Session


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        return await session.hover(params.text_document.uri, params.position.line)
