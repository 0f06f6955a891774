"""Code actions: insert the generated tests (source, and quick fix on uncovered branches)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from miogen.lsp.server import MiogenServer

KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.Source]


def register(server: MiogenServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS)
    )
    async def code_action(
        ls: MiogenServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        context = params.context
        return await ls.session.commands.code_actions(
            params.text_document.uri,
            (params.range.start.line, params.range.end.line),
            list(context.diagnostics or []),
            [str(kind) for kind in context.only or []],
        )
