"""Code actions: insert the generated tests (``source.miogen.insertTests``, and quick fix on
uncovered branches), or generate them; the edit itself may wait for ``codeAction/resolve``."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.lsp.protocol import INSERT_KIND
from miogen.lsp.session import Session

KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.Source, INSERT_KIND]


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        context = params.context
        return await session.commands.code_actions(
            params.text_document.uri,
            (params.range.start.line, params.range.end.line),
            list(context.diagnostics or []),
            [str(kind) for kind in context.only or []],
        )

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(action: types.CodeAction) -> types.CodeAction:
        return await session.commands.resolve(action)
